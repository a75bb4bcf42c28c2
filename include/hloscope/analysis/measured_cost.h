// MeasuredCost: a profiler trace's time beside the estimate — each kernel's
// events (joined by module and instruction name: XLA's `hlo_module` and
// `hlo_op`, profile_trace.h) summed and divided by the calls the trace
// holds, then split to lines and loops as the estimate is.
//
// The calls are counted from the trace itself: for every kernel with events
// and known executions per call, events / executions; the median of those
// (rounded) is the number of calls traced. A trace that never names this
// module (another program, or a platform whose tracer does not name HLO
// ops) leaves everything unmeasured and says so (module_in_trace = false).
#ifndef HLOSCOPE_ANALYSIS_MEASURED_COST_H_
#define HLOSCOPE_ANALYSIS_MEASURED_COST_H_

#include "hloscope/analysis/module_cost.h"
#include "hloscope/parser/profile_trace.h"

namespace hloscope {

void AttachMeasuredCost(const ProfileTrace& trace, ModuleCost& cost);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_MEASURED_COST_H_
