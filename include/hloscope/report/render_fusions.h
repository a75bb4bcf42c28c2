// Rendering `hloscope fusions`: one block per kernel (fusion instruction) —
// kind, executions, the source lines fused into it, its operations, the
// bytes it reads and writes, and check's findings on it — as text or JSON.
#ifndef HLOSCOPE_REPORT_RENDER_FUSIONS_H_
#define HLOSCOPE_REPORT_RENDER_FUSIONS_H_

#include <ostream>
#include <string>
#include <vector>

#include "hloscope/analysis/fusion_summary.h"
#include "hloscope/report/json_model.h"

namespace hloscope {

void RenderFusionsText(const std::vector<const ModuleFusions*>& modules, std::string_view scope,
                       std::ostream& out);
Json FusionsToJson(const std::vector<const ModuleFusions*>& modules, std::string_view scope);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_RENDER_FUSIONS_H_
