#include "hloscope/report/render_check.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "report/json_util.h"

namespace hloscope {
namespace {

std::string Where(const std::optional<SourceLocation>& s) {
  if (!s || s->file.empty()) return "";
  std::string file = s->file;
  // Long absolute paths: keep the last two components for the table.
  size_t cut = file.rfind('/');
  if (cut != std::string::npos && cut > 0) {
    size_t cut2 = file.rfind('/', cut - 1);
    if (cut2 != std::string::npos) file = file.substr(cut2 + 1);
  }
  return fmt::format("{}:{}", file, s->line);
}

std::string Times(std::optional<int64_t> n, bool upper) {
  if (!n) return "?";
  return fmt::format("{}{}", upper ? "≤" : "", *n);
}



}  // namespace

Json SourceJson(const std::optional<SourceLocation>& s) {
  if (!s) return nullptr;
  Json j;
  j["file"] = s->file.empty() ? Json(nullptr) : Json(s->file);
  j["line"] = s->line ? Json(s->line) : Json(nullptr);
  j["column"] = s->column ? Json(s->column) : Json(nullptr);
  j["function"] = s->function.empty() ? Json(nullptr) : Json(s->function);
  j["op_name"] = s->op_name.empty() ? Json(nullptr) : Json(s->op_name);
  j["via"] = s->via;
  return j;
}

std::string Headline(const ModuleCheck& m) {
  // Array copies are the answer; scalar ones (loop counters) are only
  // mentioned. A plain sum plus a flag: std::optional here trips GCC 12's
  // -Wmaybe-uninitialized.
  int64_t n = 0, scalars = 0;
  int64_t sum = 0;
  bool known = true;
  std::map<std::string, int64_t> by_loop;
  for (const CopyFinding& c : m.copies) {
    if (c.scalar) {
      ++scalars;
      continue;
    }
    ++n;
    if (!c.total_bytes) known = false;
    else sum += *c.total_bytes;
    if (!c.enclosing_loops.empty() && c.total_bytes)
      by_loop[c.enclosing_loops.back()] += *c.total_bytes;
  }
  std::string scalar_note =
      scalars == 0 ? "" : fmt::format(" (+{} scalar cop{})", scalars, scalars == 1 ? "y" : "ies");
  if (n == 0) {
    int64_t bad = 0;
    for (const UpdateFinding& u : m.updates)
      bad += u.verdict == UpdateVerdict::kOutOfPlace || u.full_rewrite;
    if (bad == 0)
      return fmt::format("{}: no array copies{}; {} update{} in place or fused away.", m.name,
                         scalar_note, m.updates.size(), m.updates.size() == 1 ? "" : "s");
    return fmt::format("{}: no array copies{}, but {} update{} write{} a whole new buffer.", m.name,
                       scalar_note, bad, bad == 1 ? "" : "s", bad == 1 ? "s" : "");
  }
  std::string line = fmt::format("{}: {} cop{}{}, {} moved per call", m.name, n,
                                 n == 1 ? "y" : "ies", scalar_note,
                                 known ? HumanBytes(sum) : std::string("an unknown amount"));
  if (known && sum > 0 && !by_loop.empty()) {
    auto top = std::max_element(by_loop.begin(), by_loop.end(),
                                [](const auto& a, const auto& b) { return a.second < b.second; });
    std::string where;
    for (const CopyFinding& c : m.copies)
      if (!c.scalar && !c.enclosing_loops.empty() && c.enclosing_loops.back() == top->first) {
        where = Where(c.source);
        break;
      }
    int pct = static_cast<int>(100.0 * static_cast<double>(top->second) / static_cast<double>(sum) + 0.5);
    if (pct > 0)
      line += fmt::format(", {}% inside {}{}", pct, top->first, where.empty() ? "" : " at " + where);
  }
  return line + ".";
}

void RenderCheckText(const std::vector<ModuleCheck>& modules, const RenderOptions& options,
                     std::ostream& out) {
  for (size_t mi = 0; mi < modules.size(); ++mi) {
    const ModuleCheck& m = modules[mi];
    if (mi) out << "\n";
    out << Headline(m) << "\n";
    for (const CopyFinding& top : m.copies) {
      if (top.scalar) continue;
      out << fmt::format("  Largest: {} — {}.\n", top.instruction, top.cause_detail);
      break;
    }
    if (!m.copies.empty()) {
      out << "\nCOPIES (by bytes moved per call)\n";
      int64_t scalars = 0, scalar_bytes = 0;
      for (const CopyFinding& c : m.copies) {
        if (c.total_bytes && *c.total_bytes < options.min_copy_bytes_shown) continue;
        // Scalar copies (loop counters, constants that start a loop) cost
        // nothing worth a line each; JSON still lists them.
        if (c.scalar) {
          ++scalars;
          scalar_bytes += c.total_bytes.value_or(0);
          continue;
        }
        std::string where = c.enclosing_loops.empty() ? "entry" : "in " + c.enclosing_loops.front();
        out << fmt::format("  {:<22} {:<18} {:>9} × {:<5} = {:>9}   {:<16} {}\n", c.instruction,
                           c.shape, HumanBytes(c.bytes), Times(c.executions, c.executions_upper_bound),
                           HumanBytes(c.total_bytes), where, Where(c.source));
        out << fmt::format("  {:<22} cause: {} — {}\n", "", CopyCauseName(c.cause), c.cause_detail);
        if (!c.hint.empty()) out << fmt::format("  {:<22} hint:  {}\n", "", c.hint);
      }
      if (scalars > 0)
        out << fmt::format("  + {} scalar cop{} ({} per call: loop counters and loop-start constants)\n",
                           scalars, scalars == 1 ? "y" : "ies", HumanBytes(scalar_bytes));
    }
    if (!m.updates.empty()) {
      out << "\nUPDATES\n";
      for (const UpdateFinding& u : m.updates) {
        std::string name = u.instruction + (u.fusion ? " (in " + *u.fusion + ")" : "");
        std::string extra;
        if (u.copy) extra += " on " + *u.copy;
        if (u.full_rewrite) extra += " full-rewrite";
        if (u.confirmed) extra += *u.confirmed ? " ✓" : " ✗ CONTRADICTED by buffer assignment";
        out << fmt::format("  {:<17} {:<48} {:>9} × {:<5} {}{}\n", UpdateVerdictName(u.verdict), name,
                           HumanBytes(u.bytes_written), Times(u.executions, u.executions_upper_bound),
                           Where(u.source), extra);
        if (u.confirmed && !*u.confirmed)
          out << fmt::format("  {:<17} {}\n", "", u.confirmation);
      }
    }
    if (!m.loops.empty()) {
      out << "\nLOOPS\n";
      for (const LoopFinding& l : m.loops) {
        std::string trips = l.trip_count ? fmt::format("{} iterations ({})", *l.trip_count, l.trip_count_source)
                                         : "unknown trip count";
        out << fmt::format("  {:<18} {:<40} per iteration: {} copied, {} rewritten{}\n", l.instruction,
                           trips, HumanBytes(l.copy_bytes_per_iteration),
                           HumanBytes(l.rewrite_bytes_per_iteration),
                           l.scales_with_buffer ? " — grows with buffer size" : "");
        for (const std::string& s : l.scaling) out << fmt::format("  {:<18} {}\n", "", s);
      }
    }
    if (!m.parameters.empty()) {
      out << "\nPARAMETERS\n";
      for (const ParameterFinding& p : m.parameters) {
        std::string copied = p.copied ? fmt::format("copied ({})", fmt::join(p.copies, ", ")) : "not copied";
        out << fmt::format("  {:<3} {:<14} {:<20} {:>9}  {:<12} {}\n", p.number, p.name, p.shape,
                           HumanBytes(p.bytes), p.donated ? "donated" : "not donated", copied);
      }
    }
    if (!m.buffer_assignment.empty()) {
      int64_t confirmed = 0, contradicted = 0, open = 0;
      for (const UpdateFinding& u : m.updates) {
        if (!u.confirmed) ++open;
        else if (*u.confirmed) ++confirmed;
        else ++contradicted;
      }
      out << fmt::format("\nverdicts checked against XLA's buffer assignment ({}): {} confirmed, {} contradicted, {} not checkable\n",
                         m.buffer_assignment, confirmed, contradicted, open);
    } else {
      out << "\nno buffer assignment: verdicts follow XLA's aliasing rules, unconfirmed (pass --buffer-assignment)\n";
    }
  }
}

Json CheckToJson(const std::vector<ModuleCheck>& modules) {
  Json doc;
  doc["schema_version"] = kJsonSchemaVersion;
  doc["tool"] = "hloscope";
  doc["modules"] = Json::array();
  for (const ModuleCheck& m : modules) {
    Json jm;
    jm["name"] = m.name;
    jm["entry"] = m.entry;
    jm["headline"] = Headline(m);
    jm["buffer_assignment"] = m.buffer_assignment.empty() ? Json(nullptr) : Json(m.buffer_assignment);
    jm["parameters"] = Json::array();
    for (const ParameterFinding& p : m.parameters) {
      Json j;
      j["number"] = p.number;
      j["name"] = p.name;
      j["shape"] = p.shape;
      j["bytes"] = Opt(p.bytes);
      j["donated"] = p.donated;
      j["copied"] = p.copied;
      j["copies"] = p.copies;
      jm["parameters"].push_back(std::move(j));
    }
    jm["copies"] = Json::array();
    for (const CopyFinding& c : m.copies) {
      Json j;
      j["instruction"] = c.instruction;
      j["computation"] = c.computation;
      j["kind"] = c.kind;
      j["class"] = CopyClassName(c.copy_class);
      j["shape"] = c.shape;
      j["scalar"] = c.scalar;
      j["bytes"] = Opt(c.bytes);
      j["executions"] = Opt(c.executions);
      j["executions_upper_bound"] = c.executions_upper_bound;
      j["total_bytes"] = Opt(c.total_bytes);
      j["enclosing_loops"] = c.enclosing_loops;
      j["cause"] = CopyCauseName(c.cause);
      j["cause_detail"] = c.cause_detail;
      j["hint"] = c.hint.empty() ? Json(nullptr) : Json(c.hint);
      j["copied_from"] = c.copied_from;
      j["feeds"] = c.feeds;
      j["source"] = SourceJson(c.source);
      jm["copies"].push_back(std::move(j));
    }
    jm["updates"] = Json::array();
    for (const UpdateFinding& u : m.updates) {
      Json j;
      j["instruction"] = u.instruction;
      j["opcode"] = u.opcode;
      j["computation"] = u.computation;
      j["fusion"] = Opt(u.fusion);
      j["verdict"] = UpdateVerdictName(u.verdict);
      j["full_rewrite"] = u.full_rewrite;
      j["copy"] = Opt(u.copy);
      j["operand"] = u.operand;
      j["reason"] = u.reason;
      j["buffer_bytes"] = Opt(u.buffer_bytes);
      j["bytes_written"] = Opt(u.bytes_written);
      j["executions"] = Opt(u.executions);
      j["executions_upper_bound"] = u.executions_upper_bound;
      j["confirmed"] = Opt(u.confirmed);
      j["confirmation"] = u.confirmation.empty() ? Json(nullptr) : Json(u.confirmation);
      j["source"] = SourceJson(u.source);
      jm["updates"].push_back(std::move(j));
    }
    jm["loops"] = Json::array();
    for (const LoopFinding& l : m.loops) {
      Json j;
      j["instruction"] = l.instruction;
      j["computation"] = l.computation;
      j["trip_count"] = Opt(l.trip_count);
      j["trip_count_source"] = l.trip_count_source;
      j["executions"] = Opt(l.executions);
      j["copy_bytes_per_iteration"] = Opt(l.copy_bytes_per_iteration);
      j["rewrite_bytes_per_iteration"] = Opt(l.rewrite_bytes_per_iteration);
      j["scales_with_buffer"] = l.scales_with_buffer;
      j["scaling"] = l.scaling;
      j["enclosing_loops"] = l.enclosing_loops;
      j["source"] = SourceJson(l.source);
      jm["loops"].push_back(std::move(j));
    }
    doc["modules"].push_back(std::move(jm));
  }
  return doc;
}

void RenderCheck(const std::vector<ModuleCheck>& modules, OutputFormat format,
                 const RenderOptions& options, std::ostream& out) {
  if (format == OutputFormat::kJson) {
    out << CheckToJson(modules).dump(2) << "\n";
    return;
  }
  RenderCheckText(modules, options, out);
}

}  // namespace hloscope
