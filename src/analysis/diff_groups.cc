#include "diff_groups.h"

#include <algorithm>
#include <map>

#include "hloscope/analysis/collective_traffic.h"
#include "hloscope/analysis/jax_op_name.h"
#include "hloscope/analysis/policy.h"
#include "hloscope/analysis/source_origin.h"
#include "hloscope/support/saturating.h"

namespace hloscope::diff_internal {
namespace {

SourceFacts SourceOf(const std::optional<DocSource>& s) {
  if (!s) return {};
  SourceFacts f{s->text, s->function, s->op_name, ""};
  // The path without the components JAX versions spell differently:
  // jit(NAME)/pjit(NAME) roots, and the call wrappers (jax_op_name.h).
  bool first = true;
  for (std::string_view part : SplitOpNamePath(f.op_name)) {
    if (part.empty()) continue;
    bool wrapper =
        IsCallWrapper(part) || (first && (part.rfind("jit(", 0) == 0 || part.rfind("pjit(", 0) == 0));
    first = false;
    if (wrapper) continue;
    if (!f.scope.empty()) f.scope.push_back('/');
    f.scope.append(part);
  }
  return f;
}

// Whether a document source is library code (analysis/source_origin.h).
bool Library(const std::optional<DocSource>& s) {
  if (!s) return false;
  SourceLocation loc;
  loc.file = s->file;
  loc.line = s->line;
  loc.function = s->function;
  loc.op_name = s->op_name;
  return OriginOf(loc).library;
}

DiffState CauseState(const DocCopy& c) {
  DiffState s;
  s.cause = c.cause;
  s.text = c.cause_text;
  return s;
}

class SideBuilder {
 public:
  SideBuilder(const DocModule& module, const FindingFilter& filter) : module_(module), filter_(filter) {
    for (const DocParameter& p : module.parameters)
      for (const auto& copy : p.copies) copied_params_[copy] = p.name;
  }

  std::vector<Group> Build() {
    for (const DocParameter& p : module_.parameters) AddParameter(p);
    for (const DocCopy& c : module_.copies) AddCopy(c);
    for (const DocUpdate& u : module_.updates) AddUpdate(u);
    for (const DocLoop& l : module_.loops) AddLoop(l);
    for (const DocCollective& c : module_.collectives) AddCollective(c);
    for (const DocKernel& k : module_.kernels) AddKernel(k);
    return std::move(groups_);
  }

 private:
  // `scope`: the fallback key with the op_name's scope path.
  void Add(GroupKey exact, GroupKey loose, GroupKey fallback, DiffIdentity what, SourceFacts source,
           const std::string& instruction, DiffSide one) {
    GroupKey scope = fallback;
    scope.where_a = source.scope;
    scope.where_b = "scope";
    one.count = 1;
    one.instructions = {instruction};
    auto [it, fresh] = index_.try_emplace(exact, groups_.size());
    if (fresh) {
      groups_.push_back({std::move(exact), std::move(loose), std::move(scope), std::move(fallback),
                         std::move(what), std::move(source), std::move(one)});
      return;
    }
    DiffSide& s = groups_[it->second].side;
    ++s.count;
    s.instructions.push_back(one.instructions[0]);
    s.bytes = SatAdd(s.bytes, one.bytes);
    s.bytes_per_call = SatAdd(s.bytes_per_call, one.bytes_per_call);
    if (s.flops || one.flops) s.flops = SatAdd(s.flops, one.flops);
    if (s.whole_read_bytes || one.whole_read_bytes)
      s.whole_read_bytes = SatAdd(s.whole_read_bytes.value_or(0), one.whole_read_bytes.value_or(0));
    if (!s.executions || (one.executions && *one.executions > *s.executions)) s.executions = one.executions;
    if (!s.array_bytes || (one.array_bytes && *one.array_bytes > *s.array_bytes))
      s.array_bytes = one.array_bytes;
    s.in_loop |= one.in_loop;
    s.gates.Add(one.gates);
    if (s.tied_parameter.empty()) s.tied_parameter = one.tied_parameter;
  }

  void AddParameter(const DocParameter& p) {
    DiffSide s;
    s.shape = WithoutLayout(p.shape);
    s.bytes = p.bytes;
    s.array_bytes = s.bytes;
    s.state.donated = p.donated;
    s.state.copied = p.copied;
    s.state.text = std::string(p.donated ? "donated" : "not donated") + (p.copied ? ", copied" : "");
    int64_t number = p.number.value_or(-1);
    GroupKey key;
    key.kind = DiffKind::kParameter;
    key.number = number;
    DiffIdentity what;
    what.kind = DiffKind::kParameter;
    what.number = number;
    what.name = p.name;
    Add(key, key, key, what, {}, "", std::move(s));
  }

  // A finding that moves `bytes` per execution, `executions` times a call.
  static DiffSide MovesBytes(const std::string& shape, std::optional<int64_t> bytes,
                             std::optional<int64_t> executions, std::optional<int64_t> total,
                             size_t loop_depth, const std::optional<DocSource>& source) {
    DiffSide s;
    s.shape = WithoutLayout(shape);
    s.bytes = bytes;
    s.bytes_per_call = total;
    s.executions = executions;
    s.array_bytes = bytes;
    s.in_loop = loop_depth > 0;
    s.library = Library(source);
    return s;
  }

  void AddCopy(const DocCopy& c) {
    SourceFacts src = SourceOf(c.source);
    DiffSide s = MovesBytes(c.shape, c.bytes, c.executions, c.total_bytes, c.loop_depth, c.source);
    s.state = CauseState(c);
    s.scalar = c.minor;
    if (std::optional<Gate> g = CopyGate({s.in_loop, c.cause, c.bytes, c.grows_with_buffer})) s.gates.Add(*g);
    auto tied = copied_params_.find({c.instruction, c.computation});
    if (tied != copied_params_.end()) s.tied_parameter = tied->second;
    DiffIdentity what;
    what.kind = DiffKind::kCopy;
    if (c.minor && !filter_.include_minor) {
      // Loop counters and loop-start constants: one item, as check shows them.
      s.state = {};
      s.tied_parameter = "";
      s.gates = {};
      GroupKey key;
      key.kind = DiffKind::kCopy;
      key.flag = true;
      what.scalar_copies = true;
      Add(key, key, key, what, {}, c.instruction, std::move(s));
      return;
    }
    std::string pattern = ShapePattern(s.shape);
    what.copy_kind = c.kind_text.empty() ? "copy" : c.kind_text;
    what.pattern = pattern;
    what.cause = s.state;
    GroupKey exact{DiffKind::kCopy, c.kind_text, s.state.text, pattern, false, -1,
                   c.loop_depth,    src.text,    src.op_name};
    GroupKey loose{DiffKind::kCopy, c.kind_text,  "",         pattern, false, -1,
                   c.loop_depth,    src.function, src.op_name};
    GroupKey fallback{DiffKind::kCopy, c.kind_text, s.state.text, pattern, false, -1, c.loop_depth, "", ""};
    Add(exact, loose, fallback, what, src, c.instruction, std::move(s));
  }

  void AddCollective(const DocCollective& c) {
    SourceFacts src = SourceOf(c.source);
    DiffSide s = MovesBytes(c.shape, c.bytes, c.executions, c.total_bytes, c.loop_depth, c.source);
    s.state.text = c.cause_text;
    if (std::optional<Gate> g = CollectiveGate(s.in_loop, c.grows_with_buffer, c.cause)) s.gates.Add(*g);
    DiffIdentity what;
    what.kind = DiffKind::kCollective;
    what.family = c.family;
    what.pattern = ShapePattern(s.shape);
    what.cause = s.state;
    GroupKey exact{DiffKind::kCollective, c.family, c.cause_text, what.pattern, false, -1,
                   c.loop_depth,          src.text, src.op_name};
    GroupKey loose{DiffKind::kCollective, c.family,     "",         what.pattern, false, -1,
                   c.loop_depth,          src.function, src.op_name};
    GroupKey fallback{
        DiffKind::kCollective, c.family, c.cause_text, what.pattern, false, -1, c.loop_depth, "", ""};
    Add(exact, loose, fallback, what, src, c.instruction, std::move(s));
  }

  void AddUpdate(const DocUpdate& u) {
    SourceFacts src = SourceOf(u.source);
    DiffSide s;
    s.bytes = u.bytes_written;
    s.executions = u.executions;
    s.bytes_per_call = SatMul(s.bytes, s.executions);
    s.array_bytes = u.buffer_bytes;
    s.state.verdict = u.verdict;
    s.state.text = u.verdict_text;
    s.in_loop = u.loop_depth > 0;
    s.library = Library(u.source);
    UpdateGateFacts facts{u.verdict, u.confirmed, u.full_rewrite, s.in_loop, {}};
    if (const DocCopy* copy = module_.FindCopy(u.runs_on))
      facts.runs_on_gate =
          CopyGate({copy->loop_depth > 0, copy->cause, copy->bytes, copy->grows_with_buffer});
    if (std::optional<Gate> g = UpdateGate(facts)) s.gates.Add(*g);
    if (u.confirmed == false) s.gates.Add(Gate::kContradictions);
    DiffIdentity what;
    what.kind = DiffKind::kUpdate;
    what.opcode = u.opcode;
    what.fused = u.fused;
    GroupKey exact{DiffKind::kUpdate, u.opcode, "", "", u.fused, -1, 0, src.text, src.op_name};
    GroupKey loose{DiffKind::kUpdate, u.opcode, "-", "", u.fused, -1, 0, src.function, src.op_name};
    GroupKey fallback{DiffKind::kUpdate, u.opcode, "", "", u.fused, -1, 0, "", ""};
    Add(exact, loose, fallback, what, src, u.instruction, std::move(s));
  }

  void AddLoop(const DocLoop& l) {
    SourceFacts src = SourceOf(l.source);
    DiffSide s;
    s.copy_bytes_per_iteration = l.copy_bytes_per_iteration;
    s.bytes = SatAdd(s.copy_bytes_per_iteration, l.rewrite_bytes_per_iteration);
    s.trip_count = l.trip_count;
    s.executions = l.executions;
    s.bytes_per_call = SatMul(SatMul(s.bytes, s.trip_count), s.executions);
    s.state.trip_count_source = l.trip_count_source;
    s.state.text = l.trip_count_source_text;
    s.in_loop = l.loop_depth > 0;
    s.library = Library(l.source);
    DiffIdentity what;
    what.kind = DiffKind::kLoop;
    what.loop_depth = l.loop_depth;
    GroupKey exact{DiffKind::kLoop, "", "", "", false, -1, l.loop_depth, src.text, src.op_name};
    GroupKey loose{DiffKind::kLoop, "loose", "", "", false, -1, l.loop_depth, src.function, src.op_name};
    GroupKey fallback{DiffKind::kLoop, "", "", "", false, -1, l.loop_depth, "", ""};
    for (const DocScaling& sc : l.scaling)
      if (sc.kind == LoopScaling::Kind::kWholeRead)
        s.whole_read_bytes = SatAdd(s.whole_read_bytes.value_or(0), sc.bytes);
    // Its carries rewritten in full: by carry number within the loop.
    for (const DocScaling& sc : l.scaling) {
      if (sc.kind != LoopScaling::Kind::kCarryRewritten) continue;
      DiffSide c;
      c.shape = WithoutLayout(sc.shape);
      c.bytes = sc.bytes;
      c.array_bytes = c.bytes;
      c.executions = SatMul(s.trip_count, s.executions);
      c.bytes_per_call = SatMul(c.bytes, c.executions);
      c.in_loop = true;
      c.library = s.library;
      if (std::optional<Gate> g = RewriteGate(true, sc.grows_with_buffer)) c.gates.Add(*g);
      if (sc.confirmed == false) c.gates.Add(Gate::kContradictions);
      DiffIdentity carry;
      carry.kind = DiffKind::kCarry;
      carry.carry = sc.carry;
      carry.pattern = ShapePattern(c.shape);
      auto with_carry = [&](GroupKey k) {
        k.kind = DiffKind::kCarry;
        k.number = sc.carry.value_or(-1);
        k.flag = sc.carry.has_value();
        return k;
      };
      Add(with_carry(exact), with_carry(loose), with_carry(fallback), carry, src, sc.rewritten_by,
          std::move(c));
    }
    Add(exact, loose, fallback, what, src, l.instruction, std::move(s));
  }

  void AddKernel(const DocKernel& k) {
    // A collective kernel is a collective finding already (matched by its
    // family and cause); one item each.
    if (IsCollectiveKernelOpcode(StringToHloOpcode(k.kind))) return;
    SourceFacts src = SourceOf(k.source);
    // A kernel that only lays an array out anew, or has no line, is at the
    // line of the op it serves, matched and shown there (XLA:CPU gives the
    // transpose in front of an attention dot the KV cache's update line,
    // and its dots none: two line-less dots serving different lines are
    // two items, and the growth is the attention's).
    if (k.serves_source) {
      SourceFacts served = SourceOf(k.serves_source);
      src.text = std::move(served.text);
      src.function = std::move(served.function);
    }
    std::string opset;
    for (size_t i = 0; i < k.opcodes.size(); ++i) opset += (i ? "," : "") + k.opcodes[i];
    DiffSide s;
    s.shape = WithoutLayout(k.shape);
    s.bytes = SatAdd(k.bytes_read, k.bytes_written);
    s.bytes_per_call = k.bytes_per_call;
    s.executions = k.executions;
    s.flops = k.flops;
    s.in_loop = k.loop_depth > 0;
    s.library = Library(k.source);
    std::string pattern = ShapePattern(s.shape);
    DiffIdentity what;
    what.kind = DiffKind::kKernel;
    what.kernel_kind = k.kind;
    what.pattern = pattern;
    GroupKey exact{DiffKind::kKernel, k.kind, opset, pattern, false, -1, k.loop_depth, src.text, src.op_name};
    GroupKey loose{DiffKind::kKernel, k.kind,       opset,      pattern, true, -1,
                   k.loop_depth,      src.function, src.op_name};
    GroupKey fallback{DiffKind::kKernel, k.kind, opset, pattern, false, -1, k.loop_depth, "", ""};
    Add(exact, loose, fallback, what, src, k.instruction, std::move(s));
  }

  const DocModule& module_;
  const FindingFilter& filter_;
  std::map<std::pair<std::string, std::string>, std::string> copied_params_;  // copy -> parameter name
  std::map<GroupKey, size_t> index_;
  std::vector<Group> groups_;
};

}  // namespace

std::vector<Group> GroupFindings(const DocModule& module, const FindingFilter& filter) {
  return SideBuilder(module, filter).Build();
}

}  // namespace hloscope::diff_internal
