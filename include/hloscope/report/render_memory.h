// Rendering `hloscope memory` (and the MEMORY part of check's JSON): the
// peak per device and its parts, the temporaries' fullest moment and what
// is live there, the largest allocations with what made them.
#ifndef HLOSCOPE_REPORT_RENDER_MEMORY_H_
#define HLOSCOPE_REPORT_RENDER_MEMORY_H_

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "hloscope/analysis/findings.h"
#include "hloscope/report/json_model.h"

namespace hloscope {

// A module's ModuleCheck::memory: {"peak_bytes", "spaces", "temp_peak",
// "allocations", "allocation_count"}; null when no buffer assignment of
// the module was applied.
Json MemoryJson(const ModuleCheck& module);
// check's MEMORY lines: "peak 8.1 KiB per device = arguments ... +
// temporaries 4.1 KiB", and where the temporaries peak with the largest
// value live there; "" without memory.
std::string MemorySummaryLine(const ModuleCheck& module);
void WriteMemoryJson(const std::vector<const ModuleCheck*>& modules, std::ostream& out);
void RenderMemoryText(const std::vector<const ModuleCheck*>& modules, std::ostream& out);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_RENDER_MEMORY_H_
