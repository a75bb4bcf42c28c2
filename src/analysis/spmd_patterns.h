// What XLA's SPMD partitioner writes, recognised in the partitioned module
// (xla/service/spmd/): the per-device values it computes from partition-id,
// the masks it reads elements at an index through, the shards it places at
// per-device offsets, the contractions whose partial sums it adds up.
// Private to src/analysis (collectives.cc).
#ifndef HLOSCOPE_ANALYSIS_SPMD_PATTERNS_H_
#define HLOSCOPE_ANALYSIS_SPMD_PATTERNS_H_

#include "hloscope/ir/module.h"

namespace hloscope {

// Through the ops that pass a value on unchanged (bitcast, copy, convert,
// reshape).
const HloInstruction* Unwrap(const HloInstruction* i);

// A parameter of a fused or async-wrapped computation with one caller (a
// collective fused into a kernel, or wrapped in an async-start, reads its
// caller's operands): the caller's operand it stands for, nullptr when the
// caller has none of that number; `v` itself when it is no such parameter.
const HloInstruction* CallerOperandOf(const HloInstruction* v);

// The kernel computes a dot, convolution or reduce (a contraction whose
// partial results an all-reduce may sum).
bool HasContraction(const HloComputation& kernel);

// The kernel holds an instruction of `opcode`.
bool Calls(const HloComputation& kernel, HloOpcode opcode);

// The kernel or instruction that made `v`'s value when it is a dot,
// convolution or reduce (or a fusion holding one, or a library matmul),
// through element-wise kernels' first operand: the partial sums an
// all-reduce adds up; nullptr when none did.
const HloInstruction* PartialSumProducer(const HloInstruction* v);

// `v`'s producer, through ops that pass values on and from a fused or
// async-wrapped collective's parameter to its caller's operand.
const HloInstruction* Producer(const HloInstruction* v);

// `v` differs per device: it is (or is computed from) partition-id or
// replica-id, directly, in a kernel, or carried into a loop.
bool PerDevice(const HloInstruction* v, int depth = 0);

// The kernel that masks `v` by device (a select on a per-device value, no
// contraction), or nullptr.
const HloInstruction* DeviceMask(const HloInstruction* v);

// `v` is a device's shard placed at its own offset in an otherwise zero
// array (a dynamic-update-slice at a per-device index).
bool PlacedByDevice(const HloInstruction* v);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_SPMD_PATTERNS_H_
