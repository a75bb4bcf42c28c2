#include "hloscope/report/render_where.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "hloscope/analysis/call_graph.h"
#include "hloscope/analysis/fusion_summary.h"
#include "hloscope/support/human_bytes.h"
#include "report/json_util.h"

namespace hloscope {
namespace {

std::string Times(std::optional<int64_t> n, bool upper) {
  if (!n) return "×?";
  return fmt::format("×{}{}", upper ? "≤" : "", *n);
}

std::string QueryText(const WhereOptions& o) {
  std::vector<std::string> parts;
  if (o.spec) parts.push_back(o.spec->text);
  if (!o.scope.empty()) parts.push_back(fmt::format("scope '{}'", o.scope));
  return fmt::format("{}", fmt::join(parts, " in "));
}

std::string CopyText(const CopyFinding& c) {
  return fmt::format("{} {} {} × {} = {} per call — {}", c.instruction, c.shape, HumanBytes(c.bytes),
                     c.executions ? fmt::format("{}{}", c.executions_upper_bound ? "≤" : "", *c.executions)
                                  : std::string("?"),
                     HumanBytes(c.total_bytes), CopyCauseName(c.cause));
}

std::string UpdateText(const UpdateFinding& u) {
  std::string s = fmt::format("{}{}: {}", u.instruction, u.fusion ? " in " + *u.fusion : "",
                              UpdateVerdictName(u.verdict));
  if (u.copy) s += " on " + *u.copy;
  if (u.full_rewrite) s += " (rewrites the whole buffer)";
  s += fmt::format(", writes {} × {}", HumanBytes(u.bytes_written),
                   u.executions ? fmt::format("{}", *u.executions) : std::string("?"));
  return s;
}

// The heading of a group of instructions: the kernel they run in, or the
// computation (with its loop) for top-level instructions.
std::string GroupHeading(const LineInstruction& li, const ModuleAnalysis& a) {
  const HloInstruction* instr = li.instruction;
  std::string loop = li.loops.empty() ? "" : fmt::format(", inside {}", li.loops.front()->name());
  std::string times = Times(li.executions, li.executions_upper_bound);
  if (li.kernel && li.kernel->opcode() == HloOpcode::kFusion) {
    FusionSummary fs = SummarizeFusion(*li.kernel, a.index, a.counts, nullptr);
    return fmt::format("in fusion {} ({}; lines {}) in {}{} {}", fs.name, fs.kind,
                       fs.lines_text.empty() ? "?" : fs.lines_text, li.kernel->parent()->name(), loop,
                       times);
  }
  if (li.kernel)
    return fmt::format("in {} ({}) in {}{} {}", li.kernel->name(), li.kernel->opcode_text(),
                       li.kernel->parent()->name(), loop, times);
  const HloComputation* comp = instr->parent();
  return fmt::format("in {} ({}){} {}", comp->name(), ComputationRoleName(RoleOf(*comp)), loop, times);
}

const void* GroupKey(const LineInstruction& li) {
  return li.kernel ? static_cast<const void*>(li.kernel) : static_cast<const void*>(li.instruction->parent());
}

}  // namespace

std::vector<std::string> UpdateSummaryLines(const std::vector<const UpdateFinding*>& updates,
                                            size_t max_listed) {
  std::vector<std::string> out;
  if (updates.size() <= max_listed) {
    for (const UpdateFinding* u : updates) out.push_back(UpdateText(*u));
    return out;
  }
  std::map<std::string, std::vector<const UpdateFinding*>> by_verdict;
  for (const UpdateFinding* u : updates) {
    std::string key(UpdateVerdictName(u->verdict));
    if (u->full_rewrite) key += " (rewrites the whole buffer)";
    by_verdict[key].push_back(u);
  }
  for (auto& [verdict, group] : by_verdict) {
    std::optional<int64_t> total = 0;
    for (const UpdateFinding* u : group) {
      if (!total) break;
      if (!u->bytes_written || !u->executions) total = std::nullopt;
      else *total += *u->bytes_written * *u->executions;
    }
    const UpdateFinding* e = group.front();
    out.push_back(fmt::format("×{} {}, e.g. {}{}; {} written per call in all", group.size(), verdict,
                              e->instruction, e->fusion ? " in " + *e->fusion : "", HumanBytes(total)));
  }
  return out;
}

WhereModule FindWhere(const ModuleAnalysis& a, const WhereOptions& options) {
  WhereModule w;
  w.analysis = &a;
  LineQuery q;
  q.spec = options.spec;
  q.scope = options.scope;
  w.lines = CollectLineFacts(a.index, a.counts, a.check, q);
  if (w.lines.empty() && q.spec && Basename(q.spec->file) != q.spec->file) {
    q.spec->file = std::string(Basename(q.spec->file));
    w.lines = CollectLineFacts(a.index, a.counts, a.check, q);
    if (!w.lines.empty())
      w.note = fmt::format("no file path ends with {}; matched by the file name {} only",
                           options.spec->file, q.spec->file);
  }
  if (w.lines.empty() && options.spec) {
    if (!options.spec->function.empty() || options.spec->file.empty()) {
      std::set<std::string> fns;
      for (const HloInstruction* i : a.index.instructions())
        if (auto loc = a.index.Of(*i); loc && !loc->function.empty()) fns.insert(loc->function);
      std::vector<std::string> v(fns.begin(), fns.end());
      if (v.size() > 12) v.resize(12);
      w.nearby = v.empty() ? "the metadata names no functions; ask for FILE:LINE"
                           : fmt::format("functions with instructions: {}", fmt::join(v, ", "));
    } else {
      LineSpec file_only;
      file_only.text = options.spec->file;
      file_only.file = options.spec->file;
      std::map<std::string, std::set<int64_t>> lines;
      for (const HloInstruction* i : a.index.Find(file_only, options.scope))
        if (auto loc = a.index.Of(*i)) lines[loc->file].insert(loc->line);
      std::vector<std::string> parts;
      for (auto& [f, s] : lines) parts.push_back(FormatLineSet(f, {s.begin(), s.end()}));
      w.nearby = parts.empty() ? fmt::format("no instruction comes from {}", options.spec->file)
                               : fmt::format("lines with instructions: {}", fmt::join(parts, "; "));
    }
  }
  return w;
}

void RenderWhereText(const std::vector<WhereModule>& modules, const WhereOptions& options,
                     SourceFiles& files, std::ostream& out) {
  for (size_t mi = 0; mi < modules.size(); ++mi) {
    const WhereModule& w = modules[mi];
    const ModuleAnalysis& a = *w.analysis;
    if (mi) out << "\n";
    int64_t n = 0;
    for (const LineFacts& f : w.lines) n += static_cast<int64_t>(f.instructions.size());
    out << fmt::format("{}: {} instruction{} from {} source line{} match {}\n", a.module.name(), n,
                       n == 1 ? "" : "s", w.lines.size(), w.lines.size() == 1 ? "" : "s",
                       QueryText(options));
    if (!w.note.empty()) out << fmt::format("  ({})\n", w.note);
    if (w.lines.empty()) {
      if (!w.nearby.empty())
        out << fmt::format("  nothing there; {}\n", w.nearby);
      continue;
    }
    for (const LineFacts& f : w.lines) {
      std::optional<std::string> text = files.Line(f.file, f.line);
      out << fmt::format("\n{}:{}{}\n", Basename(f.file), f.line,
                         text ? "   " + std::string(*text) : std::string());
      for (const CopyFinding* c : f.copies) {
        std::string via;
        for (const LineInstruction& li : f.instructions)
          if (li.copy == c && li.source.via != "metadata") via = fmt::format(" (attributed via the {})", li.source.via);
        out << fmt::format("  copy    {}{}\n", CopyText(*c), via);
        out << fmt::format("          {}\n", c->cause_detail);
      }
      for (const std::string& u : UpdateSummaryLines(f.updates)) out << fmt::format("  update  {}\n", u);
      std::vector<std::pair<std::string, std::vector<std::string>>> reads;  // (reader+value, copies)
      for (const LineRead& r : f.reads) {
        std::string key = fmt::format("{} reads {}", r.reader->name(), r.copy->copied_from);
        auto it = std::find_if(reads.begin(), reads.end(), [&](const auto& p) { return p.first == key; });
        if (it == reads.end()) reads.push_back({key, {r.copy->instruction}});
        else it->second.push_back(r.copy->instruction);
      }
      for (const auto& [key, copies] : reads)
        out << fmt::format("  read    {} after it is updated in place: this forces {}\n", key,
                           fmt::join(copies, ", "));
      // Instructions grouped by kernel / computation, in order of appearance.
      std::vector<const void*> order;
      std::map<const void*, std::vector<const LineInstruction*>> groups;
      for (const LineInstruction& li : f.instructions) {
        const void* key = GroupKey(li);
        if (!groups.count(key)) order.push_back(key);
        groups[key].push_back(&li);
      }
      for (const void* key : order) {
        const std::vector<const LineInstruction*>& g = groups[key];
        out << fmt::format("  {}\n", GroupHeading(*g.front(), a));
        for (const LineInstruction* li : g) {
          std::string note;
          for (const UpdateFinding* u : li->updates) note += fmt::format("  ← {}", UpdateVerdictName(u->verdict));
          if (li->copy) note += fmt::format("  ← copy, {} per call", HumanBytes(li->copy->total_bytes));
          out << fmt::format("    {:<32} {:<22} {}{}\n", li->instruction->name(),
                             li->instruction->opcode_text(), li->instruction->shape().ToString(), note);
        }
      }
    }
  }
}

Json WhereToJson(const std::vector<WhereModule>& modules, const WhereOptions& options,
                 SourceFiles& files) {
  Json doc = JsonDocument("where");
  Json q;
  q["text"] = options.spec ? Json(options.spec->text) : Json(nullptr);
  q["file"] = options.spec && !options.spec->file.empty() ? Json(options.spec->file) : Json(nullptr);
  q["first_line"] = options.spec && options.spec->first ? Json(options.spec->first) : Json(nullptr);
  q["last_line"] = options.spec && options.spec->last ? Json(options.spec->last) : Json(nullptr);
  q["function"] = options.spec && !options.spec->function.empty() ? Json(options.spec->function) : Json(nullptr);
  q["scope"] = options.scope.empty() ? Json(nullptr) : Json(options.scope);
  doc["query"] = std::move(q);
  doc["modules"] = Json::array();
  for (const WhereModule& w : modules) {
    const ModuleAnalysis& a = *w.analysis;
    Json jm;
    jm["name"] = std::string(a.module.name());
    jm["lines"] = Json::array();
    for (const LineFacts& f : w.lines) {
      Json jl;
      jl["file"] = f.file;
      jl["line"] = f.line;
      std::optional<std::string> text = files.Line(f.file, f.line);
      jl["text"] = text ? Json(*text) : Json(nullptr);
      jl["copy_bytes_per_call"] = Opt(f.copy_bytes_per_call);
      jl["copies"] = Json::array();
      for (const CopyFinding* c : f.copies) {
        Json j;
        j["instruction"] = c->instruction;
        j["shape"] = c->shape;
        j["bytes"] = Opt(c->bytes);
        j["executions"] = Opt(c->executions);
        j["total_bytes"] = Opt(c->total_bytes);
        j["cause"] = CopyCauseName(c->cause);
        j["cause_detail"] = c->cause_detail;
        jl["copies"].push_back(std::move(j));
      }
      jl["updates"] = Json::array();
      for (const UpdateFinding* u : f.updates) {
        Json j;
        j["instruction"] = u->instruction;
        j["fusion"] = Opt(u->fusion);
        j["verdict"] = UpdateVerdictName(u->verdict);
        j["copy"] = Opt(u->copy);
        j["reason"] = u->reason;
        j["bytes_written"] = Opt(u->bytes_written);
        j["executions"] = Opt(u->executions);
        jl["updates"].push_back(std::move(j));
      }
      jl["reads"] = Json::array();
      for (const LineRead& r : f.reads) {
        Json j;
        j["reader"] = std::string(r.reader->name());
        j["value"] = r.copy->copied_from;
        j["forces_copy"] = r.copy->instruction;
        jl["reads"].push_back(std::move(j));
      }
      jl["instructions"] = Json::array();
      for (const LineInstruction& li : f.instructions) {
        Json j;
        j["name"] = std::string(li.instruction->name());
        j["opcode"] = std::string(li.instruction->opcode_text());
        j["shape"] = li.instruction->shape().ToString();
        j["computation"] = std::string(li.instruction->parent()->name());
        bool fused = li.kernel && li.kernel->opcode() == HloOpcode::kFusion;
        j["fusion"] = fused ? Json(std::string(li.kernel->name())) : Json(nullptr);
        j["fusion_kind"] = fused ? Json(FusionKindName(*li.kernel)) : Json(nullptr);
        j["kernel"] = li.kernel ? Json(std::string(li.kernel->name())) : Json(nullptr);
        Json loops = Json::array();
        for (const HloInstruction* l : li.loops) loops.push_back(std::string(l->name()));
        j["enclosing_loops"] = std::move(loops);
        j["executions"] = Opt(li.executions);
        j["executions_upper_bound"] = li.executions_upper_bound;
        j["column"] = li.source.column ? Json(li.source.column) : Json(nullptr);
        j["function"] = li.source.function.empty() ? Json(nullptr) : Json(li.source.function);
        j["op_name"] = li.source.op_name.empty() ? Json(nullptr) : Json(li.source.op_name);
        j["via"] = li.source.via;
        Json ups = Json::array();
        for (const UpdateFinding* u : li.updates) ups.push_back(UpdateVerdictName(u->verdict));
        j["update_verdicts"] = std::move(ups);
        j["copy"] = li.copy ? Json(li.copy->instruction) : Json(nullptr);
        jl["instructions"].push_back(std::move(j));
      }
      jm["lines"].push_back(std::move(jl));
    }
    jm["nearby"] = w.nearby.empty() ? Json(nullptr) : Json(w.nearby);
    jm["note"] = w.note.empty() ? Json(nullptr) : Json(w.note);
    doc["modules"].push_back(std::move(jm));
  }
  return doc;
}

int64_t ReportWhere(const std::vector<const HloModule*>& modules, const WhereOptions& options,
                    OutputFormat format, std::ostream& out) {
  std::vector<std::unique_ptr<ModuleAnalysis>> analyses;
  std::vector<WhereModule> results;
  int64_t found = 0;
  for (const HloModule* m : modules) {
    analyses.push_back(std::make_unique<ModuleAnalysis>(*m));
    results.push_back(FindWhere(*analyses.back(), options));
    for (const LineFacts& f : results.back().lines) found += static_cast<int64_t>(f.instructions.size());
  }
  SourceFiles files(options.source_roots);
  if (format == OutputFormat::kJson) out << WhereToJson(results, options, files).dump(2) << "\n";
  else RenderWhereText(results, options, files, out);
  return found;
}

}  // namespace hloscope
