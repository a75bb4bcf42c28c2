#include "hloscope/report/loop_graph.h"

#include <fmt/format.h>

#include <map>
#include <vector>

#include "hloscope/ir/computation.h"
#include "hloscope/report/enum_names.h"
#include "hloscope/report/html_text.h"
#include "hloscope/report/wording.h"
#include "hloscope/support/human_bytes.h"

namespace hloscope {
namespace {

constexpr std::string_view kCopiedColor = "#ffd6d6";
constexpr std::string_view kRewrittenColor = "#ffe7c2";
constexpr std::string_view kHeaderColor = "#e8eef7";

// What happens to one carry each iteration.
struct CarryMarks {
  std::vector<std::pair<const CopyFinding*, size_t>> copies;  // with their index in check.copies
  std::vector<const LoopScaling*> rewrites;
  std::vector<const LoopScaling*> whole_reads;  // kernels reading it whole every iteration
  bool grows = false;
};

// The loop whose carry a copy in its body makes or protects: the loop
// state it starts (kLoopState feed) or the carry its cause names.
std::optional<int64_t> CarryOf(const CopyFinding& c, const HloInstruction* loop) {
  for (const CopyFeed& f : c.feeds)
    if (f.kind == CopyFeed::Kind::kLoopState && f.loop == loop && !f.carry.empty()) return f.carry[0];
  if (const CarryFacts* f = c.cause.As<CarryFacts>();
      f && !c.enclosing_loops.empty() && c.enclosing_loops.front() == loop)
    return f->carry;
  // A copy of the carry's value as the iteration receives it (a
  // read-after-update copy of the buffer the body updates).
  const HloPosition& from = c.copied_from;
  if (from.instruction && from.instruction->opcode() == HloOpcode::kParameter && !from.index.empty() &&
      from.instruction->parent() == loop->while_body())
    return from.index[0];
  return std::nullopt;
}

// What carry `i` starts as: the loop's init operand element, named as the
// user knows it, with the value behind a copy.
std::string StartsAs(const HloInstruction* loop, int64_t i) {
  if (loop->operand_count() == 0) return "";
  const HloInstruction* init = loop->operand(0);
  HloPosition pos{init, {i}};
  if (init->opcode() == HloOpcode::kTuple && i < init->operand_count()) pos = {init->operand(i), {}};
  const HloInstruction* v = pos.instruction;
  if (pos.index.empty() && v->opcode() == HloOpcode::kCopy && v->operand_count() == 1)
    return fmt::format("{} of {}", v->name(), ValueText({v->operand(0), {}}));
  if (pos.index.empty() && v->opcode() == HloOpcode::kConstant) return fmt::format("constant {}", v->name());
  return ValueText(pos);
}

std::string Td(std::string_view body, std::string_view extra = "") {
  return fmt::format("<td align=\"left\"{}{}>{}</td>", extra.empty() ? "" : " ", extra, body);
}

std::string LoopNode(const ModuleCheck& check, size_t li, const LoopGraphOptions& options) {
  const LoopFinding& l = check.loops[li];
  const HloInstruction* loop = l.loop;
  std::map<int64_t, CarryMarks> marks;
  std::vector<std::pair<const CopyFinding*, size_t>> body_copies;
  for (size_t ci = 0; ci < check.copies.size(); ++ci) {
    const CopyFinding& c = check.copies[ci];
    if (c.minor || c.enclosing_loops.empty() || c.enclosing_loops.front() != loop) continue;
    if (std::optional<int64_t> carry = CarryOf(c, loop))
      marks[*carry].copies.push_back({&c, ci});
    else
      body_copies.push_back({&c, ci});
  }
  for (const LoopScaling& s : l.scaling) {
    if (s.kind == LoopScaling::Kind::kCarryRewritten) marks[s.carry].rewrites.push_back(&s);
    if (s.kind == LoopScaling::Kind::kWholeRead) marks[s.carry].whole_reads.push_back(&s);
    // A carry rewritten in full, or read whole by a kernel, every iteration.
    if (s.grows_with_buffer &&
        (s.kind == LoopScaling::Kind::kCarryRewritten || s.kind == LoopScaling::Kind::kWholeRead))
      marks[s.carry].grows = true;
    if (s.grows_with_buffer && s.kind == LoopScaling::Kind::kCopy)
      for (auto& [carry, m] : marks)
        for (auto& [c, ci] : m.copies)
          if (c->copy == s.copy) m.grows = true;
  }

  std::string href = "#" + Anchor(options.module_index, AnchorKind::kLoop, li);
  std::string trips = l.trip_count ? fmt::format("{} iterations ({})", *l.trip_count,
                                                 TripCountSourceName(l.trip_count_source))
                                   : "trip count unknown";
  std::string rows;
  rows += fmt::format(
      "<tr><td colspan=\"4\" align=\"left\" bgcolor=\"{}\" href=\"{}\" "
      "tooltip=\"{}\"><b>{}</b>&#160;&#160;{}&#160;·&#160;"
      "{}× per call{}</td></tr>",
      kHeaderColor, href, HtmlShown(loop->name()), HtmlShown(loop->name()), HtmlEscape(trips),
      HtmlEscape(ExecutionsText(l.executions, false)),
      l.source ? "&#160;·&#160;" + HtmlShown(SourceText(l.source)) : "");
  rows +=
      fmt::format("<tr><td colspan=\"4\" align=\"left\">per iteration: {} copied, {} rewritten</td></tr>{}",
                  HtmlEscape(HumanBytes(l.copy_bytes_per_iteration)),
                  HtmlEscape(HumanBytes(l.rewrite_bytes_per_iteration)),
                  l.scales_with_buffer ? "<tr><td colspan=\"4\" align=\"left\"><font "
                                         "color=\"#b00020\"><b>grows with buffer size</b></font></td></tr>"
                                       : "");

  const Shape& shape = loop->shape();
  int64_t n = shape.IsTuple() ? static_cast<int64_t>(shape.tuple_shapes.size()) : 0;
  if (n > 0)
    rows +=
        "<tr><td><i>carry</i></td><td><i>shape</i></td><td><i>starts as</i></td><td><i>every "
        "iteration</i></td></tr>";
  size_t shown = 0;
  int64_t hidden = 0;
  for (int64_t i = 0; i < n; ++i) {
    auto it = marks.find(i);
    bool marked = it != marks.end();
    if (!marked && shown >= options.max_carries) {
      ++hidden;
      continue;
    }
    ++shown;
    std::string what, color;
    if (marked) {
      std::vector<std::string> parts;
      for (auto& [c, ci] : it->second.copies)
        parts.push_back(fmt::format("copied by {} ({})", HtmlShown(c->instruction()->name()),
                                    HtmlEscape(HumanBytes(c->bytes))));
      for (const LoopScaling* s : it->second.rewrites)
        parts.push_back(fmt::format("rewritten in full by {} ({})", HtmlShown(PositionText(s->rewritten_by)),
                                    HtmlEscape(HumanBytes(s->bytes))));
      for (const LoopScaling* s : it->second.whole_reads)
        parts.push_back(fmt::format("{} by {} ({})", s->slice ? "every row read" : "read whole",
                                    HtmlShown(s->kernel->name()), HtmlEscape(HumanBytes(s->bytes))));
      if (it->second.grows) parts.push_back("<font color=\"#b00020\"><b>grows with the buffer</b></font>");
      what = fmt::format("{}", fmt::join(parts, "<br/>"));
      color = !it->second.copies.empty() ? fmt::format("bgcolor=\"{}\"", kCopiedColor)
                                         : fmt::format("bgcolor=\"{}\"", kRewrittenColor);
      if (!it->second.copies.empty())
        color += fmt::format(" href=\"#{}\"", Anchor(options.module_index, AnchorKind::kCopy,
                                                     it->second.copies.front().second));
    }
    rows += fmt::format("<tr>{}{}{}{}</tr>", Td(fmt::format("{}", i), color),
                        Td(HtmlShown(shape.tuple_shapes[i]->ToString(/*print_layout=*/false))),
                        Td(HtmlShown(StartsAs(loop, i))), Td(what, color));
  }
  if (hidden > 0)
    rows += fmt::format(
        "<tr><td colspan=\"4\" align=\"left\">+ {} more carr{}, nothing copied or rewritten</td></tr>",
        hidden, hidden == 1 ? "y" : "ies");
  for (auto& [c, ci] : body_copies)
    rows += fmt::format(
        "<tr><td colspan=\"4\" align=\"left\" bgcolor=\"{}\" href=\"#{}\">copy in the body: {} {} ({} per "
        "iteration)</td></tr>",
        kCopiedColor, Anchor(options.module_index, AnchorKind::kCopy, ci),
        HtmlShown(c->instruction()->name()), HtmlShown(c->shape->ToString(/*print_layout=*/false)),
        HtmlEscape(HumanBytes(c->bytes)));
  return fmt::format(
      "  loop{} [id=\"{}-node\", label=<<table border=\"0\" cellborder=\"1\" cellspacing=\"0\" "
      "cellpadding=\"3\">{}</table>>];\n",
      li, Anchor(options.module_index, AnchorKind::kLoop, li), rows);
}

}  // namespace

std::string LoopGraphDot(const ModuleCheck& check, const LoopGraphOptions& options) {
  std::string dot =
      "digraph loops {\n"
      "  graph [rankdir=TB, nodesep=0.3, ranksep=0.4, bgcolor=\"transparent\", fontname=\"Helvetica\"];\n"
      "  node [shape=plain, fontname=\"Helvetica\", fontsize=10];\n"
      "  edge [color=\"#777777\", arrowsize=0.6, fontname=\"Helvetica\", fontsize=9];\n";
  size_t drawn = std::min(check.loops.size(), options.max_loops);
  int64_t outside = 0;
  for (const CopyFinding& c : check.copies)
    if (!c.minor && c.enclosing_loops.empty()) ++outside;
  dot += fmt::format(
      "  entry [label=<<table border=\"0\" cellborder=\"1\" cellspacing=\"0\" cellpadding=\"4\"><tr><td "
      "bgcolor=\"{}\"><b>ENTRY</b>&#160;{}</td></tr><tr><td>{} loop{}{}; {} array cop{} outside "
      "loops</td></tr>"
      "</table>>];\n",
      kHeaderColor, HtmlShown(check.module->name()), check.loops.size(), check.loops.size() == 1 ? "" : "s",
      drawn < check.loops.size() ? fmt::format(" ({} drawn)", drawn) : "", outside,
      outside == 1 ? "y" : "ies");
  for (size_t i = 0; i < drawn; ++i) dot += LoopNode(check, i, options);
  for (size_t i = 0; i < drawn; ++i) {
    const LoopFinding& l = check.loops[i];
    std::string from = "entry";
    std::optional<int64_t> per = l.executions;
    std::string unit = "per call";
    if (!l.enclosing_loops.empty()) {
      const LoopFinding* outer_finding = check.FindLoop(l.enclosing_loops.front());
      size_t outer_index = outer_finding ? static_cast<size_t>(outer_finding - check.loops.data()) : drawn;
      if (outer_index >= drawn) continue;  // its outer loop is not drawn
      from = fmt::format("loop{}", outer_index);
      const LoopFinding& outer = *outer_finding;
      per = l.executions && outer.executions && *outer.executions > 0
                ? std::optional<int64_t>(*l.executions / *outer.executions)
                : std::nullopt;
      unit = "per iteration";
    }
    dot += fmt::format("  {} -> loop{} [label=\" {}× {}\"];\n", from, i,
                       per ? fmt::format("{}", *per) : std::string("?"), unit);
  }
  dot += "}\n";
  return dot;
}

}  // namespace hloscope
