// The collectives of a sharded module as findings (CollectiveFinding,
// analysis/findings.h): traffic per device, executions per call, loops,
// source line, and the cause from the catalog's collective rows. Run by
// CheckModule after the copies and before the loops (which add up what
// their collectives move per iteration).
#ifndef HLOSCOPE_ANALYSIS_COLLECTIVES_H_
#define HLOSCOPE_ANALYSIS_COLLECTIVES_H_

#include "hloscope/analysis/findings.h"

namespace hloscope {

class CheckContext;

// Fills `out->collectives` (largest per call first), `out->spmd` and
// `out->undecoded` (collectives whose attributes do not decode).
void FindCollectives(const CheckContext& ctx, ModuleCheck* out);

// Whether collective rules of `family` have a matcher (collectives.cc's
// MatcherOf; for the catalog's tests).
bool HasCollectiveMatcher(CollectiveRuleFamily family);

// The carries of the loop whose body is `body` that collective `c` moves
// whole every iteration: the carry's data reaches its operands, which add
// up to at least half of the carry, and what it moves becomes the carry's
// next value (the carry travels around the devices: a ring, a pipeline
// stage, a re-shard and back). The loop (analysis/loops.cc) decides from
// them whether the collective grows with buffer size.
std::vector<int64_t> CarriesMovedWhole(const CollectiveFinding& c, const HloComputation* body);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_COLLECTIVES_H_
