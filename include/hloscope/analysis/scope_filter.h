// Filtering by jax.named_scope: does an op_name lie inside a scope?
//
// JAX writes the scope path of every operation into metadata op_name, mixed
// with the wrappers its transformations add:
//
//   jit(train)/while/body/closed_call/grad_step/transpose(jvp(encoder))/mul
//
// The user wrote `with jax.named_scope("grad_step")` and
// `with jax.named_scope("encoder")`; everything else is JAX's. MatchesScope
// splits op_name into segments, unwraps `jit(x)`, `jvp(x)`, `transpose(x)`,
// `vmap(x)` (and any other `name(x)`) to x, drops empty wrappers such as
// `vmap()`, and lets the scope's segments match consecutive segments of the
// op_name with JAX's own segments (while, body, cond, branch_N_fun,
// closed_call, checkpoint, remat, rematted_computation, ...) skipped in
// between. A scope segment may use `*` and `?` wildcards.
//
//   MatchesScope(".../grad_step/transpose(jvp(encoder))/mul", "grad_step/encoder") -> true
//   MatchesScope(".../update/cond/branch_1_fun/reduce_sum", "update")               -> true
#ifndef HLOSCOPE_ANALYSIS_SCOPE_FILTER_H_
#define HLOSCOPE_ANALYSIS_SCOPE_FILTER_H_

#include <string>
#include <string_view>
#include <vector>

#include "hloscope/analysis/findings.h"

namespace hloscope {

// One segment of an op_name after unwrapping, and whether it is one JAX
// adds by itself (while, body, closed_call, ...).
struct ScopeSegment {
  std::string name;
  bool jax_wrapper = false;
};

// A scope split once, for testing many op_names against it (the exploring
// commands test every instruction).
class ScopeMatcher {
 public:
  explicit ScopeMatcher(std::string_view scope);
  // True when the scope (one or more '/'-separated segments) occurs in
  // op_name. An empty scope matches everything; an empty op_name matches no
  // scope.
  bool Matches(std::string_view op_name) const;
  bool empty() const { return want_.empty(); }

 private:
  std::vector<ScopeSegment> want_;
};

// ScopeMatcher(scope).Matches(op_name).
bool MatchesScope(std::string_view op_name, std::string_view scope);

// op_name split at top-level '/' (not inside () or []), each segment
// unwrapped (`transpose(jvp(encoder))` -> `encoder`, `reduce_sum[axes=(0,)]`
// -> `reduce_sum`); empty segments dropped.
std::vector<ScopeSegment> SplitOpName(std::string_view op_name);

// The user's named scopes in op_name (segments that are not JAX wrappers,
// without the trailing primitive), e.g. "grad_step/encoder".
std::string UserScopePath(std::string_view op_name);

// `check --scope`: keeps the updates whose source op_name lies in `scope`,
// the copies whose (attributed) op_name does or that feed a kept update,
// and the loops that match or hold a kept copy.
// Parameters are kept. An empty scope keeps everything.
void FilterFindingsByScope(ModuleCheck* check, std::string_view scope);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_SCOPE_FILTER_H_
