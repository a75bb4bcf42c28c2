// Whether a buffer-assignment dump can be this module's. A dump of another
// compilation (the wrong file of a dump folder, a stale one) would make
// every confirmation meaningless — and names such as `fusion` or `copy.3`
// recur across modules, so a wrong dump can even "confirm" verdicts.
// XLA's dump lists only the module's own instructions, with their shapes,
// and an allocation per entry parameter; any disagreement is decisive.
#ifndef HLOSCOPE_ANALYSIS_BUFFER_ASSIGNMENT_MATCH_H_
#define HLOSCOPE_ANALYSIS_BUFFER_ASSIGNMENT_MATCH_H_

#include <optional>
#include <string>

#include "hloscope/analysis/buffer_value_instructions.h"
#include "hloscope/ir/module.h"
#include "hloscope/parser/buffer_assignment.h"

namespace hloscope {

// Why `ba` is not `module`'s buffer assignment ("it lists fusion.7, which
// this module does not have"), or nullopt when it can be. Names in the
// reason are as in the input; callers escape them for display.
// `instructions` is `ba`'s values resolved in `module` (the check's, shared
// with the memory analysis); the two-argument form resolves them itself.
std::optional<std::string> ForeignBufferAssignment(const BufferAssignment& ba, const HloModule& module,
                                                   const BufferValueInstructions& instructions);
std::optional<std::string> ForeignBufferAssignment(const BufferAssignment& ba, const HloModule& module);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_BUFFER_ASSIGNMENT_MATCH_H_
