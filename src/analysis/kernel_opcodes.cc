#include "hloscope/analysis/kernel_opcodes.h"

namespace hloscope {

bool IsAsyncFollower(HloOpcode op) {
  switch (op) {
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
    case HloOpcode::kAllReduceDone:
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kCollectivePermuteDone:
    case HloOpcode::kCopyDone:
    case HloOpcode::kSendDone:
    case HloOpcode::kRecvDone:
      return true;
    default:
      return false;
  }
}

bool IsControlFlow(HloOpcode op) {
  return op == HloOpcode::kWhile || op == HloOpcode::kCall || op == HloOpcode::kConditional ||
         op == HloOpcode::kAsyncStart;
}

bool IsKernel(const HloInstruction& instr) {
  if (IsControlFlow(instr.opcode()) || IsAsyncFollower(instr.opcode())) return false;
  switch (instr.opcode()) {
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kTuple:
    case HloOpcode::kBitcast:
    case HloOpcode::kAfterAll:
    case HloOpcode::kAddDependency:
    case HloOpcode::kDomain:
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kPartitionId:
    case HloOpcode::kReplicaId:
      return false;
    default:
      return true;
  }
}

}  // namespace hloscope
