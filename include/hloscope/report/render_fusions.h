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

// Both summarize and write one kernel at a time: memory is one kernel's
// summary (and JSON), not the module's tens of thousands.
void RenderFusionsText(const std::vector<FusionSelection>& modules, std::string_view scope,
                       std::ostream& out);
void WriteFusionsJson(const std::vector<FusionSelection>& modules, std::string_view scope, std::ostream& out);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_RENDER_FUSIONS_H_
