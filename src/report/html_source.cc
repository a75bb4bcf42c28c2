#include "html_source.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "hloscope/report/enum_names.h"
#include "hloscope/report/html_text.h"
#include "hloscope/report/render_annotate.h"
#include "hloscope/report/wording.h"
#include "hloscope/support/human_bytes.h"

namespace hloscope {
namespace {

bool HasFindings(const LineFacts& f) { return !f.copies.empty() || !f.reads.empty() || !f.updates.empty(); }

std::string MarkClass(std::string_view mark) {
  if (mark == "■") return "m-copy";
  if (mark == "▲") return "m-read";
  if (mark == "○") return "m-oop";
  if (mark == "●") return "m-inplace";
  return "";
}

// The findings of a line, each linked to its row in the tables.
std::string LineFindings(size_t mi, const ModuleCheck& check, const LineFacts& f) {
  std::vector<std::string> items;
  for (const CopyFinding* c : f.copies) {
    size_t ci = static_cast<size_t>(c - check.copies.data());
    items.push_back(fmt::format("<li><a href=\"#{}\">copy {}</a></li>", Anchor(mi, AnchorKind::kCopy, ci),
                                HtmlShown(LineCopyText(*c))));
  }
  for (const UpdateFinding* u : f.updates) {
    size_t ui = static_cast<size_t>(u - check.updates.data());
    items.push_back(fmt::format("<li><a href=\"#{}\">{} {}</a></li>", Anchor(mi, AnchorKind::kUpdate, ui),
                                HtmlEscape(UpdateVerdictName(u->verdict)), HtmlShown(UpdateLabel(u->site))));
  }
  std::set<const CopyFinding*> forced;
  for (const LineRead& r : f.reads) {
    if (!r.copy || !forced.insert(r.copy).second) continue;
    size_t ci = static_cast<size_t>(r.copy - check.copies.data());
    items.push_back(fmt::format(
        "<li>{} reads a value after its in-place update, which forces <a href=\"#{}\">{}</a></li>",
        HtmlShown(r.reader->name()), Anchor(mi, AnchorKind::kCopy, ci),
        HtmlShown(r.copy->instruction()->name())));
  }
  return fmt::format("<ul class=\"line-findings\">{}</ul>", fmt::join(items, ""));
}

}  // namespace

SourceAnchors::SourceAnchors(size_t mi, const std::vector<LineFacts>& lines) {
  for (const LineFacts& f : lines) {
    if (!HasFindings(f)) continue;
    auto [it, fresh] = file_index_.try_emplace(f.file, file_index_.size());
    anchors_[{f.file, f.line}] = SourceAnchor(mi, it->second, f.line);
  }
}

std::string SourceAnchors::Of(const std::optional<SourceLocation>& source) const {
  if (!source || !source->has_line()) return "";
  auto it = anchors_.find({source->file, source->line});
  return it == anchors_.end() ? "" : it->second;
}

void RenderSourceSection(size_t mi, const ModuleCheck& check, const std::vector<LineFacts>& lines,
                         const SourceAnchors& anchors, int context, SourceFiles& files, std::ostream& out) {
  // Facts come sorted by file, then line.
  size_t i = 0;
  bool any = false;
  while (i < lines.size()) {
    size_t j = i;
    std::vector<const LineFacts*> shown;
    for (; j < lines.size() && lines[j].file == lines[i].file; ++j)
      if (HasFindings(lines[j])) shown.push_back(&lines[j]);
    const std::string& file = lines[i].file;
    i = j;
    if (shown.empty()) continue;
    any = true;
    const std::vector<std::string>* text = files.Lines(file);
    out << fmt::format(
        "<h4 class=\"src-file\" title=\"{}\">{}{}</h4>\n", HtmlShown(file), HtmlShown(DisplayPath(file)),
        text ? "" : " <span class=\"muted\">(not found on this machine: lines from the metadata)</span>");
    out << "<table class=\"source\"><thead><tr><th>mark</th><th>copies / "
           "call</th><th>line</th><th>source</th>"
           "</tr></thead><tbody>\n";
    // The lines to print: each annotated line with `context` around it.
    std::vector<int64_t> numbers;
    int64_t last_line = text ? static_cast<int64_t>(text->size()) : 0;
    for (const LineFacts* f : shown) {
      if (!text) {
        numbers.push_back(f->line);
        continue;
      }
      for (int64_t n = std::max<int64_t>(1, f->line - context); n <= std::min(last_line, f->line + context);
           ++n)
        numbers.push_back(n);
    }
    std::sort(numbers.begin(), numbers.end());
    numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
    size_t k = 0;
    int64_t previous = 0;
    for (int64_t n : numbers) {
      if (previous && n > previous + 1)
        out << "<tr class=\"gap\"><td></td><td></td><td>⋮</td><td></td></tr>\n";
      previous = n;
      while (k < shown.size() && shown[k]->line < n) ++k;
      const LineFacts* f = k < shown.size() && shown[k]->line == n ? shown[k] : nullptr;
      std::string code = text && n >= 1 && n <= last_line ? HtmlEscape(ShownSourceLine((*text)[n - 1])) : "";
      if (!f) {
        out << fmt::format(
            "<tr class=\"ctx\"><td></td><td></td><td class=\"ln\">{}</td><td><code>{}</code></td></tr>\n", n,
            code);
        continue;
      }
      std::string_view mark = LineMark(*f);
      std::string bytes = f->copies.empty() ? "" : HumanBytes(f->copy_bytes_per_call);
      out << fmt::format(
          "<tr id=\"{}\" class=\"hit {}\"><td class=\"mark\">{}</td><td class=\"num\">{}</td><td "
          "class=\"ln\">{}</td><td><code>{}</code>{}</td></tr>\n",
          SourceAnchor(mi, anchors.FileIndex(file), n), MarkClass(mark), mark, HtmlEscape(bytes), n, code,
          LineFindings(mi, check, *f));
    }
    out << "</tbody></table>\n";
  }
  if (!any) {
    out << "<p class=\"muted\">No finding is attributed to a source line (the HLO carries no source "
           "metadata, or nothing was found).</p>\n";
    return;
  }
  // A module someone sends you names the files it wants read: the page says
  // which were allowed, so that one shared onward is known to hold no other.
  std::vector<std::string> roots;
  for (const std::string& r : files.roots()) roots.push_back("<code>" + HtmlShown(r) + "</code>");
  out << fmt::format(
      "<p class=\"muted\">Source lines are read only from regular files under {} (--source-root), never from "
      "hidden files or folders there (<code>.git</code>, <code>.env</code>) nor from outside them; a file "
      "not read is shown by the line numbers in the HLO's metadata.</p>\n",
      fmt::join(roots, ", "));
}

}  // namespace hloscope
