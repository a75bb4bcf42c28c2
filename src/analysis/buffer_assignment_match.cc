#include "hloscope/analysis/buffer_assignment_match.h"

#include <fmt/format.h>

#include <span>
#include <string_view>

#include "hloscope/analysis/dataflow.h"

namespace hloscope {
namespace {

// `f32[4,8]{1,0:T(8,128)}` -> `f32[4,8]`: layouts are compared by neither
// side (the dump prints them with the tiling and memory space it chose).
std::string WithoutLayouts(std::string_view s) {
  std::string out;
  int depth = 0;
  for (char c : s) {
    if (c == '{') ++depth;
    if (depth == 0 && c != ' ') out.push_back(c);
    if (c == '}' && depth > 0) --depth;
  }
  return out;
}

}  // namespace

std::optional<std::string> ForeignBufferAssignment(const BufferAssignment& ba, const HloModule& module,
                                                   const BufferValueInstructions& instructions) {
  if (!instructions.first_missing().empty())
    return fmt::format("it lists {}, which this module does not have", instructions.first_missing());
  for (const BufferAllocation& a : ba.allocations()) {
    for (const BufferValue& v : a.values) {
      const HloInstruction* named = instructions.Of(a, v);
      if (!named) continue;  // hand-written HLO reusing a name: nothing to compare
      const Shape& shape = named->shape();
      // A value at {} of an array instruction is the instruction's own
      // shape; tuple elements are left alone (indices print differently).
      if (!v.index.empty() || shape.IsTuple() || v.shape.empty()) continue;
      std::string theirs = WithoutLayouts(v.shape), ours = WithoutLayouts(shape.ToString(false));
      if (theirs != ours)
        return fmt::format("it gives {} the shape {} where this module has {}", v.instruction, theirs, ours);
    }
    if (a.parameter_number && !a.parameter_shape.empty() && a.parameter_index.empty()) {
      const HloComputation* entry = module.entry_computation();
      std::span<HloInstruction* const> params = entry->parameters();
      int64_t n = *a.parameter_number;
      if (n < 0 || n >= static_cast<int64_t>(params.size()) || !params[n])
        return fmt::format("its allocation {} is for parameter {}, and this module's entry has {}", a.index,
                           n, params.size());
      if (params[n]->shape().IsTuple()) continue;
      std::string theirs = WithoutLayouts(a.parameter_shape);
      std::string ours = WithoutLayouts(params[n]->shape().ToString(false));
      if (theirs != ours)
        return fmt::format("its parameter {} is {} where this module's is {}", n, theirs, ours);
    }
  }
  // XLA always places the entry's result: a dump without it is of a module
  // whose instructions merely include this one's names (a smaller one).
  const HloInstruction* root = module.entry_computation()->root_instruction();
  HloPosition result = DefiningPosition(root, {});
  if (result.instruction && ba.FindValue(result.instruction->name(), result.index) == nullptr &&
      ba.FindValue(result.instruction->name()) == nullptr)
    return fmt::format("it has no buffer for this module's result, {}", result.instruction->name());
  return std::nullopt;
}

std::optional<std::string> ForeignBufferAssignment(const BufferAssignment& ba, const HloModule& module) {
  return ForeignBufferAssignment(ba, module, BufferValueInstructions(ba, module));
}

}  // namespace hloscope
