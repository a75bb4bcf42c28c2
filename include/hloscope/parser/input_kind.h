// Telling HLO from what users pass by mistake: StableHLO/MLIR text
// (`lowered.as_text()`), a jaxpr (`jax.make_jaxpr`), XLA's buffer-assignment
// dump, a JSON document — and optimized HLO from HLO before optimization.
//
// A raw parse error ("expected '{' to open computation 'module', found '@'")
// on such an input says nothing useful; these say what the input is and
// what to pass instead.
#ifndef HLOSCOPE_PARSER_INPUT_KIND_H_
#define HLOSCOPE_PARSER_INPUT_KIND_H_

#include <optional>
#include <string>
#include <string_view>

#include "hloscope/ir/module.h"

namespace hloscope {

enum class InputKind : uint8_t { kHlo, kStableHlo, kJaxpr, kBufferAssignment, kJson };

// What the text is, from its first non-blank line (`#loc` lines of MLIR
// included). kHlo for anything else: the parser judges it.
InputKind SniffInputKind(std::string_view first_line);

// The one-line explanation for a foreign input ("this is StableHLO (MLIR)
// text, not HLO: ..."); nullopt for kHlo.
std::optional<std::string> ForeignInputHint(InputKind kind);

// Whether the module is XLA's optimized HLO: compiled modules are scheduled
// (`is_scheduled=true` in the header); a `before_optimizations` dump and
// `lowered.as_text(dialect="hlo")` are not, and their copies and updates are
// not yet decided.
bool IsOptimizedModule(const HloModule& module);

// The refusal for an unoptimized module, without the "error: " prefix.
std::string UnoptimizedInputMessage(const HloModule& module);

}  // namespace hloscope

#endif  // HLOSCOPE_PARSER_INPUT_KIND_H_
