// Rendering `hloscope fusions`: one block per kernel (fusion instruction) —
// kind, executions, the source lines fused into it, its operations, the
// bytes it reads and writes — as text, or JSON (schema_version 1).
#ifndef HLOSCOPE_REPORT_RENDER_FUSIONS_H_
#define HLOSCOPE_REPORT_RENDER_FUSIONS_H_

#include <ostream>
#include <vector>

#include <nlohmann/json.hpp>

#include "hloscope/analysis/fusion_summary.h"
#include "hloscope/report/format.h"

namespace hloscope {

void RenderFusionsText(const std::vector<ModuleFusions>& modules, const FusionsOptions& options,
                       std::ostream& out);
nlohmann::ordered_json FusionsToJson(const std::vector<ModuleFusions>& modules,
                                     const FusionsOptions& options);

// The whole command after parsing: analysis and rendering of every module.
void ReportFusions(const std::vector<const HloModule*>& modules, const FusionsOptions& options,
                   OutputFormat format, std::ostream& out);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_RENDER_FUSIONS_H_
