#include "hloscope/analysis/module_stats.h"

#include <algorithm>
#include <set>

#include "hloscope/analysis/call_graph.h"
#include "hloscope/support/saturating.h"

namespace hloscope {

ModuleStats ComputeModuleStats(const HloModule& module) {
  ModuleStats stats;
  stats.module = &module;
  stats.is_scheduled = module.is_scheduled();
  stats.has_stack_frames = !module.stack_frames().empty();
  std::set<std::string> unknown;
  for (const HloComputation* comp : module.computations()) {
    ++stats.computations;
    ++stats.computations_by_role[RoleOf(*comp)];
    for (const HloInstruction* instr : comp->instructions()) {
      ++stats.instructions;
      ++stats.instructions_by_opcode[std::string(instr->opcode_text())];
      if (instr->opcode() == HloOpcode::kUnknown) unknown.insert(std::string(instr->opcode_text()));
    }
  }
  stats.unknown_opcodes.assign(unknown.begin(), unknown.end());
  const HloComputation* entry = module.entry_computation();
  int64_t total = 0;
  bool known = true;
  for (const HloInstruction* p : entry->parameters()) {
    if (!p) continue;
    ++stats.parameter_count;
    std::optional<int64_t> b = LeafByteSizeOf(p->shape());
    if (b)
      total = SatAdd(total, *b);
    else
      known = false;
  }
  if (known) stats.parameter_bytes = total;
  stats.output_bytes = LeafByteSizeOf(entry->root_instruction()->shape());
  return stats;
}

}  // namespace hloscope
