#include "hloscope/analysis/call_graph.h"

namespace hloscope {

ComputationRole RoleOf(const HloComputation& comp) {
  if (comp.is_entry()) return ComputationRole::kEntry;
  for (const HloInstruction* caller : comp.callers()) {
    for (const CalledComputation& cc : caller->called_computations()) {
      if (cc.computation != &comp) continue;
      switch (cc.role) {
        case CallRole::kCalls:
          if (caller->opcode() == HloOpcode::kFusion) return ComputationRole::kFused;
          if (caller->opcode() == HloOpcode::kCall) return ComputationRole::kCall;
          return ComputationRole::kAsync;
        case CallRole::kBody:
          return ComputationRole::kWhileBody;
        case CallRole::kCondition:
          return ComputationRole::kWhileCondition;
        case CallRole::kBranch:
        case CallRole::kTrueComputation:
        case CallRole::kFalseComputation:
          return ComputationRole::kBranch;
        case CallRole::kToApply:
          if (caller->opcode() == HloOpcode::kCall) return ComputationRole::kCall;
          return ComputationRole::kEmbedded;
        case CallRole::kCalledComputations:
          return ComputationRole::kCustomCall;
        case CallRole::kSelect:
        case CallRole::kScatter:
          return ComputationRole::kEmbedded;
        case CallRole::kOther:
          break;
      }
    }
  }
  return ComputationRole::kUnreachable;
}

bool IsSequentialRole(ComputationRole role) {
  switch (role) {
    case ComputationRole::kEntry:
    case ComputationRole::kWhileBody:
    case ComputationRole::kWhileCondition:
    case ComputationRole::kBranch:
    case ComputationRole::kCall:
    case ComputationRole::kAsync:
      return true;
    default:
      return false;
  }
}

}  // namespace hloscope
