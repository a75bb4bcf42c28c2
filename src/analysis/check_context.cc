#include "check_context.h"

#include <algorithm>

#include "hloscope/analysis/call_graph.h"

namespace hloscope {

CheckContext::CheckContext(const HloModule& module, const ExecutionCounts& counts,
                           const CheckOptions& options)
    : module_(module), counts_(counts), options_(options), sites_(FindCopySites(module)) {
  for (size_t i = 0; i < sites_.size(); ++i)
    copy_by_position_[{sites_[i].copy.instruction, sites_[i].copy.index}] = i;
  for (const HloComputation* comp : module.computations()) {
    if (!IsSequentialRole(RoleOf(*comp))) continue;
    for (const HloInstruction* instr : comp->instructions()) {
      std::vector<InPlacePair> pairs = GetInPlaceInputOutputPairs(*instr);
      // TPU's aliasing_operands permit sharing; its buffer assignment, when
      // given, says whether it did (tools/difftest --mesh --target tpu-v4
      // found a kernel listed into a dying predicate that got its own buffer).
      if (options_.buffer_assignment)
        std::erase_if(pairs, [&](const InPlacePair& p) { return p.permission && Declined(*instr, p); });
      if (!pairs.empty()) pairs_.emplace(instr, std::move(pairs));
    }
  }
}

bool CheckContext::Declined(const HloInstruction& instr, const InPlacePair& p) const {
  const BufferAssignment* ba = options_.buffer_assignment;
  HloPosition out = ListedValue({&instr, p.output_index});
  HloPosition in = ListedValue(DefiningPosition(instr.operand(p.operand_number), p.operand_index));
  std::optional<Slice> a = ba->SliceOf(out.instruction->name(), out.index);
  std::optional<Slice> b = ba->SliceOf(in.instruction->name(), in.index);
  return a && b && !(a->allocation == b->allocation && a->offset == b->offset);
}

const CopySite* CheckContext::CopyAt(const HloPosition& pos) const {
  auto it = copy_by_position_.find({pos.instruction, pos.index});
  return it == copy_by_position_.end() ? nullptr : &sites_[it->second];
}

const CopySite* CheckContext::CopyUnder(HloPosition pos) const {
  for (int step = 0; step < 64; ++step) {
    pos = DefiningPosition(pos.instruction, pos.index);
    if (const CopySite* c = CopyAt(pos)) return c;
    HloPosition init = LoopInitOf(pos);
    if (init == pos) return nullptr;
    pos = init;
  }
  return nullptr;
}

std::optional<HloPosition> CheckContext::ParameterOrigin(HloPosition pos) const {
  for (int step = 0; step < 128; ++step) {
    pos = DefiningPosition(pos.instruction, pos.index);
    if (const CopySite* c = CopyAt(pos)) {
      pos = {c->source, c->source_index};
      continue;
    }
    const HloInstruction* i = pos.instruction;
    if (i->opcode() == HloOpcode::kParameter && i->parent()->is_entry()) return pos;
    HloPosition init = LoopInitOf(pos);
    if (init == pos) return std::nullopt;
    pos = init;
  }
  return std::nullopt;
}

const std::vector<InPlacePair>& CheckContext::PairsOf(const HloInstruction* instr) const {
  static const std::vector<InPlacePair> kNone;
  auto it = pairs_.find(instr);
  return it == pairs_.end() ? kNone : it->second;
}

UpdateSite CheckContext::SiteOf(const HloInstruction* owner, const InPlacePair& pair) {
  if (pair.fused_update) return {pair.fused_update, owner, pair.output_index};
  return {owner, nullptr, pair.output_index};
}

std::optional<SourceLocation> CheckContext::Source(const HloInstruction* instr) const {
  return ResolveSource(module_, *instr, options_.source);
}

HloPosition CheckContext::ListedValue(const HloPosition& pos) const {
  const BufferAssignment* ba = options_.buffer_assignment;
  if (!ba) return pos;
  std::vector<HloPosition> work = {pos};
  for (size_t k = 0; k < work.size() && k < 32; ++k) {
    HloPosition p = work[k];
    if (ba->SliceOf(p.instruction->name(), p.index)) return p;
    const HloInstruction* i = p.instruction;
    if (i->opcode() == HloOpcode::kWhile || i->opcode() == HloOpcode::kParameter) {
      HloPosition init = LoopInitOf(p);
      if (!(init == p)) work.push_back(init);
      const HloInstruction* loop = i->opcode() == HloOpcode::kWhile ? i : nullptr;
      if (!loop && !i->parent()->callers().empty() &&
          i->parent()->callers()[0]->opcode() == HloOpcode::kWhile)
        loop = i->parent()->callers()[0];
      if (loop && loop->while_body())
        work.push_back(DefiningPosition(loop->while_body()->root_instruction(), p.index));
    } else if (i->opcode() == HloOpcode::kConditional) {
      for (const CalledComputation& cc : i->called_computations())
        work.push_back(DefiningPosition(cc.computation->root_instruction(), p.index));
    }
  }
  return pos;
}

std::vector<CopyFeed> CheckContext::FeedsOf(const HloPosition& pos) const {
  std::vector<CopyFeed> out;
  CollectFeeds(pos, &out, 0);
  return out;
}

// Depth-first, in use order: the first feed is what the copy is "for" in
// the wording ("updated in place by X", "the initial state of loop W").
void CheckContext::CollectFeeds(const HloPosition& pos, std::vector<CopyFeed>* out, int depth) const {
  if (depth > 8) return;
  auto add = [&](CopyFeed feed) {
    if (std::find(out->begin(), out->end(), feed) == out->end()) out->push_back(std::move(feed));
  };
  for (const HloUse& use : UsesOf(pos)) {
    for (const InPlacePair& p : PairsOf(use.user)) {
      if (p.operand_number != use.operand_number) continue;
      CopyFeed feed;
      feed.kind = CopyFeed::Kind::kUpdate;
      feed.update = SiteOf(use.user, p);
      add(std::move(feed));
    }
    if (use.user->opcode() == HloOpcode::kCopy) CollectFeeds({use.user, {}}, out, depth + 1);
    if (use.user->opcode() == HloOpcode::kWhile && !use.operand_index.empty()) {
      // Loop state: the loop overwrites this carry unless its body passes
      // it through unchanged; inside, it may also be updated in place.
      const HloComputation* body = use.user->while_body();
      const HloInstruction* param = body ? body->parameter(0) : nullptr;
      if (!param) continue;
      HloPosition carry{param, use.operand_index};
      CollectFeeds(carry, out, depth + 1);
      HloPosition next = DefiningPosition(body->root_instruction(), use.operand_index);
      if (!(next == carry)) {
        CopyFeed feed;
        feed.kind = CopyFeed::Kind::kLoopState;
        feed.loop = use.user;
        feed.carry = use.operand_index;
        add(std::move(feed));
      }
    }
  }
}

}  // namespace hloscope
