// Why a copy exists: the evidence around it (the chain of copies, the
// other readers of the value it protects, what it feeds, whether it is
// returned) and the table of rules that read that evidence, in order.
// The rules state facts (CauseFacts); report/wording.cc words them.
#include "hloscope/analysis/copy_causes.h"

#include <algorithm>
#include <array>
#include <set>

#include "check_context.h"
#include "hloscope/analysis/call_graph.h"

namespace hloscope {
namespace {

// Everything the rules look at, computed once per copy.
struct Evidence {
  const CheckContext& ctx;
  const CopySite& site;
  const CopyFinding& copy;
  HloPosition me;                      // the copy's own result
  HloPosition src;                     // the value protected (behind the chain)
  std::vector<InstructionAt> readers;  // other readers of the old contents
  std::vector<ShapeIndex> outputs;     // entry outputs the copy reaches
  const HloComputation* comp = nullptr;
  ComputationRole role = ComputationRole::kEntry;
  bool in_loop = false;

  bool feeds() const { return !copy.feeds.empty(); }
  const HloInstruction* s() const { return src.instruction; }
};

using RuleFn = bool (*)(const Evidence&, CauseFacts*);

void Set(CauseFacts* f, CauseRule rule) {
  f->rule = rule;
  f->cause = CauseOf(rule);
}

// -- the rules, in table order ------------------------------------------------

bool LayoutOrMemorySpace(const Evidence& e, CauseFacts* f) {
  if (e.copy.copy_class == CopyClass::kLayoutChange)
    Set(f, CauseRule::kLayoutChange);
  else if (e.copy.copy_class == CopyClass::kMemorySpaceMove)
    Set(f, CauseRule::kMemorySpaceMove);
  else
    return false;
  return true;
}

// Inside a conditional branch: the branch either updates the array it was
// handed (which the conditional's operand must keep intact), or passes it
// on, and every branch must leave its result in the one output buffer of
// the conditional (copy_insertion AddCopiesForConditional).
bool ConditionalBranch(const Evidence& e, CauseFacts* f) {
  if (e.role != ComputationRole::kBranch) return false;
  f->branch = e.comp;
  f->conditional = e.comp->callers().empty() ? nullptr : e.comp->callers()[0];
  if (e.feeds())
    Set(f, CauseRule::kBranchUpdatesOperand);
  else if (e.s()->opcode() == HloOpcode::kParameter || e.s() == e.comp->parameter(0))
    Set(f, CauseRule::kBranchPassthrough);
  else
    Set(f, CauseRule::kBranchResult);
  return true;
}

bool Constant(const Evidence& e, CauseFacts* f) {
  if (e.s()->opcode() != HloOpcode::kConstant) return false;
  Set(f, e.feeds() ? CauseRule::kConstantUpdated : CauseRule::kConstantReturned);
  return true;
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
bool DonatedBufferRewritten(const Evidence& e, const HloInstruction* param, CauseFacts* f) {
  if (!e.copy.feeds.empty() || !e.outputs.empty()) return false;
  const HloInstruction* root = e.comp->root_instruction();
  for (const InputOutputAlias& a : e.ctx.module().input_output_aliases()) {
    if (a.parameter_number != param->parameter_number() || a.parameter_index != e.src.index) continue;
    HloPosition written = DefiningPosition(root, a.output_index);
    if (!written.instruction || written.instruction == param || written.instruction == e.me.instruction)
      continue;
    std::vector<InstructionAt> unordered, ordered;
    for (const HloUse& use : UsesOf(e.me)) {
      if (use.user == written.instruction) continue;
      bool first = std::none_of(unordered.begin(), unordered.end(),
                                [&](const InstructionAt& r) { return r.instruction == use.user; }) &&
                   std::none_of(ordered.begin(), ordered.end(),
                                [&](const InstructionAt& r) { return r.instruction == use.user; });
      if (!first) continue;
      (DependsOn(written.instruction, use.user) ? ordered : unordered).push_back(e.ctx.At(use.user));
    }
    if (unordered.empty() && ordered.empty()) continue;
    Set(f, CauseRule::kDonatedParameterRewritten);
    f->new_value = written;
    f->writer = e.ctx.At(written.instruction);
    f->outputs = {a.output_index};
    f->aliased_parameter = a.parameter_number;
    f->readers = unordered;
    f->readers.insert(f->readers.end(), ordered.begin(), ordered.end());
    f->old_value_readers.clear();
    for (const InstructionAt& r : unordered) f->old_value_readers.push_back(r.instruction);
    return true;
  }
  return false;
}

// An entry argument: read-only unless aliased with an output
// (IsReadonlyEntryParameterValue). A writable one is still copied when
// something reads its old contents after the update.
bool EntryParameter(const Evidence& e, CauseFacts* f) {
  const HloInstruction* s = e.s();
  if (s->opcode() != HloOpcode::kParameter || !s->parent()->is_entry() || !e.comp->is_entry()) return false;
  f->donation = DonationOf(e.ctx.module(), s->parameter_number(), e.src.index);
  if (!IsWritableDonation(f->donation)) {
    Set(f, CauseRule::kNonDonatedParameter);
    return true;
  }
  if (!e.readers.empty() && (e.feeds() || !e.outputs.empty())) {
    Set(f, CauseRule::kDonatedParameterRead);
    return true;
  }
  return DonatedBufferRewritten(e, s, f);
}

// The copy starts a loop's state, and the value it copies starts other
// carries too — of the same loop (XLA's CSE merges identical jnp.zeros /
// broadcasts) or of sibling loops (two jax.random loops from one key):
// every carry needs a buffer of its own (AddCopiesForWhile copies each
// init), so all but one get a copy, once per run of the loops.
bool SharedByCarries(const Evidence& e, CauseFacts* f) {
  const HloInstruction* my_loop = nullptr;
  int64_t my_carry = -1;
  for (const HloUse& use : UsesOf(e.me))
    if (use.user->opcode() == HloOpcode::kWhile && use.operand_index.size() == 1) {
      my_loop = use.user;
      my_carry = use.operand_index[0];
      break;
    }
  if (!my_loop) return false;
  // Every carry the value starts, directly or through copies of it.
  std::vector<std::pair<const HloInstruction*, int64_t>> starts;
  std::vector<HloPosition> pending = {e.src};
  for (size_t i = 0; i < pending.size() && i < 64; ++i)
    for (const HloUse& use : UsesOf(pending[i])) {
      if (use.user->opcode() == HloOpcode::kWhile && use.operand_index.size() == 1) {
        std::pair<const HloInstruction*, int64_t> start{use.user, use.operand_index[0]};
        if (std::find(starts.begin(), starts.end(), start) == starts.end()) starts.push_back(start);
      } else if (use.user->opcode() == HloOpcode::kCopy) {
        pending.push_back({use.user, {}});
      }
    }
  if (starts.size() < 2) return false;
  Set(f, CauseRule::kSharedByCarries);
  f->loop = my_loop;
  f->carry = my_carry;
  for (const auto& [loop, carry] : starts) {
    f->shared_loops.push_back(loop);
    f->shared_carries.push_back(carry);
  }
  return true;
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

bool ReadAfterUpdate(const Evidence& e, CauseFacts* f) {
  if (e.readers.empty()) {
    // A carry passed through by this loop's body, copied to start a nested
    // loop that overwrites it: the pass-through is the read of the original.
    if (!PassedThroughCarry(e)) return false;
    for (const HloUse& use : UsesOf(e.me)) {
      if (use.user->opcode() != HloOpcode::kWhile) continue;
      Set(f, CauseRule::kReadAfterLoopInit);
      f->loop = use.user;
      f->readers = {e.ctx.At(e.comp->root_instruction())};
      return true;
    }
    return false;
  }
  if (e.feeds()) {
    Set(f, CauseRule::kReadAfterUpdate);
    return true;
  }
  // Feeding a while init whose original is read after the loop.
  for (const HloUse& use : UsesOf(e.me)) {
    if (use.user->opcode() != HloOpcode::kWhile) continue;
    Set(f, CauseRule::kReadAfterLoopInit);
    f->loop = use.user;
    return true;
  }
  return false;
}

// A collective-permute (sync, or the done of a start) never writes into its
// operand's buffer (XLA's CanShareOperandBufferWithUser: the send still
// reads it while the receive lands), so a carry it produces arrives in a
// second buffer and is copied back into the carry's own every iteration.
bool ReceivedByCollectivePermute(const HloInstruction& s) {
  return s.opcode() == HloOpcode::kCollectivePermute || s.opcode() == HloOpcode::kCollectivePermuteDone;
}

// Loop-carried state (AddCopiesForWhile): where the copy goes in the body
// root, and where it comes from.
bool LoopCarried(const Evidence& e, CauseFacts* f) {
  if (e.role != ComputationRole::kWhileBody) return false;
  const HloInstruction* root = e.comp->root_instruction();
  std::optional<int64_t> dest_j;
  if (root->opcode() == HloOpcode::kTuple)
    for (int64_t j = 0; j < root->operand_count(); ++j)
      if (DefiningPosition(root->operand(j), {}) == e.me) dest_j = j;
  if (!dest_j) return false;
  const HloInstruction* s = e.s();
  bool src_is_param = s->opcode() == HloOpcode::kParameter && s->parent() == e.comp;
  f->carry = dest_j;
  if (src_is_param && !e.src.index.empty() && e.src.index[0] != *dest_j) {
    Set(f, CauseRule::kCarriesSwapped);
    f->other_carry = e.src.index[0];
  } else if (src_is_param) {
    Set(f, CauseRule::kCarryPassedOnLive);
  } else if (ReceivedByCollectivePermute(*s)) {
    Set(f, CauseRule::kCarryPermuted);
  } else {
    Set(f, CauseRule::kCarryRebuilt);
  }
  return true;
}

// A copy of a carry whose slot gets a new value this iteration: the old
// value is still read after the new one is produced (typically the loop
// counter read by the body after `i + 1` is computed).
bool CarryOldValueRead(const Evidence& e, CauseFacts* f) {
  const HloInstruction* s = e.s();
  if (e.role != ComputationRole::kWhileBody || s->opcode() != HloOpcode::kParameter ||
      s->parent() != e.comp || e.src.index.empty())
    return false;
  HloPosition next = DefiningPosition(e.comp->root_instruction(), {e.src.index[0]});
  if (next == HloPosition{s, {e.src.index[0]}}) return false;
  Set(f, CauseRule::kCarryOldValueRead);
  f->carry = e.src.index[0];
  f->new_value = next;
  for (const HloUse& use : UsesOf(e.me)) f->old_value_readers.push_back(use.user);
  return true;
}

bool Output(const Evidence& e, CauseFacts* f) {
  if (e.outputs.empty()) return false;
  f->outputs = e.outputs;
  std::set<ShapeIndex> distinct(e.outputs.begin(), e.outputs.end());
  if (distinct.size() > 1) {
    Set(f, CauseRule::kOutputDuplicated);
    return true;
  }
  // Is the protected value itself also an output (at another index)?
  std::vector<ShapeIndex> src_outputs;
  if (ReachesEntryOutput(e.src, &src_outputs) && !src_outputs.empty()) {
    Set(f, CauseRule::kOutputAlsoReturned);
    f->other_output = src_outputs.front();
    return true;
  }
  for (const InputOutputAlias& a : e.ctx.module().input_output_aliases()) {
    if (a.output_index != e.outputs.front()) continue;
    Set(f, CauseRule::kOutputAliasing);
    f->aliased_parameter = a.parameter_number;
    return true;
  }
  if (e.s()->opcode() == HloOpcode::kParameter) {
    Set(f, CauseRule::kOutputPassthrough);
    return true;
  }
  return false;
}

// -- the table ----------------------------------------------------------------

constexpr std::array kLayoutRules = {CauseRule::kLayoutChange, CauseRule::kMemorySpaceMove};
constexpr std::array kBranchRules = {CauseRule::kBranchUpdatesOperand, CauseRule::kBranchPassthrough,
                                     CauseRule::kBranchResult};
constexpr std::array kConstantRules = {CauseRule::kConstantUpdated, CauseRule::kConstantReturned};
constexpr std::array kParameterRules = {CauseRule::kNonDonatedParameter, CauseRule::kDonatedParameterRead,
                                        CauseRule::kDonatedParameterRewritten};
constexpr std::array kSharedRules = {CauseRule::kSharedByCarries};
constexpr std::array kReadRules = {CauseRule::kReadAfterUpdate, CauseRule::kReadAfterLoopInit};
constexpr std::array kCarryRules = {CauseRule::kCarriesSwapped, CauseRule::kCarryPassedOnLive,
                                    CauseRule::kCarryPermuted, CauseRule::kCarryRebuilt};
constexpr std::array kOldValueRules = {CauseRule::kCarryOldValueRead};
constexpr std::array kOutputRules = {CauseRule::kOutputDuplicated, CauseRule::kOutputAlsoReturned,
                                     CauseRule::kOutputAliasing, CauseRule::kOutputPassthrough};

struct Step {
  CauseRuleGroup group;
  RuleFn fn;
};

const std::array<Step, 9> kSteps = {{
    {{"layout or memory space", kLayoutRules}, &LayoutOrMemorySpace},
    {{"conditional branch", kBranchRules}, &ConditionalBranch},
    {{"constant", kConstantRules}, &Constant},
    {{"entry parameter", kParameterRules}, &EntryParameter},
    {{"shared value", kSharedRules}, &SharedByCarries},
    {{"read after update", kReadRules}, &ReadAfterUpdate},
    {{"loop carry", kCarryRules}, &LoopCarried},
    {{"carry's old value read", kOldValueRules}, &CarryOldValueRead},
    {{"output", kOutputRules}, &Output},
}};

const std::array<CauseRuleGroup, kSteps.size()>& Groups() {
  static const std::array<CauseRuleGroup, kSteps.size()> groups = [] {
    std::array<CauseRuleGroup, kSteps.size()> g;
    for (size_t i = 0; i < kSteps.size(); ++i) g[i] = kSteps[i].group;
    return g;
  }();
  return groups;
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
      if (seen.insert(use.user).second) readers.push_back(ctx.At(use.user));
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

std::span<const CauseRuleGroup> CauseRuleTable() { return Groups(); }

CopyCause CauseOf(CauseRule rule) {
  switch (rule) {
    case CauseRule::kLayoutChange:
      return CopyCause::kLayoutChange;
    case CauseRule::kMemorySpaceMove:
      return CopyCause::kMemorySpaceMove;
    case CauseRule::kBranchUpdatesOperand:
    case CauseRule::kBranchPassthrough:
    case CauseRule::kBranchResult:
      return CopyCause::kConditionalBranch;
    case CauseRule::kConstantUpdated:
      return CopyCause::kConstantUpdated;
    case CauseRule::kConstantReturned:
      return CopyCause::kOutputPassthrough;
    case CauseRule::kNonDonatedParameter:
      return CopyCause::kNonDonatedParameter;
    case CauseRule::kSharedByCarries:
      return CopyCause::kSharedValue;
    case CauseRule::kDonatedParameterRead:
    case CauseRule::kDonatedParameterRewritten:
    case CauseRule::kReadAfterUpdate:
    case CauseRule::kReadAfterLoopInit:
      return CopyCause::kReadAfterUpdate;
    case CauseRule::kCarriesSwapped:
    case CauseRule::kCarryPassedOnLive:
    case CauseRule::kCarryRebuilt:
    case CauseRule::kCarryPermuted:
    case CauseRule::kCarryOldValueRead:
      return CopyCause::kLoopCarriedLive;
    case CauseRule::kOutputDuplicated:
    case CauseRule::kOutputAlsoReturned:
      return CopyCause::kOutputDuplicated;
    case CauseRule::kOutputAliasing:
      return CopyCause::kOutputAliasing;
    case CauseRule::kOutputPassthrough:
      return CopyCause::kOutputPassthrough;
    case CauseRule::kNone:
      return CopyCause::kUnknown;
  }
  return CopyCause::kUnknown;
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
  // Rules that do not match may leave facts behind (a donation kind):
  // the fallback starts from this again.
  auto fresh = [&] {
    facts = CauseFacts{};
    facts.in_loop = e.in_loop;
    if (!copy->feeds.empty()) facts.feed = copy->feeds.front();
  };
  fresh();
  // Layout copies need no dataflow evidence.
  if (copy->copy_class == CopyClass::kLayoutChange) {
    LayoutOrMemorySpace(e, &facts);
    return;
  }
  e.readers = OldContentReaders(ctx, me, src, chain);
  ReachesEntryOutput(me, &e.outputs);
  facts.readers = e.readers;
  if (copy->copy_class == CopyClass::kMemorySpaceMove) {
    // A move into another memory space (TPU's copy-start to S(1)) is also a
    // copy: when the moved buffer is then updated in place, starts a loop
    // state the loop overwrites, or is returned, while the original must
    // stay intact, the move *is* the protective copy and has that copy's
    // cause ("not donated", "read after update"); the memory space is
    // detail. Any other move is a prefetch or an eviction.
    if (e.feeds() || !e.outputs.empty())
      for (RuleFn fn : {&ConditionalBranch, &Constant, &EntryParameter, &ReadAfterUpdate})
        if (fn(e, &facts)) return;
    fresh();
    facts.readers = e.readers;
    LayoutOrMemorySpace(e, &facts);
    return;
  }
  for (size_t i = 1; i < kSteps.size(); ++i)
    if (kSteps[i].fn(e, &facts)) return;
  facts.rule = CauseRule::kNone;
  facts.cause = CopyCause::kUnknown;
}

}  // namespace hloscope
