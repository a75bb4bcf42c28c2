#include "hloscope/analysis/finding_filter.h"

#include "hloscope/analysis/source_origin.h"
#include "hloscope/support/saturating.h"

namespace hloscope {

FindingFacts FactsOf(const CopyFinding& c) {
  return {c.minor, OriginOf(c.source).library, !c.enclosing_loops.empty(), c.total_bytes};
}

FindingFacts FactsOf(const UpdateFinding& u) {
  std::optional<int64_t> per_call;
  if (u.bytes_written && u.executions) per_call = SatMul(*u.bytes_written, *u.executions);
  return {false, OriginOf(u.source).library, !u.enclosing_loops.empty(), per_call};
}

FindingFacts FactsOf(const LoopScaling& s, const LoopFinding& l) {
  std::optional<int64_t> per_call;
  if (s.bytes && l.trip_count && l.executions)
    per_call = SatMul(SatMul(*s.bytes, *l.trip_count), *l.executions);
  return {false, OriginOf(l.source).library, true, per_call};
}

FindingFacts FactsOf(const CollectiveFinding& c) {
  return {false, OriginOf(c.source).library, !c.enclosing_loops.empty(), c.total_bytes};
}

bool Counts(const FindingFilter& f, const FindingFacts& facts) {
  if (facts.minor && !f.include_minor) return false;
  if (facts.library && !f.include_library) return false;
  return !facts.bytes_per_call || *facts.bytes_per_call >= f.min_bytes;
}

}  // namespace hloscope
