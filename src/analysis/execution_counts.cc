#include "hloscope/analysis/execution_counts.h"

#include <charconv>

#include "hloscope/analysis/backend_config.h"
#include "hloscope/analysis/call_graph.h"
#include "hloscope/support/saturating.h"

namespace hloscope {
namespace {

std::optional<int64_t> ParseIntText(std::string_view s) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

// A scalar integer constant, looking through copies, bitcasts, converts and
// single-instruction wrapper fusions.
std::optional<int64_t> ConstantValue(const HloInstruction* i, int depth = 0) {
  if (!i || depth > 16) return std::nullopt;
  switch (i->opcode()) {
    case HloOpcode::kConstant:
      if (i->shape().rank() != 0) return std::nullopt;
      return ParseIntText(i->operand_text());
    case HloOpcode::kCopy:
    case HloOpcode::kBitcast:
      return ConstantValue(i->operand(0), depth + 1);
    default:
      return std::nullopt;
  }
}

// Looks through a wrapper fusion (`wrapped_add = fusion(a, b), calls=...`
// whose fused root is one op on the parameters): returns the fused root and
// maps its parameter operands back to the fusion's operands.
struct ScalarOp {
  HloOpcode opcode = HloOpcode::kUnknown;
  std::string_view direction;  // for compare
  std::vector<const HloInstruction*> operands;
};

std::optional<ScalarOp> AsScalarOp(const HloInstruction* i) {
  while (i && (i->opcode() == HloOpcode::kCopy || i->opcode() == HloOpcode::kBitcast)) i = i->operand(0);
  if (!i) return std::nullopt;
  ScalarOp op;
  const HloInstruction* core = i;
  std::vector<const HloInstruction*> args(i->operands().begin(), i->operands().end());
  if (i->opcode() == HloOpcode::kFusion && i->fused_computation()) {
    core = i->fused_computation()->root_instruction();
    std::vector<const HloInstruction*> mapped;
    for (const HloInstruction* o : core->operands()) {
      if (o->opcode() == HloOpcode::kParameter && o->parameter_number() < i->operand_count())
        mapped.push_back(i->operand(o->parameter_number()));
      else if (o->opcode() == HloOpcode::kConstant)
        mapped.push_back(o);
      else
        return std::nullopt;
    }
    args = std::move(mapped);
  }
  op.opcode = core->opcode();
  if (std::optional<std::string_view> d = core->attribute("direction")) op.direction = *d;
  op.operands = std::move(args);
  return op;
}

// Is `i` get-tuple-element(parameter, k) (through copies)? Returns k.
std::optional<int64_t> TupleIndexOfParam(const HloInstruction* i) {
  while (i && (i->opcode() == HloOpcode::kCopy || i->opcode() == HloOpcode::kBitcast)) i = i->operand(0);
  if (i && i->opcode() == HloOpcode::kGetTupleElement && i->operand(0)->opcode() == HloOpcode::kParameter)
    return i->tuple_index();
  return std::nullopt;
}

// The induction-variable pattern of xla/hlo/analysis/while_loop_analysis.cc:
// condition root compare(gte(p, k), constant B); body root tuple element k =
// add(gte(p, k), constant step); init element k a constant.
std::optional<int64_t> InductionVariableTripCount(const HloInstruction& w) {
  const HloComputation* cond = w.while_condition();
  const HloComputation* body = w.while_body();
  if (!cond || !body || w.operand_count() != 1) return std::nullopt;
  std::optional<ScalarOp> cmp = AsScalarOp(cond->root_instruction());
  if (!cmp || cmp->opcode != HloOpcode::kCompare || cmp->operands.size() != 2) return std::nullopt;
  std::optional<int64_t> k = TupleIndexOfParam(cmp->operands[0]);
  std::optional<int64_t> bound = ConstantValue(cmp->operands[1]);
  std::string_view dir = cmp->direction;
  if (!k || !bound) {
    // Bound on the left: B > i is i < B.
    k = TupleIndexOfParam(cmp->operands[1]);
    bound = ConstantValue(cmp->operands[0]);
    if (dir == "GT")
      dir = "LT";
    else if (dir == "GE")
      dir = "LE";
    else
      return std::nullopt;
  }
  if (!k || !bound) return std::nullopt;
  const HloInstruction* root = body->root_instruction();
  if (root->opcode() != HloOpcode::kTuple || *k >= root->operand_count()) return std::nullopt;
  std::optional<ScalarOp> upd = AsScalarOp(root->operand(*k));
  if (!upd || upd->opcode != HloOpcode::kAdd || upd->operands.size() != 2) return std::nullopt;
  std::optional<int64_t> step;
  if (TupleIndexOfParam(upd->operands[0]) == k)
    step = ConstantValue(upd->operands[1]);
  else if (TupleIndexOfParam(upd->operands[1]) == k)
    step = ConstantValue(upd->operands[0]);
  if (!step || *step <= 0) return std::nullopt;
  const HloInstruction* init_tuple = w.operand(0);
  if (init_tuple->opcode() != HloOpcode::kTuple || *k >= init_tuple->operand_count()) return std::nullopt;
  std::optional<int64_t> init = ConstantValue(init_tuple->operand(*k));
  if (!init) return std::nullopt;
  // Same formulas as MatchTrivialLoopTripCount, overflow-checked.
  __int128 trips;
  if (dir == "LT") {
    __int128 d = static_cast<__int128>(*bound) - *init;
    trips = d <= 0 ? 0 : (d - 1) / *step + 1;
  } else if (dir == "LE") {
    __int128 d = static_cast<__int128>(*bound) - *init;
    trips = d < 0 ? 0 : d / *step + 1;
  } else {
    return std::nullopt;
  }
  if (trips > INT64_MAX) return std::nullopt;
  return static_cast<int64_t>(trips);
}

std::optional<int64_t> Mul(std::optional<int64_t> a, std::optional<int64_t> b) { return SatMul(a, b); }

}  // namespace

TripCount ComputeTripCount(const HloInstruction& w) {
  TripCount t;
  if (std::optional<int64_t> n = KnownTripCount(w)) {
    t.count = n;
    t.source = TripCountSource::kKnownTripCount;
  } else if (std::optional<int64_t> n = InductionVariableTripCount(w)) {
    t.count = n;
    t.source = TripCountSource::kInductionVariable;
  }
  return t;
}

ExecutionCounts ExecutionCounts::Run(const HloModule& module) {
  ExecutionCounts counts;
  for (const HloComputation* c : module.computations())
    for (const HloInstruction* i : c->instructions())
      if (i->opcode() == HloOpcode::kWhile) counts.trips_[i] = ComputeTripCount(*i);
  for (const HloComputation* c : module.computations()) counts.Visit(c, 0);
  return counts;
}

void ExecutionCounts::Visit(const HloComputation* comp, int depth) {
  Info& info = info_[comp];
  if (info.done) return;
  if (depth > 256) {  // a cycle or absurd nesting: unknown, not a crash
    info.done = true;
    return;
  }
  info.done = true;  // guards against cycles in malformed input
  if (comp->is_entry()) {
    info.count = 1;
    return;
  }
  if (comp->callers().empty()) {
    info.count = 0;  // never called
    return;
  }
  std::optional<int64_t> total = 0;
  bool upper = false;
  for (const HloInstruction* caller : comp->callers()) {
    Visit(caller->parent(), depth + 1);
    const Info& ci = info_[caller->parent()];
    std::optional<int64_t> per = ci.count;
    upper |= ci.upper_bound;
    for (const CalledComputation& cc : caller->called_computations()) {
      if (cc.computation != comp) continue;
      std::optional<int64_t> n = per;
      if (caller->opcode() == HloOpcode::kWhile) {
        const TripCount& t = trips_[caller];
        if (cc.role == CallRole::kBody)
          n = Mul(per, t.count);
        else if (cc.role == CallRole::kCondition)
          n = Mul(per, t.count ? std::optional<int64_t>(SatAdd(*t.count, 1)) : std::nullopt);
      } else if (caller->opcode() == HloOpcode::kConditional) {
        upper = true;  // each branch runs at most once per conditional
      }
      if (!n || !total)
        total = std::nullopt;
      else
        total = SatAdd(*total, *n);
    }
  }
  Info& me = info_[comp];
  me.count = total;
  me.upper_bound = upper;
}

std::optional<int64_t> ExecutionCounts::Of(const HloComputation* comp) const {
  auto it = info_.find(comp);
  return it == info_.end() ? std::nullopt : it->second.count;
}

bool ExecutionCounts::IsUpperBound(const HloComputation* comp) const {
  auto it = info_.find(comp);
  return it != info_.end() && it->second.upper_bound;
}

std::vector<const HloInstruction*> ExecutionCounts::EnclosingLoops(const HloComputation* comp) const {
  std::vector<const HloInstruction*> loops;
  for (int depth = 0; comp && !comp->is_entry() && depth < 256; ++depth) {
    if (comp->callers().empty()) break;
    const HloInstruction* caller = comp->callers()[0];
    if (caller->opcode() == HloOpcode::kWhile && caller->while_body() == comp) loops.push_back(caller);
    comp = caller->parent();
  }
  return loops;
}

const TripCount& ExecutionCounts::TripCountOf(const HloInstruction* w) const {
  static const TripCount kUnknown;
  auto it = trips_.find(w);
  return it == trips_.end() ? kUnknown : it->second;
}

std::optional<int64_t> ExecutionCounts::RunsPerIteration(const std::vector<const HloInstruction*>& enclosing,
                                                         const HloInstruction* loop) const {
  std::optional<int64_t> runs = 1;
  for (const HloInstruction* inner : enclosing) {
    if (inner == loop) return runs;
    runs = SatMul(runs, TripCountOf(inner).count);
  }
  return runs;
}

}  // namespace hloscope
