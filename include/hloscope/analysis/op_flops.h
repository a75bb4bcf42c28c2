// The formulas of XLA's cost analysis for single operations
// (xla/service/hlo_cost_analysis.cc): GetDotFlops, GetConvolutionFlops, a
// reduce-window's applications, which element-wise opcodes are
// "transcendentals" rather than FLOPs, and which transposes move no data.
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
// A cuBLAS GEMM custom-call's FLOPs by the same rule (GpuHloCostAnalysis:
// its dot dimensions from gemm_backend_config, the result the first array
// of its output — cuBLASLt adds a workspace); nullopt for other
// custom-calls or a config that does not say.
std::optional<int64_t> LibraryGemmFlops(const HloInstruction& call);

// 2 × input features per group × output features × batch per group × the
// (kernel, output) position pairs that read a real input element, per
// spatial dimension (padding, strides and dilations counted as XLA does).
int64_t ConvolutionFlops(const HloInstruction& conv, bool* incomplete);

// How often a reduce-window applies its reducer: (window − 1) × outputs,
// except a reduce-and-broadcast of one dimension written as a padded
// window (cumulative sums), which XLA counts as the reduce it is.
int64_t ReduceWindowApplications(const HloInstruction& reduce_window, bool* incomplete);

// ShapeUtil::TransposeIsBitcast: the transpose only renames dimensions in
// memory (it moves no data; XLA counts no bytes for it).
bool TransposeIsBitcast(const HloInstruction& transpose);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_OP_FLOPS_H_
