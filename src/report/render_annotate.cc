#include "hloscope/report/render_annotate.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "hloscope/report/enum_names.h"
#include "hloscope/report/wording.h"
#include "hloscope/support/human_bytes.h"

namespace hloscope {
namespace {

constexpr int kTextWidth = 56;

std::string Kernels(const LineFacts& f) {
  std::vector<std::string> names;
  for (const HloInstruction* k : f.kernels) names.push_back(std::string(k->name()));
  if (names.empty()) return "";
  size_t shown = std::min<size_t>(names.size(), 2);
  std::vector<std::string> head(names.begin(), names.begin() + shown);
  return fmt::format("→ {}{}", fmt::join(head, ", "),
                     names.size() > shown ? fmt::format(" +{}", names.size() - shown) : "");
}

std::vector<std::string> Details(const LineFacts& f) {
  std::vector<std::string> out;
  if (f.copies.size() > 4) {
    for (const std::string& g : LineCopyGroups(f)) out.push_back("copy " + g);
  } else {
    for (const CopyFinding* c : f.copies) out.push_back("copy " + LineCopyText(*c));
  }
  for (const std::string& u : UpdateSummaryLines(f.updates)) out.push_back("update " + u);
  for (const std::string& r : LineReadTexts(f)) out.push_back(r);
  return out;
}

}  // namespace

std::string_view LineMark(const LineFacts& f) {
  if (!f.copies.empty()) return "■";
  if (!f.reads.empty()) return "▲";
  bool on_copy = false;
  for (const UpdateFinding* u : f.updates)
    on_copy |= u->verdict == UpdateVerdict::kInPlaceOnCopy || u->verdict == UpdateVerdict::kOutOfPlace ||
               u->full_rewrite;
  if (on_copy) return "○";
  if (!f.updates.empty()) return "●";
  if (f.instruction_count > 0) return "·";
  return " ";
}

void RenderAnnotateText(const ModuleAnalysis& a, const std::vector<LineFacts>& facts,
                        const AnnotateOptions& options, SourceFiles& files, std::ostream& out) {
  out << fmt::format("{}{}\n", a.module.name(),
                     options.scope.empty() ? "" : fmt::format(" — scope '{}'", Shown(options.scope)));
  out << "  ■ copy  ▲ read forcing a copy  ○ update on a copy / out of place  ● update in place  "
         "· compiled, no finding\n";
  if (facts.empty()) {
    out << "  no source lines\n";
    return;
  }
  // Facts per file, in order.
  std::vector<std::string> order;
  std::map<std::string, std::map<int64_t, const LineFacts*>> by_file;
  for (const LineFacts& f : facts) {
    if (!by_file.count(f.file)) order.push_back(f.file);
    by_file[f.file][f.line] = &f;
  }
  for (const std::string& file : order) {
    const std::map<int64_t, const LineFacts*>& lines = by_file[file];
    const std::vector<std::string>* text = files.Lines(file);
    out << "\n";
    if (!text)
      out << fmt::format("  {}  (source not found: {} — pass --source-root DIR)\n", Shown(Basename(file)),
                         Shown(file));
    else
      out << fmt::format("  {}  ({})\n", Shown(Basename(file)), Shown(file));
    out << fmt::format("  {:>5}     {:>10}\n", "line", "copy/call");

    // Which lines to print.
    std::vector<int64_t> shown;
    int64_t n = text ? static_cast<int64_t>(text->size()) : 0;
    if (text && options.whole_files) {
      for (int64_t l = 1; l <= n; ++l) shown.push_back(l);
    } else if (text) {
      std::set<int64_t> s;
      for (auto& [l, f] : lines)
        for (int64_t k = l - options.context; k <= l + options.context; ++k)
          if (k >= 1 && k <= n) s.insert(k);
      shown.assign(s.begin(), s.end());
    }
    // Lines beyond the file (or no file): listed from the metadata alone.
    for (auto& [l, f] : lines)
      if (l < 1 || l > n) shown.push_back(l);
    std::sort(shown.begin(), shown.end());
    shown.erase(std::unique(shown.begin(), shown.end()), shown.end());

    int64_t prev = -1;
    for (int64_t l : shown) {
      if (prev >= 0 && l != prev + 1) out << "      ⋮\n";
      prev = l;
      auto it = lines.find(l);
      const LineFacts* f = it == lines.end() ? nullptr : it->second;
      std::string src = text && l >= 1 && l <= n ? ShownSourceLine((*text)[l - 1]) : "";
      std::string mark = f ? std::string(LineMark(*f)) : " ";
      std::string bytes = f && !f->copies.empty() ? HumanBytes(f->copy_bytes_per_call) : "";
      std::string kernels = f ? Kernels(*f) : "";
      std::string line = fmt::format("  {:>5}  {}  {:>10}  {}", l, mark, bytes, src);
      if (!kernels.empty()) {
        size_t width = src.size();
        line += std::string(width < kTextWidth ? kTextWidth - width : 0, ' ') + "  " + kernels;
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out << line << "\n";
      if (f)
        for (const std::string& d : Details(*f)) out << fmt::format("  {:>5}     {:>10}  │ {}\n", "", "", d);
    }
  }
}

Json AnnotateModuleJson(const ModuleAnalysis& a, const std::vector<LineFacts>& facts, SourceFiles& files) {
  Json jm = ModuleHeaderJson(a.module);
  jm["files"] = Json::array();
  std::map<std::string, size_t> index;
  for (const LineFacts& f : facts) {
    auto it = index.find(f.file);
    if (it == index.end()) {
      Json jf;
      jf["file"] = f.file;
      jf["found"] = files.Locate(f.file).has_value();
      jf["lines"] = Json::array();
      jm["files"].push_back(std::move(jf));
      it = index.emplace(f.file, jm["files"].size() - 1).first;
    }
    Json jl;
    jl["line"] = f.line;
    std::optional<std::string> text = files.Line(f.file, f.line);
    jl["text"] = text ? Json(*text) : Json(nullptr);
    jl["mark"] = std::string(LineMark(f));
    jl["copy_bytes_per_call"] = Opt(f.copy_bytes_per_call);
    jl["copies"] = Json::array();
    for (const CopyFinding* c : f.copies) jl["copies"].push_back(CopyJson(*c));
    jl["updates"] = Json::array();
    for (const UpdateFinding* u : f.updates) jl["updates"].push_back(UpdateJson(*u));
    jl["reads"] = Json::array();
    for (const LineRead& r : f.reads)
      jl["reads"].push_back(LineReadJson(r, r.source ? r.source : a.sources().Of(*r.reader)));
    Json kernels = Json::array();
    for (const HloInstruction* k : f.kernels) kernels.push_back(RefJson(k));
    jl["kernels"] = std::move(kernels);
    jl["instruction_count"] = f.instruction_count;
    jm["files"][it->second]["lines"].push_back(std::move(jl));
  }
  return jm;
}

}  // namespace hloscope
