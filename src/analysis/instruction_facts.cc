#include "hloscope/analysis/instruction_facts.h"

namespace hloscope {

InstructionFacts FactsOf(const ModuleAnalysis& a, const HloInstruction& instr) {
  InstructionFacts f;
  f.instruction = &instr;
  const HloComputation* comp = instr.parent();
  f.role = RoleOf(*comp);
  if (f.role == ComputationRole::kFused && !comp->callers().empty()) f.fusion = comp->callers()[0];
  f.kernel = a.sources().KernelOf(instr);
  for (const HloInstruction* w : a.counts.EnclosingLoops(comp))
    f.loops.push_back({w, a.counts.TripCountOf(w), a.sources().Of(*w)});
  f.executions = a.counts.Of(&instr);
  f.executions_upper_bound = a.counts.IsUpperBound(comp);
  const HloInstruction* as_fusion = instr.opcode() == HloOpcode::kFusion ? &instr : f.fusion;
  if (as_fusion) f.kernel_summary = SummarizeFusion(*as_fusion, a.sources(), a.counts, &a.check);
  f.source = a.sources().Of(instr);
  for (const UpdateFinding* u : a.check.UpdatesOf(&instr)) f.updates.push_back(u);
  f.copies = a.check.CopiesOf(&instr);
  if (IsSequentialRole(f.role)) f.pairs = GetInPlaceInputOutputPairs(instr);
  return f;
}

}  // namespace hloscope
