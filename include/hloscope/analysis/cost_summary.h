// CostSummary: the work of one call, summarized for `check` — what
// analysis/module_cost.h's SummarizeCost keeps of a ModuleCost: the totals,
// and the kernels and loops that take the most estimated time.
#ifndef HLOSCOPE_ANALYSIS_COST_SUMMARY_H_
#define HLOSCOPE_ANALYSIS_COST_SUMMARY_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "hloscope/analysis/hlo_cost.h"
#include "hloscope/analysis/roofline.h"
#include "hloscope/ir/instruction.h"

namespace hloscope {

struct CostSummary {
  const Roofline* target = nullptr;  // the machine of the estimate
  HloCost per_call;
  int64_t matmul_flops = 0;
  double estimated_seconds = 0;
  HloCost as_xla;  // what compiled.cost_analysis() says (loop bodies once)
  int64_t kernels = 0;
  int64_t kernels_unknown_executions = 0;
  int64_t kernels_incomplete = 0;
  struct Item {
    const HloInstruction* instruction = nullptr;  // a kernel, or a while loop
    const HloInstruction* loop = nullptr;         // the innermost loop around it; nullptr: none
    std::optional<int64_t> executions;
    bool executions_upper_bound = false;  // under a conditional: at most `executions`
    HloCost per_call;
    double estimated_seconds = 0;
  };
  std::vector<Item> top_kernels;
  std::vector<Item> top_loops;  // everything inside each loop, per call
};

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_COST_SUMMARY_H_
