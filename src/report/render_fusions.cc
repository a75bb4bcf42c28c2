#include "hloscope/report/render_fusions.h"

#include <fmt/format.h>

#include <map>

#include "hloscope/report/enum_names.h"
#include "hloscope/report/json_stream.h"
#include "hloscope/report/render_cost.h"
#include "hloscope/report/wording.h"
#include "hloscope/support/human_bytes.h"

namespace hloscope {

void RenderFusionsText(const std::vector<FusionSelection>& modules, std::string_view scope,
                       std::ostream& out) {
  for (size_t mi = 0; mi < modules.size(); ++mi) {
    const FusionSelection& m = modules[mi];
    if (mi) out << "\n";
    std::map<std::string, int64_t> kinds;
    for (const HloInstruction* f : m.kernels) {
      std::string_view k = FusionKindText(*f);
      ++kinds[k.empty() ? "?" : std::string(k)];
    }
    std::vector<std::string> parts;
    for (auto& [k, n] : kinds) parts.push_back(fmt::format("{} {}", n, k));
    std::string scope_text =
        scope.empty() ? "" : fmt::format(" in scope '{}' (of {})", Shown(scope), m.kernels_total);
    out << fmt::format(
        "{}: {} kernel{}{}{}{} — each fusion is one kernel, and so is each dot, sort, "
        "collective, ... XLA left unfused\n",
        m.module->name(), m.kernels.size(), m.kernels.size() == 1 ? "" : "s", scope_text,
        parts.empty() ? "" : ": ", fmt::join(parts, ", "));
    for (size_t k = 0; k < m.kernels.size(); ++k) {
      const FusionSummary f = m.Summary(k);
      const HloInstruction* fusion = f.fusion;
      std::string kind = Shown(FusionKindText(*fusion));
      if (!f.backend_kind.empty()) kind.append(" ").append(Shown(f.backend_kind));
      std::string loops = f.enclosing_loops.empty() ? fmt::format("in {}", fusion->parent()->name())
                                                    : fmt::format("in {}", f.enclosing_loops.front()->name());
      out << fmt::format("\n  {}  {}  {}  ×{}  {}\n", fusion->name(), kind, fusion->shape().ToString(),
                         ExecutionsText(f.executions, f.executions_upper_bound), loops);
      std::string lines = FileLinesText(f.lines);
      out << fmt::format("      lines    {}\n", lines.empty() ? "(no source lines)" : lines);
      std::vector<std::string> ops;
      for (auto& [op, n] : f.opcode_counts) ops.push_back(fmt::format("{} {}", n, op));
      out << fmt::format("      ops      {}: {}\n", f.instruction_count, fmt::join(ops, ", "));
      if (!f.interesting.empty()) {
        std::vector<std::string> names;
        for (const FusedOp& op : f.interesting) {
          std::string where =
              op.source && !op.source->file.empty() ? fmt::format(" @{}", op.source->line) : "";
          names.push_back(
              fmt::format("{} {}{}", op.instruction->name(), op.instruction->shape().ToString(), where));
        }
        size_t shown = std::min<size_t>(names.size(), 8);
        std::vector<std::string> head(names.begin(), names.begin() + shown);
        out << fmt::format("      notable  {}{}\n", fmt::join(head, ", "),
                           names.size() > shown ? fmt::format(", +{} more", names.size() - shown) : "");
      }
      out << fmt::format("      bytes    reads {}, writes {} per run; {} per call\n",
                         HumanBytes(f.bytes_read), HumanBytes(f.bytes_written),
                         HumanBytes(f.bytes_per_call()));
      if (!f.flops)
        out << "      flops    unknown (a library call: its work is not in the HLO)\n";
      else if (*f.flops > 0 || f.transcendentals.value_or(0) > 0)
        out << fmt::format("      flops    {}{} per run\n", HumanFlops(*f.flops),
                           f.transcendentals.value_or(0) > 0
                               ? fmt::format(" and {} transcendentals", HumanCount(*f.transcendentals))
                               : "");
      for (const std::string& s : KernelFindingLines(f)) out << fmt::format("      check    {}\n", s);
    }
  }
}

void WriteFusionsJson(const std::vector<FusionSelection>& modules, std::string_view scope,
                      std::ostream& out) {
  JsonStream js(out);
  js.BeginObject();
  Json head = JsonEnvelope("fusions");
  head["scope"] = scope.empty() ? Json(nullptr) : Json(std::string(scope));
  js.Members(head);
  js.Key("modules");
  js.BeginArray();
  for (const FusionSelection& m : modules) {
    js.BeginObject();
    Json jm = ModuleHeaderJson(*m.module);
    jm["kernels_total"] = m.kernels_total;
    js.Members(jm);
    js.Key("fusions");
    js.BeginArray();
    for (size_t k = 0; k < m.kernels.size(); ++k) js.Value(KernelJson(m.Summary(k)));
    js.EndArray();
    js.EndObject();
  }
  js.EndArray();
  js.EndObject();
  js.Finish();
}

}  // namespace hloscope
