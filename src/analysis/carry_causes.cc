// The rules of loop-carried state (copy_insertion's AddCopiesForWhile): a
// copy in a while body's root that puts a new value into its carry's
// buffer, and a copy of a carry whose old value is still read after the
// new one is made. The catalog rows are cause_catalog.def's "loop
// carries"; copy_causes.cc runs the families in the catalog's order.
#include <cstdint>

#include "cause_evidence.h"
#include "hloscope/analysis/dataflow.h"
#include "hloscope/analysis/in_place.h"

namespace hloscope::copy_rules {
namespace {

// A collective-permute (sync, or the done of a start) never writes into its
// operand's buffer (XLA's CanShareOperandBufferWithUser: the send still
// reads it while the receive lands), so a carry it produces arrives in a
// second buffer and is copied back into the carry's own every iteration.
// Returns the instruction that receives it (the sync op or the -done: the
// value an async pair receives is defined at the -start's element {1}).
const HloInstruction* ReceivedByCollectivePermute(const HloInstruction& s) {
  if (s.opcode() == HloOpcode::kCollectivePermute || s.opcode() == HloOpcode::kCollectivePermuteDone)
    return &s;
  if (s.opcode() == HloOpcode::kCollectivePermuteStart)
    for (const HloInstruction* u : s.users())
      if (u->opcode() == HloOpcode::kCollectivePermuteDone) return u;
  return nullptr;
}

// The nested loop whose result the carry's new value is, when that loop
// scans over the old value and stacks the new one: lax.scan with the array
// as xs and its new value as ys. The nested body passes the old value
// through unchanged in one carry (xs, read by slices) and writes the new
// one by an in-place update of another (ys, a row per step); both are live
// in the nested loop, so the new value is built beside the old one and
// copied back. A nested loop that computes a new value from the old one
// any other way (an iterative solver keeping its start) is not one.
const HloInstruction* ScanOverOldValue(const Evidence& e, int64_t j) {
  const HloInstruction* loop = e.s();
  if (loop->opcode() != HloOpcode::kWhile || e.src.index.size() != 1 || loop->operand_count() != 1 ||
      !loop->while_body())
    return nullptr;
  const HloComputation* body = loop->while_body();
  const HloInstruction* param = body->parameter(0);
  const HloInstruction* root = body->root_instruction();
  int64_t ys = e.src.index[0];
  // ys: the nested body's new value for that carry is an in-place update of it.
  HloPosition written = DefiningPosition(root, {ys});
  const HloInstruction* update = written.instruction;
  bool stacked = false;
  for (const InPlacePair& p : e.ctx.PairsOf(update)) {
    if (p.output_index != written.index) continue;
    HloPosition into = DefiningPosition(update->operand(p.operand_number), p.operand_index);
    if (const CopySite* c = e.ctx.CopyAt(into)) into = DefiningPosition(c->source, c->source_index);
    stacked |= into == HloPosition{param, {ys}};
  }
  if (!stacked) return nullptr;
  // xs: the old value starts another carry, which the nested body passes through.
  HloPosition old_value{e.comp->parameter(0), {j}};
  const HloInstruction* init = loop->operand(0);
  if (!init->shape().IsTuple()) return nullptr;
  for (int64_t k = 0; k < static_cast<int64_t>(init->shape().tuple_shapes.size()); ++k) {
    if (k == ys || !(DefiningPosition(root, {k}) == HloPosition{param, {k}})) continue;
    HloPosition v = DefiningPosition(init, {k});
    for (int step = 0; step < 4; ++step) {  // behind the copies that start the nested loop
      const CopySite* c = e.ctx.CopyAt(v);
      if (!c) break;
      v = DefiningPosition(c->source, c->source_index);
    }
    if (v == old_value) return loop;
  }
  return nullptr;
}

}  // namespace

// Loop-carried state (AddCopiesForWhile): where the copy goes in the body
// root, and where it comes from.
std::optional<Match> LoopCarried(const Evidence& e) {
  if (e.role != ComputationRole::kWhileBody) return std::nullopt;
  const HloInstruction* root = e.comp->root_instruction();
  std::optional<int64_t> dest_j;
  if (root->opcode() == HloOpcode::kTuple)
    for (int64_t j = 0; j < root->operand_count(); ++j)
      if (DefiningPosition(root->operand(j), {}) == e.me) dest_j = j;
  if (!dest_j) return std::nullopt;
  CarryFacts f;
  f.carry = *dest_j;
  if (e.copy.copy_class == CopyClass::kMemorySpaceMove) {
    // XLA:TPU's memory-space assignment builds a scan's stacked output in
    // another memory space and moves it into the carry: the copy back of a
    // rebuilt carry, made as a move. Any other move into a carry is its
    // choice of where to keep the value, left to the memory-space rules.
    f.scan = ScanOverOldValue(e, *dest_j);
    if (!f.scan) return std::nullopt;
    return Match{CauseRule::kCarryRebuilt, std::move(f), {}};
  }
  const HloInstruction* s = e.s();
  bool src_is_param = s->opcode() == HloOpcode::kParameter && s->parent() == e.comp;
  if (src_is_param && !e.src.index.empty() && e.src.index[0] != *dest_j) {
    f.other_carry = e.src.index[0];
    return Match{CauseRule::kCarriesSwapped, std::move(f), {}};
  }
  if (src_is_param) return Match{CauseRule::kCarryPassedOnLive, std::move(f), {}};
  if (const HloInstruction* received = ReceivedByCollectivePermute(*s)) {
    f.permute = received;
    return Match{CauseRule::kCarryPermuted, std::move(f), {}};
  }
  f.scan = ScanOverOldValue(e, *dest_j);
  return Match{CauseRule::kCarryRebuilt, std::move(f), {}};
}

// A copy of a carry whose slot gets a new value this iteration: the old
// value is still read after the new one is produced (typically the loop
// counter read by the body after `i + 1` is computed).
std::optional<Match> CarryOldValueRead(const Evidence& e) {
  const HloInstruction* s = e.s();
  if (e.role != ComputationRole::kWhileBody || s->opcode() != HloOpcode::kParameter ||
      s->parent() != e.comp || e.src.index.empty())
    return std::nullopt;
  HloPosition next = DefiningPosition(e.comp->root_instruction(), {e.src.index[0]});
  if (next == HloPosition{s, {e.src.index[0]}}) return std::nullopt;
  CarryFacts f;
  f.carry = e.src.index[0];
  f.new_value = next;
  for (const HloUse& use : UsesOf(e.me)) f.old_value_readers.push_back(use.user);
  return Match{CauseRule::kCarryOldValueRead, std::move(f), {}};
}

}  // namespace hloscope::copy_rules
