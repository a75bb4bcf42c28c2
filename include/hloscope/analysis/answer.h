// The answer: every finding of every kind headed once (finding_header.h)
// and ranked by one measure of impact, so that `check`, the report page,
// `run`, `memory`, SARIF and MCP lead with the same finding.
//
// The measure: the share of the call a finding accounts for — of the
// estimated time at the target's roofline for work (a copy's kernel, a
// collective's bytes at the interconnect's rate, a kernel that reads a
// loop's buffer whole, relayout kernels), of the memory peak per device
// for memory (a temporary live at the peak, donations dropped or not
// asked for). A finding stands out at kStandsOut of either, or at
// kStandsOutGrowing when it grows with a loop's buffer, breaks a default
// gate, is a donation XLA dropped, a loop XLA made or a collective the
// program did not ask for (a gather, a re-shard); a function with no outputs always does.
// Collectives the program asks for need kStandsOutExpected, memory
// findings kMemoryFloorBytes.
#ifndef HLOSCOPE_ANALYSIS_ANSWER_H_
#define HLOSCOPE_ANALYSIS_ANSWER_H_

#include "hloscope/analysis/findings.h"

namespace hloscope {

inline constexpr double kStandsOut = 0.10;
inline constexpr double kStandsOutGrowing = 0.01;
// Collectives the program asks for (explicit, partial sums) stand out only
// when they take this share of the time.
inline constexpr double kStandsOutExpected = 0.5;
// Memory findings (an undonated argument, a temporary at the peak) stand
// out only from this many bytes.
inline constexpr int64_t kMemoryFloorBytes = int64_t{1} << 20;
// A temporary is named when it alone is this share of the peak.
inline constexpr double kPeakTemporaryShare = 0.25;
// Relayout kernels are a finding when together this share of the time.
inline constexpr double kRelayoutShare = 0.05;

// Heads and ranks `check`'s findings into check->answer. Call after every
// change to its finding vectors (CheckModule and the scope filter do).
void RankFindings(ModuleCheck* check);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_ANSWER_H_
