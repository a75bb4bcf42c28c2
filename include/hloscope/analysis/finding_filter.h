// Which findings count: one filter for every command and door — check's
// listing and gates, report, diff, run, watch and the Python assertions
// (--include-minor, --include-library, --min-bytes, --scope; Python
// include_minor=, include_library=, min_bytes=, scope=).
//
// * Minor findings — copies of scalars (the loop counter XLA copies in every
//   loop, the constants a loop starts from) and small constant prefetches
//   into another memory space — are summarised, never itemised, and not
//   counted unless include_minor: they never make a program slow.
// * Findings made inside library code (analysis/source_origin.h: JAX's
//   private jitted helpers such as jit(_threefry_split), frames under
//   site-packages) are listed under their own heading and not counted
//   unless include_library: their hints cannot be acted on.
// * Findings moving fewer than min_bytes per call (bytes × executions) are
//   not listed one by one and not counted; an unknown amount (a loop of
//   unknown trip count) always counts.
// * scope: only findings inside this jax.named_scope path (scope_filter.h).
//
// The filter decides on plain facts (FindingFacts), which both a live
// check (ModuleCheck) and a check document read back from JSON (a `diff`
// baseline) give, so a finding counts the same way in both.
#ifndef HLOSCOPE_ANALYSIS_FINDING_FILTER_H_
#define HLOSCOPE_ANALYSIS_FINDING_FILTER_H_

#include <cstdint>
#include <optional>
#include <string>

#include "hloscope/analysis/findings.h"

namespace hloscope {

struct FindingFilter {
  bool include_minor = false;    // --include-minor (alias: --count-scalar-copies)
  bool include_library = false;  // --include-library
  int64_t min_bytes = 0;         // --min-bytes: per call
  std::string scope;             // --scope

  bool operator==(const FindingFilter&) const = default;
};

// What the filter and the gate policy (policy.h) look at.
struct FindingFacts {
  bool minor = false;
  bool library = false;
  bool in_loop = false;
  std::optional<int64_t> bytes_per_call;  // nullopt: unknown
};

FindingFacts FactsOf(const CopyFinding& copy);
FindingFacts FactsOf(const UpdateFinding& update);
// A loop's scaling entry (a copy or a carry rewritten in full every
// iteration): bytes per call are its bytes × the iterations per call.
FindingFacts FactsOf(const LoopScaling& scaling, const LoopFinding& loop);
FindingFacts FactsOf(const CollectiveFinding& collective);

// Whether a finding with these facts counts under the filter (the scope is
// applied before, to the findings themselves: scope_filter.h).
bool Counts(const FindingFilter& filter, const FindingFacts& facts);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_FINDING_FILTER_H_
