#include "spmd_patterns.h"

#include "hloscope/analysis/call_graph.h"
#include "hloscope/analysis/dataflow.h"

namespace hloscope {

// Through the ops that pass a value on unchanged.
const HloInstruction* Unwrap(const HloInstruction* i) {
  for (int k = 0; k < 16 && i; ++k) {
    switch (i->opcode()) {
      case HloOpcode::kBitcast:
      case HloOpcode::kCopy:
      case HloOpcode::kConvert:
      case HloOpcode::kReshape:
        if (i->operand_count() < 1) return i;
        i = i->operand(0);
        continue;
      default:
        return i;
    }
  }
  return i;
}

const HloInstruction* CallerOperandOf(const HloInstruction* v) {
  if (v->opcode() != HloOpcode::kParameter ||
      (RoleOf(*v->parent()) != ComputationRole::kFused && RoleOf(*v->parent()) != ComputationRole::kAsync) ||
      v->parent()->callers().size() != 1)
    return v;
  const HloInstruction* caller = v->parent()->callers()[0];
  return v->parameter_number() < caller->operand_count() ? caller->operand(v->parameter_number()) : nullptr;
}

bool HasContraction(const HloComputation& kernel) {
  for (const HloInstruction* i : kernel.instructions())
    if (i->opcode() == HloOpcode::kDot || i->opcode() == HloOpcode::kConvolution ||
        i->opcode() == HloOpcode::kReduce)
      return true;
  return false;
}

bool Calls(const HloComputation& kernel, HloOpcode opcode) {
  for (const HloInstruction* i : kernel.instructions())
    if (i->opcode() == opcode) return true;
  return false;
}

const HloInstruction* Producer(const HloInstruction* v) {
  for (int k = 0; k < 8 && v; ++k) {
    v = Unwrap(v);
    if (!v) return nullptr;
    if (const HloInstruction* operand = CallerOperandOf(v); operand != v) {
      v = operand;
      continue;
    }
    // One output of a multi-output kernel.
    if (v && v->opcode() == HloOpcode::kGetTupleElement && v->operand_count() == 1 &&
        v->operand(0)->opcode() == HloOpcode::kFusion) {
      v = v->operand(0);
      continue;
    }
    return v;
  }
  return v;
}

// `v` differs per device: it is (or is computed from) partition-id or
// replica-id, directly, in a kernel, or carried into a loop (XLA hoists
// partition-id out of while bodies and passes it in the loop state).
bool PerDevice(const HloInstruction* v, int depth) {
  if (!v || depth > 6) return false;
  HloPosition p = LoopInitOf(DefiningPosition(v, {}));
  v = p.instruction;
  if (!v) return false;
  switch (v->opcode()) {
    case HloOpcode::kPartitionId:
    case HloOpcode::kReplicaId:
      return true;
    case HloOpcode::kFusion:
      if (const HloComputation* fused = v->fused_computation())
        for (const HloInstruction* i : fused->instructions())
          if (i->opcode() == HloOpcode::kPartitionId || i->opcode() == HloOpcode::kReplicaId) return true;
      break;
    case HloOpcode::kConstant:
    case HloOpcode::kParameter:
      return false;
    default:
      break;
  }
  for (int64_t k = 0; k < v->operand_count(); ++k)
    if (PerDevice(v->operand(k), depth + 1)) return true;
  return false;
}

// The kernel that masks `v` by device: a select (or a fusion holding one,
// and no contraction) one of whose operands is per-device. XLA's SPMD
// partitioner reads and writes at an index along a sharded dimension this
// way (spmd_partitioner's gather/scatter/dynamic-slice "trivially sliced
// operand" strategies): each device keeps what it owns, zeros the rest, and
// an all-reduce sums the pieces.
const HloInstruction* DeviceMask(const HloInstruction* v) {
  v = Producer(v);
  if (!v) return nullptr;
  bool select = v->opcode() == HloOpcode::kSelect;
  if (v->opcode() == HloOpcode::kFusion) {
    const HloComputation* fused = v->fused_computation();
    if (!fused || HasContraction(*fused)) return nullptr;
    select = Calls(*fused, HloOpcode::kSelect);
  }
  if (!select) return nullptr;
  for (int64_t k = 0; k < v->operand_count(); ++k)
    if (PerDevice(v->operand(k))) return v;
  return nullptr;
}

// `v` is a device's shard placed at its own offset in an otherwise zero
// array: a dynamic-update-slice (or a kernel holding one, and no
// contraction) at a per-device index. An all-reduce summing such arrays is
// an all-gather (XLA:TPU writes small or unaligned all-gathers this way).
bool PlacedByDevice(const HloInstruction* v) {
  v = Producer(v);
  if (!v) return false;
  if (v->opcode() == HloOpcode::kDynamicUpdateSlice) {
    for (int64_t k = 2; k < v->operand_count(); ++k)
      if (PerDevice(v->operand(k))) return true;
    return false;
  }
  if (v->opcode() != HloOpcode::kFusion || !v->fused_computation()) return false;
  const HloComputation& fused = *v->fused_computation();
  if (HasContraction(fused) || !Calls(fused, HloOpcode::kDynamicUpdateSlice)) return false;
  for (int64_t k = 0; k < v->operand_count(); ++k)
    if (PerDevice(v->operand(k))) return true;
  return PerDevice(v);
}

// The partial sums an all-reduce adds up: their contraction.
const HloInstruction* PartialSumProducer(const HloInstruction* v) {
  for (int k = 0; k < 8 && v; ++k) {
    v = Unwrap(v);
    if (!v) return nullptr;
    // A collective fused into a kernel (TPU) or wrapped in an async-start
    // (GPU) reads the caller's operands.
    if (const HloInstruction* operand = CallerOperandOf(v); operand != v) {
      v = operand;
      continue;
    }
    switch (v->opcode()) {
      case HloOpcode::kDot:
      case HloOpcode::kConvolution:
      case HloOpcode::kReduce:
        return v;
      case HloOpcode::kFusion: {
        const HloComputation* fused = v->fused_computation();
        if (!fused) return nullptr;
        if (HasContraction(*fused)) return v;
        if (v->operand_count() < 1) return nullptr;
        v = v->operand(0);
        continue;
      }
      case HloOpcode::kCustomCall:
        return v;  // a library matmul (cuBLAS, oneDNN)
      case HloOpcode::kTuple:
        if (v->operand_count() < 1) return nullptr;
        v = v->operand(0);
        continue;
      default:
        if (v->operand_count() == 0) return nullptr;
        v = v->operand(0);
    }
  }
  return nullptr;
}

}  // namespace hloscope
