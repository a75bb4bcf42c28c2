#include "hloscope/report/wording.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>

#include "hloscope/analysis/call_graph.h"
#include "hloscope/analysis/source_map.h"
#include "hloscope/analysis/source_origin.h"
#include "hloscope/report/enum_names.h"
#include "hloscope/support/human_bytes.h"
#include "hloscope/support/saturating.h"
#include "hloscope/support/terminal_text.h"

namespace hloscope {

// ---------------------------------------------------------------------------
// Text from the input

std::string Shown(std::string_view text) {
  return EscapeForTerminal(text, {.keep_newlines = false, .keep_tabs = false});
}

std::string ShownSourceLine(std::string_view line) {
  return EscapeForTerminal(line, {.keep_newlines = false, .keep_tabs = true});
}

// ---------------------------------------------------------------------------
// Labels

std::string DisplayPath(std::string_view file) {
  // Long absolute paths: keep the last two components.
  size_t cut = file.rfind('/');
  if (cut != std::string_view::npos && cut > 0) {
    size_t cut2 = file.rfind('/', cut - 1);
    if (cut2 != std::string_view::npos) file = file.substr(cut2 + 1);
  }
  return Shown(file);
}

std::string SourceText(const std::optional<SourceLocation>& s) {
  if (!s || s->file.empty()) return "";
  return fmt::format("{}:{}", DisplayPath(s->file), s->line);
}

std::string ExecutionsText(std::optional<int64_t> n, bool upper_bound) {
  if (!n) return "?";
  if (IsSaturated(*n)) return "overflow";
  return fmt::format("{}{}", upper_bound ? "≤" : "", *n);
}

std::string PositionText(const HloPosition& pos) {
  if (!pos.instruction) return "?";
  if (pos.index.empty()) return std::string(pos.instruction->name());
  return fmt::format("{}{}", pos.instruction->name(), ShapeIndexToString(pos.index));
}

std::string ArgumentName(const HloInstruction* p) {
  const OpMetadata* md = p->metadata();
  return md && !md->op_name.empty() ? CUnescape(md->op_name) : std::string(p->name());
}

std::string ValueText(const HloPosition& pos) {
  const HloInstruction* i = pos.instruction;
  if (!i) return "?";
  if (i->opcode() == HloOpcode::kParameter) {
    const HloComputation* comp = i->parent();
    if (comp->is_entry())
      return fmt::format("argument {} ({}){}", i->parameter_number(), ArgumentName(i),
                         pos.index.empty() ? "" : " element " + ShapeIndexToString(pos.index));
    ComputationRole role = RoleOf(*comp);
    if ((role == ComputationRole::kWhileBody || role == ComputationRole::kWhileCondition) &&
        !pos.index.empty() && !comp->callers().empty())
      return fmt::format("carry {} of {}", pos.index[0], comp->callers()[0]->name());
  }
  if (i->opcode() == HloOpcode::kWhile && !pos.index.empty())
    return fmt::format("carry {} of {} (after the loop)", pos.index[0], i->name());
  return PositionText(pos);
}

std::string UpdateLabel(const UpdateSite& site) {
  if (!site.instruction) return "?";
  if (!site.fusion) return std::string(site.instruction->name());
  return fmt::format("{} in {}", site.instruction->name(), site.fusion->name());
}

std::string FeedText(const CopyFeed& feed) {
  if (feed.kind == CopyFeed::Kind::kUpdate) return UpdateLabel(feed.update);
  return fmt::format("carry {} of {}", ShapeIndexToString(feed.carry), feed.loop->name());
}

std::string InstructionAtText(const InstructionAt& at) {
  std::string where = SourceText(at.source);
  if (where.empty()) return std::string(at.instruction->name());
  return fmt::format("{} ({})", at.instruction->name(), where);
}

std::string FormatLineSet(std::string_view file, const std::vector<int64_t>& lines) {
  std::string out = fmt::format("{}:", DisplayPath(file));
  for (size_t i = 0; i < lines.size();) {
    size_t j = i;
    while (j + 1 < lines.size() && lines[j + 1] == lines[j] + 1) ++j;
    if (i) out += ',';
    out += j == i ? fmt::format("{}", lines[i]) : fmt::format("{}-{}", lines[i], lines[j]);
    i = j + 1;
  }
  return out;
}

std::string FileLinesText(const std::vector<FileLines>& files) {
  std::vector<std::string> parts;
  for (const FileLines& f : files) parts.push_back(FormatLineSet(f.file, f.lines));
  return fmt::format("{}", fmt::join(parts, "; "));
}

// ---------------------------------------------------------------------------
// Updates and loops

std::string UpdateReason(const UpdateFinding& u) {
  switch (u.verdict) {
    case UpdateVerdict::kInPlaceOnCopy:
      return fmt::format("writes into {}, a copy XLA made of {}", PositionText(u.operand),
                         PositionText(u.copy_of));
    case UpdateVerdict::kInPlace:
      return fmt::format("writes into the buffer of {}", PositionText(u.operand));
    case UpdateVerdict::kOutOfPlace: {
      const HloInstruction* op = u.operand.instruction;
      std::string s = fmt::format(
          "its operand {} is computed inside {} ({}), not a fusion parameter, so XLA writes a full new {} "
          "buffer",
          op ? op->name() : "?", u.site.fusion ? u.site.fusion->name() : u.site.instruction->name(),
          op ? op->opcode_text() : "?", HumanBytes(u.buffer_bytes));
      if (u.confirmation.basis == Confirmation::Basis::kReusedDyingOperand)
        s += fmt::format(" (it lands in the memory of {}, which dies here, but every byte is rewritten)",
                         PositionText(u.confirmation.object));
      return s;
    }
    case UpdateVerdict::kNotMaterialized:
      return fmt::format("consumed inside {} and never written to memory",
                         u.site.fusion ? u.site.fusion->name() : u.site.instruction->name());
  }
  return "";
}

namespace {

void Tally(const Confirmation& c, ConfirmationCounts* n) {
  if (!c.confirmed)
    ++n->not_checkable;
  else if (*c.confirmed)
    ++n->confirmed;
  else
    ++n->contradicted;
}

}  // namespace

ConfirmationCounts CountConfirmations(const ModuleCheck& module) {
  ConfirmationCounts n;
  for (const UpdateFinding& u : module.updates) Tally(u.confirmation, &n);
  return n;
}

ConfirmationCounts CountRewriteConfirmations(const ModuleCheck& module) {
  ConfirmationCounts n;
  for (const LoopFinding& l : module.loops)
    for (const LoopScaling& s : l.scaling)
      if (s.kind == LoopScaling::Kind::kCarryRewritten) Tally(s.confirmation, &n);
  return n;
}

std::string ConfirmationText(const UpdateFinding& u) {
  const Confirmation& c = u.confirmation;
  auto at = [](const HloPosition& p, const std::optional<Slice>& s) {
    return fmt::format("{} at allocation {} offset {}", PositionText(p), s->allocation, s->offset);
  };
  switch (c.basis) {
    case Confirmation::Basis::kNoDump:
      return "";
    case Confirmation::Basis::kNotListed:
      return fmt::format("{} or {} not in the buffer assignment", PositionText(c.subject),
                         PositionText(c.object));
    case Confirmation::Basis::kSlicesCompared:
      return fmt::format("{}; {}", at(c.subject, c.subject_slice), at(c.object, c.object_slice));
    case Confirmation::Basis::kOwnSlice:
      return fmt::format("{} shares no operand's slice", at(c.subject, c.subject_slice));
    case Confirmation::Basis::kReusedDyingOperand:
      return fmt::format(
          "XLA reused the slice of {} for {} (may-alias reuse of a dying operand); the whole buffer "
          "is still rewritten",
          PositionText(c.object), c.subject.instruction->name());
    case Confirmation::Basis::kOutputNotListed:
      return fmt::format("{} not in the buffer assignment", PositionText(c.subject));
    case Confirmation::Basis::kNoBuffer:
      return "fused intermediates get no buffer: not in the buffer assignment";
    case Confirmation::Basis::kListed:
      return "the buffer assignment lists it as a value";
  }
  return "";
}

namespace {

// Where a whole read is said to happen: " at LINE" after the kernel, or —
// when the kernel only lays the array out for another op, or has no line —
// ", for OP at LINE" after the sentence (the op's line is the read's).
std::pair<std::string, std::string> WholeReadPlaces(const LoopScaling& s) {
  std::string where = SourceText(s.source);
  if (!s.for_op) return {where.empty() ? "" : " at " + where, ""};
  return {"", fmt::format(", for {}{}", s.for_op->name(), where.empty() ? "" : " at " + where)};
}

}  // namespace

std::string ScalingText(const LoopScaling& s) {
  if (s.kind == LoopScaling::Kind::kCollective)
    return fmt::format("{} moves {} per device ({}) every iteration{}", s.collective->name(),
                       HumanBytes(s.bytes), s.shape->ToString(),
                       s.grows_with_buffer ? ": a loop-carried buffer, whole" : "");
  if (s.kind == LoopScaling::Kind::kCopy)
    return fmt::format("{} copies {} ({}) every iteration", s.copy.instruction->name(), HumanBytes(s.bytes),
                       s.shape->ToString());
  if (s.kind == LoopScaling::Kind::kWholeRead) {
    auto [at, for_op] = WholeReadPlaces(s);
    if (s.slice)
      return fmt::format("{}{} reads {} ({}) of carry {} — all the rows the loop writes — every iteration{}",
                         s.kernel->name(), at, s.shape->ToString(), HumanBytes(s.bytes), s.carry, for_op);
    return fmt::format("{}{} reads carry {} ({}, {}) whole every iteration{}", s.kernel->name(), at, s.carry,
                       s.shape->ToString(), HumanBytes(s.bytes), for_op);
  }
  return fmt::format("carry {} ({}, {}) is rewritten in full by {} every iteration", s.carry,
                     s.shape->ToString(), HumanBytes(s.bytes), PositionText(s.rewritten_by));
}

std::string ScalingText(const LoopScaling& s, const LoopFinding& loop) {
  bool by_carry = s.kind == LoopScaling::Kind::kCarryRewritten || s.kind == LoopScaling::Kind::kWholeRead;
  if (!by_carry || s.carry < 0 || s.carry >= static_cast<int64_t>(loop.carries.size())) return ScalingText(s);
  const LoopCarry& c = loop.carries[s.carry];
  std::string name = CarryName(c);
  if (s.kind == LoopScaling::Kind::kWholeRead) {
    auto [at, for_op] = WholeReadPlaces(s);
    // A slice spanning the dimension the loop writes rows of: a layer of a
    // stacked cache, read whole.
    if (s.slice)
      return fmt::format(
          "{}{} reads {} ({}) of carry {} ({}{}) — all the rows the loop writes — every iteration{}",
          s.kernel->name(), at, s.shape->ToString(), HumanBytes(s.bytes), s.carry,
          name.empty() ? "" : name + ", ", c.shape->ToString(), for_op);
    return fmt::format("{}{} reads carry {} ({}{}, {}) whole every iteration{}", s.kernel->name(), at,
                       s.carry, name.empty() ? "" : name + ", ", s.shape->ToString(), HumanBytes(s.bytes),
                       for_op);
  }
  std::string where = SourceText(c.update.source);
  return fmt::format("carry {} ({}{}, {}) is rewritten in full by {}{} every iteration", s.carry,
                     name.empty() ? "" : name + ", ", s.shape->ToString(), HumanBytes(s.bytes),
                     PositionText(s.rewritten_by), where.empty() ? "" : " at " + where);
}

std::string CarryName(const LoopCarry& c) {
  if (!c.parameter) return "";
  std::string name = ArgumentName(c.parameter);
  if (!c.parameter_index.empty()) name += " element " + ShapeIndexToString(c.parameter_index);
  return name;
}

std::string CarryLabel(const LoopCarry& c) {
  std::string name = CarryName(c);
  return name.empty() ? fmt::format("carry {}", c.index) : fmt::format("carry {} ({})", c.index, name);
}

std::string CarryOriginText(const LoopCarry& c, const LoopScaling* rewrite) {
  std::string from;
  if (c.parameter)
    from = fmt::format("from argument {} ({})", c.parameter->parameter_number(), CarryName(c));
  else if (c.init.instruction)
    from = "made by " + InstructionAtText(c.init);
  if (c.init_copy) from += fmt::format(" via {}", c.init_copy->name());
  std::string update = !c.update.instruction ? "passed through"
                       : c.update.instruction->opcode() == HloOpcode::kCopy
                           ? "copied in every iteration by " + InstructionAtText(c.update)
                           : "updated by " + InstructionAtText(c.update);
  if (rewrite && c.update.instruction)
    update =
        fmt::format("rewritten in full by {} every iteration{}{}", InstructionAtText(c.update),
                    rewrite->grows_with_buffer ? " — grows with buffer size" : "",
                    !rewrite->confirmation.confirmed ? ""
                    : *rewrite->confirmation.confirmed
                        ? " ✓"
                        : " ✗ CONTRADICTED by the buffer assignment (the value is not in the carry's slice)");
  return from.empty() ? update : from + "; " + update;
}

namespace {

std::string UpdateText(const UpdateFinding& u) {
  std::string s = fmt::format("{}: {}", UpdateLabel(u.site), UpdateVerdictName(u.verdict));
  if (u.runs_on) s += fmt::format(" on {}", u.runs_on->instruction->name());
  if (u.shares_copy)
    s += fmt::format(" after the update on {} (the same copy serves both)",
                     u.shares_copy->instruction->name());
  if (u.full_rewrite) s += " (rewrites the whole buffer)";
  s += fmt::format(", writes {} × {}", HumanBytes(u.bytes_written),
                   ExecutionsText(u.executions, u.executions_upper_bound));
  return s;
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
    for (const UpdateFinding* u : group) SatAccumulate(&total, SatMul(u->bytes_written, u->executions));
    out.push_back(fmt::format("×{} {}, e.g. {}; {} written per call in all", group.size(), verdict,
                              UpdateLabel(group.front()->site), HumanBytes(total)));
  }
  return out;
}

std::string CopySummaryLine(const CopyFinding& c) {
  return fmt::format("{} {} {} × {} = {} per call — {}", c.instruction()->name(), c.shape->ToString(),
                     HumanBytes(c.bytes), ExecutionsText(c.executions, c.executions_upper_bound),
                     HumanBytes(c.total_bytes), CopyCauseName(c.cause.cause));
}

std::string LineCopyText(const CopyFinding& c) {
  // A line holds a copy by its attribution (SourceIndex takes a copy's line
  // from check when the copy has no metadata of its own): say which.
  std::string via;
  if (c.source && c.source->via != SourceVia::kMetadata)
    via = fmt::format(" (via the {})", SourceViaName(c.source->via));
  return CopySummaryLine(c) + via;
}

std::vector<std::string> LineCopyGroups(const LineFacts& f) {
  std::map<std::string_view, std::pair<int64_t, std::optional<int64_t>>> by_cause;
  for (const CopyFinding* c : f.copies) {
    auto& [n, total] = by_cause.emplace(CopyCauseName(c->cause.cause), std::make_pair(0, 0)).first->second;
    ++n;
    SatAccumulate(&total, c->total_bytes);
  }
  std::vector<std::string> out;
  for (auto& [cause, v] : by_cause)
    out.push_back(fmt::format("×{} {}: {} per call", v.first, cause, HumanBytes(v.second)));
  return out;
}

std::vector<std::string> LineReadTexts(const LineFacts& f) {
  std::vector<std::pair<const LineRead*, std::vector<const CopyFinding*>>> reads;
  for (const LineRead& r : f.reads) {
    auto it = std::find_if(reads.begin(), reads.end(), [&](const auto& p) {
      return p.first->reader == r.reader && p.first->copy->copied_from == r.copy->copied_from;
    });
    if (it == reads.end())
      reads.push_back({&r, {r.copy}});
    else if (std::find(it->second.begin(), it->second.end(), r.copy) == it->second.end())
      it->second.push_back(r.copy);
  }
  std::vector<std::string> out;
  for (const auto& [r, copies] : reads) {
    std::vector<std::string> names;
    std::optional<int64_t> total = 0;
    for (const CopyFinding* c : copies) {
      names.push_back(std::string(c->instruction()->name()));
      SatAccumulate(&total, c->total_bytes);
    }
    out.push_back(fmt::format("{} reads {} after its in-place update → forces {} ({} per call)",
                              r->reader->name(), PositionText(r->copy->copied_from), fmt::join(names, ", "),
                              HumanBytes(total)));
  }
  return out;
}

std::string WhereNearbyText(const WhereResult& w, const WhereQuery& q) {
  if (w.suggest_functions)
    return w.functions.empty() ? "the metadata names no functions; ask for FILE:LINE"
                               : fmt::format("functions with instructions: {}",
                                             Shown(fmt::format("{}", fmt::join(w.functions, ", "))));
  if (w.suggest_lines)
    return w.file_lines.empty() ? fmt::format("no instruction comes from {}", Shown(q.spec->file))
                                : fmt::format("lines with instructions: {}", FileLinesText(w.file_lines));
  return "";
}

std::string WhereNoteText(const WhereResult& w, const WhereQuery& q) {
  if (w.matched_by_name.empty()) return "";
  return fmt::format("no file path ends with {}; matched by the file name {} only", Shown(q.spec->file),
                     Shown(w.matched_by_name));
}

std::vector<std::string> KernelFindingLines(const FusionSummary& f) {
  std::vector<std::string> out;
  for (const UpdateFinding* u : f.updates) {
    std::string line = fmt::format("{} {}: {}", u->site.instruction->opcode_text(),
                                   u->site.instruction->name(), UpdateVerdictName(u->verdict));
    if (u->runs_on) line += fmt::format(" (on {})", u->runs_on->instruction->name());
    if (u->full_rewrite) line += ", rewrites the whole buffer";
    out.push_back(std::move(line));
  }
  for (const CopyFinding* c : f.copies)
    out.push_back(fmt::format("copies {} ({}): {}", c->shape->ToString(), CopyCauseName(c->cause.cause),
                              CauseDetail(*c)));
  return out;
}

// ---------------------------------------------------------------------------
// Headline

std::string MinorCopiesText(int64_t scalars, int64_t prefetches) {
  std::vector<std::string> parts;
  if (scalars > 0) parts.push_back(fmt::format("+{} scalar cop{}", scalars, scalars == 1 ? "y" : "ies"));
  if (prefetches > 0)
    parts.push_back(fmt::format("+{} constant prefetch{}", prefetches, prefetches == 1 ? "" : "es"));
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string CopyHeadline(const ModuleCheck& m) {
  std::string_view name = m.module->name();
  // Array copies are the answer; scalar ones (loop counters) are only
  // mentioned. A plain sum plus a flag: std::optional here trips GCC 12's
  // -Wmaybe-uninitialized.
  int64_t n = 0, scalars = 0, prefetches = 0;
  int64_t sum = 0;
  bool known = true;
  std::map<const HloInstruction*, int64_t> by_loop;  // outermost loop -> bytes
  for (const CopyFinding& c : m.copies) {
    if (c.minor) {
      ++(c.scalar ? scalars : prefetches);
      continue;
    }
    ++n;
    if (!c.total_bytes)
      known = false;
    else
      sum = SatAdd(sum, *c.total_bytes);
    if (!c.enclosing_loops.empty() && c.total_bytes) {
      int64_t& in_loop = by_loop[c.enclosing_loops.back()];
      in_loop = SatAdd(in_loop, *c.total_bytes);
    }
  }
  std::string scalar_note = MinorCopiesText(scalars, prefetches);
  if (!scalar_note.empty()) scalar_note = " (" + scalar_note + ")";
  // A verdict XLA's buffer assignment contradicts is never "in place".
  int64_t contradicted = 0;
  for (const UpdateFinding& u : m.updates) contradicted += u.confirmation.confirmed == false;
  std::string contradiction_note =
      contradicted == 0 ? ""
                        : fmt::format(" {} update verdict{} CONTRADICTED by XLA's buffer assignment.",
                                      contradicted, contradicted == 1 ? " is" : "s are");
  if (n == 0) {
    int64_t bad = 0;
    for (const UpdateFinding& u : m.updates) bad += u.verdict == UpdateVerdict::kOutOfPlace || u.full_rewrite;
    if (contradicted > 0)
      return fmt::format("{}: no array copies{}, {} update{}.{}", name, scalar_note, m.updates.size(),
                         m.updates.size() == 1 ? "" : "s", contradiction_note);
    if (bad == 0)
      return fmt::format("{}: no array copies{}; {} update{} in place or fused away.", name, scalar_note,
                         m.updates.size(), m.updates.size() == 1 ? "" : "s");
    return fmt::format("{}: no array copies{}, but {} update{} write{} a whole new buffer.", name,
                       scalar_note, bad, bad == 1 ? "" : "s", bad == 1 ? "s" : "");
  }
  std::string line = fmt::format("{}: {} cop{}{}, {} moved per call{}", name, n, n == 1 ? "y" : "ies",
                                 scalar_note, known ? HumanBytes(sum) : std::string("an unknown amount"),
                                 m.spmd.devices() > 1 ? " per device" : "");
  if (known && sum > 0 && !by_loop.empty()) {
    // The loop whose copies move the most; ties go to the name first in
    // alphabetical order, so the headline does not depend on memory layout.
    auto top = std::max_element(by_loop.begin(), by_loop.end(), [](const auto& a, const auto& b) {
      if (a.second != b.second) return a.second < b.second;
      return a.first->name() > b.first->name();
    });
    std::string where;
    for (const CopyFinding& c : m.copies)
      if (!c.minor && !c.enclosing_loops.empty() && c.enclosing_loops.back() == top->first) {
        where = SourceText(c.source);
        break;
      }
    int pct = static_cast<int>(100.0 * static_cast<double>(top->second) / static_cast<double>(sum) + 0.5);
    if (pct > 0)
      line += fmt::format(", {}% inside {}{}", pct, top->first->name(), where.empty() ? "" : " at " + where);
  }
  return line + "." + contradiction_note;
}

// What the collectives move: " Collectives: 3, 32.0 MiB per device per
// call, 98% inside while.4 at train.py:40." (empty without collectives).
std::string CollectiveHeadline(const ModuleCheck& m) {
  if (m.collectives.empty()) return "";
  int64_t sum = 0;
  bool known = true;
  std::map<const HloInstruction*, int64_t> by_loop;
  for (const CollectiveFinding& c : m.collectives) {
    if (!c.total_bytes) {
      known = false;
      continue;
    }
    sum = SatAdd(sum, *c.total_bytes);
    if (!c.enclosing_loops.empty())
      by_loop[c.enclosing_loops.back()] = SatAdd(by_loop[c.enclosing_loops.back()], *c.total_bytes);
  }
  std::string line = fmt::format(" Collectives: {}, {} per device per call", m.collectives.size(),
                                 known ? HumanBytes(sum) : std::string("an unknown amount"));
  if (known && sum > 0 && !by_loop.empty()) {
    auto top = std::max_element(by_loop.begin(), by_loop.end(), [](const auto& a, const auto& b) {
      if (a.second != b.second) return a.second < b.second;
      return a.first->name() > b.first->name();
    });
    std::string where;
    for (const CollectiveFinding& c : m.collectives)
      if (!c.enclosing_loops.empty() && c.enclosing_loops.back() == top->first) {
        where = SourceText(c.source);
        break;
      }
    int pct = static_cast<int>(100.0 * static_cast<double>(top->second) / static_cast<double>(sum) + 0.5);
    if (pct > 0)
      line += fmt::format(", {}% inside {}{}", pct, top->first->name(), where.empty() ? "" : " at " + where);
  }
  return line + ".";
}

std::string Headline(const ModuleCheck& m) { return CopyHeadline(m) + CollectiveHeadline(m); }

std::string LargestCopyLine(const ModuleCheck& m) {
  // The copy that moves the most, wherever it is; made inside library
  // code, the line says so (its hint is not the user's to act on).
  for (const CopyFinding& top : m.copies) {
    if (top.minor) continue;
    SourceOrigin origin = OriginOf(top.source);
    return fmt::format(
        "{}{} — {}", top.instruction()->name(),
        origin.library ? fmt::format(" (made inside library code: {})", origin.library_part) : "",
        CauseDetail(top));
  }
  return "";
}

// ---------------------------------------------------------------------------
// Notes

std::string NoteText(const SessionNote& n) {
  switch (n.kind) {
    case SessionNote::Kind::kBufferAssignmentNotApplied:
      return fmt::format(
          "the buffer assignment {} was not applied: it describes one module and the input holds {}; "
          "verdicts "
          "unconfirmed",
          Shown(n.path), n.count);
    case SessionNote::Kind::kBufferAssignmentForeign:
      return fmt::format("the buffer assignment {} was not applied: it describes another module ({})",
                         Shown(n.path), Shown(n.detail));
    case SessionNote::Kind::kThunkMetadataNotApplied:
      return fmt::format("the thunk dump {} was not applied: it describes one module and the input holds {}",
                         Shown(n.path), n.count);
    case SessionNote::Kind::kUndecodedAttribute:
      return fmt::format("{}: {}", Shown(n.path), Shown(n.detail));
    case SessionNote::Kind::kPrePartitionNotApplied:
      return fmt::format("the module before partitioning {} was not used to explain re-shards: {}",
                         Shown(n.path), Shown(n.detail));
    case SessionNote::Kind::kFoundFileRefused:
      return fmt::format("{} was not read: {}", Shown(n.path), Shown(n.detail));
  }
  return "";
}

}  // namespace hloscope
