// Why a copy exists and what removes it, in the user's terms: the cause
// table's facts (CauseFacts, analysis/copy_causes.h) as one sentence each,
// and the fix each rule's hint names (tests/python/test_hint_fixes.py
// compiles every hint's program and its fixed version).
#include "hloscope/report/cause_words.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "hloscope/report/enum_names.h"
#include "hloscope/report/wording.h"
#include "hloscope/support/human_bytes.h"

namespace hloscope {

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

// An initial value XLA may have merged from several identical ones: a
// broadcast or constant (jnp.zeros, jnp.full), bare or as a kernel's root.
bool MergedInitialValue(const HloPosition& v) {
  const HloInstruction* i = v.instruction;
  if (!i) return false;
  if (i->opcode() == HloOpcode::kFusion && i->fused_computation())
    i = i->fused_computation()->root_instruction();
  return i->opcode() == HloOpcode::kBroadcast || i->opcode() == HloOpcode::kConstant ||
         i->opcode() == HloOpcode::kIota;
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
    case CauseRule::kDonatedParameterRewritten: {
      std::string readers = FirstReader(f);
      if (f.readers.size() > 1) readers += fmt::format(" and {} more", f.readers.size() - 1);
      std::string where = f.writer.instruction ? InstructionAtText(f.writer) : "?";
      return f.old_value_readers.empty()
                 ? fmt::format(
                       "{} is donated and its buffer receives the new value ({}, output {}) while {} still "
                       "read{} the old one",
                       ValueText(src), where, f.outputs.empty() ? "?" : ShapeIndexToString(f.outputs.front()),
                       readers, f.readers.size() > 1 ? "" : "s")
                 : fmt::format(
                       "{} is donated and its buffer receives the new value ({}, output {}) while {} still "
                       "read{} the old one, and the new value does not depend on {}: XLA orders kernels by "
                       "data dependence, not by source order, so it keeps the old value in this copy",
                       ValueText(src), where, f.outputs.empty() ? "?" : ShapeIndexToString(f.outputs.front()),
                       readers, f.readers.size() > 1 ? "" : "s",
                       f.old_value_readers.size() > 1 ? "them" : "it");
    }
    case CauseRule::kSharedByCarries: {
      bool one_loop = std::all_of(f.shared_loops.begin(), f.shared_loops.end(),
                                  [&](const HloInstruction* l) { return l == f.loop; });
      std::vector<std::string> carries;
      for (size_t k = 0; k < f.shared_carries.size(); ++k)
        carries.push_back(
            one_loop ? std::to_string(f.shared_carries[k])
                     : fmt::format("carry {} of {}", f.shared_carries[k], f.shared_loops[k]->name()));
      std::string starts =
          one_loop ? fmt::format("carries {} of {}", fmt::join(carries, ", "), f.loop ? f.loop->name() : "?")
                   : fmt::format("the state of several loops ({})", fmt::join(carries, ", "));
      return fmt::format(
          "{} starts {}: each carry needs a buffer of its own ({}), so it copies the value for carry "
          "{} of {}{}",
          ValueText(src), starts,
          MergedInitialValue(src) ? "XLA merges identical initial values such as jnp.zeros of one shape"
                                  : "the program starts them from the same array",
          f.carry.value_or(-1), f.loop ? f.loop->name() : "?",
          f.in_loop ? ", every iteration of the enclosing loop" : ", once per run of the loop");
    }
    case CauseRule::kReadAfterUpdate:
      return fmt::format("{} is updated in place ({}) while {} still reads the old contents{}",
                         ValueText(src), f.feed ? FeedText(*f.feed) : "?", FirstReader(f),
                         f.in_loop ? ", every iteration" : "");
    case CauseRule::kReadAfterLoopInit:
      if (!f.readers.empty() && src.instruction &&
          f.readers.front().instruction == src.instruction->parent()->root_instruction())
        return fmt::format(
            "{} becomes the state of {} (updated there) while the enclosing loop passes the original on to "
            "its next iteration",
            ValueText(src), f.loop->name());
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
        // Checked by compiling both (tests/python/test_hint_fixes.py). XLA
        // folds an array computed from constants (jnp.sin(jnp.arange(n)))
        // back into a constant, so only zeros/full or an argument help.
        return "pass the array in as a donated argument (jax.jit(f, donate_argnums=...)) instead of closing "
               "over a constant, or build it inside the function with jnp.zeros/jnp.full";
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
      // As for read-after-update: source order alone does not order the read.
      return "read from the updated array, or make the update use what you read; moving the read earlier in "
             "the source alone does not order it before the update";
    case CauseRule::kDonatedParameterRewritten:
      // Checked by compiling a train step both ways (tests/python/test_hint_fixes.py).
      return fmt::format(
          "make the new value depend on every read of the old one (in a train step: an update that uses "
          "every gradient, such as optax.clip_by_global_norm before the optimizer), or accept the copy: {} "
          "per call",
          HumanBytes(c.total_bytes));
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
    case CauseRule::kSharedByCarries:
      // Checked by compiling both (tests/python/test_hint_fixes.py) for
      // merged initial values outside loops; a value the program itself
      // hands to several carries, or one made inside a loop, has no fix we
      // have tested.
      if (!c.enclosing_loops.empty() || !MergedInitialValue(c.copied_from)) return "";
      return "pass the initial arrays in as donated arguments (jax.jit(f, donate_argnums=...)): each carry "
             "then starts in a buffer of its own";
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

}  // namespace hloscope
