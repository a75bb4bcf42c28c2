// The evidence the copy-cause rules read (copy_causes.cc gathers it once
// per copy) and what a family's matcher returns. Internal to the analysis
// layer: the matchers live in copy_causes.cc, and the loop-carry families'
// in carry_causes.cc.
#ifndef HLOSCOPE_SRC_ANALYSIS_CAUSE_EVIDENCE_H_
#define HLOSCOPE_SRC_ANALYSIS_CAUSE_EVIDENCE_H_

#include <optional>
#include <vector>

#include "check_context.h"
#include "hloscope/analysis/call_graph.h"
#include "hloscope/analysis/findings.h"

namespace hloscope::copy_rules {

// Everything the rules look at, computed once per copy.
struct Evidence {
  const CheckContext& ctx;
  const CopySite& site;
  const CopyFinding& copy;
  HloPosition me;                      // the copy's own result
  HloPosition src;                     // the value protected (behind the chain)
  std::vector<InstructionAt> readers;  // other readers of the old contents
  std::vector<ShapeIndex> outputs;     // entry outputs the copy reaches
  const HloComputation* comp = nullptr;
  ComputationRole role = ComputationRole::kEntry;
  bool in_loop = false;

  bool feeds() const { return !copy.feeds.empty(); }
  const HloInstruction* s() const { return src.instruction; }
};

// What a family's matcher found: the rule of the family that matched and
// its facts; nullopt when none of the family's rules fits.
struct Match {
  CauseRule rule = CauseRule::kNone;
  CausePayload payload;
  // kDonatedParameterRewritten orders the readers itself.
  std::optional<std::vector<InstructionAt>> readers;
};

// kCarry: a body root element copied into its carry (carries swapped,
// passed on live, received by a collective-permute, rebuilt).
std::optional<Match> LoopCarried(const Evidence& e);
// kOldValue: a copy of a carry whose slot gets a new value this iteration.
std::optional<Match> CarryOldValueRead(const Evidence& e);

}  // namespace hloscope::copy_rules

#endif  // HLOSCOPE_SRC_ANALYSIS_CAUSE_EVIDENCE_H_
