// InstructionFacts: everything `hloscope explain NAME` says about one
// instruction, gathered from the module's analyses: where it runs (kernel,
// loops, executions), where it comes from, and whether it is updated in
// place or copied.
#ifndef HLOSCOPE_ANALYSIS_INSTRUCTION_FACTS_H_
#define HLOSCOPE_ANALYSIS_INSTRUCTION_FACTS_H_

#include <optional>
#include <vector>

#include "hloscope/analysis/call_graph.h"
#include "hloscope/analysis/in_place.h"
#include "hloscope/analysis/module_analysis.h"

namespace hloscope {

struct LoopAround {
  const HloInstruction* loop = nullptr;
  TripCount trip_count;
  std::optional<SourceLocation> source;
};

struct InstructionFacts {
  const HloInstruction* instruction = nullptr;
  ComputationRole role = ComputationRole::kEntry;
  const HloInstruction* fusion = nullptr;  // the fusion it is fused into directly
  const HloInstruction* kernel = nullptr;  // the instruction of a sequential computation that runs it
  std::vector<LoopAround> loops;           // innermost first
  std::optional<int64_t> executions;
  bool executions_upper_bound = false;
  // The kernel this instruction is, or is fused into (in a sequential computation).
  std::optional<FusionSummary> kernel_summary;  // the fusion it is, or is in
  std::optional<SourceLocation> source;
  std::vector<const UpdateFinding*> updates;  // its own, or those of the fusion it is
  std::vector<const CopyFinding*> copies;     // when it is a copy
  std::vector<InPlacePair> pairs;             // its in-place pairs (sequential instructions)
};

// Needs analysis.EnsureSources() to have run.
InstructionFacts FactsOf(const ModuleAnalysis& analysis, const HloInstruction& instr);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_INSTRUCTION_FACTS_H_
