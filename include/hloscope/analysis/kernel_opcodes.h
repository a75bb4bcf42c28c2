// Which instructions are kernels — do work of their own when a module runs —
// and which only steer (control flow) or finish what another started (the
// later halves of async pairs). analysis/hlo_cost.h prices the kernels;
// analysis/module_cost.h multiplies them by their executions.
#ifndef HLOSCOPE_ANALYSIS_KERNEL_OPCODES_H_
#define HLOSCOPE_ANALYSIS_KERNEL_OPCODES_H_

#include "hloscope/ir/instruction.h"
#include "hloscope/ir/opcode.h"

namespace hloscope {

// The later halves of async pairs (-done, async-update): their work is their
// start's.
bool IsAsyncFollower(HloOpcode op);

// while, call, conditional, async-start: their computations are costed on
// their own.
bool IsControlFlow(HloOpcode op);

// True for instructions that do work of their own as one kernel (a fusion,
// a dot, a sort, a collective, a copy, ...): not parameters, constants,
// tuples, get-tuple-element, bitcasts or control flow.
bool IsKernel(const HloInstruction& instr);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_KERNEL_OPCODES_H_
