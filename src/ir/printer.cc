#include "hloscope/ir/printer.h"

#include <fmt/format.h>

namespace hloscope {

std::string PrintInstruction(const HloInstruction& instr) {
  std::string out;
  if (instr.is_root()) out += "ROOT ";
  out += fmt::format("%{} = {} {}(", instr.name(), instr.shape().ToString(), instr.opcode_text());
  if (instr.opcode() == HloOpcode::kParameter || instr.opcode() == HloOpcode::kConstant) {
    out += instr.operand_text();
  } else {
    bool first = true;
    for (const HloInstruction* op : instr.operands()) {
      if (!first) out += ", ";
      first = false;
      out += '%';
      out += op->name();
    }
  }
  out += ')';
  for (const HloAttribute& a : instr.attributes())
    out += fmt::format(", {}={}", a.name.view(), a.value.view());
  return out;
}

std::string PrintModule(const HloModule& module, const PrintOptions& options) {
  std::string out = fmt::format("HloModule {}", module.name());
  for (const HloAttribute& a : module.attributes())
    out += fmt::format(", {}={}", a.name.view(), a.value.view());
  out += "\n\n";
  const StackFrameIndex& frames = module.stack_frames();
  if (options.print_stack_frames && !frames.empty()) {
    out += "FileNames\n";
    for (size_t i = 0; i < frames.file_names.size(); ++i)
      out += fmt::format("{} \"{}\"\n", i + 1, frames.file_names[i]);
    out += "\nFunctionNames\n";
    for (size_t i = 0; i < frames.function_names.size(); ++i)
      out += fmt::format("{} \"{}\"\n", i + 1, frames.function_names[i]);
    out += "\nFileLocations\n";
    for (size_t i = 0; i < frames.file_locations.size(); ++i) {
      const FileLocation& l = frames.file_locations[i];
      out += fmt::format(
          "{} {{file_name_id={} function_name_id={} line={} end_line={} "
          "column={} end_column={}}}\n",
          i + 1, l.file_name_id, l.function_name_id, l.line, l.end_line, l.column, l.end_column);
    }
    out += "\nStackFrames\n";
    for (size_t i = 0; i < frames.stack_frames.size(); ++i) {
      const StackFrameRow& f = frames.stack_frames[i];
      // Text convention: proto parent + 1 (1 = root).
      out += fmt::format("{} {{file_location_id={} parent_frame_id={}}}\n", i + 1, f.file_location_id,
                         f.parent_frame_id + 1);
    }
    out += "\n";
  }
  for (const HloComputation* comp : module.computations()) {
    out += comp->is_entry() ? "ENTRY %" : "%";
    out += comp->name();
    if (!comp->signature().empty()) {
      out += ' ';
      out += comp->signature();
    }
    out += " {\n";
    for (const HloInstruction* instr : comp->instructions()) {
      out += "  ";
      out += PrintInstruction(*instr);
      out += '\n';
    }
    out += '}';
    if (!comp->execution_thread().empty())
      out += fmt::format(", execution_thread=\"{}\"", comp->execution_thread());
    out += "\n\n";
  }
  return out;
}

}  // namespace hloscope
