#include "hloscope/report/check_diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "hloscope/support/human_bytes.h"
#include "hloscope/support/saturating.h"

namespace hloscope {
namespace {

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

struct SourceFacts {
  std::string text, function, op_name;
  std::string scope;  // op_name without its leading jit(NAME)/ or pjit(NAME)/
};
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

// ---- one side: findings grouped by identity ----

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
    bool scalar = Bool(c, "scalar");
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

std::optional<double> Ratio(std::optional<int64_t> a, std::optional<int64_t> b) {
  if (!a || !b) return std::nullopt;
  if (*a == 0 && *b == 0) return 1.0;
  if (*a <= 0 || *b <= 0) return std::nullopt;
  return static_cast<double>(*b) / static_cast<double>(*a);
}

std::string Bytes(std::optional<int64_t> b) { return b ? HumanBytes(*b) : "?"; }
}  // namespace

std::string RatioText(double r) { return r >= 100 ? fmt::format("{:.0f}", r) : fmt::format("{:.3g}", r); }

namespace {
std::string Number(std::optional<int64_t> n) { return n ? std::to_string(*n) : "?"; }

void Compare(const ModuleDiff& m, DiffItem* item) {
  const DiffSide& a = *item->a;
  const DiffSide& b = *item->b;
  item->bytes_ratio = Ratio(a.bytes, b.bytes);
  item->per_call_ratio = Ratio(a.bytes_per_call, b.bytes_per_call);
  if (item->bytes_ratio && m.size_ratio && std::abs(std::log(*m.size_ratio)) > 1e-9)
    item->exponent = std::log(*item->bytes_ratio) / std::log(*m.size_ratio);
  // Arguments are what the experiment changes, not findings that grow.
  item->grows = item->kind != DiffKind::kParameter && item->exponent && *item->exponent >= 0.5 &&
                std::abs(std::log(*item->bytes_ratio)) > std::log(1.05);
  if (item->grows) {
    // The argument it tracks: the one it copies, else one that grew as much
    // as the array involved, else the one that grew the most.
    std::optional<double> array_ratio = Ratio(a.array_bytes, b.array_bytes);
    for (const SizeChange& sc : m.sizes)
      if (!b.tied_parameter.empty() && sc.name == b.tied_parameter) item->grows_with = sc.name;
    if (item->grows_with.empty() && array_ratio)
      for (const SizeChange& sc : m.sizes)
        if (std::abs(std::log(sc.ratio / *array_ratio)) < std::log(1.05)) {
          item->grows_with = sc.name;
          break;
        }
    if (item->grows_with.empty()) item->grows_with = m.size_parameter;
  }

  auto change = [&](std::string text) { item->changes.push_back(std::move(text)); };
  const char* noun = item->kind == DiffKind::kUpdate   ? "updates"
                     : item->kind == DiffKind::kKernel ? "kernels"
                                                       : "copies";
  if (a.count != b.count && item->kind != DiffKind::kParameter && item->kind != DiffKind::kLoop)
    change(fmt::format("{} → {} {}", a.count, b.count, noun));
  if (a.state != b.state) {
    const char* what = item->kind == DiffKind::kCopy        ? "cause"
                       : item->kind == DiffKind::kUpdate    ? "verdict"
                       : item->kind == DiffKind::kLoop      ? "trip count from"
                       : item->kind == DiffKind::kParameter ? "parameter"
                                                            : "state";
    change(
        fmt::format("{}: {} → {}", what, a.state.empty() ? "-" : a.state, b.state.empty() ? "-" : b.state));
  }
  if (item->kind == DiffKind::kParameter && a.shape != b.shape)
    change(fmt::format("{} → {}", a.shape, b.shape));
  if (item->kind == DiffKind::kLoop && a.trip_count != b.trip_count)
    change(fmt::format("trip count {} → {}", Number(a.trip_count), Number(b.trip_count)));
  if (a.bytes != b.bytes && item->kind != DiffKind::kParameter) {
    const char* per = item->kind == DiffKind::kLoop ? "per iteration" : "per run";
    std::string ratio = item->bytes_ratio ? fmt::format(" (×{})", RatioText(*item->bytes_ratio)) : "";
    change(fmt::format("{} → {} {}{}", Bytes(a.bytes), Bytes(b.bytes), per, ratio));
  }
  if (a.executions != b.executions && item->kind != DiffKind::kParameter && item->kind != DiffKind::kLoop)
    change(fmt::format("runs {} → {} times per call", Number(a.executions), Number(b.executions)));
  item->status = item->changes.empty() ? DiffStatus::kUnchanged : DiffStatus::kChanged;
}

std::string SignaturePattern(const std::string& signature) { return ShapePattern(signature); }

std::string ModuleLabel(const Json& m) {
  return fmt::format("{} {} in {}", Str(m, "name"), Str(m, "entry_signature"),
                     Str(m, "path").empty() ? std::string("<text>") : Str(m, "path"));
}

}  // namespace

std::string_view DiffKindName(DiffKind kind) {
  switch (kind) {
    case DiffKind::kParameter:
      return "parameter";
    case DiffKind::kCopy:
      return "copy";
    case DiffKind::kUpdate:
      return "update";
    case DiffKind::kLoop:
      return "loop";
    case DiffKind::kCarry:
      return "carry";
    case DiffKind::kKernel:
      return "kernel";
  }
  return "copy";
}

std::string_view DiffStatusName(DiffStatus status) {
  switch (status) {
    case DiffStatus::kOnlyInA:
      return "only-in-a";
    case DiffStatus::kOnlyInB:
      return "only-in-b";
    case DiffStatus::kChanged:
      return "changed";
    case DiffStatus::kUnchanged:
      return "unchanged";
  }
  return "unchanged";
}

std::string ShapePattern(std::string_view shape) {
  std::string out;
  bool in_dims = false;
  int depth = 0;
  for (size_t i = 0; i < shape.size(); ++i) {
    char c = shape[i];
    if (c == '{') ++depth;
    if (depth > 0) {
      if (c == '}') --depth;
      continue;
    }
    if (c == '[') in_dims = true;
    if (c == ']') in_dims = false;
    if (in_dims && (std::isdigit(static_cast<unsigned char>(c)) || c == '<' || c == '=' || c == '?')) {
      // One `_` per dimension: "16384" and "<=8" alike.
      if (out.empty() || out.back() != '_') out.push_back('_');
      continue;
    }
    out.push_back(c);
  }
  return out;
}

ModuleDiff DiffModules(const Json& a, const Json& b, const DiffOptions& options) {
  ModuleDiff m;
  m.a_name = Str(a, "name");
  m.b_name = Str(b, "name");
  m.a_path = Str(a, "path");
  m.b_path = Str(b, "path");
  m.a_signature = Str(a, "entry_signature");
  m.b_signature = Str(b, "entry_signature");
  m.kernels_compared = Field(a, "kernels").is_array() && Field(b, "kernels").is_array();

  // Argument sizes: the experiment's independent variable.
  std::map<int64_t, const Json*> b_params;
  for (const Json& p : Array(b, "parameters"))
    if (std::optional<int64_t> n = Int(p, "number")) b_params[*n] = &p;
  double best = 0;
  for (const Json& p : Array(a, "parameters")) {
    std::optional<int64_t> n = Int(p, "number");
    if (!n || !b_params.count(*n)) continue;
    const Json& q = *b_params[*n];
    std::optional<double> r = Ratio(Int(p, "bytes"), Int(q, "bytes"));
    if (!r || std::abs(std::log(*r)) < 1e-9) continue;
    m.sizes.push_back({*n, Str(q, "name"), WithoutLayout(Str(p, "shape")), WithoutLayout(Str(q, "shape")),
                       Int(p, "bytes"), Int(q, "bytes"), *r});
    if (std::abs(std::log(*r)) > best) {
      best = std::abs(std::log(*r));
      m.size_ratio = *r;
      m.size_parameter = Str(q, "name");
    }
  }

  std::vector<Group> ga = SideBuilder(a, options).Build();
  std::vector<Group> gb = SideBuilder(b, options).Build();
  std::map<std::string, size_t> b_exact;
  for (size_t i = 0; i < gb.size(); ++i) b_exact[gb[i].exact] = i;

  auto item_of = [](const Group& g) {
    DiffItem item;
    item.kind = g.kind;
    item.what = g.what;
    item.source = g.source.text;
    item.op_name = g.source.op_name;
    return item;
  };
  std::vector<std::pair<size_t, size_t>> pairs;
  for (size_t i = 0; i < ga.size(); ++i) {
    auto it = b_exact.find(ga[i].exact);
    if (it == b_exact.end() || gb[it->second].matched) continue;
    ga[i].matched = gb[it->second].matched = true;
    pairs.push_back({i, it->second});
  }
  // Moved lines: the rest by identity without the line (same function),
  // then by scope path (a renamed function, another JAX), then by what it
  // is and where it runs, each in order.
  for (std::string Group::*key : {&Group::loose, &Group::scope, &Group::fallback}) {
    std::map<std::string, std::vector<size_t>> b_key;
    for (size_t i = 0; i < gb.size(); ++i)
      if (!gb[i].matched) b_key[gb[i].*key].push_back(i);
    for (size_t i = 0; i < ga.size(); ++i) {
      if (ga[i].matched) continue;
      auto it = b_key.find(ga[i].*key);
      if (it == b_key.end() || it->second.empty()) continue;
      size_t j = it->second.front();
      it->second.erase(it->second.begin());
      ga[i].matched = gb[j].matched = true;
      pairs.push_back({i, j});
    }
  }
  // Attribution that split or merged: another JAX attributes one of two
  // copies to the next line, so A has groups of 1 + 1 and B one group of 2.
  // An unmatched group folds into a pair of the same kind of finding whose
  // other side has more members, as long as the counts then agree.
  auto fold = [&](std::vector<Group>& side, bool side_is_a) {
    for (size_t i = 0; i < side.size(); ++i) {
      if (side[i].matched) continue;
      for (auto& [ia, ib] : pairs) {
        Group& mine = side_is_a ? ga[ia] : gb[ib];
        const Group& other = side_is_a ? gb[ib] : ga[ia];
        if (&mine == &side[i] || mine.fallback != side[i].fallback) continue;
        if (mine.side.count + side[i].side.count > other.side.count) continue;
        DiffSide& to = mine.side;
        const DiffSide& from = side[i].side;
        to.count += from.count;
        to.instructions.insert(to.instructions.end(), from.instructions.begin(), from.instructions.end());
        to.bytes = SatAdd(to.bytes, from.bytes);
        to.bytes_per_call = SatAdd(to.bytes_per_call, from.bytes_per_call);
        side[i].matched = true;
        break;
      }
    }
  };
  fold(ga, true);
  fold(gb, false);
  std::sort(pairs.begin(), pairs.end());

  size_t next_pair = 0;
  for (size_t i = 0; i < ga.size(); ++i) {
    bool paired = next_pair < pairs.size() && pairs[next_pair].first == i;
    if (ga[i].matched && !paired) continue;  // folded into another group
    DiffItem item = item_of(ga[i]);
    item.a = ga[i].side;
    if (paired) {
      const Group& g = gb[pairs[next_pair].second];
      item.b = g.side;
      if (item.source != g.source.text) {
        item.moved_from = item.source;
        item.source = g.source.text.empty() ? item.source : g.source.text;
      }
      Compare(m, &item);
      ++next_pair;
    } else {
      item.status = DiffStatus::kOnlyInA;
    }
    m.items.push_back(std::move(item));
  }
  for (const Group& g : gb) {
    if (g.matched) continue;
    DiffItem item = item_of(g);
    item.b = g.side;
    item.status = DiffStatus::kOnlyInB;
    m.items.push_back(std::move(item));
  }
  // Kinds in report order (parameters, copies, updates, loops, kernels),
  // each by how much it moves per call in B (else A), most first.
  auto weight = [](const DiffItem& it) {
    const std::optional<DiffSide>& s = it.b ? it.b : it.a;
    return s->bytes_per_call.value_or(s->bytes.value_or(0));
  };
  std::stable_sort(m.items.begin(), m.items.end(), [&](const DiffItem& x, const DiffItem& y) {
    if (x.kind != y.kind) return x.kind < y.kind;
    if (x.kind == DiffKind::kParameter) return false;
    return weight(x) > weight(y);
  });
  return m;
}

DiffResult DiffDocuments(const Json& a, const Json& b, const DiffOptions& options) {
  DiffResult r;
  const Json& ma = Array(a, "modules");
  const Json& mb = Array(b, "modules");
  std::vector<bool> used_b(mb.size(), false);
  std::vector<int64_t> pair_of(ma.size(), -1);
  // By name and exact signature, then by name and signature pattern (the
  // same program at another size), then by name alone, each in order.
  auto pass = [&](auto&& same) {
    for (size_t i = 0; i < ma.size(); ++i) {
      if (pair_of[i] >= 0) continue;
      for (size_t j = 0; j < mb.size(); ++j)
        if (!used_b[j] && same(ma[i], mb[j])) {
          pair_of[i] = static_cast<int64_t>(j);
          used_b[j] = true;
          break;
        }
    }
  };
  pass([](const Json& x, const Json& y) {
    return Str(x, "name") == Str(y, "name") && Str(x, "entry_signature") == Str(y, "entry_signature");
  });
  pass([](const Json& x, const Json& y) {
    return Str(x, "name") == Str(y, "name") &&
           SignaturePattern(Str(x, "entry_signature")) == SignaturePattern(Str(y, "entry_signature"));
  });
  pass([](const Json& x, const Json& y) { return Str(x, "name") == Str(y, "name"); });
  // One module on each side: they are the two compilations to compare,
  // whatever their names (a function renamed by the fix).
  if (ma.size() == 1 && mb.size() == 1 && pair_of[0] < 0) {
    pair_of[0] = 0;
    used_b[0] = true;
  }
  for (size_t i = 0; i < ma.size(); ++i) {
    if (pair_of[i] < 0)
      r.only_in_a.push_back(ModuleLabel(ma[i]));
    else
      r.modules.push_back(DiffModules(ma[i], mb[pair_of[i]], options));
  }
  for (size_t j = 0; j < mb.size(); ++j)
    if (!used_b[j]) r.only_in_b.push_back(ModuleLabel(mb[j]));
  return r;
}

std::vector<DiffRegression> EvaluateDiffGates(const DiffResult& result, const DiffGates& gates) {
  std::vector<DiffRegression> out;
  auto at = [](const DiffItem& it) { return it.source.empty() ? std::string() : " at " + it.source; };
  for (const ModuleDiff& m : result.modules) {
    for (const DiffItem& it : m.items) {
      const std::optional<DiffSide>& a = it.a;
      const std::optional<DiffSide>& b = it.b;
      if (!b) continue;
      if (gates.fail_on_new_copies && it.kind == DiffKind::kCopy && !b->scalar &&
          b->bytes.value_or(INT64_MAX) >= gates.min_bytes) {
        int64_t before = a ? a->count : 0;
        if (b->count > before)
          out.push_back({&m, &it, "new-copies",
                         fmt::format("{}: {}{}: {} in B, {} in A ({} per run)", m.b_name, it.what, at(it),
                                     b->count, before, Bytes(b->bytes))});
      }
      if (gates.fail_on_new_out_of_place && it.kind == DiffKind::kUpdate) {
        auto bad = [](const std::string& v) { return v == "out-of-place" || v == "in-place-on-copy"; };
        if (bad(b->state) && (!a || !bad(a->state)))
          out.push_back({&m, &it, "new-out-of-place",
                         fmt::format("{}: {}{} is {} in B, {} in A", m.b_name, it.what, at(it), b->state,
                                     a ? a->state : std::string("absent"))});
      }
      if (gates.fail_on_more_bytes_per_iteration && it.kind == DiffKind::kLoop && b->bytes) {
        int64_t before = a ? a->bytes.value_or(0) : 0;
        int64_t more = *b->bytes - before;
        if (more > 0 && more >= std::max<int64_t>(gates.min_bytes, 1) &&
            static_cast<double>(*b->bytes) > static_cast<double>(before) * 1.01)
          out.push_back(
              {&m, &it, "more-bytes-per-iteration",
               fmt::format("{}: loop{} copies and rewrites {} per iteration in B, {} in A", m.b_name, at(it),
                           Bytes(b->bytes), a ? Bytes(a->bytes) : std::string("none"))});
      }
    }
  }
  return out;
}

}  // namespace hloscope
