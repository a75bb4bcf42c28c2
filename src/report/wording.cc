#include "hloscope/report/wording.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "hloscope/analysis/call_graph.h"
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

std::string ValueText(const HloPosition& pos) {
  const HloInstruction* i = pos.instruction;
  if (!i) return "?";
  if (i->opcode() == HloOpcode::kParameter) {
    const HloComputation* comp = i->parent();
    if (comp->is_entry())
      return fmt::format("argument {} ({}){}", i->parameter_number(), i->name(),
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
// Copies

namespace {

std::string LayoutText(const Shape* s) { return s && s->layout ? "{" + s->layout->raw + "}" : "{}"; }

// What the copy is for, as the object of "X is ...".
std::string WhatText(const CauseFacts& f) {
  if (!f.feed) return "returned as an output";
  if (f.feed->kind == CopyFeed::Kind::kLoopState)
    return fmt::format("the initial loop state of {} and overwritten by the loop", f.feed->loop->name());
  return fmt::format("updated in place ({})", FeedText(*f.feed));
}

std::string FirstReader(const CauseFacts& f) {
  return f.readers.empty() ? std::string("?") : InstructionAtText(f.readers.front());
}

std::string ConditionalName(const CauseFacts& f) {
  return f.conditional ? std::string(f.conditional->name()) : "the conditional";
}

}  // namespace

namespace {

int64_t MemorySpaceOf(const Shape* s) { return s && s->layout ? s->layout->memory_space : 0; }

// "from memory space 0 to 1 (a prefetch)". S(5) is host memory on GPU and
// TPU (xla-reference §1.8); other non-zero spaces are the backend's faster
// or special memories (TPU: VMEM, SMEM, sync flags).
std::string MemorySpaceMoveText(const CopyFinding& c) {
  int64_t from = MemorySpaceOf(c.source_shape), to = MemorySpaceOf(c.shape);
  std::string_view kind = to == 5     ? "an offload to host memory"
                          : from == 5 ? "a load from host memory"
                          : to != 0   ? "a prefetch"
                                      : "an eviction back to device memory";
  return fmt::format("from memory space {} to {} ({})", from, to, kind);
}

std::string RuleDetail(const CopyFinding& c) {
  const CauseFacts& f = c.cause;
  const HloPosition& src = c.copied_from;
  switch (f.rule) {
    case CauseRule::kLayoutChange:
      return fmt::format("layout {} -> {}: a physical transpose chosen by layout assignment",
                         LayoutText(c.source_shape), LayoutText(c.shape));
    case CauseRule::kMemorySpaceMove:
      return fmt::format("moves the buffer {}", MemorySpaceMoveText(c));
    case CauseRule::kBranchUpdatesOperand:
      return fmt::format(
          "branch {} updates the array {} hands it ({}) in place; the operand must stay intact, so "
          "the branch updates a copy",
          f.branch->name(), ConditionalName(f), f.feed ? FeedText(*f.feed) : "?");
    case CauseRule::kBranchPassthrough:
      return fmt::format(
          "branch {} passes its input through unchanged; XLA copies it into the output buffer of "
          "{} that the other branches write",
          f.branch->name(), ConditionalName(f));
    case CauseRule::kBranchResult:
      return fmt::format("the result of branch {} ({}) is copied into the output buffer of {}",
                         f.branch->name(), PositionText(src), ConditionalName(f));
    case CauseRule::kConstantUpdated:
    case CauseRule::kConstantReturned:
      return fmt::format("constant {} is {}; constants are read-only, so XLA copies it",
                         src.instruction->name(), WhatText(f));
    case CauseRule::kNonDonatedParameter:
      // ValueText names the element of a tuple argument: donation is per leaf.
      if (f.donation == DonationKind::kBufferDonor)
        return fmt::format(
            "{} is {}; it is donated, but XLA aliased it with no output (buffer_donor only), so copy "
            "insertion "
            "still treats it as read-only",
            ValueText(src), WhatText(f));
      return fmt::format("{} is {} but not donated, so XLA keeps the caller's array intact", ValueText(src),
                         WhatText(f));
    case CauseRule::kDonatedParameterRead:
      return fmt::format("{} is {} while {} still reads the old contents", ValueText(src), WhatText(f),
                         FirstReader(f));
    case CauseRule::kReadAfterUpdate:
      return fmt::format("{} is updated in place ({}) while {} still reads the old contents{}",
                         ValueText(src), f.feed ? FeedText(*f.feed) : "?", FirstReader(f),
                         f.in_loop ? ", every iteration" : "");
    case CauseRule::kReadAfterLoopInit:
      return fmt::format("{} becomes the state of {} (updated there) while {} still reads the original",
                         ValueText(src), f.loop->name(), FirstReader(f));
    case CauseRule::kCarriesSwapped:
      return fmt::format(
          "loop carries {} and {} trade places: the old value of carry {} is still needed while "
          "carry {} is written",
          *f.other_carry, *f.carry, *f.other_carry, *f.carry);
    case CauseRule::kCarryPassedOnLive:
      return fmt::format("carry {} is passed on while its old value is still live in the iteration",
                         *f.carry);
    case CauseRule::kCarryRebuilt:
      return fmt::format(
          "the new value of carry {} ({}) is computed while the old one is still read, so it is "
          "built in a temporary and copied back every iteration",
          *f.carry, PositionText(src));
    case CauseRule::kCarryPermuted:
      return fmt::format(
          "the new value of carry {} is received by the collective-permute {} (lax.ppermute), which "
          "cannot receive into the buffer it sends from, so the carry lands in a second buffer and is "
          "copied back every iteration",
          *f.carry, PositionText(src));
    case CauseRule::kCarryOldValueRead: {
      std::vector<std::string> readers;
      for (const HloInstruction* r : f.old_value_readers) readers.push_back(std::string(r->name()));
      return fmt::format("carry {} gets a new value ({}) each iteration while its old value is still read{}",
                         *f.carry, PositionText(f.new_value),
                         readers.empty() ? "" : fmt::format(" (by {})", fmt::join(readers, ", ")));
    }
    case CauseRule::kOutputDuplicated: {
      std::set<ShapeIndex> distinct(f.outputs.begin(), f.outputs.end());
      return fmt::format("the same value is returned {} times; each output needs its own buffer",
                         distinct.size());
    }
    case CauseRule::kOutputAlsoReturned:
      return fmt::format("{} is returned at output {} and again at output {}", PositionText(src),
                         ShapeIndexToString(f.other_output), ShapeIndexToString(f.outputs.front()));
    case CauseRule::kOutputAliasing:
      return fmt::format(
          "output {} lives in the buffer of donated argument {}; {} is computed elsewhere (it "
          "cannot be written there in place) and copied in",
          ShapeIndexToString(f.outputs.front()), f.aliased_parameter, PositionText(src));
    case CauseRule::kOutputPassthrough:
      return fmt::format("{} is passed through to output {}", src.instruction->name(),
                         ShapeIndexToString(f.outputs.front()));
    case CauseRule::kNone:
      break;
  }
  return fmt::format("copy of {}; no rule explains it", PositionText(src));
}

}  // namespace

std::string CauseDetail(const CopyFinding& c) {
  std::string detail = RuleDetail(c);
  // A move that plays a protective copy's role: the cause is the reason the
  // copy exists, the move is how XLA made it (TPU copies a non-donated
  // argument by moving it into S(1) and updating it there).
  if (c.copy_class == CopyClass::kMemorySpaceMove && c.cause.rule != CauseRule::kMemorySpaceMove)
    detail += fmt::format("; XLA makes this copy by moving the buffer {}", MemorySpaceMoveText(c));
  return detail;
}

std::string CauseHint(const CopyFinding& c) {
  const CauseFacts& f = c.cause;
  switch (f.rule) {
    case CauseRule::kLayoutChange:
      return "a transpose/reshape (or an operation that needs another layout) in your code forces it";
    case CauseRule::kBranchUpdatesOperand:
      return "update the array outside the cond (e.g. compute the new row in the branches, write it "
             "once after)";
    case CauseRule::kBranchPassthrough:
      return "a passthrough branch next to updating branches costs a full copy; select the update "
             "instead of the buffer";
    case CauseRule::kConstantUpdated:
    case CauseRule::kConstantReturned:
      // Scalars (loop counters starting at a literal) are not worth a hint.
      if (c.shape && c.shape->rank() > 0)
        return "build the array inside the function (jnp.zeros/jnp.full) instead of closing over a "
               "constant";
      return "";
    case CauseRule::kNonDonatedParameter: {
      int64_t p = c.copied_from.instruction->parameter_number();
      std::string hint = f.donation == DonationKind::kBufferDonor
                             ? std::string(
                                   "return the updated array (same shape and dtype) so the donation can "
                                   "alias it with an output")
                             : fmt::format("donate argument {}: jax.jit(f, donate_argnums={})", p, p);
      if (!f.readers.empty())
        hint +=
            fmt::format(" (it is also read by {}: donation alone may not remove the copy)", FirstReader(f));
      return hint;
    }
    case CauseRule::kDonatedParameterRead:
      return "do the read before the update (or read from the updated array)";
    case CauseRule::kReadAfterUpdate:
      // Source order does not order independent kernels: XLA schedules the
      // read after the update even when it comes first in the code
      // (tests/fixtures/diff/reordered_1024). What removes the copy: a read
      // the update depends on, a read of the updated array, or (in a loop)
      // the value carried from the previous iteration (fixed_1024).
      if (!c.enclosing_loops.empty())
        return "carry the value you need (read it from the updated array one iteration ahead), or read from "
               "the updated array; moving the read before the update helps only if the update uses what it "
               "reads";
      return "read from the updated array, or make the update use what you read; moving the read earlier in "
             "the source alone does not order it before the update";
    case CauseRule::kReadAfterLoopInit:
      return "don't use the loop's input after the loop (use its result), or donate it";
    case CauseRule::kCarriesSwapped:
      return "avoid swapping loop carries; keep each buffer in its own carry slot";
    case CauseRule::kCarryPassedOnLive:
      return "make sure nothing reads the old value after it is replaced";
    case CauseRule::kCarryRebuilt:
      return "update the carry with .at[].set / dynamic_update_slice instead of rebuilding it "
             "(concatenate, roll, where)";
    case CauseRule::kCarryPermuted:
      // Checked on CPU and TPU compiles (tests/python/test_collectives.py).
      return "unroll the loop by 2 (fori_loop/scan(..., unroll=2)): the two ppermutes of an iteration then "
             "alternate between the carry's buffer and a second one, and the copy goes away";
    case CauseRule::kCarryOldValueRead:
      // A scalar carry (usually the loop counter): negligible.
      if (c.copied_from.index.size() == 1 && c.shape && c.shape->rank() == 0) return "";
      return "make the last read of the old value happen before the new value is computed";
    case CauseRule::kOutputDuplicated:
    case CauseRule::kOutputAlsoReturned:
      return "return the value once and duplicate it outside the jitted function";
    case CauseRule::kOutputAliasing:
      return "check why the producer is not in place (see UPDATES: out-of-place)";
    case CauseRule::kOutputPassthrough:
      return "don't return inputs unchanged from a jitted function";
    case CauseRule::kMemorySpaceMove:
    case CauseRule::kBranchResult:
    case CauseRule::kNone:
      break;
  }
  return "";
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

ConfirmationCounts CountConfirmations(const ModuleCheck& module) {
  ConfirmationCounts n;
  for (const UpdateFinding& u : module.updates) {
    if (!u.confirmation.confirmed)
      ++n.not_checkable;
    else if (*u.confirmation.confirmed)
      ++n.confirmed;
    else
      ++n.contradicted;
  }
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

std::string ScalingText(const LoopScaling& s) {
  if (s.kind == LoopScaling::Kind::kCopy)
    return fmt::format("{} copies {} ({}) every iteration", s.copy.instruction->name(), HumanBytes(s.bytes),
                       s.shape->ToString());
  return fmt::format("carry {} ({}, {}) is rewritten in full by {} every iteration", s.carry,
                     s.shape->ToString(), HumanBytes(s.bytes), PositionText(s.rewritten_by));
}

namespace {

std::string UpdateText(const UpdateFinding& u) {
  std::string s = fmt::format("{}: {}", UpdateLabel(u.site), UpdateVerdictName(u.verdict));
  if (u.runs_on) s += fmt::format(" on {}", u.runs_on->instruction->name());
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

std::string Headline(const ModuleCheck& m) {
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
  std::string line = fmt::format("{}: {} cop{}{}, {} moved per call", name, n, n == 1 ? "y" : "ies",
                                 scalar_note, known ? HumanBytes(sum) : std::string("an unknown amount"));
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

std::string LargestCopyLine(const ModuleCheck& m) {
  for (const CopyFinding& top : m.copies)
    if (!top.minor) return fmt::format("{} — {}", top.instruction()->name(), CauseDetail(top));
  return "";
}

}  // namespace hloscope
