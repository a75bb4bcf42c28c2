// `hloscope cost`: where one call's work goes — lines, loops and kernels
// ranked by a roofline time estimate, with FLOPs and bytes per call (text),
// or all of it (JSON, docs/schema/cost.schema.json).
#ifndef HLOSCOPE_REPORT_RENDER_COST_H_
#define HLOSCOPE_REPORT_RENDER_COST_H_

#include <ostream>
#include <string>
#include <vector>

#include "hloscope/analysis/module_cost.h"
#include "hloscope/report/json_model.h"

namespace hloscope {

struct CostTextOptions {
  int top = 10;  // rows per table
};

// "1.5 GFLOP", "12 FLOP"; "overflow" for a saturated count.
std::string HumanFlops(int64_t flops);
// "64", "1.5 k", "3.2 M".
std::string HumanCount(int64_t n);
// "12.3 ms", "850 µs", "3.1 s".
std::string HumanSeconds(double seconds);

void RenderCostText(const std::vector<ModuleCost>& modules, const CostTextOptions& options,
                    std::ostream& out);
void WriteCostJson(const std::vector<ModuleCost>& modules, std::ostream& out);
// `check --format json`'s `cost` part (docs/schema/check.schema.json).
nlohmann::ordered_json CostSummaryJson(const CostSummary& cost);
// `check`'s COST section without its title: the work per call and its
// estimated time, then the `top` kernels that take the most, one line each.
std::vector<std::string> CostSummaryLines(const CostSummary& cost, size_t top);
// "a roofline estimate on <target>, not a measurement".
std::string CostEstimateNote(const CostSummary& cost);
// The COST section's title: what the times are and where the rest is.
std::string CostSummaryTitle(const CostSummary& cost);
// "fusion kLoop", "custom-call __cublas$gemm", "sort".
std::string KernelKindText(const HloInstruction& kernel);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_RENDER_COST_H_
