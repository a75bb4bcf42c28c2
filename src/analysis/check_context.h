// The state one `check` run shares between its parts (copies.cc,
// copy_causes.cc, updates.cc, loops.cc, parameters.cc, check.cc): the
// module, its execution counts, the copies found and the in-place pairs,
// with the dataflow helpers they all use. Private to src/analysis.
#ifndef HLOSCOPE_SRC_ANALYSIS_CHECK_CONTEXT_H_
#define HLOSCOPE_SRC_ANALYSIS_CHECK_CONTEXT_H_

#include <map>
#include <optional>
#include <unordered_map>
#include <vector>

#include "hloscope/analysis/check.h"
#include "hloscope/analysis/copy_sites.h"
#include "hloscope/analysis/dataflow.h"
#include "hloscope/analysis/in_place.h"

namespace hloscope {

class CheckContext {
 public:
  CheckContext(const HloModule& module, const ExecutionCounts& counts, const CheckOptions& options);

  const HloModule& module() const { return module_; }
  const ExecutionCounts& counts() const { return counts_; }
  const CheckOptions& options() const { return options_; }
  const BufferAssignment* buffer_assignment() const { return options_.buffer_assignment; }
  const std::vector<CopySite>& sites() const { return sites_; }

  // The copy whose result is at `pos`; nullptr if none.
  const CopySite* CopyAt(const HloPosition& pos) const;
  // The copy an in-place operand value comes from, crossing loop state to
  // the loop's init; nullptr when the buffer is not a copy.
  const CopySite* CopyUnder(HloPosition pos) const;
  // The entry parameter a value ultimately comes from (through copies and
  // loop state), as a position; nullopt if none.
  std::optional<HloPosition> ParameterOrigin(HloPosition pos) const;
  // The in-place pairs of a top-level instruction (empty if none).
  const std::vector<InPlacePair>& PairsOf(const HloInstruction* instr) const;
  // The update site of a pair of `owner`.
  static UpdateSite SiteOf(const HloInstruction* owner, const InPlacePair& pair);

  // The user's source of an instruction's own metadata.
  std::optional<SourceLocation> Source(const HloInstruction* instr) const;
  InstructionAt At(const HloInstruction* instr) const { return {instr, Source(instr)}; }

  // A permission pair (TPU's aliasing_operands) the buffer assignment did
  // not take: output and operand are listed at different places.
  bool Declined(const HloInstruction& instr, const InPlacePair& pair) const;

  // The position under which the buffer assignment lists the value at
  // `pos`. XLA's dataflow drops phis that resolve to one value (a while
  // carry the body passes through, a conditional whose branches agree), so
  // look at what flows into them: the loop's init and body root, the
  // branches' roots. Returns `pos` when nothing better is listed.
  HloPosition ListedValue(const HloPosition& pos) const;

  // The updates and loop states the value at `pos` (or a copy of it) feeds.
  std::vector<CopyFeed> FeedsOf(const HloPosition& pos) const;

 private:
  void CollectFeeds(const HloPosition& pos, std::vector<CopyFeed>* out, int depth) const;

  const HloModule& module_;
  const ExecutionCounts& counts_;
  const CheckOptions& options_;
  std::vector<CopySite> sites_;
  std::map<std::pair<const HloInstruction*, ShapeIndex>, size_t> copy_by_position_;
  std::unordered_map<const HloInstruction*, std::vector<InPlacePair>> pairs_;
};

// The parts of the analysis, in the order CheckModule runs them.
std::vector<UpdateFinding> FindUpdates(const CheckContext& ctx);
CopyFinding DescribeCopy(const CheckContext& ctx, const CopySite& site,
                         const std::vector<UpdateFinding>& updates);
// Fills `copy`'s copied_from and cause (copy_causes.cc); needs its feeds.
void ExplainCopy(const CheckContext& ctx, const CopySite& site, CopyFinding* copy);
LoopFinding AnalyzeLoop(const CheckContext& ctx, const HloInstruction* loop,
                        const std::vector<CopyFinding>& copies,
                        const std::vector<CollectiveFinding>& collectives);
std::vector<ParameterFinding> FindParameters(const CheckContext& ctx);
// Some leaf of the entry's result has `shape`'s dimensions and element type.
bool HasOutputShaped(const HloModule& module, const Shape* shape);
// Parameter `p`'s donation as `requested` against what XLA kept.
DonationRequest RequestedDonation(const HloModule& module, const ParameterFinding& p, bool requested);

}  // namespace hloscope

#endif  // HLOSCOPE_SRC_ANALYSIS_CHECK_CONTEXT_H_
