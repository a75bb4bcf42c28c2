// DiffModules: the field-by-field comparison behind the print -> parse round
// trip tests.
#include <fmt/format.h>

#include "parse_helpers.h"

namespace hloscope::testing {
namespace {

std::string RoleName(CallRole r) {
  switch (r) {
    case CallRole::kCalls:
      return "calls";
    case CallRole::kToApply:
      return "to_apply";
    case CallRole::kBody:
      return "body";
    case CallRole::kCondition:
      return "condition";
    case CallRole::kBranch:
      return "branch";
    case CallRole::kTrueComputation:
      return "true";
    case CallRole::kFalseComputation:
      return "false";
    case CallRole::kCalledComputations:
      return "called";
    case CallRole::kSelect:
      return "select";
    case CallRole::kScatter:
      return "scatter";
    case CallRole::kOther:
      return "other";
  }
  return "?";
}

std::string Describe(const HloInstruction& i) {
  std::string out = fmt::format("{}|{}|{}|root={}|{}|ops:", i.name(), i.opcode_text(), i.shape().ToString(),
                                i.is_root(), i.operand_text());
  for (const HloInstruction* op : i.operands()) out += fmt::format("{},", op ? op->name() : "<null>");
  out += "|calls:";
  for (const CalledComputation& c : i.called_computations())
    out += fmt::format("{}:{},", RoleName(c.role), c.computation ? c.computation->name() : "<null>");
  out += "|ctrl:";
  for (const HloInstruction* p : i.control_predecessors())
    out += fmt::format("{},", p ? p->name() : "<null>");
  out += "|attrs:";
  for (const HloAttribute& a : i.attributes()) out += fmt::format("{}={};", a.name.view(), a.value.view());
  if (const OpMetadata* md = i.metadata())
    out += fmt::format("|md:{}|{}|{}|{}|{}|{}", md->op_type, md->op_name, md->source_file, md->source_line,
                       md->source_column, md->stack_frame_id);
  return out;
}

std::string DescribeFrames(const StackFrameIndex& f) {
  std::string out = "files:";
  for (auto s : f.file_names) out += fmt::format("{};", s);
  out += "|functions:";
  for (auto s : f.function_names) out += fmt::format("{};", s);
  out += "|locations:";
  for (const FileLocation& l : f.file_locations)
    out += fmt::format("{},{},{},{},{},{};", l.file_name_id, l.function_name_id, l.line, l.end_line, l.column,
                       l.end_column);
  out += "|frames:";
  for (const StackFrameRow& r : f.stack_frames)
    out += fmt::format("{},{};", r.file_location_id, r.parent_frame_id);
  return out;
}

}  // namespace

std::string DiffModules(const HloModule& a, const HloModule& b) {
  if (a.name() != b.name()) return fmt::format("module name '{}' vs '{}'", a.name(), b.name());
  if (a.attributes().size() != b.attributes().size())
    return fmt::format("{} vs {} header attributes", a.attributes().size(), b.attributes().size());
  for (size_t i = 0; i < a.attributes().size(); ++i) {
    const HloAttribute& x = a.attributes()[i];
    const HloAttribute& y = b.attributes()[i];
    if (x.name != y.name || x.value != y.value)
      return fmt::format("header attribute {}={} vs {}={}", x.name.view(), x.value.view(), y.name.view(),
                         y.value.view());
  }
  if (a.is_scheduled() != b.is_scheduled()) return "is_scheduled differs";
  if (a.input_output_aliases().size() != b.input_output_aliases().size())
    return "input_output_alias count differs";
  if (a.buffer_donors().size() != b.buffer_donors().size()) return "buffer_donor count differs";
  std::string fa = DescribeFrames(a.stack_frames());
  std::string fb = DescribeFrames(b.stack_frames());
  if (fa != fb) return fmt::format("stack frames\n  {}\nvs\n  {}", fa, fb);
  if (a.computations().size() != b.computations().size())
    return fmt::format("{} vs {} computations", a.computations().size(), b.computations().size());
  if (a.entry_computation()->name() != b.entry_computation()->name())
    return fmt::format("entry '{}' vs '{}'", a.entry_computation()->name(), b.entry_computation()->name());
  for (size_t c = 0; c < a.computations().size(); ++c) {
    const HloComputation& x = *a.computations()[c];
    const HloComputation& y = *b.computations()[c];
    if (x.name() != y.name() || x.is_entry() != y.is_entry() || x.execution_thread() != y.execution_thread())
      return fmt::format(
          "computation {}: '{}' entry={} thread={} vs '{}' entry={} "
          "thread={}",
          c, x.name(), x.is_entry(), x.execution_thread(), y.name(), y.is_entry(), y.execution_thread());
    if (x.instruction_count() != y.instruction_count())
      return fmt::format("computation '{}': {} vs {} instructions", x.name(), x.instruction_count(),
                         y.instruction_count());
    if (x.root_instruction()->name() != y.root_instruction()->name())
      return fmt::format("computation '{}': root '{}' vs '{}'", x.name(), x.root_instruction()->name(),
                         y.root_instruction()->name());
    for (int64_t i = 0; i < x.instruction_count(); ++i) {
      std::string dx = Describe(*x.instructions()[i]);
      std::string dy = Describe(*y.instructions()[i]);
      if (dx != dy)
        return fmt::format("computation '{}', instruction {}:\n  {}\nvs\n  {}", x.name(), i, dx, dy);
    }
  }
  return "";
}

}  // namespace hloscope::testing
