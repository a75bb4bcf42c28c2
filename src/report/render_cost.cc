#include "hloscope/report/render_cost.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "hloscope/ir/computation.h"
#include "hloscope/report/enum_names.h"
#include "hloscope/report/json_model.h"
#include "hloscope/report/json_stream.h"
#include "hloscope/report/wording.h"
#include "hloscope/support/human_bytes.h"
#include "hloscope/support/saturating.h"

namespace hloscope {
namespace {

std::string Share(double part, double whole) {
  if (whole <= 0) return "-";
  return fmt::format("{:.1f}%", 100.0 * part / whole);
}

std::string LineText(const std::string& file, int64_t line) {
  std::string_view f = file;
  size_t slash = f.rfind('/');
  if (slash != std::string_view::npos) f = f.substr(slash + 1);
  return fmt::format("{}:{}", Shown(f), line);
}

std::string KernelKind(const HloInstruction& k) {
  if (k.opcode() == HloOpcode::kFusion) return fmt::format("fusion {}", Shown(FusionKindText(k)));
  if (k.opcode() == HloOpcode::kCustomCall) {
    std::optional<std::string_view> target = k.attribute("custom_call_target");
    return fmt::format("custom-call {}", target ? Shown(*target) : "?");
  }
  return std::string(FusionKindText(k));
}

std::string Measured(std::optional<double> seconds) { return seconds ? HumanSeconds(*seconds) : "-"; }

std::string WhereText(const KernelCost& k) {
  if (!k.enclosing_loops.empty()) return fmt::format("in {}", Shown(k.enclosing_loops.front()->name()));
  return fmt::format("in {}", Shown(k.kernel->parent()->name()));
}

Json CostJson(const HloCost& c) {
  Json j;
  j["flops"] = c.flops;
  j["transcendentals"] = c.transcendentals;
  j["bytes_accessed"] = c.bytes_accessed;
  return j;
}

std::string_view TripSourceName(TripCountSource s) {
  switch (s) {
    case TripCountSource::kKnownTripCount:
      return "known_trip_count";
    case TripCountSource::kInductionVariable:
      return "induction_variable";
    case TripCountSource::kUnknown:
      break;
  }
  return "unknown";
}

}  // namespace

std::string HumanFlops(int64_t flops) {
  if (IsSaturated(flops) || flops < 0) return "overflow";
  static constexpr const char* kUnits[] = {"FLOP", "kFLOP", "MFLOP", "GFLOP", "TFLOP", "PFLOP", "EFLOP"};
  double v = static_cast<double>(flops);
  size_t u = 0;
  while (v >= 1000 && u + 1 < std::size(kUnits)) {
    v /= 1000;
    ++u;
  }
  return u == 0 ? fmt::format("{} FLOP", flops) : fmt::format("{:.3g} {}", v, kUnits[u]);
}

std::string HumanCount(int64_t n) {
  std::string flops = HumanFlops(n);
  // HumanFlops's units without the word: "1.5 kFLOP" -> "1.5 k".
  size_t at = flops.find("FLOP");
  if (at == std::string::npos) return flops;
  flops.erase(at, 4);
  while (!flops.empty() && flops.back() == ' ') flops.pop_back();
  return flops;
}

std::string HumanSeconds(double seconds) {
  if (!(seconds > 0)) return "0 s";
  if (seconds >= 1) return fmt::format("{:.3g} s", seconds);
  if (seconds >= 1e-3) return fmt::format("{:.3g} ms", seconds * 1e3);
  if (seconds >= 1e-6) return fmt::format("{:.3g} µs", seconds * 1e6);
  return fmt::format("{:.3g} ns", seconds * 1e9);
}

void RenderCostText(const std::vector<ModuleCost>& modules, const CostTextOptions& options,
                    std::ostream& out) {
  const size_t top = options.top > 0 ? static_cast<size_t>(options.top) : 0;
  for (size_t mi = 0; mi < modules.size(); ++mi) {
    const ModuleCost& m = modules[mi];
    const Roofline& roof = *m.roofline;
    if (mi) out << "\n";
    out << fmt::format(
        "{}: {} and {} accessed per call, per device; about {} on {} (a roofline estimate, not a "
        "measurement)\n",
        Shown(m.module->name()), HumanFlops(SatAdd(m.per_call.flops, m.per_call.transcendentals)),
        HumanBytes(m.per_call.bytes_accessed), HumanSeconds(m.seconds_per_call), roof.description);
    out << fmt::format("  {} of the FLOPs in dots, convolutions and GEMMs; {} transcendentals\n",
                       Share(static_cast<double>(m.matmul_flops_per_call),
                             static_cast<double>(SatAdd(m.per_call.flops, m.per_call.transcendentals))),
                       HumanCount(m.per_call.transcendentals));
    if (m.measured) {
      const MeasuredCost& t = *m.measured;
      if (!t.module_in_trace)
        out << fmt::format(
            "  measured: the trace {} has no event of {} (another program, or a tracer that does not "
            "name HLO ops): nothing measured\n",
            Shown(t.trace_path), Shown(m.module->name()));
      else if (t.calls == 0)
        out << fmt::format("  measured: the trace names {}, but none of its kernels: nothing measured\n",
                           Shown(m.module->name()));
      else
        out << fmt::format(
            "  measured: {} per call in its kernels ({} call{} traced; {} kernel{} with events{})\n",
            HumanSeconds(t.seconds_per_call), t.calls, t.calls == 1 ? "" : "s", t.kernels_traced,
            t.kernels_traced == 1 ? "" : "s",
            t.kernels_not_traced ? fmt::format(", {} without", t.kernels_not_traced) : "");
    }
    if (!m.loops.empty() || m.as_xla.flops != m.per_call.flops)
      out << fmt::format("  compiled.cost_analysis() says {} and {} (it counts each loop body once)\n",
                         HumanFlops(m.as_xla.flops),
                         HumanBytes(std::max<int64_t>(m.as_xla.bytes_accessed, 0)));
    if (m.kernels_unknown_executions)
      out << fmt::format("  {} kernel{} inside loops whose trip count is unknown: left out of the totals\n",
                         m.kernels_unknown_executions, m.kernels_unknown_executions == 1 ? "" : "s");
    if (m.kernels_incomplete)
      out << fmt::format(
          "  {} kernel{} with work we cannot count (custom-calls, unknown sizes): their FLOPs are "
          "missing\n",
          m.kernels_incomplete, m.kernels_incomplete == 1 ? "" : "s");
    const double total = m.seconds_per_call;
    const bool measured = m.measured && m.measured->calls > 0;

    if (!m.lines.empty()) {
      out << "\n  Lines, by estimated time per call:\n";
      out << fmt::format("    {:>6}  {:>9}{}  {:>11}  {:>10}  {}\n", "share", "est. time",
                         measured ? fmt::format("  {:>9}", "measured") : "", "FLOPs", "bytes", "line");
      for (size_t i = 0; i < std::min(top, m.lines.size()); ++i) {
        const LineCost& l = m.lines[i];
        std::string fn = l.function.empty() ? "" : fmt::format(" ({})", Shown(l.function));
        out << fmt::format("    {:>6}  {:>9}{}  {:>11}  {:>10}  {}{}{}\n", Share(l.seconds_per_call, total),
                           HumanSeconds(l.seconds_per_call),
                           measured ? fmt::format("  {:>9}", Measured(l.measured_seconds_per_call)) : "",
                           HumanFlops(SatAdd(l.per_call.flops, l.per_call.transcendentals)),
                           HumanBytes(l.per_call.bytes_accessed), LineText(l.file, l.line), fn,
                           l.top_kernel ? fmt::format("  — most in {}", Shown(l.top_kernel->name())) : "");
      }
      if (m.lines.size() > top)
        out << fmt::format("    … {} more line{} (--top N, or --format json)\n", m.lines.size() - top,
                           m.lines.size() - top == 1 ? "" : "s");
    }
    if (!m.loops.empty()) {
      out << "\n  Loops, by estimated time per call:\n";
      for (size_t i = 0; i < std::min(top, m.loops.size()); ++i) {
        const LoopCost& l = m.loops[i];
        std::string trips =
            l.trip_count.count ? fmt::format("{} iterations", *l.trip_count.count) : "unknown trip count";
        out << fmt::format("    {:>6}  {:>9}{}  {} ({}): per iteration {} and {}; per call {} and {}\n",
                           Share(l.seconds_per_call, total), HumanSeconds(l.seconds_per_call),
                           measured ? fmt::format("  {:>9}", Measured(l.measured_seconds_per_call)) : "",
                           Shown(l.loop->name()), trips,
                           HumanFlops(SatAdd(l.per_iteration.flops, l.per_iteration.transcendentals)),
                           HumanBytes(l.per_iteration.bytes_accessed),
                           HumanFlops(SatAdd(l.per_call.flops, l.per_call.transcendentals)),
                           HumanBytes(l.per_call.bytes_accessed));
      }
    }
    if (!m.kernels.empty()) {
      out << "\n  Kernels, by estimated time per call:\n";
      out << fmt::format("    {:>6}  {:>9}{}  {:>11}  {:>10}  {:>8}  {}\n", "share", "est. time",
                         measured ? fmt::format("  {:>9}", "measured") : "", "FLOPs/run", "bytes/run", "runs",
                         "kernel");
      for (size_t i = 0; i < std::min(top, m.kernels.size()); ++i) {
        const KernelCost& k = m.kernels[i];
        out << fmt::format("    {:>6}  {:>9}{}  {:>11}  {:>10}  {:>8}  {} ({}) {}\n",
                           Share(k.seconds_per_call, total), HumanSeconds(k.seconds_per_call),
                           measured ? fmt::format("  {:>9}", Measured(k.measured_seconds_per_call)) : "",
                           HumanFlops(SatAdd(k.per_run.flops, k.per_run.transcendentals)),
                           HumanBytes(k.per_run.bytes_accessed),
                           ExecutionsText(k.executions, k.executions_upper_bound), Shown(k.kernel->name()),
                           KernelKind(*k.kernel), WhereText(k));
      }
      if (m.kernels.size() > top)
        out << fmt::format("    … {} more kernel{} (--top N, or --format json)\n", m.kernels.size() - top,
                           m.kernels.size() - top == 1 ? "" : "s");
    }
  }
}

Json CostSummaryJson(const CostSummary& cost) {
  Json j;
  j["target"] = cost.target ? Str(cost.target->name) : Json(nullptr);
  Json total = CostJson(cost.per_call);
  total["matmul_flops"] = cost.matmul_flops;
  total["estimated_seconds"] = cost.estimated_seconds;
  j["per_call"] = total;
  Json xla = CostJson(cost.as_xla);
  xla["flops"] = cost.as_xla.flops - cost.as_xla.xla_unknown_calls;
  xla["bytes_accessed"] = cost.as_xla.bytes_accessed - cost.as_xla.xla_unknown_calls;
  j["xla_cost_analysis"] = xla;
  j["kernels"] = cost.kernels;
  j["kernels_unknown_executions"] = cost.kernels_unknown_executions;
  j["kernels_incomplete"] = cost.kernels_incomplete;
  auto items = [](const std::vector<CostSummary::Item>& v, bool kernels) {
    Json a = Json::array();
    for (const CostSummary::Item& it : v) {
      Json i = RefJson(it.instruction);
      if (kernels) {
        i["kind"] = KernelKind(*it.instruction);
        i["loop"] = it.loop ? Json(Shown(it.loop->name())) : Json(nullptr);
      }
      i["executions"] = Opt(it.executions);
      i["executions_upper_bound"] = it.executions_upper_bound;
      i["per_call"] = CostJson(it.per_call);
      i["estimated_seconds"] = it.estimated_seconds;
      a.push_back(std::move(i));
    }
    return a;
  };
  j["top_kernels"] = items(cost.top_kernels, true);
  j["top_loops"] = items(cost.top_loops, false);
  return j;
}

std::string CostEstimateNote(const CostSummary& cost) {
  return fmt::format("a roofline estimate on {}, not a measurement",
                     cost.target ? cost.target->description : "an unknown target");
}

std::string CostSummaryTitle(const CostSummary& cost) {
  return fmt::format("COST per call (times are {}; `hloscope cost` ranks lines and loops)",
                     CostEstimateNote(cost));
}

std::string KernelKindText(const HloInstruction& kernel) { return KernelKind(kernel); }

std::vector<std::string> CostSummaryLines(const CostSummary& cost, size_t top) {
  std::vector<std::string> lines;
  const int64_t flops = SatAdd(cost.per_call.flops, cost.per_call.transcendentals);
  std::string unknown;
  if (cost.kernels_unknown_executions)
    unknown = fmt::format("; {} kernel{} in loops of unknown trip count left out",
                          cost.kernels_unknown_executions, cost.kernels_unknown_executions == 1 ? "" : "s");
  if (cost.kernels_incomplete)
    unknown += fmt::format("; {} kernel{} with work we cannot count (a lower bound)", cost.kernels_incomplete,
                           cost.kernels_incomplete == 1 ? "" : "s");
  lines.push_back(fmt::format(
      "{} ({} in dots, convolutions and GEMMs), {} accessed, in {} kernel{}: about {}{}", HumanFlops(flops),
      Share(static_cast<double>(cost.matmul_flops), static_cast<double>(flops)),
      HumanBytes(cost.per_call.bytes_accessed), cost.kernels, cost.kernels == 1 ? "" : "s",
      HumanSeconds(cost.estimated_seconds), unknown));
  const size_t shown = std::min(top, cost.top_kernels.size());
  if (shown > 0)
    lines.push_back(fmt::format("{:>6}  {:>9}  {:>11} {:>10}  {:>8}  {}", "share", "est. time", "FLOPs/call",
                                "bytes/call", "runs", "kernel"));
  for (size_t i = 0; i < shown; ++i) {
    const CostSummary::Item& k = cost.top_kernels[i];
    lines.push_back(fmt::format(
        "{:>6}  {:>9}  {:>11} {:>10}  {:>8}  {} ({}){}", Share(k.estimated_seconds, cost.estimated_seconds),
        HumanSeconds(k.estimated_seconds), HumanFlops(SatAdd(k.per_call.flops, k.per_call.transcendentals)),
        HumanBytes(k.per_call.bytes_accessed), ExecutionsText(k.executions, k.executions_upper_bound),
        Shown(k.instruction->name()), KernelKind(*k.instruction),
        k.loop ? fmt::format(" in {}", Shown(k.loop->name())) : ""));
  }
  if (const int64_t more = cost.kernels - static_cast<int64_t>(shown); shown > 0 && more > 0)
    lines.push_back(fmt::format("… {} more kernel{} (`hloscope cost`)", more, more == 1 ? "" : "s"));
  return lines;
}

void WriteCostJson(const std::vector<ModuleCost>& modules, std::ostream& out) {
  JsonStream js(out);
  js.BeginObject();
  js.Members(JsonEnvelope("cost"));
  js.Key("modules");
  js.BeginArray();
  for (const ModuleCost& m : modules) {
    js.BeginObject();
    Json head = ModuleHeaderJson(*m.module);
    const Roofline& roof = *m.roofline;
    head["target"] = {{"name", Str(roof.name)},
                      {"description", Str(roof.description)},
                      {"matmul_flops_per_second", roof.matmul_flops_per_second},
                      {"vector_flops_per_second", roof.vector_flops_per_second},
                      {"bytes_per_second", roof.bytes_per_second},
                      {"source", Str(roof.source)}};
    Json total = CostJson(m.per_call);
    total["matmul_flops"] = m.matmul_flops_per_call;
    total["estimated_seconds"] = m.seconds_per_call;
    head["per_call"] = total;
    Json xla = CostJson(m.as_xla);
    // XLA's own figures: -1 for each custom-call it cannot price.
    xla["flops"] = m.as_xla.flops - m.as_xla.xla_unknown_calls;
    xla["bytes_accessed"] = m.as_xla.bytes_accessed - m.as_xla.xla_unknown_calls;
    head["xla_cost_analysis"] = xla;
    head["kernels_unknown_executions"] = m.kernels_unknown_executions;
    head["kernels_incomplete"] = m.kernels_incomplete;
    head["unattributed"] = CostJson(m.unattributed);
    if (m.measured) {
      const MeasuredCost& t = *m.measured;
      head["measured"] = {{"trace", t.trace_path},
                          {"module_in_trace", t.module_in_trace},
                          {"calls", t.calls},
                          {"seconds_per_call", t.calls ? Json(t.seconds_per_call) : Json(nullptr)},
                          {"kernels_traced", t.kernels_traced},
                          {"kernels_not_traced", t.kernels_not_traced},
                          {"ops_without_kernel", t.ops_without_kernel}};
    } else {
      head["measured"] = nullptr;
    }
    js.Members(head);

    js.Key("lines");
    js.BeginArray();
    for (const LineCost& l : m.lines) {
      Json j = {{"file", l.file}, {"line", l.line}, {"function", l.function}};
      j["per_call"] = CostJson(l.per_call);
      j["matmul_flops"] = l.matmul_flops_per_call;
      j["estimated_seconds"] = l.seconds_per_call;
      j["kernels"] = l.kernels;
      j["top_kernel"] = RefJson(l.top_kernel);
      j["measured_seconds"] = Opt(l.measured_seconds_per_call);
      js.Value(j);
    }
    js.EndArray();
    js.Key("loops");
    js.BeginArray();
    for (const LoopCost& l : m.loops) {
      Json j = RefJson(l.loop);
      j["trip_count"] = Opt(l.trip_count.count);
      j["trip_count_source"] = Str(TripSourceName(l.trip_count.source));
      j["executions"] = Opt(l.executions);
      j["per_iteration"] = CostJson(l.per_iteration);
      j["per_call"] = CostJson(l.per_call);
      j["estimated_seconds"] = l.seconds_per_call;
      j["kernels"] = l.kernels;
      j["measured_seconds"] = Opt(l.measured_seconds_per_call);
      js.Value(j);
    }
    js.EndArray();
    js.Key("kernels");
    js.BeginArray();
    for (const KernelCost& k : m.kernels) {
      Json j = RefJson(k.kernel);
      j["opcode"] = Str(k.kernel->opcode_text());
      j["kind"] = KernelKind(*k.kernel);
      j["executions"] = Opt(k.executions);
      j["executions_upper_bound"] = k.executions_upper_bound;
      j["per_run"] = CostJson(k.per_run);
      j["per_call"] = CostJson(k.per_call);
      j["matmul_flops"] = k.matmul_flops;
      j["estimated_seconds"] = k.seconds_per_call;
      j["incomplete"] = k.per_run.incomplete;
      j["measured_seconds"] = Opt(k.measured_seconds_per_call);
      j["measured_runs"] = Opt(k.measured_runs_per_call);
      Json loops = Json::array();
      for (const HloInstruction* l : k.enclosing_loops) loops.push_back(Str(l->name()));
      j["loops"] = loops;
      js.Value(j);
    }
    js.EndArray();
    js.EndObject();
  }
  js.EndArray();
  js.EndObject();
  js.Finish();
}

}  // namespace hloscope
