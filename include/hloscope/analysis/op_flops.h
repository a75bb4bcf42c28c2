// The FLOPs of single operations by XLA's formulas
// (xla/service/hlo_cost_analysis.cc): GetDotFlops, GetConvolutionFlops, and
// which element-wise opcodes are "transcendentals" rather than FLOPs.
#ifndef HLOSCOPE_ANALYSIS_OP_FLOPS_H_
#define HLOSCOPE_ANALYSIS_OP_FLOPS_H_

#include <cstdint>

#include "hloscope/ir/instruction.h"

namespace hloscope {

// XLA's kFmaFlops: a fused multiply-add is two FLOPs.
inline constexpr int64_t kFmaFlops = 2;

// exp, log, logistic, power, sqrt, cbrt, rsqrt, tanh, sin, cos, tan, expm1,
// log1p, atan2, erf: counted as transcendentals, one per element.
bool IsTranscendental(HloOpcode op);

// 2 × output elements × the product of the lhs contracting dimensions.
// Sets *incomplete when an attribute or size cannot be read.
int64_t DotFlops(const HloInstruction& dot, bool* incomplete);

// 2 × input features per group × output features × batch per group × the
// (kernel, output) position pairs that read a real input element, per
// spatial dimension (padding, strides and dilations counted as XLA does).
int64_t ConvolutionFlops(const HloInstruction& conv, bool* incomplete);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_OP_FLOPS_H_
