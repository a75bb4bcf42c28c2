// Rendering `hloscope stats` as text or JSON.
#ifndef HLOSCOPE_REPORT_RENDER_STATS_H_
#define HLOSCOPE_REPORT_RENDER_STATS_H_

#include <ostream>
#include <vector>

#include "hloscope/analysis/module_stats.h"

namespace hloscope {

void RenderStatsText(const std::vector<ModuleStats>& modules, std::ostream& out);
void WriteStatsJson(const std::vector<ModuleStats>& modules, std::ostream& out);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_RENDER_STATS_H_
