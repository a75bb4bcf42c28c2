#include "hloscope/report/render_html.h"

#include <fmt/format.h>

#include <cctype>
#include <map>
#include <set>

#include "hloscope/analysis/scope_filter.h"
#include "hloscope/analysis/source_origin.h"
#include "hloscope/report/answer_words.h"
#include "hloscope/report/collective_words.h"
#include "hloscope/report/donation_words.h"
#include "hloscope/report/enum_names.h"
#include "hloscope/report/growth_words.h"
#include "hloscope/report/html_text.h"
#include "hloscope/report/loop_graph.h"
#include "hloscope/report/memory_svg.h"
#include "hloscope/report/render_cost.h"
#include "hloscope/report/render_memory.h"
#include "hloscope/report/thunk_words.h"
#include "hloscope/report/wording.h"
#include "hloscope/support/graphviz.h"
#include "hloscope/support/human_bytes.h"
#include "hloscope/support/version.h"
#include "html_assets.h"
#include "html_source.h"

namespace hloscope {
namespace {

// Everything a table row of a module needs to link: the module's index,
// its source anchors, and its loops by instruction.
struct ModuleContext {
  size_t index = 0;
  const ModuleCheck& check;
  const SourceAnchors& anchors;

  std::string SourceCell(const std::optional<SourceLocation>& source) const {
    std::string text = SourceText(source);
    if (text.empty()) return "";
    std::string anchor = anchors.Of(source);
    // The tooltip: the whole path and the op_name (JAX's scope path).
    std::string title =
        source ? HtmlShown(source->file + (source->op_name.empty() ? "" : " — " + source->op_name)) : "";
    if (anchor.empty()) return fmt::format("<span title=\"{}\">{}</span>", title, HtmlShown(text));
    return fmt::format("<a href=\"#{}\" title=\"{}\">{}</a>", anchor, title, HtmlShown(text));
  }
  std::string LoopLink(const HloInstruction* loop) const {
    const LoopFinding* l = check.FindLoop(loop);
    if (!l) return HtmlShown(loop->name());
    return fmt::format("<a href=\"#{}\">{}</a>",
                       Anchor(index, AnchorKind::kLoop, static_cast<size_t>(l - check.loops.data())),
                       HtmlShown(loop->name()));
  }
  std::string CopyLink(const HloPosition& copy) const {
    const CopyFinding* c = check.FindCopy(copy);
    if (!c) return HtmlShown(PositionText(copy));
    return fmt::format("<a href=\"#{}\">{}</a>",
                       Anchor(index, AnchorKind::kCopy, static_cast<size_t>(c - check.copies.data())),
                       HtmlShown(PositionText(copy)));
  }
};

// A number cell: its value for sorting, its text for people.
std::string NumCell(std::optional<int64_t> v, std::string_view text) {
  return fmt::format("<td class=\"num\" data-v=\"{}\">{}</td>", v ? *v : -1, HtmlEscape(text));
}

std::string ScopeOf(const std::optional<SourceLocation>& source) {
  return source ? UserScopePath(source->op_name) : "";
}

// The facets JavaScript filters by, as data attributes (escaped: scopes
// come from the input).
std::string Facets(const std::string& scope, const std::string& loop, bool library) {
  return fmt::format(" data-scope=\"{}\" data-loop=\"{}\" data-origin=\"{}\"", HtmlShown(scope),
                     HtmlShown(loop), library ? "library" : "user");
}

std::string ConfirmationCell(const UpdateFinding& u) {
  if (!u.confirmation.confirmed)
    return fmt::format("<td class=\"muted\">{}</td>", u.confirmation.basis == Confirmation::Basis::kNoDump
                                                          ? "unconfirmed (no dump)"
                                                          : HtmlShown(ConfirmationText(u)));
  if (*u.confirmation.confirmed)
    return fmt::format("<td class=\"ok\">✓ {}</td>", HtmlShown(ConfirmationText(u)));
  return fmt::format("<td class=\"bad\">✗ contradicted: {}</td>", HtmlShown(ConfirmationText(u)));
}

bool IsSmall(const CopyFinding& c, const HtmlReportOptions& options) {
  return c.minor || (c.total_bytes && *c.total_bytes < options.small_copy_bytes);
}

void CopyRows(const ModuleContext& m, const std::vector<size_t>& rows, std::ostream& out) {
  out << "<table class=\"findings sortable\"><thead><tr><th>copy</th><th>shape</th><th>bytes</th><th>×</th>"
         "<th>per call</th><th>where</th><th>source</th><th>scope</th><th>cause</th></tr></thead><tbody>\n";
  for (size_t ci : rows) {
    const CopyFinding& c = m.check.copies[ci];
    SourceOrigin origin = OriginOf(c.source);
    std::string loop = c.enclosing_loops.empty() ? "" : std::string(c.enclosing_loops.front()->name());
    std::string where = c.enclosing_loops.empty() ? "entry" : "in " + m.LoopLink(c.enclosing_loops.front());
    if (c.unknown_trip_loop)
      where += fmt::format("<br><span class=\"muted\">{} per iteration of {} (trip count unknown)</span>",
                           HtmlEscape(HumanBytes(c.bytes_per_unknown_trip_iteration)),
                           HtmlShown(c.unknown_trip_loop->name()));
    std::string hint = CauseHint(c);
    out << fmt::format(
        "<tr id=\"{}\"{}><td>{}</td><td>{}</td>{}{}{}<td>{}</td><td>{}</td><td>{}</td><td><span "
        "class=\"cause\">{}</span> — {}{}{}</td></tr>\n",
        Anchor(m.index, AnchorKind::kCopy, ci), Facets(ScopeOf(c.source), loop, origin.library),
        HtmlShown(c.instruction()->name()), HtmlShown(c.shape->ToString()),
        NumCell(c.bytes, HumanBytes(c.bytes)),
        NumCell(c.executions, ExecutionsText(c.executions, c.executions_upper_bound)),
        NumCell(c.total_bytes ? c.total_bytes : c.bytes_per_unknown_trip_iteration,
                HumanBytes(c.total_bytes)),
        where, m.SourceCell(c.source), HtmlShown(ScopeOf(c.source)), HtmlEscape(CopyCauseName(c.cause.cause)),
        HtmlShown(CauseDetail(c)), hint.empty() ? "" : "<br><b>hint:</b> " + HtmlShown(hint),
        origin.library ? "<br><span class=\"muted\">made inside " + HtmlShown(origin.library_part) + "</span>"
                       : "");
  }
  out << "</tbody></table>\n";
}

void CopiesSection(const ModuleContext& m, const HtmlReportOptions& options, std::ostream& out) {
  std::vector<size_t> main, small, library;
  std::set<std::string> parts;
  int64_t small_bytes = 0;
  for (size_t ci = 0; ci < m.check.copies.size(); ++ci) {
    const CopyFinding& c = m.check.copies[ci];
    SourceOrigin origin = OriginOf(c.source);
    if (IsSmall(c, options)) {
      small.push_back(ci);
      small_bytes += c.total_bytes.value_or(0);
    } else if (origin.library) {
      library.push_back(ci);
      parts.insert(origin.library_part);
    } else {
      main.push_back(ci);
    }
  }
  out << fmt::format(
      "<section class=\"copies\"><h3>Copies <span class=\"muted\">({} in all; by bytes moved per "
      "call)</span></h3>\n",
      m.check.copies.size());
  if (main.empty())
    out << "<p>No array copy in your code.</p>\n";
  else
    CopyRows(m, main, out);
  if (!library.empty()) {
    std::vector<std::string> names;
    for (const std::string& p : parts) names.push_back(HtmlShown(p));
    out << fmt::format(
        "<details class=\"library\"><summary>{} cop{} made inside library code ({})</summary>\n",
        library.size(), library.size() == 1 ? "y" : "ies", fmt::join(names, ", "));
    CopyRows(m, library, out);
    out << "</details>\n";
  }
  if (!small.empty()) {
    out << fmt::format(
        "<details class=\"small\"><summary>{} scalar or small cop{} (under {} per call; {} together: loop "
        "counters, loop-start constants)</summary>\n",
        small.size(), small.size() == 1 ? "y" : "ies", HtmlEscape(HumanBytes(options.small_copy_bytes)),
        HtmlEscape(HumanBytes(small_bytes)));
    CopyRows(m, small, out);
    out << "</details>\n";
  }
  out << "</section>\n";
}

void UpdatesSection(const ModuleContext& m, std::ostream& out) {
  if (m.check.updates.empty()) return;
  out << "<section class=\"updates\"><h3>Updates</h3>\n<table class=\"findings "
         "sortable\"><thead><tr><th>verdict</th>"
         "<th>update</th><th>bytes written</th><th>×</th><th>source</th><th>why</th><th>buffer "
         "assignment</th></tr>"
         "</thead><tbody>\n";
  for (size_t ui = 0; ui < m.check.updates.size(); ++ui) {
    const UpdateFinding& u = m.check.updates[ui];
    bool ok = u.verdict == UpdateVerdict::kInPlace && !u.full_rewrite;
    std::string loop;
    std::string verdict = fmt::format("<span class=\"{}\">{}</span>", ok ? "ok" : "bad",
                                      HtmlEscape(UpdateVerdictName(u.verdict)));
    if (u.full_rewrite) verdict += " <span class=\"bad\">full rewrite</span>";
    if (u.runs_on) verdict += " on " + m.CopyLink(*u.runs_on);
    out << fmt::format("<tr id=\"{}\"{}><td>{}</td><td>{}</td>{}{}<td>{}</td><td>{}</td>{}</tr>\n",
                       Anchor(m.index, AnchorKind::kUpdate, ui),
                       Facets(ScopeOf(u.source), loop, OriginOf(u.source).library), verdict,
                       HtmlShown(UpdateLabel(u.site)), NumCell(u.bytes_written, HumanBytes(u.bytes_written)),
                       NumCell(u.executions, ExecutionsText(u.executions, u.executions_upper_bound)),
                       m.SourceCell(u.source), HtmlShown(UpdateReason(u)), ConfirmationCell(u));
  }
  out << "</tbody></table></section>\n";
}

void LoopsSection(const ModuleContext& m, std::ostream& out) {
  if (m.check.loops.empty()) return;
  out << "<section class=\"loops-table\"><h3>Loops</h3>\n<table class=\"findings "
         "sortable\"><thead><tr><th>loop</th>"
         "<th>iterations</th><th>× per call</th><th>copied / iteration</th><th>rewritten / iteration</th>"
         "<th>source</th><th>what it moves every iteration</th></tr></thead><tbody>\n";
  for (size_t li = 0; li < m.check.loops.size(); ++li) {
    const LoopFinding& l = m.check.loops[li];
    std::string trips = l.trip_count
                            ? fmt::format("{} ({})", *l.trip_count, TripCountSourceName(l.trip_count_source))
                            : "unknown";
    std::vector<std::string> scaling;
    for (const LoopScaling& s : l.scaling)
      scaling.push_back(fmt::format("<li{}>{}</li>", s.grows_with_buffer ? " class=\"bad\"" : "",
                                    HtmlShown(ScalingText(s, l))));
    std::string inner = l.enclosing_loops.empty() ? "" : std::string(l.enclosing_loops.front()->name());
    out << fmt::format(
        "<tr id=\"{}\"{}><td>{}{}</td>{}{}{}{}<td>{}</td><td>{}<ul>{}</ul></td></tr>\n",
        Anchor(m.index, AnchorKind::kLoop, li), Facets(ScopeOf(l.source), inner, OriginOf(l.source).library),
        HtmlShown(l.loop->name()),
        inner.empty() ? ""
                      : "<br><span class=\"muted\">in " + m.LoopLink(l.enclosing_loops.front()) + "</span>",
        NumCell(l.trip_count, trips), NumCell(l.executions, ExecutionsText(l.executions, false)),
        NumCell(l.copy_bytes_per_iteration, HumanBytes(l.copy_bytes_per_iteration)),
        NumCell(l.rewrite_bytes_per_iteration, HumanBytes(l.rewrite_bytes_per_iteration)),
        m.SourceCell(l.source),
        l.scales_with_buffer ? "<span class=\"bad\"><b>grows with buffer size</b></span>" : "",
        fmt::join(scaling, ""));
  }
  out << "</tbody></table></section>\n";
}

// Sharded modules: every collective, bytes per device (docs/sharding.md).
void CollectivesSection(const ModuleContext& m, std::ostream& out) {
  if (m.check.collectives.empty()) return;
  out << fmt::format(
      "<section class=\"collectives\"><h3>Collectives <span class=\"muted\">({} in all; {}; bytes per "
      "device, by bytes per call)</span></h3>\n<table class=\"findings "
      "sortable\"><thead><tr><th>collective</th>"
      "<th>family</th><th>shape</th><th>bytes</th><th>×</th><th>per call</th><th>where</th><th>source</th>"
      "<th>cause</th></tr></thead><tbody>\n",
      m.check.collectives.size(), HtmlShown(SpmdText(m.check.spmd)));
  for (const CollectiveFinding& c : m.check.collectives) {
    std::string loop = c.enclosing_loops.empty() ? "" : std::string(c.enclosing_loops.front()->name());
    std::string hint = CollectiveCauseHint(c);
    out << fmt::format(
        "<tr{}><td>{}</td><td>{}</td><td>{}<br><span class=\"muted\">over {}</span></td>{}{}{}<td>{}</td>"
        "<td>{}</td><td><span class=\"{}\">{}</span> — {}{}</td></tr>\n",
        Facets(ScopeOf(c.source), loop, OriginOf(c.source).library), HtmlShown(c.instruction->name()),
        HtmlEscape(CollectiveFamilyName(c.family)), HtmlShown(c.shape ? c.shape->ToString() : "?"),
        HtmlShown(CollectiveGroupText(c)), NumCell(c.bytes, HumanBytes(c.bytes)),
        NumCell(c.executions, ExecutionsText(c.executions, c.executions_upper_bound)),
        NumCell(c.total_bytes, HumanBytes(c.total_bytes)), loop.empty() ? "entry" : "in " + HtmlShown(loop),
        m.SourceCell(c.source), c.grows_with_buffer ? "bad" : "cause",
        HtmlEscape(CollectiveCauseName(c.cause.cause)), HtmlShown(CollectiveCauseDetail(c)),
        hint.empty() ? "" : "<br><b>hint:</b> " + HtmlShown(hint));
  }
  out << "</tbody></table></section>\n";
}

void ParametersSection(const ModuleContext& m, std::ostream& out) {
  if (m.check.parameters.empty()) return;
  out << "<section class=\"parameters\"><h3>Parameters</h3>\n<table class=\"findings "
         "sortable\"><thead><tr><th>#</th>"
         "<th>name</th><th>shape</th><th>bytes</th><th>donated</th><th>copied</th></tr></thead><tbody>\n";
  for (size_t pi = 0; pi < m.check.parameters.size(); ++pi) {
    const ParameterFinding& p = m.check.parameters[pi];
    std::vector<std::string> copies;
    for (const HloPosition& c : p.copies) copies.push_back(m.CopyLink(c));
    out << fmt::format(
        "<tr id=\"{}\"><td class=\"num\" data-v=\"{}\">{}</td><td>{}</td><td>{}</td>{}<td>{}</td>"
        "<td>{}</td></tr>\n",
        Anchor(m.index, AnchorKind::kParameter, pi), p.number, p.number,
        fmt::format("<span title=\"{}\">{}</span>", HtmlShown(p.parameter->name()),
                    HtmlShown(ArgumentName(p.parameter))),
        HtmlShown(p.parameter->shape().ToString()), NumCell(p.bytes, HumanBytes(p.bytes)),
        p.request && p.request->dropped
            ? fmt::format("<span class=\"bad\" title=\"{}\">dropped</span>",
                          HtmlShown(DroppedDonationReason(m.check, p) + ". Fix: " + DroppedDonationFix(p)))
        : p.donated()
            ? fmt::format("<span class=\"ok\" title=\"{}\">donated</span>", HtmlShown(AliasedOutputsText(p)))
            : "not donated",
        p.copied() ? "<span class=\"bad\">copied</span> " + fmt::format("{}", fmt::join(copies, ", ")) +
                         (p.donation_saves ? " — " + HtmlShown(DonationSavesText(m.check, p)) : "")
                   : "not copied");
  }
  out << "</tbody></table></section>\n";
}

// Memory: the peak and its parts, and the temporaries across the schedule.
void MemorySection(const ModuleContext& m, std::ostream& out) {
  if (!m.check.memory) return;
  const MemoryUsage& u = *m.check.memory;
  out << "<section class=\"memory\"><h3>Memory <span class=\"muted\">(per device, by XLA's buffer "
         "assignment)</span></h3>\n";
  // The summary's lines, each made inert on its own (a line break is no control character here).
  std::string summary = MemorySummaryLine(m.check), html;
  for (size_t start = 0; start <= summary.size();) {
    size_t end = std::min(summary.find('\n', start), summary.size());
    html += (html.empty() ? "" : "<br>") + HtmlShown(summary.substr(start, end - start));
    start = end + 1;
  }
  out << fmt::format("<p>{}</p>\n", html);
  if (u.temp_peak) {
    MemorySvgOptions svg;
    svg.anchor_of = [&](const std::optional<SourceLocation>& s) { return m.anchors.Of(s); };
    std::string picture = MemoryTimelineSvg(*u.temp_peak, svg);
    if (!picture.empty())
      out << "<p class=\"muted\">Temporaries live across the schedule; the red line is their fullest moment, "
             "the bands the largest values live there (click one for its line).</p>\n<div class=\"svg\">"
          << picture << "</div>\n";
  }
  out << "</section>\n";
}

// Where a call's time goes by the roofline estimate: the totals and the
// kernels that take the most (`hloscope cost` has lines and loops).
void CostSection(const ModuleContext& m, std::ostream& out) {
  const CostSummary& cost = m.check.cost;
  if (cost.kernels == 0) return;
  std::vector<std::string> lines = CostSummaryLines(cost, 0);
  out << fmt::format(
      "<section class=\"cost\"><h3>Cost per call <span class=\"muted\">(times are "
      "{})</span></h3>\n<p>{}</p>\n",
      HtmlShown(CostEstimateNote(cost)), HtmlShown(lines.front()));
  if (cost.top_kernels.empty()) {
    out << "</section>\n";
    return;
  }
  out << "<table class=\"findings sortable\"><thead><tr><th>kernel</th><th>kind</th><th>runs per call</th>"
         "<th>FLOPs per call</th><th>bytes per call</th><th>estimated time</th></tr></thead><tbody>\n";
  for (const CostSummary::Item& k : cost.top_kernels) {
    out << fmt::format(
        "<tr><td>{}{}</td><td>{}</td>{}{}{}{}</tr>\n", HtmlShown(k.instruction->name()),
        k.loop ? "<br><span class=\"muted\">in " + m.LoopLink(k.loop) + "</span>" : "",
        HtmlShown(KernelKindText(*k.instruction)),
        NumCell(k.executions, ExecutionsText(k.executions, k.executions_upper_bound)),
        NumCell(SatAdd(k.per_call.flops, k.per_call.transcendentals),
                HumanFlops(SatAdd(k.per_call.flops, k.per_call.transcendentals))),
        NumCell(k.per_call.bytes_accessed, HumanBytes(k.per_call.bytes_accessed)),
        NumCell(static_cast<int64_t>(k.estimated_seconds * 1e9), HumanSeconds(k.estimated_seconds)));
  }
  out << "</tbody></table></section>\n";
}

// The answer: what a user should look at first, each item linked.
void AnswerSection(const ModuleContext& m, const HtmlReportOptions& options, std::ostream& out) {
  const ModuleCheck& check = m.check;
  // The ranked answer across kinds leads (answer_words.h); the copy summary follows it.
  std::vector<std::string> answer = AnswerLines(check);
  out << fmt::format("<p class=\"headline\">{}</p>\n", HtmlShown(answer.front()));
  for (size_t i = 1; i < answer.size(); ++i)
    out << fmt::format("<p class=\"muted\">{}</p>\n", HtmlShown(answer[i]));
  std::vector<std::string> items;
  // Identical copies (a read-after-update copies the buffer twice: copy.7
  // and copy) are one item with a count, as in the text report.
  struct Group {
    size_t first;
    size_t count = 0;
    std::optional<int64_t> total = 0;
  };
  std::vector<Group> groups;
  std::map<std::string, size_t> group_of;
  for (size_t ci = 0; ci < check.copies.size(); ++ci) {
    const CopyFinding& c = check.copies[ci];
    if (IsSmall(c, options) || OriginOf(c.source).library) continue;
    std::string key = fmt::format("{}\n{}\n{}\n{}\n{}", CauseDetail(c),
                                  c.enclosing_loops.empty() ? "" : c.enclosing_loops.front()->name(),
                                  SourceText(c.source), c.shape->ToString(), c.bytes.value_or(-1));
    auto [it, fresh] = group_of.try_emplace(key, groups.size());
    if (fresh) {
      if (groups.size() == 5) break;
      groups.push_back({ci});
    }
    Group& g = groups[it->second];
    ++g.count;
    g.total = g.total && check.copies[ci].total_bytes
                  ? std::optional<int64_t>(*g.total + *check.copies[ci].total_bytes)
                  : std::nullopt;
  }
  for (const Group& g : groups) {
    const CopyFinding& c = check.copies[g.first];
    std::string src = m.SourceCell(c.source);
    std::string hint = CauseHint(c);
    std::string count = g.count == 1 ? ""
                                     : fmt::format(" <b>and {} more like it</b> ({} per call together)",
                                                   g.count - 1, HtmlEscape(HumanBytes(g.total)));
    items.push_back(fmt::format("<li class=\"copy\"><a href=\"#{}\">{}</a>{}{} — {}{}</li>",
                                Anchor(m.index, AnchorKind::kCopy, g.first), HtmlShown(CopySummaryLine(c)),
                                count, src.empty() ? "" : " at " + src, HtmlShown(CauseDetail(c)),
                                hint.empty() ? "" : "<br><b>fix:</b> " + HtmlShown(hint)));
  }
  size_t updates = 0;
  for (size_t ui = 0; ui < check.updates.size() && updates < 3; ++ui) {
    const UpdateFinding& u = check.updates[ui];
    if (u.verdict != UpdateVerdict::kOutOfPlace && !u.full_rewrite) continue;
    ++updates;
    std::string src = m.SourceCell(u.source);
    items.push_back(fmt::format("<li class=\"update\"><a href=\"#{}\">{} {}</a>{} — {}</li>",
                                Anchor(m.index, AnchorKind::kUpdate, ui),
                                HtmlEscape(UpdateVerdictName(u.verdict)), HtmlShown(UpdateLabel(u.site)),
                                src.empty() ? "" : " at " + src, HtmlShown(UpdateReason(u))));
  }
  size_t loops = 0;
  for (size_t li = 0; li < check.loops.size() && loops < 3; ++li) {
    const LoopFinding& l = check.loops[li];
    if (!l.scales_with_buffer) continue;
    ++loops;
    std::string src = m.SourceCell(l.source);
    items.push_back(fmt::format("<li class=\"loop\"><a href=\"#{}\">{}</a>{} grows with buffer size: {}</li>",
                                Anchor(m.index, AnchorKind::kLoop, li), HtmlShown(l.loop->name()),
                                src.empty() ? "" : " at " + src, HtmlShown(LoopGrowthText(l))));
  }
  if (items.empty())
    out << "<p class=\"ok\">Nothing to fix: no array copy in your code, every update in place, no loop that "
           "grows "
           "with a buffer.</p>\n";
  else
    out << fmt::format("<ol class=\"answer\">{}</ol>\n", fmt::join(items, "\n"));
  if (check.buffer_assignment_applied) {
    ConfirmationCounts n = CountConfirmations(check);
    out << fmt::format(
        "<p class=\"ba\">Checked against XLA's buffer assignment (<code>{}</code>): <span class=\"ok\">{} "
        "confirmed</span>, <span class=\"{}\">{} contradicted</span>, {} not checkable.</p>\n",
        HtmlShown(check.buffer_assignment_path), n.confirmed, n.contradicted ? "bad" : "ok", n.contradicted,
        n.not_checkable);
  } else if (check.buffer_assignment_mismatch) {
    out << fmt::format(
        "<p class=\"ba bad\">The buffer assignment <code>{}</code> was not applied: it describes another "
        "module ({}); verdicts unconfirmed.</p>\n",
        HtmlShown(check.buffer_assignment_path), HtmlShown(*check.buffer_assignment_mismatch));
  } else if (!check.buffer_assignment_path.empty()) {
    out << fmt::format(
        "<p class=\"ba muted\">The buffer assignment <code>{}</code> was not applied: it describes one "
        "module and "
        "the input holds several; verdicts unconfirmed (report the modules one file each).</p>\n",
        HtmlShown(check.buffer_assignment_path));
  } else {
    out << "<p class=\"ba muted\">No buffer assignment: verdicts follow XLA's aliasing rules, unconfirmed "
           "(pass "
           "<code>--buffer-assignment</code>, or check a dump folder's file).</p>\n";
  }
  // ThunkCheckLine's names and path are Shown(); HTML needs them escaped too.
  if (check.thunks) {
    std::string line = ThunkCheckLine(*check.thunks);
    line[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(line[0])));
    out << fmt::format("<p class=\"ba\">{}.</p>\n", HtmlEscape(line));
  }
}

void PictureSection(const ModuleContext& m, const HtmlReportOptions& options, std::ostream& out) {
  if (m.check.loops.empty() || !options.picture) return;
  out << fmt::format("<{} class=\"picture\"{}>", options.compact ? "details" : "section",
                     options.compact ? "" : fmt::format(" id=\"m{}-picture\"", m.index));
  out << (options.compact ? "<summary>Loop picture</summary>\n" : "<h3>Loops as they run</h3>\n");
  LoopGraphOptions graph;
  graph.module_index = m.index;
  SvgResult svg = RenderDotToSvg(LoopGraphDot(m.check, graph));
  if (svg.ok())
    out << "<div class=\"svg\">" << svg.svg << "</div>\n";
  else
    out << fmt::format("<p class=\"bad\">No loop picture: {}.</p>\n", HtmlEscape(svg.error));
  out << fmt::format("</{}>\n", options.compact ? "details" : "section");
}

}  // namespace

void RenderHtmlReport(const std::vector<HtmlModule>& modules, const HtmlReportOptions& options,
                      SourceFiles& files, std::ostream& out) {
  std::string title = options.title.empty() ? "hloscope report" : "hloscope report — " + options.title;
  if (!options.compact)
    out << fmt::format(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<meta name=\"viewport\" "
        "content=\"width=device-width, initial-scale=1\">\n<meta http-equiv=\"Content-Security-Policy\" "
        "content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src "
        "data:\">\n"
        "<title>{}</title>\n",
        HtmlShown(title));
  out << "<style>" << kHtmlReportCss << "</style>\n";
  if (!options.compact) out << "</head><body>\n";
  out << "<div class=\"hloscope-report\">\n";
  if (!options.compact)
    out << fmt::format("<h1>{}</h1>\n<p class=\"muted\">hloscope {}{}</p>\n", HtmlShown(title),
                       kHloscopeVersion,
                       options.scope.empty() ? "" : " — scope <code>" + HtmlShown(options.scope) + "</code>");
  for (size_t mi = 0; mi < modules.size(); ++mi) {
    const ModuleCheck& check = *modules[mi].check;
    SourceAnchors anchors(mi, modules[mi].lines);
    ModuleContext m{mi, check, anchors};
    out << fmt::format("<section class=\"module\" id=\"m{}\"><h2>{}</h2>\n", mi,
                       HtmlShown(check.module->name()));
    AnswerSection(m, options, out);
    PictureSection(m, options, out);
    out << fmt::format("<{} class=\"annotated\"><{}>Your source</{}>\n",
                       options.compact ? "details" : "section", options.compact ? "summary" : "h3",
                       options.compact ? "summary" : "h3");
    RenderSourceSection(mi, check, modules[mi].lines, anchors, options.context, files, out);
    out << fmt::format("</{}>\n", options.compact ? "details" : "section");
    CopiesSection(m, options, out);
    CollectivesSection(m, out);
    UpdatesSection(m, out);
    LoopsSection(m, out);
    ParametersSection(m, out);
    CostSection(m, out);
    MemorySection(m, out);
    out << "</section>\n";
  }
  out << "</div>\n<script>" << kHtmlReportScript << "</script>\n";
  if (!options.compact) out << "</body></html>\n";
}

}  // namespace hloscope
