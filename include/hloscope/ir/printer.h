// Printing the IR back as HLO text. The output is canonical (names with '%',
// no operand shapes, one instruction per line) and parses to the same IR:
// attribute values, metadata and literals are printed verbatim as read.
#ifndef HLOSCOPE_IR_PRINTER_H_
#define HLOSCOPE_IR_PRINTER_H_

#include <string>

#include "hloscope/ir/module.h"

namespace hloscope {

struct PrintOptions {
  bool print_stack_frames = true;  // the FileNames/.../StackFrames tables
};

std::string PrintModule(const HloModule& module, const PrintOptions& options = {});
std::string PrintInstruction(const HloInstruction& instr);

}  // namespace hloscope

#endif  // HLOSCOPE_IR_PRINTER_H_
