// Rendering the memory part of `hloscope diff` (analysis/memory_diff.h):
// the headline line of the summary ("Memory: the peak grows ×2.0 …, most
// of it: …"), the MEMORY section of the text, the module's `memory` in the
// diff JSON, and the words of the more-peak-bytes gate.
#ifndef HLOSCOPE_REPORT_RENDER_MEMORY_DIFF_H_
#define HLOSCOPE_REPORT_RENDER_MEMORY_DIFF_H_

#include <ostream>
#include <string>

#include "hloscope/analysis/check_diff.h"
#include "hloscope/report/json_model.h"

namespace hloscope {

// "output f32[200,64] at train.py:88", "argument 1 (kept) f32[4096]".
std::string MemoryBufferLabel(const MemoryBufferChange& buffer);
// The summary's memory line; "" when neither side has memory.
std::string MemoryGrowthLine(const ModuleDiff& m);
// The MEMORY section (nothing when neither side has memory).
void RenderMemoryDiffText(const ModuleDiff& m, std::ostream& out);
// null when neither side has memory.
Json MemoryDiffJson(const ModuleDiff& m);
// The more-peak-bytes violation: the two peaks and the buffers that grew most.
std::string MorePeakBytesText(const ModuleDiff& m);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_RENDER_MEMORY_DIFF_H_
