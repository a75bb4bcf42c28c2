#include "diff_groups.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "hloscope/support/saturating.h"

namespace hloscope::diff_internal {

// ---- reading a check document (fields may be missing in a hand-edited or
// older baseline: missing reads as unknown, never as an error) ----

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
size_t Count(const Json& j, const char* key) {
  const Json& v = Field(j, key);
  return v.is_array() ? v.size() : 0;
}
const Json& Array(const Json& j, const char* key) {
  static const Json kEmpty = Json::array();
  const Json& v = Field(j, key);
  return v.is_array() ? v : kEmpty;
}

std::string WithoutLayout(std::string_view shape) {
  std::string out;
  int depth = 0;
  for (char c : shape) {
    if (c == '{') ++depth;
    if (depth == 0) out.push_back(c);
    if (c == '}' && depth > 0) --depth;
  }
  return out;
}

SourceFacts SourceOf(const Json& finding) {
  const Json& s = Field(finding, "source");
  SourceFacts f{Str(s, "text"), Str(s, "function"), Str(s, "op_name"), ""};
  // The path without the components JAX versions spell differently:
  // jit(NAME)/pjit(NAME) roots, and the call wrappers (closed_call in
  // 0.10, eval_jaxpr in 0.12, core_call, remat, checkpoint).
  std::string_view rest = f.op_name;
  bool first = true;
  while (!rest.empty()) {
    size_t slash = rest.find('/');
    std::string_view part = rest.substr(0, slash);
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
    bool wrapper = part == "closed_call" || part == "eval_jaxpr" || part == "core_call" || part == "remat" ||
                   part == "checkpoint" ||
                   (first && (part.rfind("jit(", 0) == 0 || part.rfind("pjit(", 0) == 0));
    first = false;
    if (wrapper) continue;
    if (!f.scope.empty()) f.scope.push_back('/');
    f.scope.append(part);
  }
  return f;
}

namespace {

class SideBuilder {
 public:
  SideBuilder(const Json& module, const DiffOptions& options) : module_(module), options_(options) {
    for (const Json& p : Array(module, "parameters"))
      for (const Json& c : Array(p, "copies"))
        copied_params_[Str(c, "instruction") + "\n" + Str(c, "computation")] = Str(p, "name");
  }

  std::vector<Group> Build() {
    for (const Json& p : Array(module_, "parameters")) AddParameter(p);
    for (const Json& c : Array(module_, "copies")) AddCopy(c);
    for (const Json& u : Array(module_, "updates")) AddUpdate(u);
    for (const Json& l : Array(module_, "loops")) AddLoop(l);
    for (const Json& k : Array(module_, "kernels")) AddKernel(k);
    return std::move(groups_);
  }

 private:
  void Add(DiffKind kind, std::string exact, std::string loose, std::string fallback, std::string what,
           SourceFacts source, const Json& finding, DiffSide one) {
    std::string scope = fallback + "|" + source.scope;
    one.count = 1;
    one.instructions = {Str(finding, "instruction")};
    auto [it, fresh] = index_.try_emplace(exact, groups_.size());
    if (fresh) {
      groups_.push_back({kind, std::move(exact), std::move(loose), std::move(scope), std::move(fallback),
                         std::move(what), std::move(source), std::move(one)});
      return;
    }
    DiffSide& s = groups_[it->second].side;
    ++s.count;
    s.instructions.push_back(one.instructions[0]);
    s.bytes = SatAdd(s.bytes, one.bytes);
    s.bytes_per_call = SatAdd(s.bytes_per_call, one.bytes_per_call);
    if (!s.executions || (one.executions && *one.executions > *s.executions)) s.executions = one.executions;
    if (!s.array_bytes || (one.array_bytes && *one.array_bytes > *s.array_bytes))
      s.array_bytes = one.array_bytes;
    s.in_loop |= one.in_loop;
    if (s.tied_parameter.empty()) s.tied_parameter = one.tied_parameter;
  }

  void AddParameter(const Json& p) {
    DiffSide s;
    s.shape = WithoutLayout(Str(p, "shape"));
    s.bytes = Int(p, "bytes");
    s.array_bytes = s.bytes;
    s.state = Bool(p, "donated") ? "donated" : "not donated";
    if (Bool(p, "copied")) s.state += ", copied";
    std::string number = std::to_string(Int(p, "number").value_or(-1));
    Add(DiffKind::kParameter, "parameter|" + number, "parameter|" + number, "parameter|" + number,
        fmt::format("parameter {} {}", number, Str(p, "name")), {}, p, std::move(s));
  }

  void AddCopy(const Json& c) {
    // "minor" (scalar copies and small constant prefetches) since JSON 1.x; older
    // reports have only "scalar".
    bool scalar = Field(c, "minor").is_boolean() ? Bool(c, "minor") : Bool(c, "scalar");
    SourceFacts src = SourceOf(c);
    size_t depth = Count(c, "enclosing_loops");
    DiffSide s;
    s.shape = WithoutLayout(Str(c, "shape"));
    s.bytes = Int(c, "bytes");
    s.bytes_per_call = Int(c, "total_bytes");
    s.executions = Int(c, "executions");
    s.array_bytes = s.bytes;
    s.state = Str(c, "cause");
    s.scalar = scalar;
    s.in_loop = depth > 0;
    auto tied = copied_params_.find(Str(c, "instruction") + "\n" + Str(c, "computation"));
    if (tied != copied_params_.end()) s.tied_parameter = tied->second;
    if (scalar && !options_.count_scalar_copies) {
      // Loop counters and loop-start constants: one item, as check shows them.
      s.state = "";
      s.tied_parameter = "";
      Add(DiffKind::kCopy, "copy|scalar", "copy|scalar", "copy|scalar", "scalar copies", {}, c, std::move(s));
      return;
    }
    std::string pattern = ShapePattern(s.shape);
    std::string kind = Str(c, "kind");
    std::string what = fmt::format("{} {} ({})", kind.empty() ? "copy" : kind, pattern, s.state);
    std::string exact =
        fmt::format("copy|{}|{}|{}|{}|{}|{}", kind, s.state, pattern, src.text, src.op_name, depth);
    std::string loose = fmt::format("copy|{}|{}|{}|{}|{}", kind, pattern, src.function, src.op_name, depth);
    std::string fallback = fmt::format("copy|{}|{}|{}|{}", kind, s.state, pattern, depth);
    Add(DiffKind::kCopy, std::move(exact), std::move(loose), std::move(fallback), std::move(what), src, c,
        std::move(s));
  }

  void AddUpdate(const Json& u) {
    SourceFacts src = SourceOf(u);
    std::string opcode = Str(u, "opcode");
    bool fused = !Field(u, "fusion").is_null();
    DiffSide s;
    s.bytes = Int(u, "bytes_written");
    s.executions = Int(u, "executions");
    s.bytes_per_call = SatMul(s.bytes, s.executions);
    s.array_bytes = Int(u, "buffer_bytes");
    s.state = Str(u, "verdict");
    s.in_loop = s.executions && *s.executions > 1;
    std::string what = fmt::format("{}{}", opcode, fused ? " (fused)" : "");
    std::string exact = fmt::format("update|{}|{}|{}|{}", opcode, fused, src.text, src.op_name);
    std::string loose = fmt::format("update|{}|{}|{}|{}|-", opcode, fused, src.function, src.op_name);
    std::string fallback = fmt::format("update|{}|{}", opcode, fused);
    Add(DiffKind::kUpdate, std::move(exact), std::move(loose), std::move(fallback), std::move(what), src, u,
        std::move(s));
  }

  void AddLoop(const Json& l) {
    SourceFacts src = SourceOf(l);
    size_t depth = Count(l, "enclosing_loops");
    DiffSide s;
    s.copy_bytes_per_iteration = Int(l, "copy_bytes_per_iteration");
    s.bytes = SatAdd(s.copy_bytes_per_iteration, Int(l, "rewrite_bytes_per_iteration"));
    s.trip_count = Int(l, "trip_count");
    s.executions = Int(l, "executions");
    s.bytes_per_call = SatMul(SatMul(s.bytes, s.trip_count), s.executions);
    s.state = Str(l, "trip_count_source");
    s.in_loop = depth > 0;
    std::string what = depth > 0 ? fmt::format("loop (nested {} deep)", depth) : "loop";
    std::string exact = fmt::format("loop|{}|{}|{}", src.text, src.op_name, depth);
    std::string loose = fmt::format("loop|{}|{}|{}", src.function, src.op_name, depth);
    std::string fallback = fmt::format("loop|{}", depth);
    // Its carries rewritten in full: by carry number within the loop.
    for (const Json& sc : Array(l, "scaling")) {
      if (Str(sc, "kind") != "carry-rewrite") continue;
      std::optional<int64_t> carry = Int(sc, "carry");
      DiffSide c;
      c.shape = WithoutLayout(Str(sc, "shape"));
      c.bytes = Int(sc, "bytes");
      c.array_bytes = c.bytes;
      c.executions = SatMul(s.trip_count, s.executions);
      c.bytes_per_call = SatMul(c.bytes, c.executions);
      c.in_loop = true;
      std::string n = carry ? std::to_string(*carry) : "?";
      std::string carry_what =
          fmt::format("carry {} {} of the loop (rewritten in full)", n, ShapePattern(c.shape));
      const Json& by = Field(sc, "rewritten_by");
      Json named = Json::object();
      named["instruction"] = Str(by, "instruction");
      Add(DiffKind::kCarry, exact + "|carry|" + n, loose + "|carry|" + n, fallback + "|carry|" + n,
          carry_what, src, named, std::move(c));
    }
    Add(DiffKind::kLoop, std::move(exact), std::move(loose), std::move(fallback), std::move(what), src, l,
        std::move(s));
  }

  void AddKernel(const Json& k) {
    SourceFacts src = SourceOf(k);
    size_t depth = Count(k, "enclosing_loops");
    std::vector<std::string> ops;
    const Json& counts = Field(k, "opcode_counts");
    if (counts.is_object())
      for (auto it = counts.begin(); it != counts.end(); ++it) ops.push_back(it.key());
    std::sort(ops.begin(), ops.end());
    std::string opset = fmt::format("{}", fmt::join(ops, ","));
    DiffSide s;
    s.shape = WithoutLayout(Str(k, "shape"));
    s.bytes = SatAdd(Int(k, "bytes_read"), Int(k, "bytes_written"));
    s.bytes_per_call = Int(k, "bytes_per_call");
    s.executions = Int(k, "executions");
    s.in_loop = depth > 0;
    std::string pattern = ShapePattern(s.shape);
    std::string kind = Str(k, "kind");
    std::string what = fmt::format("kernel {} {}", kind, pattern);
    std::string exact =
        fmt::format("kernel|{}|{}|{}|{}|{}|{}", kind, opset, pattern, src.text, src.op_name, depth);
    std::string loose =
        fmt::format("kernel|{}|{}|{}|{}|{}|{}", kind, opset, pattern, src.function, src.op_name, depth);
    std::string fallback = fmt::format("kernel|{}|{}|{}|{}", kind, opset, pattern, depth);
    Add(DiffKind::kKernel, std::move(exact), std::move(loose), std::move(fallback), std::move(what), src, k,
        std::move(s));
  }

  const Json& module_;
  const DiffOptions& options_;
  std::map<std::string, std::string> copied_params_;  // copy instruction + computation -> parameter name
  std::map<std::string, size_t> index_;
  std::vector<Group> groups_;
};

}  // namespace

std::vector<Group> GroupFindings(const Json& module, const DiffOptions& options) {
  return SideBuilder(module, options).Build();
}

}  // namespace hloscope::diff_internal
