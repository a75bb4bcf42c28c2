#include "hloscope/analysis/reshard_origin.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <utility>

#include "hloscope/ir/hlo_sharding.h"

namespace hloscope {
namespace {

bool IsShardingCustomCall(const HloInstruction& i) {
  if (i.opcode() != HloOpcode::kCustomCall) return false;
  std::optional<std::string_view> t = i.attribute("custom_call_target");
  return t && (*t == "\"Sharding\"" || *t == "Sharding");
}

// with_sharding_constraint: GSPMD's Sharding custom-call, or (Shardy) the
// copy that carries its sharding, named by JAX's op_name.
bool IsConstraint(const HloInstruction& i) {
  if (IsShardingCustomCall(i)) return true;
  if (i.opcode() != HloOpcode::kCopy || !i.metadata()) return false;
  std::string_view op = i.metadata()->op_name;
  return op.ends_with("/sharding_constraint") || op == "sharding_constraint";
}

// Operand k of `i` is partitioned with `i`'s own sharding: `i` keeps its
// shape and maps each element to the same place, or keeps the rank and maps
// dimension d to dimension d (slice, dynamic-slice, pad, reverse,
// concatenate, a dynamic-update-slice's buffer and update). XLA's
// partitioner re-shards such an operand to the instruction's sharding.
bool KeepsOperandSharding(const HloInstruction& i, int64_t k) {
  const HloInstruction* o = i.operand(k);
  if (!o->shape().IsArray() || !i.shape().IsArray() ||
      o->shape().dimensions.size() != i.shape().dimensions.size())
    return false;
  switch (i.opcode()) {
    case HloOpcode::kSlice:
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kPad:
    case HloOpcode::kReverse:
      return k == 0;
    case HloOpcode::kConcatenate:
      return true;
    default:
      break;
  }
  if (o->shape().dimensions != i.shape().dimensions &&
      !(i.opcode() == HloOpcode::kDynamicUpdateSlice && k == 1))
    return false;
  switch (i.opcode()) {
    case HloOpcode::kCopy:
    case HloOpcode::kSelect:
    case HloOpcode::kClamp:
      return true;
    case HloOpcode::kDynamicUpdateSlice:
      return k <= 1;
    case HloOpcode::kCustomCall:
      return k == 0 && IsShardingCustomCall(i);
    default:
      return IsElementwiseOpcode(i.opcode());
  }
}

struct Decoded {
  std::string_view text;
  std::optional<HloSharding> sharding;
};

Decoded ShardingOf(const HloInstruction& i) {
  Decoded d;
  std::optional<std::string_view> text = i.attribute("sharding");
  if (!text) return d;
  d.text = *text;
  Result<HloSharding> s = ParseHloSharding(*text);
  if (s.ok() && s->kind != ShardingKind::kTuple && s->kind != ShardingKind::kOther &&
      s->kind != ShardingKind::kUnknown)
    d.sharding = std::move(s).value();
  return d;
}

bool SameSharding(const HloSharding& a, const HloSharding& b) {
  if (a.kind != b.kind) return false;
  if (a.kind != ShardingKind::kTiled) return a.kind != ShardingKind::kMaximal || a.device == b.device;
  return a.tile_assignment == b.tile_assignment &&
         a.replicate_on_last_tile_dim == b.replicate_on_last_tile_dim && a.last_tile_dims == b.last_tile_dims;
}

std::vector<int64_t> Shards(const HloSharding& s, const Shape& shape) {
  Result<std::vector<int64_t>> r = ShardsPerDimension(s, static_cast<int64_t>(shape.dimensions.size()));
  return r.ok() ? *r : std::vector<int64_t>{};
}

bool SameLine(const std::optional<SourceLocation>& a, const std::optional<SourceLocation>& b) {
  if (!a || !b || !a->has_line() || !b->has_line()) return true;  // nothing to tell them apart
  return a->file == b->file && a->line == b->line;
}

// allow_spmd_sharding_propagation_to_output={true} /
// _to_parameters={false,true}: element k (the last one stands for all when
// there are fewer), negated: was the sharding given, not propagated?
std::optional<bool> Given(const HloModule& m, std::string_view attr, int64_t k) {
  std::optional<std::string_view> v = m.attribute(attr);
  // XLA prints the attribute only when it is not its default, {false}:
  // nothing propagates there, the shardings are the caller's.
  if (!v) return true;
  std::vector<std::string_view> items;
  std::string_view s = *v;
  while (!s.empty()) {
    size_t end = s.find_first_of(",}");
    std::string_view item = s.substr(0, end);
    while (!item.empty() && (item.front() == '{' || item.front() == ' ')) item.remove_prefix(1);
    if (!item.empty()) items.push_back(item);
    if (end == std::string_view::npos) break;
    s.remove_prefix(end + 1);
  }
  if (items.empty()) return std::nullopt;
  std::string_view item = items[std::min<size_t>(static_cast<size_t>(k), items.size() - 1)];
  if (item == "true") return false;
  if (item == "false") return true;
  return std::nullopt;
}

}  // namespace

namespace {

using ByOpName = std::multimap<std::string_view, const HloInstruction*>;

// The origin of a re-shard: `consumer` (sharded `cs`) wants operand `k`,
// `y` (sharded `ys`), otherwise; whether the caller fixed either sharding.
CollectiveCauseFacts::Origin MakeOrigin(const HloModule& pre, InstructionAt consumer, const Decoded& cs,
                                        const HloInstruction* y, int64_t k, const Decoded& ys,
                                        const SourceOptions& source, bool constraint, bool output) {
  CollectiveCauseFacts::Origin o;
  o.consumer_shards = Shards(*cs.sharding, consumer.instruction->shape());
  o.consumer = std::move(consumer);
  o.operand = {y, ResolveSource(pre, *y, source)};
  o.operand_number = k;
  o.consumer_sharding = std::string(cs.text);
  o.operand_sharding = std::string(ys.text);
  o.operand_shards = Shards(*ys.sharding, y->shape());
  if (y->opcode() == HloOpcode::kParameter && y->parent() == pre.entry_computation())
    o.operand_parameter = y->parameter_number();
  o.consumer_is_constraint = constraint;
  o.consumer_is_output = output;
  if (output) o.output_sharding_given = Given(pre, "allow_spmd_sharding_propagation_to_output", 0);
  if (o.operand_parameter)
    o.parameter_sharding_given =
        Given(pre, "allow_spmd_sharding_propagation_to_parameters", *o.operand_parameter);
  return o;
}

// The one (consumer, operand) pair of `pre` named `op_name` at `line` whose
// shardings differ where the consumer keeps its operand's; nullopt when
// there is none or more than one.
std::optional<CollectiveCauseFacts::Origin> OriginNamed(const HloModule& pre, const ByOpName& by_op_name,
                                                        std::string_view op_name,
                                                        const std::optional<SourceLocation>& line,
                                                        const SourceOptions& source) {
  auto [lo, hi] = by_op_name.equal_range(op_name);
  std::optional<CollectiveCauseFacts::Origin> found;
  for (auto it = lo; it != hi; ++it) {
    const HloInstruction* x = it->second;
    std::optional<SourceLocation> x_source = ResolveSource(pre, *x, source);
    if (!SameLine(line, x_source)) continue;
    Decoded xs = ShardingOf(*x);
    if (!xs.sharding) continue;
    for (int64_t k = 0; k < x->operand_count(); ++k) {
      if (!KeepsOperandSharding(*x, k)) continue;
      const HloInstruction* y = x->operand(k);
      Decoded ys = ShardingOf(*y);
      if (!ys.sharding || SameSharding(*xs.sharding, *ys.sharding)) continue;
      if (found && !(found->consumer.instruction == x && found->operand.instruction == y))
        return std::nullopt;
      bool output = x->parent() == pre.entry_computation() && x->is_root();
      found = MakeOrigin(pre, {x, x_source}, xs, y, k, ys, source, IsConstraint(*x), output);
    }
  }
  return found;
}

// The sharding `x` has was propagated from a constraint or the output: the
// first one reached forward from `x` through users that keep the operand's
// sharding and have `x`'s (tanh, a copy, the constraint itself), bounded.
const HloInstruction* ShardingSource(const HloModule& pre, const HloInstruction* x, const HloSharding& xs) {
  constexpr size_t kMaxVisited = 256;
  std::vector<const HloInstruction*> frontier = {x};
  std::vector<const HloInstruction*> seen = {x};
  for (size_t i = 0; i < frontier.size() && seen.size() < kMaxVisited; ++i) {
    const HloInstruction* at = frontier[i];
    if (at != x && IsConstraint(*at)) return at;
    if (at != x && at->parent() == pre.entry_computation() && at->is_root()) return at;
    for (const HloInstruction* u : at->users()) {
      if (std::find(seen.begin(), seen.end(), u) != seen.end()) continue;
      bool keeps = false;
      for (int64_t k = 0; k < u->operand_count() && !keeps; ++k)
        keeps = u->operand(k) == at && KeepsOperandSharding(*u, k);
      Decoded us = ShardingOf(*u);
      if (!keeps || !us.sharding || !SameSharding(*us.sharding, xs)) continue;
      seen.push_back(u);
      frontier.push_back(u);
    }
  }
  return nullptr;
}

// The instruction of `pre` named `op_name` at `line` that needs a re-shard
// because its sharding came from elsewhere (a dot whose output a constraint
// downstream splits otherwise than its operand): the constraint or output
// it came from, with the instruction and its operand. `value_op_name` (the
// collective's value's op_name) picks the operand where several differ.
std::optional<CollectiveCauseFacts::Origin> PropagatedOrigin(const HloModule& pre, const ByOpName& by_op_name,
                                                             std::string_view op_name,
                                                             std::string_view value_op_name,
                                                             const std::optional<SourceLocation>& line,
                                                             const SourceOptions& source) {
  auto [lo, hi] = by_op_name.equal_range(op_name);
  std::optional<CollectiveCauseFacts::Origin> found;
  for (auto it = lo; it != hi; ++it) {
    const HloInstruction* x = it->second;
    std::optional<SourceLocation> x_source = ResolveSource(pre, *x, source);
    if (!SameLine(line, x_source) || IsConstraint(*x)) continue;
    Decoded xs = ShardingOf(*x);
    if (!xs.sharding) continue;
    // The operands split otherwise than `x`; the value's where several are.
    std::vector<int64_t> differ;
    for (int64_t k = 0; k < x->operand_count(); ++k) {
      Decoded ys = ShardingOf(*x->operand(k));
      if (ys.sharding && !SameSharding(*xs.sharding, *ys.sharding)) differ.push_back(k);
    }
    if (differ.size() > 1 && !value_op_name.empty())
      std::erase_if(differ, [&](int64_t k) {
        const OpMetadata* md = x->operand(k)->metadata();
        return !md || md->op_name != value_op_name;
      });
    if (differ.size() != 1) continue;
    const HloInstruction* from = ShardingSource(pre, x, *xs.sharding);
    if (!from) continue;
    if (found) return std::nullopt;  // two candidates: say nothing
    const HloInstruction* y = x->operand(differ.front());
    // The sharding is `x`'s, propagated from `from` (which has it too).
    bool constraint = IsConstraint(*from);
    found = MakeOrigin(pre, {from, ResolveSource(pre, *from, source)}, xs, y, differ.front(), ShardingOf(*y),
                       source, constraint, !constraint);
    found->consumer_shards = Shards(*xs.sharding, x->shape());
    found->propagated_to = {x, x_source};
  }
  return found;
}

}  // namespace

void FindReshardOrigins(const HloModule& pre, const SourceOptions& source, ModuleCheck* check) {
  // The instructions of `pre` that carry a sharding, by op_name.
  ByOpName by_op_name;
  for (const HloComputation* comp : pre.computations())
    for (const HloInstruction* i : comp->instructions())
      if (i->metadata() && !i->metadata()->op_name.empty() && i->attribute("sharding"))
        by_op_name.emplace(i->metadata()->op_name, i);
  for (CollectiveFinding& f : check->collectives) {
    CollectiveCause cause = f.cause.cause;
    if (cause != CollectiveCause::kReshard && cause != CollectiveCause::kShardingConstraint &&
        cause != CollectiveCause::kUnknownCollective)
      continue;
    const HloInstruction* coll = f.collective ? f.collective : f.instruction;
    const OpMetadata* md = coll->metadata();
    if ((!md || md->op_name.empty()) && f.instruction) md = f.instruction->metadata();
    if (md && !md->op_name.empty())
      f.cause.before_partitioning = OriginNamed(pre, by_op_name, md->op_name, f.source, source);
    // Newer partitioners (JAX 0.12's XLA) give the collective its operand's
    // metadata (a parameter's name) instead of the consumer's: then the
    // kernel it re-shards for names the pair.
    const InstructionAt& consumer = f.cause.consumer;
    if (!f.cause.before_partitioning && consumer.instruction && consumer.instruction->metadata() &&
        !consumer.instruction->metadata()->op_name.empty())
      f.cause.before_partitioning =
          OriginNamed(pre, by_op_name, consumer.instruction->metadata()->op_name, consumer.source, source);
    // No pair of the same sharding's kind: the op that needs the re-shard
    // (a dot) took its sharding by propagation from a constraint or the
    // output downstream — the line the user edits is that one.
    if (!f.cause.before_partitioning && md && !md->op_name.empty()) {
      std::string_view value_op_name;
      if (f.cause.value.instruction && f.cause.value.instruction->metadata())
        value_op_name = f.cause.value.instruction->metadata()->op_name;
      f.cause.before_partitioning =
          PropagatedOrigin(pre, by_op_name, md->op_name, value_op_name, f.source, source);
    }
  }
}

}  // namespace hloscope
