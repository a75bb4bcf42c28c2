// `hloscope explain`: HLO in plain words, built from the module's analyses.
//
// For one instruction: what the opcode does, how to read its shape and
// layout, what its fusion kind means, what its metadata says, how often it
// runs and why it is (or is not) updated in place. For a whole module: a
// short guided reading — the entry, the loops with trip counts, the kernels
// by kind, the copies. Rendered as titled sections of sentences, or JSON.
#ifndef HLOSCOPE_REPORT_RENDER_EXPLAIN_H_
#define HLOSCOPE_REPORT_RENDER_EXPLAIN_H_

#include <ostream>
#include <string>
#include <vector>

#include "hloscope/analysis/instruction_facts.h"
#include "hloscope/analysis/module_analysis.h"
#include "hloscope/report/json_model.h"

namespace hloscope {

struct ExplainSection {
  std::string title;
  std::vector<std::string> lines;
};

struct Explanation {
  const HloModule* module = nullptr;
  const HloInstruction* instruction = nullptr;  // nullptr for the module reading
  const HloComputation* computation = nullptr;  // `explain FILE COMPUTATION`
  std::string text;                             // the HLO line (instruction) or the module header
  std::vector<ExplainSection> sections;
};

// `analysis` must have its sources built (EnsureSources).
Explanation ExplainInstruction(const ModuleAnalysis& analysis, const InstructionFacts& facts);
Explanation ExplainModule(const ModuleAnalysis& analysis);
// A computation: its role, who calls it (and from which line), how often it
// runs, and the findings inside it (a loop body's carries, copies, updates).
Explanation ExplainComputation(const ModuleAnalysis& analysis, const HloComputation& computation);

void RenderExplanationText(const Explanation& e, std::ostream& out);
// One module object of the explain document: header + "explanation".
Json ExplanationModuleJson(const Explanation& e);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_RENDER_EXPLAIN_H_
