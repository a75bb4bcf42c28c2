// The copies against what XLA:GPU runs. A GPU dump's thunk_metadata.txt
// names the HLO instruction behind every thunk of the executable: a copy
// hloscope lists must be run by one (a memcpy, kCopy, or a kernel for copy
// fusions and transposing copies), and a kCopy thunk that is no listed copy
// must be something XLA turns into a memcpy: a fused one-element update
// (listed as an update) or a contiguous slice (a read).
#ifndef HLOSCOPE_ANALYSIS_THUNKS_H_
#define HLOSCOPE_ANALYSIS_THUNKS_H_

#include <string>

#include "hloscope/analysis/findings.h"
#include "hloscope/ir/module.h"
#include "hloscope/parser/thunk_metadata.h"

namespace hloscope {

// Sets `check->thunks` and each copy's `thunk`; call once the copies and
// updates are found.
void CheckThunks(const HloModule& module, const ThunkMetadata& metadata, std::string path,
                 ModuleCheck* check);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_THUNKS_H_
