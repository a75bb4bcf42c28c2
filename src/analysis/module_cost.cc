#include "hloscope/analysis/module_cost.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "hloscope/analysis/call_graph.h"
#include "hloscope/analysis/kernel_opcodes.h"
#include "hloscope/analysis/served_op.h"
#include "hloscope/ir/computation.h"
#include "hloscope/support/saturating.h"

namespace hloscope {
namespace {

// One source line's part of a kernel's FLOPs.
struct FlopsShare {
  const SourceLocation* source = nullptr;  // nullptr: the kernel's own line
  int64_t flops = 0;
  int64_t transcendentals = 0;
  int64_t matmul_flops = 0;
};

// The FLOPs of a fusion split by the lines of the operations fused into it
// (nested fusions looked through; a reducer's work is its reduce's).
// `budget` bounds the instructions visited: nested fusions may share a
// fused computation (hostile input), and every path to it would be walked.
void FusedShares(const HloComputation& fused, const SourceIndex& index, CostAnalysis& costs,
                 std::vector<FlopsShare>& out, int64_t& budget) {
  CostOptions as_xla;
  as_xla.counting = CostCounting::kAsXla;
  as_xla.count_bytes = false;
  for (const HloInstruction* i : fused.instructions()) {
    if (--budget < 0) return;
    if (i->opcode() == HloOpcode::kFusion) {
      if (const HloComputation* inner = i->fused_computation())
        FusedShares(*inner, index, costs, out, budget);
      continue;
    }
    HloCost c = costs.Of(*i, as_xla);
    if (c.flops <= 0 && c.transcendentals <= 0) continue;
    const SourceLocation* loc = index.Location(*i);
    if (loc && !loc->has_line()) loc = nullptr;
    FlopsShare s{loc, std::max<int64_t>(c.flops, 0), c.transcendentals, c.matmul_flops};
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

// Largest estimated time first (then bytes, then `id_of`). The order is
// found on indices and applied once: the elements are large, and moving
// them in the sort was a tenth of the whole analysis.
// Only the first `ranked` are put in order.
template <typename T>
void SortBySeconds(std::vector<T>& v, size_t ranked, auto id_of) {
  std::vector<uint32_t> order(v.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  auto middle = order.begin() + static_cast<std::ptrdiff_t>(std::min(ranked, order.size()));
  std::partial_sort(order.begin(), middle, order.end(), [&](uint32_t x, uint32_t y) {
    const T& a = v[x];
    const T& b = v[y];
    if (a.seconds_per_call != b.seconds_per_call) return a.seconds_per_call > b.seconds_per_call;
    if (a.per_call.bytes_accessed != b.per_call.bytes_accessed)
      return a.per_call.bytes_accessed > b.per_call.bytes_accessed;
    return id_of(a) < id_of(b);
  });
  std::vector<T> sorted;
  sorted.reserve(v.size());
  for (uint32_t i : order) sorted.push_back(std::move(v[i]));
  v = std::move(sorted);
}

}  // namespace

ModuleCost CostModule(const HloModule& module, const ExecutionCounts& counts, const SourceIndex* index,
                      const ModuleCostOptions& options) {
  ModuleCost out;
  out.module = &module;
  out.roofline = options.roofline ? options.roofline : FindRoofline(GuessTarget(module));
  const Roofline& roof = *out.roofline;
  CostAnalysis costs;
  out.as_xla = costs.XlaTotal(module);

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
      k.per_run = costs.Of(*instr);
      if (k.per_run.flops == 0 && k.per_run.transcendentals == 0 && k.per_run.bytes_accessed == 0 &&
          !k.per_run.incomplete)
        continue;
      std::vector<FlopsShare> shares;
      // With lines, a fusion's FLOPs go to the lines of its operations;
      // otherwise all to the kernel.
      if (instr->opcode() == HloOpcode::kFusion && instr->fused_computation() && index) {
        int64_t budget = int64_t{1} << 20;
        FusedShares(*instr->fused_computation(), *index, costs, shares, budget);
      } else if (k.per_run.flops > 0 || k.per_run.transcendentals > 0) {
        shares.push_back({nullptr, k.per_run.flops, k.per_run.transcendentals, k.per_run.matmul_flops});
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
          EstimateSeconds(roof, k.matmul_flops_per_call,
                          SatAdd(k.per_call.flops, k.per_call.transcendentals) - k.matmul_flops_per_call,
                          k.per_call.bytes_accessed);
      out.per_call += k.per_call;
      out.matmul_flops_per_call = SatAdd(out.matmul_flops_per_call, k.matmul_flops_per_call);
      out.seconds_per_call += k.seconds_per_call;

      // Lines: the bytes to the kernel's own line, FLOPs to their operations' lines.
      const SourceLocation* own = index ? index->Location(*instr) : nullptr;
      if (own && !own->has_line()) own = nullptr;
      // A fusion that only lays an array out anew (XLA:CPU's transpose of a
      // KV cache for the attention's dot, which carries the cache update's
      // line), or a kernel without a line (a dot XLA kept no metadata for),
      // counts at the line of the op it serves (analysis/served_op.h), as
      // the growth findings and the diff name it. Copies keep their own:
      // they are copy findings, at the copy's line (ServedOpOf).
      if (index && (!own || (instr->opcode() == HloOpcode::kFusion && IsRelayout(*instr)))) {
        ServedOp served = ServedOpOf(*instr, IndexLines(*index));
        if (served.line_of) own = index->Location(*served.line_of);
      }
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
      } else if (index) {
        out.unattributed.bytes_accessed = SatAdd(out.unattributed.bytes_accessed, k.per_call.bytes_accessed);
      }
      for (const FlopsShare& s : shares) {
        LineCost* l = line_of(s.source ? s.source : own);
        if (!l && !index) continue;
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
      auto give = [&](LineCost* l, double fraction) {
        if (!l) return;
        l->seconds_per_call += k.seconds_per_call * fraction;
        auto& ks = l->kernel_shares;
        if (!ks.empty() && ks.back().first == instr)
          ks.back().second += fraction;
        else
          ks.emplace_back(instr, fraction);
      };
      if (compute_seconds > memory_seconds && compute_seconds > 0) {
        for (size_t i = 0; i < shares.size(); ++i)
          give(line_of(shares[i].source ? shares[i].source : own), share_seconds[i] / compute_seconds);
      } else {
        give(line_of(own), 1.0);
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
  const size_t ranked = options.ranked;
  SortBySeconds(out.kernels, ranked, [](const KernelCost& k) { return k.kernel->id(); });
  SortBySeconds(out.lines, ranked, [](const LineCost& l) { return std::make_pair(l.file, l.line); });
  SortBySeconds(out.loops, ranked, [](const LoopCost& l) { return l.loop->id(); });
  return out;
}

CostSummary SummarizeCost(const ModuleCost& cost, size_t top) {
  CostSummary s;
  s.target = cost.roofline;
  s.per_call = cost.per_call;
  s.matmul_flops = cost.matmul_flops_per_call;
  s.estimated_seconds = cost.seconds_per_call;
  s.as_xla = cost.as_xla;
  s.kernels = static_cast<int64_t>(cost.kernels.size());
  s.kernels_unknown_executions = cost.kernels_unknown_executions;
  s.kernels_incomplete = cost.kernels_incomplete;
  for (size_t i = 0; i < cost.kernels.size() && i < top; ++i) {
    const KernelCost& k = cost.kernels[i];
    s.top_kernels.push_back({k.kernel, k.enclosing_loops.empty() ? nullptr : k.enclosing_loops.front(),
                             k.executions, k.executions_upper_bound, k.per_call, k.seconds_per_call});
  }
  for (size_t i = 0; i < cost.loops.size() && i < top; ++i) {
    const LoopCost& l = cost.loops[i];
    s.top_loops.push_back({l.loop, nullptr, l.executions, false, l.per_call, l.seconds_per_call});
  }
  return s;
}

}  // namespace hloscope
