// VerifyModule: after parsing, reject what XLA's own verifier rejects and
// the analyses cannot survive, with file:line:col and a caret.
//
// * an instruction that is its own operand, directly or through others (a
//   cycle of operands or control predecessors within a computation);
// * a cycle in the call graph (a fusion that calls its own computation, a
//   loop body that calls the entry), the entry called by an instruction,
//   computations nested deeper than kMaxCallDepth;
// * a fused computation (called by a fusion) that a non-fusion also calls;
// * cheap structural mismatches: a fusion or call whose operand count is
//   not its computation's parameter count, a while without exactly one
//   operand, a conditional whose branch count does not match its operands,
//   a tuple whose shape does not list its operands' shapes, a
//   get-tuple-element whose index is not in its operand's tuple shape, a
//   copy, bitcast, copy-start, copy-done or get-tuple-element without
//   exactly one operand, a dynamic-slice, dynamic-update-slice or scatter
//   with fewer operands than XLA's shape inference requires.
//
// Every check is linear in the module (iterative walks, no recursion).
#ifndef HLOSCOPE_PARSER_VERIFIER_H_
#define HLOSCOPE_PARSER_VERIFIER_H_

#include <optional>

#include "hloscope/ir/module.h"
#include "hloscope/support/diagnostic.h"

namespace hloscope {

// Real modules nest a few levels (a fusion in a loop body in a branch);
// this is far beyond any of them and still shallow for every walk.
inline constexpr int kMaxCallDepth = 256;

// The first problem found, or nullopt. `path` names the input.
std::optional<Diagnostic> VerifyModule(const HloModule& module, std::string_view path);

}  // namespace hloscope

#endif  // HLOSCOPE_PARSER_VERIFIER_H_
