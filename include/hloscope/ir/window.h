// Window and dimension numbers: the attributes of convolution, reduce-window,
// select-and-scatter and dot as XLA prints them (hlo_instruction.cc's
// WindowToString, ConvolutionDimensionNumbersToString, DotDimensionNumbers).
//
//   window={size=3x3 stride=2x2 pad=1_1x1_1 lhs_dilate=1x1 rhs_dilate=2x2}
//   dim_labels=b01f_01io->b01f
//   lhs_contracting_dims={1}, rhs_batch_dims={0}
//
// The parser keeps attributes as text (newer XLA adds spellings we have not
// seen); these read them when an analysis needs the numbers, and return
// nullopt on text they do not understand rather than guess.
#ifndef HLOSCOPE_IR_WINDOW_H_
#define HLOSCOPE_IR_WINDOW_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "hloscope/ir/instruction.h"

namespace hloscope {

struct WindowDimension {
  int64_t size = 1;
  int64_t stride = 1;
  int64_t padding_low = 0;
  int64_t padding_high = 0;
  int64_t base_dilation = 1;    // lhs_dilate
  int64_t window_dilation = 1;  // rhs_dilate
};

// `{size=3x3 ...}` (braces optional). An empty window `{}` has no dimensions.
std::optional<std::vector<WindowDimension>> ParseWindow(std::string_view text);
// The instruction's window= attribute; an empty vector when it has none.
std::optional<std::vector<WindowDimension>> WindowOf(const HloInstruction& instr);

struct ConvolutionDimensionNumbers {
  int64_t input_batch = 0;
  int64_t input_feature = 0;
  std::vector<int64_t> input_spatial;
  int64_t kernel_input_feature = 0;
  int64_t kernel_output_feature = 0;
  std::vector<int64_t> kernel_spatial;
  int64_t output_batch = 0;
  int64_t output_feature = 0;
  std::vector<int64_t> output_spatial;
};

// `b01f_01io->b01f`: each label's position is the dimension it names.
std::optional<ConvolutionDimensionNumbers> ParseDimLabels(std::string_view text);

// `{1,2}` (or `{}`) as numbers.
std::optional<std::vector<int64_t>> ParseIntList(std::string_view text);
// An attribute that is a list of numbers; an empty vector when absent.
std::optional<std::vector<int64_t>> IntListAttribute(const HloInstruction& instr, std::string_view name);
// An attribute that is one number (feature_group_count=2); `absent` when absent.
std::optional<int64_t> IntAttribute(const HloInstruction& instr, std::string_view name, int64_t absent);

}  // namespace hloscope

#endif  // HLOSCOPE_IR_WINDOW_H_
