#include "hloscope/analysis/fusion_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "hloscope/analysis/backend_config.h"
#include "hloscope/analysis/call_graph.h"
#include "hloscope/analysis/collective_traffic.h"
#include "hloscope/analysis/hlo_cost.h"
#include "hloscope/analysis/kernel_traffic.h"
#include "hloscope/analysis/scope_filter.h"
#include "hloscope/analysis/served_op.h"
#include "hloscope/support/saturating.h"

namespace hloscope {
namespace {

// Every computation a kernel runs: the fused computation, nested fusions and
// the reducers/comparators of its instructions.
void KernelComputations(const HloComputation* comp, std::vector<const HloComputation*>* out, int depth) {
  if (!comp || depth > 32 || std::find(out->begin(), out->end(), comp) != out->end()) return;
  out->push_back(comp);
  for (const HloInstruction* instr : comp->instructions())
    for (const CalledComputation& cc : instr->called_computations())
      KernelComputations(cc.computation, out, depth + 1);
}

}  // namespace

bool IsInterestingFusedOpcode(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kDynamicUpdateSlice:
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kScatter:
    case HloOpcode::kGather:
    case HloOpcode::kReduce:
    case HloOpcode::kReduceWindow:
    case HloOpcode::kDot:
    case HloOpcode::kConvolution:
    case HloOpcode::kCopy:
    case HloOpcode::kTranspose:
    case HloOpcode::kConcatenate:
    case HloOpcode::kPad:
    case HloOpcode::kReverse:
    case HloOpcode::kSort:
    case HloOpcode::kCustomCall:
    case HloOpcode::kFft:
    case HloOpcode::kSelectAndScatter:
    case HloOpcode::kFusion:
      return true;
    default:
      return false;
  }
}

bool IsUnfusedKernel(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kDot:
    case HloOpcode::kRaggedDot:
    case HloOpcode::kScaledDot:
    case HloOpcode::kConvolution:
    case HloOpcode::kSort:
    case HloOpcode::kReduce:
    case HloOpcode::kReduceWindow:
    case HloOpcode::kSelectAndScatter:
    case HloOpcode::kScatter:
    case HloOpcode::kGather:
    case HloOpcode::kFft:
    case HloOpcode::kCustomCall:
    case HloOpcode::kTriangularSolve:
    case HloOpcode::kCholesky:
    case HloOpcode::kRngBitGenerator:
    case HloOpcode::kTopK:
      return true;
    default:
      return IsCollectiveKernelOpcode(opcode);
  }
}

std::vector<const HloInstruction*> KernelsOf(const HloModule& module) {
  std::vector<const HloInstruction*> out;
  for (const HloComputation* comp : module.computations()) {
    if (!IsSequentialRole(RoleOf(*comp))) continue;
    for (const HloInstruction* instr : comp->instructions())
      if (instr->opcode() == HloOpcode::kFusion || IsUnfusedKernel(instr->opcode())) out.push_back(instr);
  }
  return out;
}

namespace {

std::optional<int64_t> PerCall(const KernelTraffic& t, std::optional<int64_t> executions) {
  return SatMul(SatAdd(t.bytes_read, t.bytes_written), executions);
}

}  // namespace

std::optional<int64_t> KernelBytesPerCall(const HloInstruction& fusion, const ExecutionCounts& counts) {
  return PerCall(TrafficOf(fusion), counts.Of(&fusion));
}

FusionSummary SummarizeFusion(const HloInstruction& fusion, const SourceIndex& index,
                              const ExecutionCounts& counts, const ModuleCheck* check,
                              const KernelTraffic* known_traffic) {
  FusionSummary s;
  s.fusion = &fusion;
  const bool is_fusion = fusion.opcode() == HloOpcode::kFusion;
  const HloComputation* fused = is_fusion ? fusion.fused_computation() : nullptr;
  if (is_fusion) s.backend_kind = FusionBackendKind(fusion);
  HloCost cost = CostOf(fusion);
  if (!cost.incomplete) {
    s.flops = cost.flops;
    s.transcendentals = cost.transcendentals;
  }
  s.source = index.Location(fusion);
  ServedOp served = ServedOpOf(fusion, IndexLines(index));
  s.serves = served.op;
  if (served.line_of) s.serves_source = index.Location(*served.line_of);
  s.executions = counts.Of(&fusion);
  s.executions_upper_bound = counts.IsUpperBound(fusion.parent());
  s.enclosing_loops = counts.EnclosingLoops(fusion.parent());

  KernelTraffic traffic = known_traffic ? *known_traffic : TrafficOf(fusion);
  s.bytes_read = traffic.bytes_read;
  s.bytes_written = traffic.bytes_written;

  // Keyed by the interned location's file: no string copy per instruction.
  std::map<std::string_view, std::set<int64_t>> lines;
  auto add_line = [&](const SourceLocation* loc) {
    if (loc && loc->has_line()) lines[loc->file].insert(loc->line);
  };
  add_line(s.source);

  std::vector<const HloComputation*> comps;
  KernelComputations(fused, &comps, 0);
  std::map<std::string_view, int64_t> by_opcode;
  if (!is_fusion) {
    // An unfused kernel is its one operation (and its reducer's lines).
    s.instruction_count = 1;
    ++by_opcode[fusion.opcode_text()];
    if (IsInterestingFusedOpcode(fusion.opcode())) s.interesting.push_back({&fusion, s.source});
    for (const CalledComputation& cc : fusion.called_computations())
      KernelComputations(cc.computation, &comps, 0);
  }
  for (const HloComputation* comp : comps) {
    bool fused_body = RoleOf(*comp) == ComputationRole::kFused;
    for (const HloInstruction* instr : comp->instructions()) {
      if (instr->opcode() == HloOpcode::kParameter) continue;
      const SourceLocation* loc = index.Location(*instr);
      add_line(loc);
      if (!fused_body) continue;  // reducers: their lines count, their ops are the reduce's
      ++s.instruction_count;
      ++by_opcode[instr->opcode_text()];
      if (IsInterestingFusedOpcode(instr->opcode())) s.interesting.push_back({instr, loc});
    }
  }
  s.opcode_counts.assign(by_opcode.begin(), by_opcode.end());
  std::stable_sort(s.opcode_counts.begin(), s.opcode_counts.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  for (auto& [file, set] : lines) s.lines.push_back({std::string(file), {set.begin(), set.end()}});

  if (check) {
    for (const UpdateFinding* u : check->UpdatesOf(&fusion))
      if (u->site.owner() == &fusion) s.updates.push_back(u);
    s.copies = check->CopiesOf(&fusion);
  }
  return s;
}

std::optional<int64_t> FusionSummary::bytes_per_call() const {
  return SatMul(SatAdd(bytes_read, bytes_written), executions);
}

FusionSummary FusionSelection::Summary(size_t k) const {
  return SummarizeFusion(*kernels[k], *index, *counts, check, k < traffic.size() ? &traffic[k] : nullptr);
}

FusionSelection SelectFusions(const SourceIndex& index, const ExecutionCounts& counts,
                              const ModuleCheck* check, const FusionsOptions& options) {
  FusionSelection out;
  out.module = &index.module();
  out.index = &index;
  out.counts = &counts;
  out.check = check;
  ScopeMatcher scope(options.scope);
  for (const HloInstruction* instr : KernelsOf(index.module())) {
    ++out.kernels_total;
    if (!scope.empty()) {
      bool match = scope.Matches(index.OpNameOf(*instr));
      std::vector<const HloComputation*> comps;
      for (const CalledComputation& cc : instr->called_computations())
        KernelComputations(cc.computation, &comps, 0);
      for (size_t c = 0; c < comps.size() && !match; ++c)
        for (const HloInstruction* inner : comps[c]->instructions())
          if (scope.Matches(index.OpNameOf(*inner))) {
            match = true;
            break;
          }
      if (!match) continue;
    }
    out.kernels.push_back(instr);
  }
  // The kernels that move the most bytes per call first, those of unknown
  // traffic last; equal ones in text order. The traffic is kept for the
  // summaries (computing it twice cost `fusions` a fifth of its time).
  struct Ranked {
    int64_t bytes_per_call;
    const HloInstruction* kernel;
    KernelTraffic traffic;
  };
  std::vector<Ranked> ranked;
  ranked.reserve(out.kernels.size());
  for (const HloInstruction* k : out.kernels) {
    KernelTraffic t = TrafficOf(*k);
    ranked.push_back({PerCall(t, counts.Of(k)).value_or(-1), k, t});
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const Ranked& a, const Ranked& b) { return a.bytes_per_call > b.bytes_per_call; });
  out.traffic.reserve(ranked.size());
  for (size_t i = 0; i < ranked.size(); ++i) {
    out.kernels[i] = ranked[i].kernel;
    out.traffic.push_back(ranked[i].traffic);
  }
  return out;
}

ModuleFusions SummarizeFusions(const SourceIndex& index, const ExecutionCounts& counts,
                               const ModuleCheck* check, const FusionsOptions& options) {
  FusionSelection selection = SelectFusions(index, counts, check, options);
  ModuleFusions out;
  out.module = selection.module;
  out.kernels_total = selection.kernels_total;
  out.fusions.reserve(selection.kernels.size());
  for (size_t k = 0; k < selection.kernels.size(); ++k) out.fusions.push_back(selection.Summary(k));
  return out;
}

}  // namespace hloscope
