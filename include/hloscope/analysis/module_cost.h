// ModuleCost: where one call's work goes — every kernel (each instruction
// of a sequential computation that does work: fusions, and unfused dots,
// convolutions, sorts, reduces, scatters, gathers, custom-calls, copies,
// collectives) with its FLOPs, transcendentals and bytes per run
// (hlo_cost.h: XLA's HloCostAnalysis rules) × its executions per call
// (execution_counts.h), then the same summed by source line and by loop,
// with a roofline time estimate (roofline.h) to rank them.
//
// Unlike `compiled.cost_analysis()`, a loop body counts as often as it runs;
// `as_xla` keeps XLA's own total (bodies once) so the two can be compared.
#ifndef HLOSCOPE_ANALYSIS_MODULE_COST_H_
#define HLOSCOPE_ANALYSIS_MODULE_COST_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hloscope/analysis/execution_counts.h"
#include "hloscope/analysis/findings.h"
#include "hloscope/analysis/hlo_cost.h"
#include "hloscope/analysis/roofline.h"
#include "hloscope/analysis/source_index.h"
#include "hloscope/ir/module.h"

namespace hloscope {

struct KernelCost {
  const HloInstruction* kernel = nullptr;
  HloCost per_run;
  int64_t matmul_flops = 0;  // of per_run.flops: dots and convolutions in it
  std::optional<int64_t> executions;
  bool executions_upper_bound = false;
  HloCost per_call;  // per_run × executions (zero when unknown)
  int64_t matmul_flops_per_call = 0;
  double seconds_per_call = 0;                         // roofline estimate
  std::vector<const HloInstruction*> enclosing_loops;  // innermost first
  // From a profiler trace (measured_cost.h): seconds per call, and the
  // events per call (its runs, as the trace saw them).
  std::optional<double> measured_seconds_per_call;
  std::optional<double> measured_runs_per_call;
};

// A source line's share: the FLOPs of the operations from that line (inside
// fusions too: a fused dot is its own line's) and the bytes of the kernels
// whose own location it is.
struct LineCost {
  std::string file;
  int64_t line = 0;
  std::string function;
  HloCost per_call;
  int64_t matmul_flops_per_call = 0;
  // Its part of its kernels' estimated time: by FLOPs where compute bounds
  // a kernel, else the kernel's own line's. Lines' times add up to the call's.
  double seconds_per_call = 0;
  int64_t kernels = 0;                         // kernels it contributes to
  const HloInstruction* top_kernel = nullptr;  // its largest by estimated time
  // Its part of each of its kernels' time (the fractions the estimate
  // gave it), so that a measured time splits the same way.
  std::vector<std::pair<const HloInstruction*, double>> kernel_shares;
  std::optional<double> measured_seconds_per_call;  // its kernels' measured time, split as the estimate
};

struct LoopCost {
  const HloInstruction* loop = nullptr;
  TripCount trip_count;
  std::optional<int64_t> executions;  // of the loop instruction, per call
  HloCost per_call;                   // every kernel inside, nested loops included
  HloCost per_iteration;              // one iteration's (inner loops × their trips)
  double seconds_per_call = 0;
  int64_t kernels = 0;
  std::optional<double> measured_seconds_per_call;
};

// What a profiler trace measured of the module (measured_cost.h).
struct MeasuredCost {
  std::string trace_path;
  int64_t calls = 0;               // calls the trace holds (from its events)
  double seconds_per_call = 0;     // Σ kernels' measured time / calls
  int64_t kernels_traced = 0;      // kernels with events
  int64_t kernels_not_traced = 0;  // kernels (known executions) without
  bool module_in_trace = false;    // some event names this module
  int64_t ops_without_kernel = 0;  // this module's traced ops that are no kernel (loops, copies' peers)
};

struct ModuleCost {
  const HloModule* module = nullptr;
  const Roofline* roofline = nullptr;
  std::vector<KernelCost> kernels;  // by estimated seconds per call, largest first
  std::vector<LineCost> lines;      // likewise
  std::vector<LoopCost> loops;      // likewise
  HloCost per_call;                 // Σ kernels
  int64_t matmul_flops_per_call = 0;
  double seconds_per_call = 0;
  HloCost as_xla;                          // what compiled.cost_analysis() reports
  int64_t kernels_unknown_executions = 0;  // left out of per_call
  int64_t kernels_incomplete = 0;          // a figure of theirs is a lower bound
  HloCost unattributed;                    // per call, kernels without a source line
  std::optional<MeasuredCost> measured;    // with a profiler trace
};

struct ModuleCostOptions {
  const Roofline* roofline = nullptr;  // nullptr: GuessTarget's
  // How many of the kernels, lines and loops are put in order (largest
  // estimated time first); the rest follow in no set order. A summary needs
  // its top few, and ordering a large module's every kernel was a sixth of
  // the cost part of `check`.
  size_t ranked = SIZE_MAX;
};

// `index` nullptr: no lines (what `check` needs costs less without them).
ModuleCost CostModule(const HloModule& module, const ExecutionCounts& counts, const SourceIndex* index,
                      const ModuleCostOptions& options = {});

// What `check` reports of the cost (findings.h's CostSummary): the totals,
// the `top` kernels and loops by estimated time (`cost` ranked at least
// `top` of each).
CostSummary SummarizeCost(const ModuleCost& cost, size_t top = 5);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_MODULE_COST_H_
