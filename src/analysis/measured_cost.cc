#include "hloscope/analysis/measured_cost.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include "hloscope/ir/computation.h"

namespace hloscope {

void AttachMeasuredCost(const ProfileTrace& trace, ModuleCost& cost) {
  MeasuredCost m;
  m.trace_path = trace.path;
  const std::string module_name(cost.module->name());
  m.module_in_trace = trace.HasModule(module_name);
  if (!m.module_in_trace) {
    cost.measured = m;
    return;
  }
  std::vector<double> per_call;
  std::unordered_set<std::string_view> kernel_names;
  for (const KernelCost& k : cost.kernels) {
    kernel_names.insert(k.kernel->name());
    const TracedOp* t = trace.Find(module_name, k.kernel->name());
    if (t && k.executions && *k.executions > 0)
      per_call.push_back(static_cast<double>(t->events) / *k.executions);
  }
  for (const TracedOp& t : trace.ops)
    if (t.module == module_name && !kernel_names.count(t.op)) ++m.ops_without_kernel;
  if (per_call.empty()) {
    cost.measured = m;
    return;
  }
  std::nth_element(per_call.begin(), per_call.begin() + per_call.size() / 2, per_call.end());
  m.calls = std::max<int64_t>(1, std::llround(per_call[per_call.size() / 2]));
  const double calls = static_cast<double>(m.calls);

  std::unordered_map<const HloInstruction*, double> loop_seconds;
  std::unordered_map<const HloInstruction*, double> kernel_seconds;
  for (KernelCost& k : cost.kernels) {
    const TracedOp* t = trace.Find(module_name, k.kernel->name());
    if (!t) {
      if (k.executions && *k.executions > 0) ++m.kernels_not_traced;
      continue;
    }
    ++m.kernels_traced;
    k.measured_seconds_per_call = t->total_seconds / calls;
    k.measured_runs_per_call = static_cast<double>(t->events) / calls;
    m.seconds_per_call += *k.measured_seconds_per_call;
    kernel_seconds[k.kernel] = *k.measured_seconds_per_call;
    for (const HloInstruction* loop : k.enclosing_loops) loop_seconds[loop] += *k.measured_seconds_per_call;
  }
  for (LoopCost& l : cost.loops) {
    auto it = loop_seconds.find(l.loop);
    if (it != loop_seconds.end()) l.measured_seconds_per_call = it->second;
  }
  // Lines: each gets the fractions of its kernels' time the estimate gave it.
  for (LineCost& l : cost.lines) {
    double seconds = 0;
    bool any = false;
    for (auto [kernel, fraction] : l.kernel_shares) {
      auto it = kernel_seconds.find(kernel);
      if (it == kernel_seconds.end()) continue;
      seconds += it->second * fraction;
      any = true;
    }
    if (any) l.measured_seconds_per_call = seconds;
  }
  cost.measured = m;
}

}  // namespace hloscope
