#include "hloscope/analysis/module_cost.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "hloscope/analysis/call_graph.h"
#include "hloscope/ir/computation.h"
#include "hloscope/support/saturating.h"

namespace hloscope {
namespace {

bool IsMatmul(HloOpcode op) { return op == HloOpcode::kDot || op == HloOpcode::kConvolution; }

// One source line's part of a kernel's FLOPs.
struct FlopsShare {
  const SourceLocation* source = nullptr;  // nullptr: the kernel's own line
  int64_t flops = 0;
  int64_t transcendentals = 0;
  int64_t matmul_flops = 0;
};

// The FLOPs of a fusion split by the lines of the operations fused into it
// (nested fusions looked through; a reducer's work is its reduce's).
void FusedShares(const HloComputation& fused, const SourceIndex& index, std::vector<FlopsShare>& out) {
  CostOptions as_xla;
  as_xla.counting = CostCounting::kAsXla;
  for (const HloInstruction* i : fused.instructions()) {
    if (i->opcode() == HloOpcode::kFusion) {
      if (const HloComputation* inner = i->fused_computation()) FusedShares(*inner, index, out);
      continue;
    }
    HloCost c = CostOf(*i, as_xla);
    if (c.flops <= 0 && c.transcendentals <= 0) continue;
    const SourceLocation* loc = index.Location(*i);
    if (loc && !loc->has_line()) loc = nullptr;
    FlopsShare s{loc, std::max<int64_t>(c.flops, 0), c.transcendentals, IsMatmul(i->opcode()) ? c.flops : 0};
    auto same = std::find_if(out.begin(), out.end(), [&](const FlopsShare& o) { return o.source == loc; });
    if (same == out.end()) {
      out.push_back(s);
    } else {
      same->flops = SatAdd(same->flops, s.flops);
      same->transcendentals = SatAdd(same->transcendentals, s.transcendentals);
      same->matmul_flops = SatAdd(same->matmul_flops, s.matmul_flops);
    }
  }
}

std::string LineKey(const SourceLocation& loc) { return loc.file + ":" + std::to_string(loc.line); }

template <typename T>
void SortBySeconds(std::vector<T>& v, auto id_of) {
  std::stable_sort(v.begin(), v.end(), [&](const T& a, const T& b) {
    if (a.seconds_per_call != b.seconds_per_call) return a.seconds_per_call > b.seconds_per_call;
    if (a.per_call.bytes_accessed != b.per_call.bytes_accessed)
      return a.per_call.bytes_accessed > b.per_call.bytes_accessed;
    return id_of(a) < id_of(b);
  });
}

}  // namespace

ModuleCost CostModule(const HloModule& module, const ExecutionCounts& counts, const SourceIndex& index,
                      const ModuleCostOptions& options) {
  ModuleCost out;
  out.module = &module;
  out.roofline = options.roofline ? options.roofline : FindRoofline(GuessTarget(module));
  const Roofline& roof = *out.roofline;
  out.as_xla = XlaCostAnalysisOf(module);

  std::map<std::string, LineCost> lines;
  std::unordered_map<const HloInstruction*, LoopCost> loops;
  std::unordered_map<const LineCost*, double> top_seconds;
  for (const HloComputation* comp : module.computations()) {
    if (!IsSequentialRole(RoleOf(*comp))) continue;
    const std::optional<int64_t> executions = counts.Of(comp);
    const bool upper = counts.IsUpperBound(comp);
    const std::vector<const HloInstruction*> enclosing = counts.EnclosingLoops(comp);
    for (const HloInstruction* instr : comp->instructions()) {
      if (!IsKernel(*instr)) continue;
      KernelCost k;
      k.kernel = instr;
      k.per_run = CostOf(*instr);
      if (k.per_run.flops == 0 && k.per_run.transcendentals == 0 && k.per_run.bytes_accessed == 0 &&
          !k.per_run.incomplete)
        continue;
      std::vector<FlopsShare> shares;
      if (instr->opcode() == HloOpcode::kFusion && instr->fused_computation()) {
        FusedShares(*instr->fused_computation(), index, shares);
      } else if (k.per_run.flops > 0 || k.per_run.transcendentals > 0) {
        shares.push_back({nullptr, k.per_run.flops, k.per_run.transcendentals,
                          IsMatmul(instr->opcode()) ? k.per_run.flops : 0});
      }
      for (const FlopsShare& s : shares) k.matmul_flops = SatAdd(k.matmul_flops, s.matmul_flops);
      k.executions = executions;
      k.executions_upper_bound = upper;
      k.enclosing_loops = enclosing;
      if (k.per_run.incomplete) ++out.kernels_incomplete;
      if (!executions) {
        ++out.kernels_unknown_executions;
        out.kernels.push_back(std::move(k));
        continue;
      }
      const int64_t n = *executions;
      k.per_call = k.per_run.Times(n);
      k.matmul_flops_per_call = SatMul(k.matmul_flops, n);
      k.seconds_per_call =
          EstimateSeconds(roof, k.matmul_flops_per_call, SatAdd(k.per_call.flops, k.per_call.transcendentals) -
                                                             k.matmul_flops_per_call,
                          k.per_call.bytes_accessed);
      out.per_call += k.per_call;
      out.matmul_flops_per_call = SatAdd(out.matmul_flops_per_call, k.matmul_flops_per_call);
      out.seconds_per_call += k.seconds_per_call;

      // Lines: the bytes to the kernel's own line, FLOPs to their operations' lines.
      const SourceLocation* own = index.Location(*instr);
      if (own && !own->has_line()) own = nullptr;
      std::vector<LineCost*> touched;
      auto line_of = [&](const SourceLocation* loc) -> LineCost* {
        if (!loc) return nullptr;
        LineCost& l = lines[LineKey(*loc)];
        if (l.file.empty()) {
          l.file = loc->file;
          l.line = loc->line;
          l.function = loc->function;
        }
        if (std::find(touched.begin(), touched.end(), &l) == touched.end()) touched.push_back(&l);
        return &l;
      };
      if (LineCost* l = line_of(own)) {
        l->per_call.bytes_accessed = SatAdd(l->per_call.bytes_accessed, k.per_call.bytes_accessed);
      } else {
        out.unattributed.bytes_accessed = SatAdd(out.unattributed.bytes_accessed, k.per_call.bytes_accessed);
      }
      for (const FlopsShare& s : shares) {
        LineCost* l = line_of(s.source ? s.source : own);
        HloCost& target = l ? l->per_call : out.unattributed;
        target.flops = SatAdd(target.flops, SatMul(s.flops, n));
        target.transcendentals = SatAdd(target.transcendentals, SatMul(s.transcendentals, n));
        if (l) l->matmul_flops_per_call = SatAdd(l->matmul_flops_per_call, SatMul(s.matmul_flops, n));
      }
      // The kernel's estimated time to lines: by their FLOPs where compute
      // bounds it, else to its own line (whose bytes bound it), so that the
      // lines' times add up to the kernel's.
      const double memory_seconds = EstimateSeconds(roof, 0, 0, k.per_call.bytes_accessed);
      double compute_seconds = 0;
      std::vector<double> share_seconds;
      for (const FlopsShare& s : shares) {
        const int64_t vector = SatAdd(s.flops, s.transcendentals) - s.matmul_flops;
        share_seconds.push_back(EstimateSeconds(roof, SatMul(s.matmul_flops, n), SatMul(vector, n), 0));
        compute_seconds += share_seconds.back();
      }
      if (compute_seconds > memory_seconds && compute_seconds > 0) {
        for (size_t i = 0; i < shares.size(); ++i) {
          LineCost* l = line_of(shares[i].source ? shares[i].source : own);
          if (l) l->seconds_per_call += k.seconds_per_call * share_seconds[i] / compute_seconds;
        }
      } else if (LineCost* l = line_of(own)) {
        l->seconds_per_call += k.seconds_per_call;
      }
      for (LineCost* l : touched) {
        ++l->kernels;
        double& best = top_seconds[l];
        if (!l->top_kernel || k.seconds_per_call > best) {
          l->top_kernel = instr;
          best = k.seconds_per_call;
        }
      }

      for (const HloInstruction* loop : enclosing) {
        LoopCost& lc = loops[loop];
        lc.loop = loop;
        lc.per_call += k.per_call;
        ++lc.kernels;
        std::optional<int64_t> runs = counts.RunsPerIteration(enclosing, loop);
        if (runs)
          lc.per_iteration += k.per_run.Times(*runs);
        else
          lc.per_iteration.incomplete = true;
        lc.seconds_per_call += k.seconds_per_call;
      }
      out.kernels.push_back(std::move(k));
    }
  }
  for (auto& [key, l] : lines) out.lines.push_back(std::move(l));
  for (auto& [loop, lc] : loops) {
    lc.trip_count = counts.TripCountOf(loop);
    lc.executions = counts.Of(loop);
    out.loops.push_back(std::move(lc));
  }
  SortBySeconds(out.kernels, [](const KernelCost& k) { return k.kernel->id(); });
  SortBySeconds(out.lines, [](const LineCost& l) { return std::make_pair(l.file, l.line); });
  SortBySeconds(out.loops, [](const LoopCost& l) { return l.loop->id(); });
  return out;
}

}  // namespace hloscope
