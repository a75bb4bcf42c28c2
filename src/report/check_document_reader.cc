#include "hloscope/report/check_document_reader.h"

#include <algorithm>

#include "hloscope/report/enum_names.h"
#include "hloscope/support/saturating.h"

namespace hloscope {
namespace {

// ---- fields: missing reads as unknown, never as an error --------------------

const Json& Field(const Json& j, const char* key) {
  static const Json kNull;
  if (!j.is_object()) return kNull;
  auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}
std::string Str(const Json& j, const char* key) {
  const Json& v = Field(j, key);
  return v.is_string() ? v.get<std::string>() : "";
}
std::optional<int64_t> Int(const Json& j, const char* key) {
  const Json& v = Field(j, key);
  if (v.is_number_unsigned()) {
    uint64_t u = v.get<uint64_t>();
    return u > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(u);
  }
  if (v.is_number_integer()) return v.get<int64_t>();
  return std::nullopt;
}
bool Bool(const Json& j, const char* key) {
  const Json& v = Field(j, key);
  return v.is_boolean() && v.get<bool>();
}
std::optional<bool> OptBool(const Json& j, const char* key) {
  const Json& v = Field(j, key);
  return v.is_boolean() ? std::optional<bool>(v.get<bool>()) : std::nullopt;
}
const Json& Array(const Json& j, const char* key) {
  static const Json kEmpty = Json::array();
  const Json& v = Field(j, key);
  return v.is_array() ? v : kEmpty;
}

// The value of a closed set whose name (enum_names.h) is `text`.
template <typename E, size_t N>
std::optional<E> Named(const std::string& text, const E (&values)[N], std::string_view (*name)(E)) {
  for (E v : values)
    if (name(v) == text) return v;
  return std::nullopt;
}

constexpr CopyKind kCopyKinds[] = {CopyKind::kCopy, CopyKind::kCopyStart, CopyKind::kCopyFusion};
constexpr UpdateVerdict kVerdicts[] = {UpdateVerdict::kInPlace, UpdateVerdict::kInPlaceOnCopy,
                                       UpdateVerdict::kOutOfPlace, UpdateVerdict::kNotMaterialized};
constexpr TripCountSource kTripSources[] = {TripCountSource::kKnownTripCount,
                                            TripCountSource::kInductionVariable, TripCountSource::kUnknown};
constexpr CollectiveCause kCollectiveCauses[] = {
#define COLLECTIVE_CAUSE(e, ...) CollectiveCause::e,
#include "hloscope/analysis/cause_catalog.def"
#undef COLLECTIVE_CAUSE
};
constexpr LoopScaling::Kind kScalingKinds[] = {LoopScaling::Kind::kCopy, LoopScaling::Kind::kCarryRewritten,
                                               LoopScaling::Kind::kCollective, LoopScaling::Kind::kWholeRead};

std::optional<DocSource> SourceOf(const Json& finding) {
  const Json& s = Field(finding, "source");
  if (!s.is_object()) return std::nullopt;
  return DocSource{Str(s, "text"), Str(s, "file"), Int(s, "line").value_or(0), Str(s, "function"),
                   Str(s, "op_name")};
}

DocCopy ReadCopy(const Json& c) {
  DocCopy d;
  d.instruction = Str(c, "instruction");
  d.computation = Str(c, "computation");
  d.kind_text = Str(c, "kind");
  d.kind = Named(d.kind_text, kCopyKinds, &CopyKindName);
  d.shape = Str(c, "shape");
  d.bytes = Int(c, "bytes");
  d.executions = Int(c, "executions");
  d.total_bytes = Int(c, "total_bytes");
  // "minor" (scalar copies and small constant prefetches) since JSON 1.x;
  // older reports have only "scalar".
  d.minor = Field(c, "minor").is_boolean() ? Bool(c, "minor") : Bool(c, "scalar");
  d.loop_depth = Array(c, "enclosing_loops").size();
  // A document from before the field (JSON 2.x): whether it grows is
  // unknown, and an unknown copy is never judged small.
  d.grows_with_buffer = Field(c, "grows_with_buffer").is_boolean() ? Bool(c, "grows_with_buffer") : true;
  d.cause_text = Str(c, "cause");
  d.cause = CopyCauseNamed(d.cause_text);
  d.source = SourceOf(c);
  return d;
}

DocUpdate ReadUpdate(const Json& u) {
  DocUpdate d;
  d.instruction = Str(u, "instruction");
  d.computation = Str(u, "computation");
  d.opcode = Str(u, "opcode");
  d.fused = !Field(u, "fusion").is_null();
  d.verdict_text = Str(u, "verdict");
  d.verdict = Named(d.verdict_text, kVerdicts, &UpdateVerdictName);
  d.confirmed = OptBool(u, "confirmed");
  d.full_rewrite = Bool(u, "full_rewrite");
  d.bytes_written = Int(u, "bytes_written");
  d.executions = Int(u, "executions");
  d.buffer_bytes = Int(u, "buffer_bytes");
  // Older documents have no enclosing_loops on updates: more than one run
  // per call is inside a loop.
  d.loop_depth = Field(u, "enclosing_loops").is_array() ? Array(u, "enclosing_loops").size()
                 : (d.executions && *d.executions > 1)  ? 1
                                                        : 0;
  d.runs_on = Str(Field(u, "runs_on"), "instruction");
  d.source = SourceOf(u);
  return d;
}

DocLoop ReadLoop(const Json& l) {
  DocLoop d;
  d.instruction = Str(l, "instruction");
  d.computation = Str(l, "computation");
  d.trip_count = Int(l, "trip_count");
  d.trip_count_source_text = Str(l, "trip_count_source");
  d.trip_count_source = Named(d.trip_count_source_text, kTripSources, &TripCountSourceName);
  d.executions = Int(l, "executions");
  d.copy_bytes_per_iteration = Int(l, "copy_bytes_per_iteration");
  d.rewrite_bytes_per_iteration = Int(l, "rewrite_bytes_per_iteration");
  d.loop_depth = Array(l, "enclosing_loops").size();
  for (const Json& sc : Array(l, "scaling")) {
    DocScaling s;
    s.kind = Named(Str(sc, "kind"), kScalingKinds, &ScalingKindName);
    s.carry = Int(sc, "carry");
    s.shape = Str(sc, "shape");
    s.bytes = Int(sc, "bytes");
    s.grows_with_buffer = Bool(sc, "grows_with_buffer");
    s.confirmed = OptBool(sc, "confirmed");
    s.rewritten_by = Str(Field(sc, "rewritten_by"), "instruction");
    d.scaling.push_back(std::move(s));
  }
  d.source = SourceOf(l);
  return d;
}

DocCollective ReadCollective(const Json& c) {
  DocCollective d;
  d.instruction = Str(c, "instruction");
  d.computation = Str(c, "computation");
  d.family = Str(c, "family");
  d.shape = Str(c, "shape");
  d.cause_text = Str(c, "cause");
  d.cause = Named(d.cause_text, kCollectiveCauses, &CollectiveCauseName);
  d.bytes = Int(c, "bytes");
  d.executions = Int(c, "executions");
  d.total_bytes = Int(c, "total_bytes");
  d.loop_depth = Array(c, "enclosing_loops").size();
  d.grows_with_buffer = Bool(c, "grows_with_buffer");
  d.source = SourceOf(c);
  return d;
}

DocKernel ReadKernel(const Json& k) {
  DocKernel d;
  d.instruction = Str(k, "instruction");
  d.kind = Str(k, "kind");
  d.shape = Str(k, "shape");
  const Json& counts = Field(k, "opcode_counts");
  if (counts.is_object())
    for (auto it = counts.begin(); it != counts.end(); ++it) d.opcodes.push_back(it.key());
  std::sort(d.opcodes.begin(), d.opcodes.end());
  d.bytes_read = Int(k, "bytes_read");
  d.bytes_written = Int(k, "bytes_written");
  d.bytes_per_call = Int(k, "bytes_per_call");
  d.executions = Int(k, "executions");
  if (std::optional<int64_t> f = Int(k, "flops")) d.flops = SatAdd(*f, Int(k, "transcendentals").value_or(0));
  d.loop_depth = Array(k, "enclosing_loops").size();
  d.source = SourceOf(k);
  if (const Json& served = Field(k, "serves"); served.is_object()) d.serves_source = SourceOf(served);
  return d;
}

DocMemoryBuffer ReadMemoryBuffer(const Json& b, const char* role_key) {
  DocMemoryBuffer d;
  d.role = Str(b, role_key);
  d.shape = Str(b, "shape");
  d.bytes = Int(b, "bytes");
  const Json& value = Field(b, "value");
  d.instruction = Str(value, "instruction");
  d.computation = Str(value, "computation");
  const Json& argument = Field(b, "argument");
  d.parameter_number = Int(argument, "number");
  d.argument_memory = Str(argument, "memory");
  d.value_kind = Str(b, "value_kind");
  d.source = SourceOf(b);
  return d;
}

std::optional<DocMemory> ReadMemory(const Json& m) {
  const Json& j = Field(m, "memory");
  if (!j.is_object()) return std::nullopt;
  DocMemory d;
  d.peak_bytes = Int(j, "peak_bytes");
  for (const Json& s : Array(j, "spaces")) {
    if (Int(s, "color").value_or(-1) != 0) continue;
    d.argument_bytes = Int(s, "argument_bytes");
    d.output_bytes = Int(s, "output_bytes");
    d.alias_bytes = Int(s, "alias_bytes");
    d.temp_bytes = Int(s, "temp_bytes");
  }
  for (const Json& a : Array(j, "allocations"))
    if (Int(a, "color").value_or(0) == 0) d.allocations.push_back(ReadMemoryBuffer(a, "role"));
  d.allocation_count = Int(j, "allocation_count");
  const Json& peak = Field(j, "temp_peak");
  if (Int(peak, "color").value_or(-1) == 0) {
    d.temp_live_bytes = Int(peak, "live_bytes");
    for (const Json& v : Array(peak, "live")) d.live.push_back(ReadMemoryBuffer(v, "kind"));
    d.live_count = Int(peak, "live_count");
  }
  return d;
}

}  // namespace

CheckDocument ReadCheckDocument(const Json& doc) {
  CheckDocument out;
  for (const Json& m : Array(doc, "modules")) out.modules.push_back(ReadDocModule(m));
  return out;
}

DocModule ReadDocModule(const Json& m) {
  DocModule d;
  d.name = Str(m, "name");
  d.entry = Str(m, "entry");
  d.path = Str(m, "path");
  d.entry_signature = Str(m, "entry_signature");
  d.devices = Int(Field(m, "spmd"), "devices").value_or(1);
  const Json& answer = Field(m, "answer");
  d.stands_out = Bool(answer, "stands_out");
  if (const Json& s = Field(Field(answer, "basis"), "estimated_seconds"); s.is_number())
    d.estimated_seconds = s.get<double>();
  for (const Json& p : Array(m, "parameters")) {
    DocParameter q;
    q.number = Int(p, "number");
    q.name = Str(p, "name");
    q.shape = Str(p, "shape");
    q.bytes = Int(p, "bytes");
    q.donated = Bool(p, "donated");
    q.copied = Bool(p, "copied");
    for (const Json& c : Array(p, "copies"))
      q.copies.push_back({Str(c, "instruction"), Str(c, "computation")});
    d.parameters.push_back(std::move(q));
  }
  for (const Json& c : Array(m, "copies")) d.copies.push_back(ReadCopy(c));
  for (const Json& u : Array(m, "updates")) d.updates.push_back(ReadUpdate(u));
  for (const Json& l : Array(m, "loops")) d.loops.push_back(ReadLoop(l));
  for (const Json& c : Array(m, "collectives")) d.collectives.push_back(ReadCollective(c));
  d.has_kernels = Field(m, "kernels").is_array();
  for (const Json& k : Array(m, "kernels")) d.kernels.push_back(ReadKernel(k));
  d.memory = ReadMemory(m);
  return d;
}

}  // namespace hloscope
