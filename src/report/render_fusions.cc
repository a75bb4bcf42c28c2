#include "hloscope/report/render_fusions.h"

#include <map>

#include <fmt/format.h>

#include "hloscope/support/human_bytes.h"
#include "report/json_util.h"

namespace hloscope {
namespace {

std::optional<int64_t> Traffic(const FusionSummary& f) {
  if (!f.executions || !f.bytes_read || !f.bytes_written) return std::nullopt;
  return (*f.bytes_read + *f.bytes_written) * *f.executions;
}

std::string Times(const FusionSummary& f) {
  if (!f.executions) return "×?";
  return fmt::format("×{}{}", f.executions_upper_bound ? "≤" : "", *f.executions);
}

}  // namespace

void RenderFusionsText(const std::vector<ModuleFusions>& modules, const FusionsOptions& options,
                       std::ostream& out) {
  for (size_t mi = 0; mi < modules.size(); ++mi) {
    const ModuleFusions& m = modules[mi];
    if (mi) out << "\n";
    std::map<std::string, int64_t> kinds;
    for (const FusionSummary& f : m.fusions) ++kinds[f.kind.empty() ? "?" : f.kind];
    std::vector<std::string> parts;
    for (auto& [k, n] : kinds) parts.push_back(fmt::format("{} {}", n, k));
    std::string scope = options.scope.empty()
                            ? ""
                            : fmt::format(" in scope '{}' (of {})", options.scope, m.kernels_total);
    out << fmt::format("{}: {} fusion{}{}{}{} — each fusion is one kernel\n", m.name, m.fusions.size(),
                       m.fusions.size() == 1 ? "" : "s", scope, parts.empty() ? "" : ": ",
                       fmt::join(parts, ", "));
    for (const FusionSummary& f : m.fusions) {
      std::string kind = f.kind + (f.backend_kind.empty() ? "" : " " + f.backend_kind);
      std::string loops = f.enclosing_loops.empty() ? "in " + f.computation
                                                     : "in " + f.enclosing_loops.front();
      out << fmt::format("\n  {}  {}  {}  {}  {}\n", f.name, kind, f.shape, Times(f), loops);
      out << fmt::format("      lines    {}\n", f.lines_text.empty() ? "(no source lines)" : f.lines_text);
      std::vector<std::string> ops;
      for (auto& [op, n] : f.opcode_counts) ops.push_back(fmt::format("{} {}", n, op));
      out << fmt::format("      ops      {}: {}\n", f.instruction_count, fmt::join(ops, ", "));
      if (!f.interesting.empty()) {
        std::vector<std::string> names;
        for (const FusedOp& op : f.interesting) {
          std::string where = op.source && !op.source->file.empty()
                                  ? fmt::format(" @{}", op.source->line)
                                  : "";
          names.push_back(fmt::format("{} {}{}", op.name, op.shape, where));
        }
        size_t shown = std::min<size_t>(names.size(), 8);
        std::vector<std::string> head(names.begin(), names.begin() + shown);
        out << fmt::format("      notable  {}{}\n", fmt::join(head, ", "),
                           names.size() > shown ? fmt::format(", +{} more", names.size() - shown) : "");
      }
      std::optional<int64_t> traffic = Traffic(f);
      out << fmt::format("      bytes    reads {}, writes {} per run; {} per call\n",
                         HumanBytes(f.bytes_read), HumanBytes(f.bytes_written), HumanBytes(traffic));
      for (const std::string& s : f.findings) out << fmt::format("      check    {}\n", s);
    }
  }
}

Json FusionsToJson(const std::vector<ModuleFusions>& modules, const FusionsOptions& options) {
  Json doc = JsonDocument("fusions");
  doc["scope"] = options.scope.empty() ? Json(nullptr) : Json(options.scope);
  doc["modules"] = Json::array();
  for (const ModuleFusions& m : modules) {
    Json jm;
    jm["name"] = m.name;
    jm["kernels_total"] = m.kernels_total;
    jm["fusions"] = Json::array();
    for (const FusionSummary& f : m.fusions) {
      Json j;
      j["name"] = f.name;
      j["computation"] = f.computation;
      j["fused_computation"] = f.fused_computation;
      j["kind"] = f.kind;
      j["backend_kind"] = f.backend_kind.empty() ? Json(nullptr) : Json(f.backend_kind);
      j["shape"] = f.shape;
      j["instruction_count"] = f.instruction_count;
      Json ops = Json::object();
      for (auto& [op, n] : f.opcode_counts) ops[op] = n;
      j["opcode_counts"] = std::move(ops);
      j["interesting"] = Json::array();
      for (const FusedOp& op : f.interesting) {
        Json o;
        o["name"] = op.name;
        o["opcode"] = op.opcode;
        o["shape"] = op.shape;
        o["file"] = op.source && !op.source->file.empty() ? Json(op.source->file) : Json(nullptr);
        o["line"] = op.source && op.source->line ? Json(op.source->line) : Json(nullptr);
        j["interesting"].push_back(std::move(o));
      }
      j["source_lines"] = Json::array();
      for (const SourceLines& sl : f.lines) {
        Json l;
        l["file"] = sl.file;
        l["lines"] = sl.lines;
        j["source_lines"].push_back(std::move(l));
      }
      j["lines_text"] = f.lines_text;
      j["bytes_read"] = Opt(f.bytes_read);
      j["bytes_written"] = Opt(f.bytes_written);
      j["executions"] = Opt(f.executions);
      j["executions_upper_bound"] = f.executions_upper_bound;
      j["bytes_per_call"] = Opt(Traffic(f));
      j["enclosing_loops"] = f.enclosing_loops;
      j["findings"] = f.findings;
      jm["fusions"].push_back(std::move(j));
    }
    doc["modules"].push_back(std::move(jm));
  }
  return doc;
}

void ReportFusions(const std::vector<const HloModule*>& modules, const FusionsOptions& options,
                   OutputFormat format, std::ostream& out) {
  std::vector<ModuleFusions> all;
  for (const HloModule* m : modules) {
    ModuleAnalysis a(*m);
    all.push_back(SummarizeFusions(a.index, a.counts, &a.check, options));
  }
  if (format == OutputFormat::kJson) {
    out << FusionsToJson(all, options).dump(2) << "\n";
    return;
  }
  RenderFusionsText(all, options, out);
}

}  // namespace hloscope
