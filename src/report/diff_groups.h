// Diff groups: one side of `hloscope diff` — a check document's findings
// grouped by identity (check_diff.h explains the identities). Internal to
// the report layer.
#ifndef HLOSCOPE_SRC_REPORT_DIFF_GROUPS_H_
#define HLOSCOPE_SRC_REPORT_DIFF_GROUPS_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hloscope/report/check_diff.h"

namespace hloscope::diff_internal {

// Reading a check document: fields may be missing in a hand-edited or
// older baseline; missing reads as unknown, never as an error.
const Json& Field(const Json& j, const char* key);
std::string Str(const Json& j, const char* key);
std::optional<int64_t> Int(const Json& j, const char* key);
const Json& Array(const Json& j, const char* key);
std::string WithoutLayout(std::string_view shape);

struct SourceFacts {
  std::string text, function, op_name;
  std::string scope;  // op_name without jit(NAME)/ and JAX's call wrappers
};

struct Group {
  DiffKind kind;
  // exact: with the line; loose: the line left out (it moved), by function;
  // scope: by the op_name's scope path (a renamed function, another JAX);
  // fallback: what it is and where it runs (another JAX attributing it to
  // another line), matched in order.
  std::string exact, loose, scope, fallback;
  std::string what;
  SourceFacts source;
  DiffSide side;
  bool matched = false;
};

// Every finding of one module object, grouped.
std::vector<Group> GroupFindings(const Json& module, const DiffOptions& options);

}  // namespace hloscope::diff_internal

#endif  // HLOSCOPE_SRC_REPORT_DIFF_GROUPS_H_
