// CallGraph: who calls each computation, and in what role.
//
// A computation is called by instructions (fusion, while, conditional, call,
// reduce, async-start, ...). Its role says what kind of code it is: the ENTRY
// (main), a fused computation (the body of one kernel), a while body or
// condition, a conditional branch, an embedded reducer (to_apply), an async
// wrapped computation. Optimized HLO has a flattened call graph, so most
// computations have one caller; the analysis does not rely on that.
#ifndef HLOSCOPE_ANALYSIS_CALL_GRAPH_H_
#define HLOSCOPE_ANALYSIS_CALL_GRAPH_H_

#include <vector>

#include "hloscope/ir/module.h"

namespace hloscope {

enum class ComputationRole : uint8_t {
  kEntry,
  kFused,  // fusion calls=
  kWhileBody,
  kWhileCondition,
  kBranch,       // conditional branches
  kCall,         // call to_apply= / call-start
  kAsync,        // async-start calls=
  kEmbedded,     // reducers and comparators: reduce/sort/scatter to_apply
  kCustomCall,   // custom-call called_computations
  kUnreachable,  // nobody calls it
};

// Role of `comp` from its first caller (the entry is always kEntry).
ComputationRole RoleOf(const HloComputation& comp);

// True for computations whose instructions run as their own buffers and
// kernels: entry, while bodies/conditions, branches, calls, async bodies.
// False for fused computations and embedded reducers, whose instructions are
// parts of one kernel and own no buffers.
bool IsSequentialRole(ComputationRole role);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_CALL_GRAPH_H_
