// Why a copy exists: the evidence around it (the chain of copies, the
// other readers of the value it protects, what it feeds, whether it is
// returned) and one matcher per rule family that reads that evidence. The
// rules are tried in the catalog's order (analysis/cause_catalog.def); the
// matchers state typed facts (CausePayload), report/cause_words.cc words
// them from the catalog's templates.
#include "hloscope/analysis/copy_causes.h"

#include <algorithm>
#include <array>
#include <set>

#include "cause_evidence.h"
#include "check_context.h"
#include "hloscope/analysis/call_graph.h"

namespace hloscope {
namespace {

using copy_rules::Evidence;
using copy_rules::Match;

using Matcher = std::optional<Match> (*)(const Evidence&);

// -- the families' matchers -----------------------------------------------------

// Inside a conditional branch: the branch either updates the array it was
// handed (which the conditional's operand must keep intact), or passes it
// on, and every branch must leave its result in the one output buffer of
// the conditional (copy_insertion AddCopiesForConditional).
std::optional<Match> ConditionalBranch(const Evidence& e) {
  if (e.role != ComputationRole::kBranch) return std::nullopt;
  BranchFacts f{e.comp, e.comp->callers().empty() ? nullptr : e.comp->callers()[0]};
  CauseRule rule = e.feeds() ? CauseRule::kBranchUpdatesOperand
                   : (e.s()->opcode() == HloOpcode::kParameter || e.s() == e.comp->parameter(0))
                       ? CauseRule::kBranchPassthrough
                       : CauseRule::kBranchResult;
  return Match{rule, f, {}};
}

std::optional<Match> Constant(const Evidence& e) {
  if (e.s()->opcode() != HloOpcode::kConstant) return std::nullopt;
  return Match{
      e.feeds() ? CauseRule::kConstantUpdated : CauseRule::kConstantReturned, ConstantFacts{e.s()}, {}};
}

// Does `writer` depend on `reader` (through operands and control
// predecessors, within one computation)? Bounded by the computation's size.
bool DependsOn(const HloInstruction* writer, const HloInstruction* reader) {
  std::vector<const HloInstruction*> stack = {writer};
  std::set<const HloInstruction*> seen = {writer};
  while (!stack.empty()) {
    const HloInstruction* i = stack.back();
    stack.pop_back();
    if (i == reader) return true;
    auto visit = [&](const HloInstruction* next) {
      if (next && seen.insert(next).second) stack.push_back(next);
    };
    for (const HloInstruction* op : i->operands()) visit(op);
    for (const HloInstruction* op : i->control_predecessors()) visit(op);
  }
  return false;
}

// A copy of a donated argument that feeds no update and is not returned:
// the output aliased with the argument gets a new value written into the
// argument's buffer, while the copy keeps the old value for its readers.
// XLA's copy removal orders the readers before the writer only by data
// dependence (copy_insertion.cc, DependencyHloOrdering before scheduling):
// a reader the new value does not depend on — the backward pass reading a
// weight whose update uses only its own gradient — may run after the
// write, so the copy stays, whatever the order in the source.
std::optional<Match> DonatedBufferRewritten(const Evidence& e, ParameterFacts f) {
  if (!e.copy.feeds.empty() || !e.outputs.empty()) return std::nullopt;
  const HloInstruction* root = e.comp->root_instruction();
  for (const InputOutputAlias& a : e.ctx.module().input_output_aliases()) {
    if (a.parameter_number != f.parameter_number || a.parameter_index != e.src.index) continue;
    HloPosition written = DefiningPosition(root, a.output_index);
    if (!written.instruction || written.instruction == e.s() || written.instruction == e.me.instruction)
      continue;
    std::vector<InstructionAt> unordered, ordered;
    for (const HloUse& use : UsesOf(e.me)) {
      if (use.user == written.instruction) continue;
      auto same = [&](const InstructionAt& r) { return r.instruction == use.user; };
      if (std::any_of(unordered.begin(), unordered.end(), same) ||
          std::any_of(ordered.begin(), ordered.end(), same))
        continue;
      (DependsOn(written.instruction, use.user) ? ordered : unordered).push_back(e.ctx.At(use.user));
    }
    if (unordered.empty() && ordered.empty()) continue;
    f.new_value = written;
    f.writer = e.ctx.At(written.instruction);
    f.output = a.output_index;
    for (const InstructionAt& r : unordered) f.unordered_readers.push_back(r.instruction);
    std::vector<InstructionAt> readers = unordered;
    readers.insert(readers.end(), ordered.begin(), ordered.end());
    return Match{CauseRule::kDonatedParameterRewritten, std::move(f), std::move(readers)};
  }
  return std::nullopt;
}

// A move into another memory space (TPU's prefetch of a donated weight)
// whose readers all come before the updates it feeds by data dependence —
// the forward pass reading a weight whose update uses the gradient that
// pass makes, through the gradient all-reduce — protects nothing: copy
// insertion orders those reads before the write by themselves. The move is
// memory-space assignment's, and the memory-space rules explain it.
bool OrderedBeforeTheUpdates(const Evidence& e) {
  if (e.copy.copy_class != CopyClass::kMemorySpaceMove || e.copy.feeds.empty()) return false;
  for (const CopyFeed& feed : e.copy.feeds) {
    if (feed.kind != CopyFeed::Kind::kUpdate || feed.update.owner()->parent() != e.comp) return false;
    for (const InstructionAt& r : e.readers)
      if (!r.instruction || r.instruction->parent() != e.comp ||
          !DependsOn(feed.update.owner(), r.instruction))
        return false;
  }
  return true;
}

// An entry argument: read-only unless aliased with an output
// (IsReadonlyEntryParameterValue). A writable one is still copied when
// something reads its old contents after the update.
std::optional<Match> EntryParameter(const Evidence& e) {
  const HloInstruction* s = e.s();
  if (s->opcode() != HloOpcode::kParameter || !s->parent()->is_entry() || !e.comp->is_entry())
    return std::nullopt;
  ParameterFacts f;
  f.parameter_number = s->parameter_number();
  f.parameter_index = e.src.index;
  f.donation = DonationOf(e.ctx.module(), s->parameter_number(), e.src.index);
  if (!IsWritableDonation(f.donation)) {
    // JAX's eager jnp.copy / x.copy() compiles to a module of its own named
    // jit_copy: its copy is the result the user called for (donating the
    // argument would defeat it), not one XLA inserted.
    if (e.ctx.module().name() == "jit_copy" && !e.feeds() && !e.outputs.empty())
      return Match{CauseRule::kCopyRequested, std::move(f), {}};
    f.aliasable_output = HasOutputShaped(e.ctx.module(), s->shape().Subshape(e.src.index));
    return Match{CauseRule::kNonDonatedParameter, std::move(f), {}};
  }
  if (!e.readers.empty() && (e.feeds() || !e.outputs.empty()) && !OrderedBeforeTheUpdates(e))
    return Match{CauseRule::kDonatedParameterRead, std::move(f), {}};
  return DonatedBufferRewritten(e, std::move(f));
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

// Every array the value `src` starts, directly or behind copies of it: the
// carries of loops it initializes and the in-place updates that write into
// it. False when something else reads it too (then the copy protects a
// read: the read-after-update rules say so).
bool ArraysStarted(const CheckContext& ctx, const HloPosition& src, SharedValueFacts* f) {
  bool only_starts = true;
  std::vector<HloPosition> pending = {src};
  for (size_t i = 0; i < pending.size() && i < 64; ++i)
    for (const HloUse& use : UsesOf(pending[i])) {
      if (use.user->opcode() == HloOpcode::kWhile && use.operand_index.size() == 1) {
        CarryStart start{use.user, use.operand_index[0]};
        if (std::find(f->starts.begin(), f->starts.end(), start) == f->starts.end())
          f->starts.push_back(start);
        continue;
      }
      if (use.user->opcode() == HloOpcode::kCopy) {
        pending.push_back({use.user, {}});
        continue;
      }
      bool update = false;
      for (const InPlacePair& pair : ctx.PairsOf(use.user))
        if (pair.operand_number == use.operand_number && pair.operand_index == use.operand_index) {
          UpdateSite site = CheckContext::SiteOf(use.user, pair);
          if (std::find(f->updates.begin(), f->updates.end(), site) == f->updates.end())
            f->updates.push_back(site);
          update = true;
          break;
        }
      if (!update) only_starts = false;
    }
  return only_starts;
}

// The copy starts a loop's state, and the value it copies starts other
// carries too — of the same loop (XLA's CSE merges identical jnp.zeros /
// broadcasts) or of sibling loops (two jax.random loops from one key):
// every carry needs a buffer of its own (AddCopiesForWhile copies each
// init), so all but one get a copy, once per run of the loops. Or the copy
// feeds an in-place update and the value starts other updated arrays: the
// same merge, with scatters (`jnp.zeros(n).at[i].set(x)` twice) — copy
// insertion keeps the value intact for each update but one.
std::optional<Match> SharedByCarries(const Evidence& e) {
  SharedValueFacts f;
  for (const HloUse& use : UsesOf(e.me))
    if (use.user->opcode() == HloOpcode::kWhile && use.operand_index.size() == 1) {
      f.loop = use.user;
      f.carry = use.operand_index[0];
      break;
    }
  bool feeds_update = !f.loop && e.feeds() && e.copy.feeds.front().kind == CopyFeed::Kind::kUpdate;
  if (!f.loop && !feeds_update) return std::nullopt;
  bool only_starts = ArraysStarted(e.ctx, e.src, &f);
  f.merged_initial_value = MergedInitialValue(e.src);
  if (f.loop) {
    if (f.starts.size() < 2) return std::nullopt;
    f.updates.clear();
    return Match{CauseRule::kSharedByCarries, std::move(f), {}};
  }
  // An update: every other use of the value must start an array of its own
  // too (a plain reader is a read-after-update).
  if (!only_starts || f.starts.size() + f.updates.size() < 2) return std::nullopt;
  return Match{CauseRule::kSharedByUpdates, std::move(f), {}};
}

int64_t MemorySpaceOf(const Shape* s) { return s && s->layout ? s->layout->memory_space : 0; }

// The move (a copy site between memory spaces) in `comp` that the value `v`
// was written on: back through the in-place updates that wrote it (a DUS,
// a fusion's in-place pair), without leaving the computation.
const CopySite* MoveUnder(const CheckContext& ctx, HloPosition v) {
  for (int step = 0; step < 16 && v.instruction; ++step) {
    v = DefiningPosition(v.instruction, v.index);
    if (const CopySite* c = ctx.CopyAt(v))
      return ClassifyCopy(*c->src_shape, *c->dest_shape) == CopyClass::kMemorySpaceMove ? c : nullptr;
    const InPlacePair* pair = nullptr;
    for (const InPlacePair& p : ctx.PairsOf(v.instruction))
      if (p.output_index == v.index) pair = &p;
    if (!pair || pair->operand_number >= v.instruction->operand_count()) return nullptr;
    v = {v.instruction->operand(pair->operand_number), pair->operand_index};
  }
  return nullptr;
}

// A loop carry staged through another memory space every iteration (TPU's
// memory-space assignment): the body moves carry j's buffer (its parameter
// element) into memory space n, updates it there in place, and moves the
// result back into carry j. Both moves get the rule; no reader forces them,
// so the read rules must not claim the move in.
std::optional<Match> StagedCarry(const Evidence& e) {
  if (e.copy.copy_class != CopyClass::kMemorySpaceMove || e.role != ComputationRole::kWhileBody)
    return std::nullopt;
  const HloInstruction* root = e.comp->root_instruction();
  if (root->opcode() != HloOpcode::kTuple || e.comp->callers().empty()) return std::nullopt;
  auto carry_param = [&](const HloPosition& v) -> std::optional<int64_t> {
    if (v.instruction && v.instruction->opcode() == HloOpcode::kParameter &&
        v.instruction->parent() == e.comp && v.index.size() == 1)
      return v.index[0];
    return std::nullopt;
  };
  StagedCarryFacts f;
  f.loop = e.comp->callers()[0];
  for (int64_t j = 0; j < root->operand_count(); ++j) {
    HloPosition back = DefiningPosition(root->operand(j), {});
    const CopySite* move_back = e.ctx.CopyAt(back);
    if (move_back &&
        ClassifyCopy(*move_back->src_shape, *move_back->dest_shape) != CopyClass::kMemorySpaceMove)
      move_back = nullptr;
    if (!move_back) continue;
    // The move back's value was written on a move in of carry j.
    const CopySite* move_in = MoveUnder(e.ctx, {move_back->source, move_back->source_index});
    if (!move_in || carry_param(DefiningPosition(move_in->source, move_in->source_index)) != j) continue;
    if (move_back->copy == e.me)
      f.other = move_in->copy;
    else if (move_in->copy == e.me)
      f.other = move_back->copy;
    else
      continue;
    f.carry = j;
    f.home = MemorySpaceOf(move_in->src_shape);
    f.stage = MemorySpaceOf(move_in->dest_shape);
    return Match{CauseRule::kCarryStaged, std::move(f), {}};
  }
  return std::nullopt;
}

// A carry the body passes through unchanged (its root holds the body
// parameter's element): the loop itself still needs the old value for its
// next iteration.
bool PassedThroughCarry(const Evidence& e) {
  const HloInstruction* s = e.s();
  if (e.role != ComputationRole::kWhileBody || s->opcode() != HloOpcode::kParameter ||
      s->parent() != e.comp || e.src.index.size() != 1)
    return false;
  return DefiningPosition(e.comp->root_instruction(), e.src.index) == e.src;
}

std::optional<Match> ReadAfterUpdate(const Evidence& e) {
  if (e.readers.empty()) {
    // A carry passed through by this loop's body, copied to start a nested
    // loop that overwrites it: the pass-through is the read of the original.
    if (!PassedThroughCarry(e)) return std::nullopt;
    for (const HloUse& use : UsesOf(e.me)) {
      if (use.user->opcode() != HloOpcode::kWhile) continue;
      return Match{CauseRule::kReadAfterLoopInit, ReadFacts{use.user, true},
                   std::vector<InstructionAt>{e.ctx.At(e.comp->root_instruction())}};
    }
    return std::nullopt;
  }
  if (e.feeds() && !OrderedBeforeTheUpdates(e)) return Match{CauseRule::kReadAfterUpdate, ReadFacts{}, {}};
  // Feeding a while init whose original is read after the loop (or passed
  // on by the enclosing loop's body: its root is the first reader).
  for (const HloUse& use : UsesOf(e.me)) {
    if (use.user->opcode() != HloOpcode::kWhile) continue;
    bool passed_on = e.readers.front().instruction == e.s()->parent()->root_instruction();
    return Match{CauseRule::kReadAfterLoopInit, ReadFacts{use.user, passed_on}, {}};
  }
  return std::nullopt;
}

std::optional<Match> Output(const Evidence& e) {
  if (e.outputs.empty()) return std::nullopt;
  OutputFacts f;
  f.outputs = e.outputs;
  std::set<ShapeIndex> distinct(e.outputs.begin(), e.outputs.end());
  if (distinct.size() > 1) return Match{CauseRule::kOutputDuplicated, std::move(f), {}};
  // Is the protected value itself also an output (at another index)?
  std::vector<ShapeIndex> src_outputs;
  if (ReachesEntryOutput(e.src, &src_outputs) && !src_outputs.empty()) {
    f.other_output = src_outputs.front();
    return Match{CauseRule::kOutputAlsoReturned, std::move(f), {}};
  }
  for (const InputOutputAlias& a : e.ctx.module().input_output_aliases()) {
    if (a.output_index != e.outputs.front()) continue;
    f.aliased_parameter = a.parameter_number;
    return Match{CauseRule::kOutputAliasing, std::move(f), {}};
  }
  if (e.s()->opcode() == HloOpcode::kParameter) return Match{CauseRule::kOutputPassthrough, std::move(f), {}};
  return std::nullopt;
}

// The all-to-all a layout change sits beside, through bitcasts: XLA's
// partitioner re-shards with an all-to-all over reshaped data
// (spmd_partitioner.cc, ReshardWithAllToAll) and layout assignment makes the
// transposes around it physical copies; nullptr when there is none.
const HloInstruction* AllToAllBeside(const HloInstruction* copy) {
  auto all_to_all = [](const HloInstruction* i) {
    std::optional<CollectiveFamily> f = CollectiveFamilyOf(*i);
    return f && *f == CollectiveFamily::kAllToAll;
  };
  auto passes = [](const HloInstruction* i) {
    return i->opcode() == HloOpcode::kBitcast || i->opcode() == HloOpcode::kReshape;
  };
  const HloInstruction* v = copy->operand_count() > 0 ? copy->operand(0) : nullptr;
  for (int k = 0; k < 4 && v; ++k) {
    if (all_to_all(v)) return v;
    if (v->opcode() == HloOpcode::kGetTupleElement && v->operand_count() > 0 && all_to_all(v->operand(0)))
      return v->operand(0);
    v = passes(v) && v->operand_count() > 0 ? v->operand(0) : nullptr;
  }
  v = copy;
  for (int k = 0; k < 4 && v->users().size() == 1; ++k) {
    const HloInstruction* u = v->users()[0];
    if (all_to_all(u)) return u;
    if (!passes(u)) break;
    v = u;
  }
  return nullptr;
}

std::optional<Match> LayoutChange(const Evidence& e) {
  if (e.copy.copy_class != CopyClass::kLayoutChange) return std::nullopt;
  if (const HloInstruction* a2a = AllToAllBeside(e.site.copy.instruction))
    return Match{CauseRule::kReshardTranspose, LayoutFacts{a2a}, {}};
  return Match{CauseRule::kLayoutChange, LayoutFacts{}, {}};
}

std::optional<Match> MemorySpaceMove(const Evidence& e) {
  if (e.copy.copy_class != CopyClass::kMemorySpaceMove) return std::nullopt;
  return Match{CauseRule::kMemorySpaceMove,
               MemorySpaceFacts{MemorySpaceOf(e.copy.source_shape), MemorySpaceOf(e.copy.shape)},
               {}};
}

// The array `value` is a dynamic-slice of: the operand of a dynamic-slice,
// or of a fusion whose root is one (behind bitcasts) taking a fused
// parameter directly (XLA:CPU's wrapped_dynamic-slice).
HloPosition SlicedFrom(const HloPosition& value) {
  const HloInstruction* kernel = value.instruction;
  if (!kernel || !value.index.empty()) return {};
  if (kernel->opcode() == HloOpcode::kDynamicSlice) return DefiningPosition(kernel->operand(0));
  const HloComputation* fused = kernel->fused_computation();
  const HloInstruction* root = fused ? fused->root_instruction() : nullptr;
  while (root && root->opcode() == HloOpcode::kBitcast) root = root->operand(0);
  if (!root || root->opcode() != HloOpcode::kDynamicSlice) return {};
  const HloInstruction* array = root->operand(0);
  if (array->opcode() != HloOpcode::kParameter) return {};
  return DefiningPosition(kernel->operand(array->parameter_number()));
}

// The copy is the operand of an in-place pair whose result has another
// shape or layout (XLA fused the reshape after the update into its
// kernel). XLA's CanShareOperandBufferWithUser lets a result take its
// operand's buffer only when the two shapes are equal, layouts included,
// so copy insertion's special-case pass puts this copy back ("adding back
// copy") whether or not anything else reads the value. Permissions (TPU's
// aliasing_operands, which XLA may decline) and declared aliasing are left
// to the other rules.
std::optional<Match> ReshapedUpdate(const Evidence& e) {
  for (const HloUse& use : UsesOf(e.me)) {
    // The copy itself is the operand (special-case copies are made right
    // at the use): not behind a bitcast, and not the start of a loop whose
    // body updates the carry (that gets its own copy in the body).
    if (use.user->operand(use.operand_number) != e.me.instruction) continue;
    for (const InPlacePair& p : e.ctx.PairsOf(use.user)) {
      if (p.operand_number != use.operand_number || p.operand_index != use.operand_index || p.permission ||
          p.annotated)
        continue;
      const Shape* operand = use.user->operand(p.operand_number)->shape().Subshape(p.operand_index);
      const Shape* result = use.user->shape().Subshape(p.output_index);
      if (!operand || !result || !operand->IsArray() || !result->IsArray() ||
          ShapesEqualWithLayout(*operand, *result))
        continue;
      ReshapedUpdateFacts f{operand, result, SlicedFrom(e.src), std::nullopt};
      if (f.sliced_from.instruction) f.sliced_from_argument = e.ctx.ParameterOrigin(f.sliced_from);
      return Match{CauseRule::kUpdateReshaped, std::move(f), {}};
    }
  }
  return std::nullopt;
}

// The matcher of each family. A switch, so that a family without one does
// not compile (-Werror=switch).
Matcher MatcherOf(CauseFamily family) {
  switch (family) {
    case CauseFamily::kBranch:
      return &ConditionalBranch;
    case CauseFamily::kConstant:
      return &Constant;
    case CauseFamily::kParameter:
      return &EntryParameter;
    case CauseFamily::kShared:
      return &SharedByCarries;
    case CauseFamily::kStaged:
      return &StagedCarry;
    case CauseFamily::kRead:
      return &ReadAfterUpdate;
    case CauseFamily::kCarry:
      return &copy_rules::LoopCarried;
    case CauseFamily::kOldValue:
      return &copy_rules::CarryOldValueRead;
    case CauseFamily::kOutput:
      return &Output;
    case CauseFamily::kLayout:
      return &LayoutChange;
    case CauseFamily::kMemorySpace:
      return &MemorySpaceMove;
    case CauseFamily::kReshaped:
      return &ReshapedUpdate;
  }
  return nullptr;
}

// A reader at its use, with the line of the code that reads: for a fusion,
// the first fused instruction (behind bitcasts, reshapes and tuple
// elements) that reads the operand and has a line. XLA keeps each fused
// instruction's metadata, while the fusion's own is often the enclosing
// `fori_loop`/`scan` call's, or absent.
InstructionAt ReaderAt(const CheckContext& ctx, const HloUse& use) {
  InstructionAt at = ctx.At(use.user);
  const HloComputation* fused =
      use.user->opcode() == HloOpcode::kFusion ? use.user->fused_computation() : nullptr;
  const HloInstruction* operand = fused ? fused->parameter(use.operand_number) : nullptr;
  if (!operand) return at;
  std::vector<const HloInstruction*> pending = {operand};
  for (size_t i = 0; i < pending.size() && i < 64; ++i)
    for (const HloInstruction* user : pending[i]->users()) {
      HloOpcode op = user->opcode();
      if (op == HloOpcode::kBitcast || op == HloOpcode::kReshape || op == HloOpcode::kGetTupleElement) {
        pending.push_back(user);
        continue;
      }
      std::optional<SourceLocation> source = ctx.Source(user);
      if (source && !source->file.empty() && source->via == SourceVia::kMetadata) {
        at.source = std::move(source);
        return at;
      }
    }
  return at;
}

// The readers of the old contents: of the protected value and of every
// copy in the chain, except the next link of the chain; and the non-copy
// readers of copies made from this one (copy of a copy), which need the
// old contents too.
std::vector<InstructionAt> OldContentReaders(const CheckContext& ctx, const HloPosition& me,
                                             const HloPosition& src, const std::vector<HloPosition>& chain) {
  std::vector<InstructionAt> readers;
  std::set<const HloInstruction*> seen;
  auto collect = [&](const HloPosition& value, const HloInstruction* next_link) {
    for (const HloUse& use : UsesOf(value)) {
      if (use.user == next_link || use.user->opcode() == HloOpcode::kCopy) continue;
      if (seen.insert(use.user).second) readers.push_back(ReaderAt(ctx, use));
    }
  };
  collect(src, chain.back().instruction);
  for (size_t i = chain.size(); i-- > 1;) collect(chain[i], chain[i - 1].instruction);
  HloPosition newest = me;
  for (int step = 0; step < 16; ++step) {
    const HloInstruction* next = nullptr;
    for (const HloUse& use : UsesOf(newest))
      if (use.user->opcode() == HloOpcode::kCopy) next = use.user;
    if (!next) break;
    collect(newest, next);
    newest = {next, {}};
  }
  return readers;
}

}  // namespace

CopySubject SubjectOf(const CopyFinding& copy, bool feeds_or_returns) {
  switch (copy.copy_class) {
    case CopyClass::kLayoutChange:
      return CopySubject::kLayout;
    case CopyClass::kMemorySpaceMove:
      // A move into another memory space (TPU's copy-start to S(1)) is also
      // a copy: when the moved buffer is then updated in place, starts a
      // loop state the loop overwrites, or is returned, while the original
      // must stay intact, the move *is* the protective copy and has that
      // copy's cause ("not donated", "read after update"); the memory space
      // is detail. Any other move is a prefetch or an eviction.
      return feeds_or_returns ? CopySubject::kProtectingMove : CopySubject::kMove;
    case CopyClass::kProtective:
      return CopySubject::kCopy;
  }
  return CopySubject::kCopy;
}

void ExplainCopy(const CheckContext& ctx, const CopySite& site, CopyFinding* copy) {
  // Walk back through the chain of copies to the value being protected.
  HloPosition me = site.copy;
  std::vector<HloPosition> chain = {me};  // copy positions, newest first
  HloPosition src = DefiningPosition(site.source, site.source_index);
  for (int step = 0; step < 16; ++step) {
    const CopySite* c = ctx.CopyAt(src);
    if (!c) break;
    chain.push_back(src);
    src = DefiningPosition(c->source, c->source_index);
  }
  copy->copied_from = src;

  Evidence e{ctx, site, *copy, me, src, {}, {}, site.copy.instruction->parent(), {}, false};
  e.role = RoleOf(*e.comp);
  e.in_loop = e.role == ComputationRole::kWhileBody || !ctx.counts().EnclosingLoops(e.comp).empty();
  CauseFacts& facts = copy->cause;
  facts = CauseFacts{};
  facts.in_loop = e.in_loop;
  if (!copy->feeds.empty()) {
    facts.feed = copy->feeds.front();
    if (facts.feed->kind == CopyFeed::Kind::kUpdate && facts.feed->update.instruction) {
      std::optional<SourceLocation> source = ctx.Source(facts.feed->update.instruction);
      if (source && !source->file.empty()) facts.feed_source = std::move(source);
    }
  }
  // Layout copies need no dataflow evidence.
  if (copy->copy_class != CopyClass::kLayoutChange) {
    e.readers = OldContentReaders(ctx, me, src, chain);
    ReachesEntryOutput(me, &e.outputs);
    facts.readers = e.readers;
  }
  CopySubject subject = SubjectOf(*copy, e.feeds() || !e.outputs.empty());
  // The catalog's rows in order; each family's matcher runs at most once
  // (at its first row tried for this subject), and its answer counts only
  // if the rule it names is tried for this subject too.
  uint32_t tried = 0;
  for (const RuleEntry& row : RuleCatalog()) {
    uint32_t bit = 1u << static_cast<unsigned>(row.family);
    if (!row.TriedFor(subject) || (tried & bit)) continue;
    tried |= bit;
    std::optional<Match> m = MatcherOf(row.family)(e);
    if (!m) continue;
    const RuleEntry* matched = EntryOf(m->rule);
    if (!matched || !matched->TriedFor(subject)) continue;
    facts.rule = m->rule;
    facts.cause = matched->cause;
    facts.payload = std::move(m->payload);
    if (m->readers) facts.readers = std::move(*m->readers);
    return;
  }
  facts.rule = CauseRule::kNone;
  facts.cause = CopyCause::kUnknown;
}

}  // namespace hloscope
