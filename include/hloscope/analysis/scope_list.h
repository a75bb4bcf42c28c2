// The named scopes of a module (`hloscope scopes FILE`): every
// jax.named_scope path in the instructions' op_names, with how many
// instructions lie in it — what `--scope` can select, and the names an
// unknown scope is compared with.
#ifndef HLOSCOPE_ANALYSIS_SCOPE_LIST_H_
#define HLOSCOPE_ANALYSIS_SCOPE_LIST_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hloscope/ir/module.h"

namespace hloscope {

struct ScopeCount {
  std::string path;          // "grad_step/encoder" (UserScopePath of op_names, and each prefix)
  int64_t instructions = 0;  // instructions inside it, fused ones included
};

// Sorted by path; a scope's prefixes are scopes too ("grad_step" holds
// "grad_step/encoder").
std::vector<ScopeCount> ListScopes(const HloModule& module);

// Whether some instruction's op_name lies in `scope` (scope_filter.h rules).
bool AnyInstructionInScope(const HloModule& module, std::string_view scope);

// The listed scopes nearest to `scope` by edit distance (on the whole path
// and on its last segment), nearest first, at most `n`.
std::vector<std::string> ClosestScopes(const std::vector<ScopeCount>& scopes, std::string_view scope,
                                       size_t n = 3);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_SCOPE_LIST_H_
