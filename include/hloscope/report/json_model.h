// The JSON model: one envelope for every command and one shape per concept
// (source location, instruction reference, position, copy, update, loop,
// parameter, kernel, gate violation), shared by every command that shows
// it. docs/json-format.md documents each shape; docs/schema/*.schema.json
// are the JSON Schemas tests validate every command's output against.
#ifndef HLOSCOPE_REPORT_JSON_MODEL_H_
#define HLOSCOPE_REPORT_JSON_MODEL_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "hloscope/analysis/findings.h"
#include "hloscope/analysis/fusion_summary.h"
#include "hloscope/analysis/line_facts.h"
#include "hloscope/analysis/policy.h"

namespace hloscope {

// Ordered: keys come out in the order the model writes them.
using Json = nlohmann::ordered_json;

// The version of every JSON document hloscope writes. It changes when a
// field changes meaning or disappears; fields may be added within a version.
inline constexpr int kJsonSchemaVersion = 2;

// {"schema_version", "tool", "tool_version", "command"}; the caller adds
// its own fields (query, scope) and then "modules".
// A JSON string of a view (ordered_json has no string_view constructor).
Json Str(std::string_view s);
Json JsonEnvelope(std::string_view command);
// The fields every module object starts with: {"name", "entry", "path"}.
Json ModuleHeaderJson(const HloModule& module);
// The document as text: two-space indent and a newline; invalid UTF-8 in
// names or paths is replaced, never an abort.
std::string JsonText(const Json& doc);

template <typename T>
Json Opt(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}

// {"file", "line", "column", "function", "op_name", "via", "text"}; null
// when there is no location.
Json SourceJson(const std::optional<SourceLocation>& source);
// {"instruction", "computation"}; null for nullptr.
Json RefJson(const HloInstruction* instr);
// {"instruction", "computation", "index"}.
Json PositionJson(const HloPosition& pos);
// {"instruction", "computation", "fusion"}.
Json UpdateRefJson(const UpdateSite& site);

Json CopyJson(const CopyFinding& copy);
// {"family", ...the family's facts}: the typed facts of a copy's cause
// rule; null when no rule matched.
Json CauseFactsToJson(const CopyFinding& copy);
Json UpdateJson(const UpdateFinding& update);
Json LoopJson(const LoopFinding& loop);
Json ParameterJson(const ModuleCheck& module, const ParameterFinding& parameter);
Json CollectiveJson(const CollectiveFinding& collective);
// {"replica_count", "num_partitions", "devices", "mesh": [{"name", "size"}], "text"}.
Json SpmdJson(const SpmdFacts& spmd);
Json KernelJson(const FusionSummary& kernel);
Json ViolationJson(const Violation& violation);
// A read of an old value that forces a copy (where, annotate):
// {"reader": {instruction, computation, source}, "value": position, "forces_copy": position}.
Json LineReadJson(const LineRead& read, const std::optional<SourceLocation>& reader_source);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_JSON_MODEL_H_
