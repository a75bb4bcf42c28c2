#include "hloscope/analysis/dataflow.h"

#include <set>
#include <utility>

#include "hloscope/analysis/call_graph.h"

namespace hloscope {

namespace {

// Bounded: optimized HLO is acyclic within a computation, and the call
// graph is acyclic, but hostile input must not hang us.
constexpr int kMaxSteps = 100000;

}  // namespace

HloPosition DefiningPosition(const HloInstruction* instr, const ShapeIndex& index) {
  ShapeIndex idx = index;
  for (int step = 0; step < kMaxSteps && instr; ++step) {
    switch (instr->opcode()) {
      case HloOpcode::kGetTupleElement: {
        if (instr->operand_count() < 1) return {instr, idx};
        idx.insert(idx.begin(), instr->tuple_index());
        instr = instr->operand(0);
        continue;
      }
      case HloOpcode::kTuple: {
        if (idx.empty()) return {instr, idx};
        int64_t i = idx.front();
        if (i < 0 || i >= instr->operand_count()) return {instr, idx};
        idx.erase(idx.begin());
        instr = instr->operand(i);
        continue;
      }
      case HloOpcode::kBitcast:
      case HloOpcode::kDomain:
      case HloOpcode::kAddDependency:
      case HloOpcode::kOptimizationBarrier:
        if (instr->operand_count() < 1) return {instr, idx};
        instr = instr->operand(0);
        continue;
      case HloOpcode::kCopyDone: {
        // copy-done returns element {0} of its copy-start's tuple.
        if (instr->operand_count() < 1) return {instr, idx};
        idx.insert(idx.begin(), 0);
        instr = instr->operand(0);
        continue;
      }
      case HloOpcode::kAllGatherDone:
      case HloOpcode::kCollectivePermuteDone: {
        // all-gather-done and collective-permute-done return element {1} of
        // their -start (its result buffer; XLA's dataflow,
        // UpdateAllGatherDoneValueSet / UpdateCollectivePermuteDoneValueSet).
        if (instr->operand_count() < 1) return {instr, idx};
        idx.insert(idx.begin(), 1);
        instr = instr->operand(0);
        continue;
      }
      case HloOpcode::kAllReduceDone:
        // all-reduce-start defines the result; the done forwards it.
        if (instr->operand_count() < 1) return {instr, idx};
        instr = instr->operand(0);
        continue;
      case HloOpcode::kCall: {
        HloComputation* callee = instr->called(CallRole::kToApply);
        if (!callee) callee = instr->called(CallRole::kCalls);
        if (!callee) return {instr, idx};
        instr = callee->root_instruction();
        continue;
      }
      case HloOpcode::kAsyncDone: {
        // async-done returns element {1} of its async-start: the wrapped
        // computation's result (newest XLA:GPU runs fusions this way).
        if (instr->operand_count() < 1) return {instr, idx};
        const HloInstruction* start = instr->operand(0);
        HloComputation* callee =
            start->opcode() == HloOpcode::kAsyncStart ? start->called(CallRole::kCalls) : nullptr;
        if (!callee) return {instr, idx};
        instr = callee->root_instruction();
        continue;
      }
      case HloOpcode::kParameter: {
        // Parameters of a called computation forward the caller's operand;
        // while bodies/conditions and everything else define (phi) values.
        const HloComputation* comp = instr->parent();
        // So do the computations an async-start wraps.
        if (comp->callers().size() == 1 && (RoleOf(*comp) == ComputationRole::kCall ||
                                            comp->callers()[0]->opcode() == HloOpcode::kAsyncStart)) {
          const HloInstruction* caller = comp->callers()[0];
          int64_t n = instr->parameter_number();
          if (n < caller->operand_count()) {
            instr = caller->operand(n);
            continue;
          }
        }
        // Conditional branches receive operand (branch + 1) as they are.
        if (comp->callers().size() == 1 && comp->callers()[0]->opcode() == HloOpcode::kConditional) {
          const HloInstruction* cond = comp->callers()[0];
          int64_t branch = 0, k = 0;
          bool found = false;
          for (const CalledComputation& cc : cond->called_computations()) {
            if (cc.role != CallRole::kBranch && cc.role != CallRole::kTrueComputation &&
                cc.role != CallRole::kFalseComputation)
              continue;
            if (cc.computation == comp) {
              branch = cc.role == CallRole::kTrueComputation    ? 0
                       : cc.role == CallRole::kFalseComputation ? 1
                                                                : k;
              found = true;
              break;
            }
            ++k;
          }
          if (found && branch + 1 < cond->operand_count()) {
            instr = cond->operand(branch + 1);
            continue;
          }
        }
        return {instr, idx};
      }
      default:
        return {instr, idx};
    }
  }
  return {instr, idx};
}

HloPosition LoopInitOf(const HloPosition& position) {
  HloPosition pos = position;
  for (int step = 0; step < 64; ++step) {
    const HloInstruction* instr = pos.instruction;
    if (!instr) return pos;
    const HloInstruction* loop = nullptr;
    if (instr->opcode() == HloOpcode::kWhile) {
      loop = instr;
    } else if (instr->opcode() == HloOpcode::kParameter) {
      const HloComputation* comp = instr->parent();
      ComputationRole role = RoleOf(*comp);
      if ((role == ComputationRole::kWhileBody || role == ComputationRole::kWhileCondition) &&
          !comp->callers().empty())
        loop = comp->callers()[0];
    }
    if (!loop || loop->operand_count() < 1) return pos;
    HloPosition init = DefiningPosition(loop->operand(0), pos.index);
    if (init == pos) return pos;
    pos = init;
  }
  return pos;
}

namespace {

// The forward walks below visit each (instruction, index) once, recurse at
// most kMaxForwardDepth levels (forwarding chains in real modules are a few
// instructions long) and stop after kMaxForwardSteps positions. The step
// cap is what bounds a hostile ladder of `tuple(%t, %t)` written without
// shapes: its value tree doubles at each rung, so the distinct positions
// are exponential and no memo helps. Past the cap the walk is incomplete;
// real modules stay orders of magnitude below it (a 1,000-element parameter
// tuple is ~2,000 positions).
constexpr int kMaxForwardDepth = 64;
constexpr int kMaxForwardSteps = 1 << 16;

class ForwardWalk {
 public:
  // False when (instr, index) was seen or the budget is spent.
  bool Enter(const HloInstruction* instr, const ShapeIndex& index, int depth) {
    if (depth > kMaxForwardDepth || steps_ >= kMaxForwardSteps) return false;
    ++steps_;
    // Most walks visit a handful of positions (the memory analysis walks
    // one per temporary, by the thousand): a flat list until it grows.
    if (seen_.empty()) {
      for (const auto& [i, x] : few_)
        if (i == instr && x == index) return false;
      if (few_.size() < kFew) {
        few_.emplace_back(instr, index);
        return true;
      }
      seen_.insert(few_.begin(), few_.end());
    }
    return seen_.emplace(instr, index).second;
  }

 private:
  static constexpr size_t kFew = 16;
  int steps_ = 0;
  std::vector<std::pair<const HloInstruction*, ShapeIndex>> few_;
  std::set<std::pair<const HloInstruction*, ShapeIndex>> seen_;
};

// What a walk follows: the value (its readers: a while reads the value it
// starts, and its result is another value), or the buffer (where the same
// memory goes: a while's init and result share one buffer).
enum class Follow : uint8_t { kValue, kBuffer };

// The one forwarding step of every forward walk: where the value at
// `index` of operand k of `user` goes next, and whether `user` reads it
// there (a use). Forwarding ops pass it on unchanged (bitcast,
// opt-barrier), tuples nest it, get-tuple-element unnests it, copy-done
// passes on element {0} of its copy-start, a call hands it to the callee's
// parameter; under kBuffer a while passes its init on to its result.
struct Step {
  std::vector<HloPosition> next;
  bool use = false;
};

Step ForwardStep(const HloInstruction* user, int64_t k, const ShapeIndex& index, Follow follow) {
  Step step;
  switch (user->opcode()) {
    case HloOpcode::kTuple: {
      ShapeIndex sub = index;
      sub.insert(sub.begin(), k);
      step.next.push_back({user, sub});
      break;
    }
    case HloOpcode::kGetTupleElement:
      if (!index.empty() && index.front() == user->tuple_index())
        step.next.push_back({user, ShapeIndex(index.begin() + 1, index.end())});
      else if (index.empty())
        step.use = true;  // the whole tuple is read
      break;
    case HloOpcode::kBitcast:
    case HloOpcode::kOptimizationBarrier:
      step.next.push_back({user, index});
      break;
    case HloOpcode::kCopyDone:
      // copy-done forwards element {0} of its copy-start (DefiningPosition);
      // the tuple itself and its other elements are read by it.
      if (!index.empty() && index.front() == 0)
        step.next.push_back({user, ShapeIndex(index.begin() + 1, index.end())});
      else
        step.use = true;
      break;
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kCollectivePermuteDone:
      // forwards element {1} of its -start (DefiningPosition)
      if (!index.empty() && index.front() == 1)
        step.next.push_back({user, ShapeIndex(index.begin() + 1, index.end())});
      else
        step.use = true;
      break;
    case HloOpcode::kAllReduceDone:
      step.next.push_back({user, index});
      break;
    case HloOpcode::kCall: {
      HloComputation* callee = user->called(CallRole::kToApply);
      const HloInstruction* param = callee ? callee->parameter(k) : nullptr;
      if (param)
        step.next.push_back({param, index});
      else
        step.use = true;
      break;
    }
    case HloOpcode::kWhile:
      if (follow == Follow::kBuffer)
        step.next.push_back({user, index});
      else
        step.use = true;
      break;
    default:
      step.use = true;
  }
  return step;
}

void CollectUses(const HloInstruction* instr, const ShapeIndex& index, std::vector<HloUse>* uses, int depth,
                 ForwardWalk* walk, OperandNumbers* numbers) {
  if (!walk->Enter(instr, index, depth)) return;
  auto visit = [&](const HloInstruction* user) {
    auto at = [&](int64_t k) {
      Step step = ForwardStep(user, k, index, Follow::kValue);
      if (step.use) uses->push_back({user, k, index});
      for (const HloPosition& next : step.next)
        CollectUses(next.instruction, next.index, uses, depth + 1, walk, numbers);
    };
    if (numbers) {
      numbers->ForEach(user, instr, at);
      return;
    }
    for (int64_t k = 0; k < user->operand_count(); ++k)
      if (user->operand(k) == instr) at(k);
  };
  // With `numbers`, a tuple's get-tuple-elements of other elements are
  // skipped unseen (ForwardStep gives them neither a use nor a next step).
  if (numbers) {
    numbers->ForEachUser(instr, index, visit);
    return;
  }
  for (const HloInstruction* user : instr->users()) visit(user);
}

}  // namespace

std::vector<HloUse> UsesOf(const HloPosition& position, OperandNumbers* numbers) {
  std::vector<HloUse> uses;
  ForwardWalk walk;
  if (position.instruction) CollectUses(position.instruction, position.index, &uses, 0, &walk, numbers);
  return uses;
}

namespace {

bool Reaches(const HloInstruction* instr, const ShapeIndex& index, std::vector<ShapeIndex>* outputs,
             int depth, ForwardWalk* walk) {
  if (!walk->Enter(instr, index, depth)) return false;
  bool found = false;
  const HloComputation* comp = instr->parent();
  if (instr->is_root()) {
    if (comp->is_entry()) {
      outputs->push_back(index);
      found = true;
    } else if (RoleOf(*comp) == ComputationRole::kCall) {
      for (const HloInstruction* caller : comp->callers())
        found |= Reaches(caller, index, outputs, depth + 1, walk);
    }
  }
  for (const HloInstruction* user : instr->users()) {
    for (int64_t k = 0; k < user->operand_count(); ++k) {
      if (user->operand(k) != instr) continue;
      for (const HloPosition& next : ForwardStep(user, k, index, Follow::kBuffer).next)
        found |= Reaches(next.instruction, next.index, outputs, depth + 1, walk);
    }
  }
  return found;
}

}  // namespace

bool ReachesEntryOutput(const HloPosition& position, std::vector<ShapeIndex>* outputs) {
  if (!position.instruction) return false;
  ForwardWalk walk;
  return Reaches(position.instruction, position.index, outputs, 0, &walk);
}

}  // namespace hloscope
