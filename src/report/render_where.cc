#include "hloscope/report/render_where.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "hloscope/report/enum_names.h"
#include "hloscope/report/wording.h"
#include "hloscope/support/human_bytes.h"

namespace hloscope {
namespace {

std::string QueryText(const WhereQuery& q) {
  std::vector<std::string> parts;
  if (q.spec) parts.push_back(Shown(q.spec->text));
  if (!q.scope.empty()) parts.push_back(fmt::format("scope '{}'", Shown(q.scope)));
  return fmt::format("{}", fmt::join(parts, " in "));
}

// The heading of a group of instructions: the kernel they run in, or the
// computation (with its loop) for top-level instructions.
std::string GroupHeading(const LineInstruction& li, const ModuleAnalysis& a) {
  const HloInstruction* instr = li.instruction;
  std::vector<const HloInstruction*> loops = a.counts.EnclosingLoops(instr->parent());
  std::string loop = loops.empty() ? "" : fmt::format(", inside {}", loops.front()->name());
  std::string times = "×" + ExecutionsText(li.executions, li.executions_upper_bound);
  if (li.kernel && li.kernel->opcode() == HloOpcode::kFusion) {
    // The kernel's lines, summarized for the kernels shown only: `where`
    // prints a handful of a module's tens of thousands of fusions.
    std::string lines = FileLinesText(SummarizeFusion(*li.kernel, a.sources(), a.counts, nullptr).lines);
    return fmt::format("in fusion {} ({}; lines {}) in {}{} {}", li.kernel->name(),
                       FusionKindText(*li.kernel), lines.empty() ? "?" : lines, li.kernel->parent()->name(),
                       loop, times);
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

void RenderLine(const LineFacts& f, const ModuleAnalysis& a, SourceFiles& files, std::ostream& out) {
  std::optional<std::string> text = files.Line(f.file, f.line);
  out << fmt::format("\n{}:{}{}\n", DisplayPath(f.file), f.line,
                     text ? "   " + std::string(*text) : std::string());
  for (const CopyFinding* c : f.copies) {
    out << fmt::format("  copy    {}\n", LineCopyText(*c));
    out << fmt::format("          {}\n", CauseDetail(*c));
  }
  for (const std::string& u : UpdateSummaryLines(f.updates)) out << fmt::format("  update  {}\n", u);
  for (const std::string& r : LineReadTexts(f)) out << fmt::format("  read    {}\n", r);
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
      for (const CopyFinding* c : li->copies)
        note += fmt::format("  ← copy, {} per call", HumanBytes(c->total_bytes));
      out << fmt::format("    {:<32} {:<22} {}{}\n", li->instruction->name(), li->instruction->opcode_text(),
                         li->instruction->shape().ToString(), note);
    }
  }
}

}  // namespace

void RenderWhereText(const std::vector<WhereModule>& modules, const WhereQuery& query, SourceFiles& files,
                     std::ostream& out) {
  for (size_t mi = 0; mi < modules.size(); ++mi) {
    const WhereModule& w = modules[mi];
    const ModuleAnalysis& a = *w.analysis;
    if (mi) out << "\n";
    int64_t n = 0;
    for (const LineFacts& f : w.result.lines) n += static_cast<int64_t>(f.instructions.size());
    size_t nl = w.result.lines.size();
    out << fmt::format("{}: {} instruction{} from {} source line{} match {}\n", a.module.name(), n,
                       n == 1 ? "" : "s", nl, nl == 1 ? "" : "s", QueryText(query));
    if (std::string note = WhereNoteText(w.result, query); !note.empty())
      out << fmt::format("  ({})\n", note);
    if (w.result.lines.empty()) {
      if (std::string nearby = WhereNearbyText(w.result, query); !nearby.empty())
        out << fmt::format("  nothing there; {}\n", nearby);
      continue;
    }
    for (const LineFacts& f : w.result.lines) RenderLine(f, a, files, out);
  }
}

Json WhereToJson(const std::vector<WhereModule>& modules, const WhereQuery& query, SourceFiles& files) {
  Json doc = JsonEnvelope("where");
  const std::optional<LineSpec>& spec = query.spec;
  Json q;
  q["text"] = spec ? Json(spec->text) : Json(nullptr);
  q["file"] = spec && !spec->file.empty() ? Json(spec->file) : Json(nullptr);
  q["first_line"] = spec && spec->first ? Json(spec->first) : Json(nullptr);
  q["last_line"] = spec && spec->last ? Json(spec->last) : Json(nullptr);
  q["function"] = spec && !spec->function.empty() ? Json(spec->function) : Json(nullptr);
  q["scope"] = query.scope.empty() ? Json(nullptr) : Json(query.scope);
  doc["query"] = std::move(q);
  doc["modules"] = Json::array();
  for (const WhereModule& w : modules) {
    const ModuleAnalysis& a = *w.analysis;
    Json jm = ModuleHeaderJson(a.module);
    jm["lines"] = Json::array();
    for (const LineFacts& f : w.result.lines) {
      Json jl;
      jl["file"] = f.file;
      jl["line"] = f.line;
      std::optional<std::string> text = files.Line(f.file, f.line);
      jl["text"] = text ? Json(*text) : Json(nullptr);
      jl["copy_bytes_per_call"] = Opt(f.copy_bytes_per_call);
      jl["copies"] = Json::array();
      for (const CopyFinding* c : f.copies) jl["copies"].push_back(CopyJson(*c));
      jl["updates"] = Json::array();
      for (const UpdateFinding* u : f.updates) jl["updates"].push_back(UpdateJson(*u));
      jl["reads"] = Json::array();
      for (const LineRead& r : f.reads)
        jl["reads"].push_back(LineReadJson(r, r.source ? r.source : a.sources().Of(*r.reader)));
      jl["instructions"] = Json::array();
      for (const LineInstruction& li : f.instructions) {
        Json j = RefJson(li.instruction);
        j["opcode"] = std::string(li.instruction->opcode_text());
        j["shape"] = li.instruction->shape().ToString();
        bool fused = li.kernel && li.kernel->opcode() == HloOpcode::kFusion;
        j["fusion"] = fused ? Json(std::string(li.kernel->name())) : Json(nullptr);
        j["fusion_kind"] = fused ? Json(std::string(FusionKindText(*li.kernel))) : Json(nullptr);
        j["kernel"] = RefJson(li.kernel);
        j["enclosing_loops"] = Json::array();
        for (const HloInstruction* l : a.counts.EnclosingLoops(li.instruction->parent()))
          j["enclosing_loops"].push_back(RefJson(l));
        j["executions"] = Opt(li.executions);
        j["executions_upper_bound"] = li.executions_upper_bound;
        j["source"] = SourceJson(a.sources().Of(*li.instruction));
        Json ups = Json::array();
        for (const UpdateFinding* u : li.updates) ups.push_back(std::string(UpdateVerdictName(u->verdict)));
        j["update_verdicts"] = std::move(ups);
        Json copies = Json::array();
        for (const CopyFinding* c : li.copies) copies.push_back(PositionJson(c->copy));
        j["copies"] = std::move(copies);
        jl["instructions"].push_back(std::move(j));
      }
      jm["lines"].push_back(std::move(jl));
    }
    std::string nearby = WhereNearbyText(w.result, query), note = WhereNoteText(w.result, query);
    jm["nearby"] = nearby.empty() ? Json(nullptr) : Json(nearby);
    jm["note"] = note.empty() ? Json(nullptr) : Json(note);
    doc["modules"].push_back(std::move(jm));
  }
  return doc;
}

}  // namespace hloscope
