// HloOpcode: generated from opcode_list.def, the one table of opcodes.
#ifndef HLOSCOPE_IR_OPCODE_H_
#define HLOSCOPE_IR_OPCODE_H_

#include <cstdint>
#include <string_view>

namespace hloscope {

enum class HloOpcode : uint8_t {
#define V(enum_name, text) enum_name,
#include "hloscope/ir/opcode_list.def"
#undef V
  // An opcode this version does not know; HloInstruction keeps its spelling.
  kUnknown,
};

inline constexpr int kHloOpcodeCount = static_cast<int>(HloOpcode::kUnknown);

std::string_view HloOpcodeString(HloOpcode opcode);
// "dynamic-update-slice" -> kDynamicUpdateSlice; unknown text -> kUnknown.
HloOpcode StringToHloOpcode(std::string_view text);

// Element-wise in XLA's sense: output element i depends only on element i of
// each operand (xla HloInstruction::IsElementwise for the unary/binary ops).
bool IsElementwiseOpcode(HloOpcode opcode);

}  // namespace hloscope

#endif  // HLOSCOPE_IR_OPCODE_H_
