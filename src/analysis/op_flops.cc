#include "hloscope/analysis/op_flops.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "hloscope/analysis/backend_config.h"
#include "hloscope/ir/window.h"
#include "hloscope/support/saturating.h"

namespace hloscope {
namespace {

int64_t ElementCount(const Shape& shape, bool* incomplete) {
  std::optional<int64_t> n = shape.IsArray() ? shape.ElementCount() : std::nullopt;
  if (!n) *incomplete = true;
  return n.value_or(0);
}

// HloCostAnalysis::GetDotFlops: an FMA per output element and contracted
// element of the lhs. A contracting dimension out of range or unbounded
// (`?`, stored as -1) has no size to count: noted as incomplete.
int64_t ContractionFlops(const Shape& lhs, const Shape& out, const std::vector<int64_t>& contracting,
                         bool* incomplete) {
  int64_t width = 1;
  for (int64_t d : contracting) {
    if (d < 0 || d >= lhs.rank() || lhs.dimensions[d] < 0) {
      *incomplete = true;
      continue;
    }
    width = SatMul(width, lhs.dimensions[d]);
  }
  return SatMul(SatMul(kFmaFlops, ElementCount(out, incomplete)), width);
}

}  // namespace

bool IsTranscendental(HloOpcode op) {
  switch (op) {
    case HloOpcode::kErf:
    case HloOpcode::kTan:
    case HloOpcode::kExp:
    case HloOpcode::kLog:
    case HloOpcode::kLogistic:
    case HloOpcode::kPower:
    case HloOpcode::kSqrt:
    case HloOpcode::kCbrt:
    case HloOpcode::kRsqrt:
    case HloOpcode::kTanh:
    case HloOpcode::kSin:
    case HloOpcode::kCos:
    case HloOpcode::kExpm1:
    case HloOpcode::kLog1p:
    case HloOpcode::kAtan2:
      return true;
    default:
      return false;
  }
}

int64_t DotFlops(const HloInstruction& dot, bool* incomplete) {
  if (dot.operand_count() < 1) return 0;
  std::optional<std::vector<int64_t>> contracting = IntListAttribute(dot, "lhs_contracting_dims");
  if (!contracting) *incomplete = true;
  return ContractionFlops(dot.operand(0)->shape(), dot.shape(), contracting.value_or(std::vector<int64_t>{}),
                          incomplete);
}

std::optional<int64_t> LibraryGemmFlops(const HloInstruction& call) {
  // The attribute's text as printed: quoted.
  std::optional<std::string_view> target = call.attribute("custom_call_target");
  if (target && target->starts_with('"')) target->remove_prefix(1);
  if (!target || !target->starts_with("__cublas$") || call.operand_count() < 2) return std::nullopt;
  std::optional<std::vector<int64_t>> contracting = GemmLhsContractingDims(call);
  if (!contracting) return std::nullopt;
  const Shape& lhs = call.operand(0)->shape();
  const Shape& out = call.shape().IsTuple() && !call.shape().tuple_shapes.empty()
                         ? *call.shape().tuple_shapes[0]
                         : call.shape();
  if (!lhs.IsArray() || !out.IsArray()) return std::nullopt;
  bool incomplete = false;
  const int64_t flops = ContractionFlops(lhs, out, *contracting, &incomplete);
  if (incomplete) return std::nullopt;
  return flops;
}

// HloCostAnalysis::GetConvolutionFlops: FMAs = input features per group ×
// output features × batch per group × Π over spatial dimensions of the
// (kernel, output) position pairs that read a real input element.
int64_t ConvolutionFlops(const HloInstruction& conv, bool* incomplete) {
  std::optional<std::string_view> labels = conv.attribute("dim_labels");
  std::optional<ConvolutionDimensionNumbers> dn = labels ? ParseDimLabels(*labels) : std::nullopt;
  std::optional<std::vector<WindowDimension>> window = WindowOf(conv);
  std::optional<int64_t> feature_groups = IntAttribute(conv, "feature_group_count", 1);
  std::optional<int64_t> batch_groups = IntAttribute(conv, "batch_group_count", 1);
  if (!dn || !window || !feature_groups || !batch_groups || *feature_groups < 1 || *batch_groups < 1 ||
      conv.operand_count() < 2) {
    *incomplete = true;
    return 0;
  }
  const Shape& lhs = conv.operand(0)->shape();
  const Shape& rhs = conv.operand(1)->shape();
  const Shape& out = conv.shape();
  auto dim = [&](const Shape& s, int64_t d) -> int64_t {
    if (d < 0 || d >= s.rank()) {
      *incomplete = true;
      return 0;
    }
    return s.dimensions[d];
  };
  std::vector<WindowDimension> w = *window;
  std::vector<int64_t> kernel_limits, output_limits, input_limits;
  if (w.empty()) {
    w.push_back({});
    kernel_limits = output_limits = input_limits = {1};
  } else {
    if (w.size() != dn->input_spatial.size()) {
      *incomplete = true;
      return 0;
    }
    for (size_t s = 0; s < w.size(); ++s) {
      kernel_limits.push_back(dim(rhs, dn->kernel_spatial[s]));
      output_limits.push_back(dim(out, dn->output_spatial[s]));
      input_limits.push_back(dim(lhs, dn->input_spatial[s]));
    }
  }
  int64_t positions = 1;
  for (size_t s = 0; s < w.size(); ++s) {
    const WindowDimension& wd = w[s];
    const int64_t in = input_limits[s], kernel = kernel_limits[s], output = output_limits[s];
    if (in == output && kernel == output && in == wd.base_dilation && wd.window_dilation == 1 &&
        std::max<int64_t>(1, in - 1) == wd.stride && wd.padding_low == 0 && wd.padding_high == 0) {
      positions = SatMul(positions, in);
      continue;
    }
    if (in == 1 && kernel == output && wd.window_dilation == 1 && wd.base_dilation == 1 && wd.stride == 1 &&
        wd.padding_high == output - 1 && wd.padding_low == output - 1) {
      positions = SatMul(positions, output);
      continue;
    }
    // Kernel × output pairs: bounded by the shapes, which a module already
    // holds; an absurd product would not finish, so count it as unknown.
    if (SatMul(kernel, output) > (int64_t{1} << 32)) {
      *incomplete = true;
      return 0;
    }
    int64_t valid = 0;
    for (int64_t k = 0; k < kernel; ++k) {
      for (int64_t o = 0; o < output; ++o) {
        const int64_t undilated = o * wd.stride - wd.padding_low + k * wd.window_dilation;
        const int64_t index = wd.base_dilation > 1 ? undilated / wd.base_dilation : undilated;
        if (undilated != index * wd.base_dilation) continue;
        if (index < 0 || index >= in) continue;
        ++valid;
      }
    }
    positions = SatMul(positions, valid);
  }
  const int64_t fmas =
      SatMul(SatMul(SatMul(dim(lhs, dn->input_feature) / *feature_groups, dim(out, dn->output_feature)),
                    dim(lhs, dn->input_batch) / *batch_groups),
             positions);
  return SatMul(fmas, kFmaFlops);
}

int64_t ReduceWindowApplications(const HloInstruction& instr, bool* incomplete) {
  std::optional<std::vector<WindowDimension>> window = WindowOf(instr);
  if (!window) {
    *incomplete = true;
    return 0;
  }
  int64_t window_elements = 1;
  for (const WindowDimension& d : *window) window_elements = SatMul(window_elements, d.size);
  const Shape& first = instr.shape().IsTuple() && !instr.shape().tuple_shapes.empty()
                           ? *instr.shape().tuple_shapes[0]
                           : instr.shape();
  const int64_t outputs = ElementCount(first, incomplete);
  int64_t count = SatMul(window_elements - 1, outputs);
  // A reduce followed by a broadcast of one dimension, written as one
  // reduce-window (cumulative sums): XLA counts it as the reduce it is.
  int64_t reducing = 0, padded = 0;
  for (const WindowDimension& d : *window) {
    reducing += d.size != 1;
    padded += d.padding_low != 0 || d.padding_high != 0;
  }
  if (reducing == 1 && padded == 1 && instr.shape().IsArray()) {
    for (size_t k = 0; k < window->size(); ++k) {
      const WindowDimension& d = (*window)[k];
      if (d.size != 1 && d.padding_low != 0 && d.padding_high != 0 && d.padding_low == d.padding_high &&
          d.size == 2 * d.padding_low + 1) {
        if (static_cast<int64_t>(k) < instr.shape().rank() &&
            d.padding_low == instr.shape().dimensions[k] - 1) {
          const int64_t span = instr.shape().dimensions[k];
          count = span > 0 ? outputs / span + (span - 1) : 0;
        }
        break;
      }
    }
  }
  return count;
}

// ShapeUtil::TransposeIsBitcast: the transpose only renames dimensions in
// memory (the output's physical order is the operand's).
bool TransposeIsBitcast(const HloInstruction& transpose) {
  if (transpose.operand_count() < 1) return false;
  const Shape& in = transpose.operand(0)->shape();
  const Shape& out = transpose.shape();
  std::optional<std::vector<int64_t>> dims = IntListAttribute(transpose, "dimensions");
  if (!dims || !in.layout || !out.layout) return false;
  const std::vector<int64_t>& in_order = in.layout->minor_to_major;
  const std::vector<int64_t>& out_order = out.layout->minor_to_major;
  if (in_order.size() != out_order.size() || dims->size() != out_order.size()) return false;
  for (size_t k = 0; k < out_order.size(); ++k) {
    const int64_t d = out_order[k];
    if (d < 0 || d >= static_cast<int64_t>(dims->size()) || (*dims)[d] != in_order[k]) return false;
  }
  return true;
}

}  // namespace hloscope
