// Update verdicts: every in-place pair (in place, or in place on a copy),
// and every fused dynamic-update-slice/scatter that is not one (out of
// place when the fusion writes it out, not materialized when the kernel
// consumes it). With XLA's buffer assignment each verdict is confirmed or
// contradicted (same allocation and offset <=> same memory).
#include <map>
#include <set>

#include "check_context.h"
#include "hloscope/analysis/call_graph.h"
#include "hloscope/support/saturating.h"

namespace hloscope {
namespace {

// An in-place verdict against the dump: the update's output and its
// operand's value must have the same allocation and offset.
void ConfirmInPlace(const CheckContext& ctx, const HloPosition& output, const HloPosition& operand_value,
                    UpdateFinding* u) {
  const BufferAssignment* ba = ctx.buffer_assignment();
  if (!ba) return;
  Confirmation& c = u->confirmation;
  c.subject = ctx.ListedValue(output);
  c.object = ctx.ListedValue(operand_value);
  c.subject_slice = ba->SliceOf(c.subject.instruction->name(), c.subject.index);
  c.object_slice = ba->SliceOf(c.object.instruction->name(), c.object.index);
  if (!c.subject_slice || !c.object_slice) {
    c.basis = Confirmation::Basis::kNotListed;
    return;
  }
  c.basis = Confirmation::Basis::kSlicesCompared;
  bool shares = c.subject_slice->allocation == c.object_slice->allocation &&
                c.subject_slice->offset == c.object_slice->offset;
  c.confirmed = shares;  // every verdict that reaches here claims sharing
}

class UpdateFinder {
 public:
  explicit UpdateFinder(const CheckContext& ctx) : ctx_(ctx) {}

  std::vector<UpdateFinding> Run() {
    for (const HloComputation* comp : ctx_.module().computations()) {
      if (!IsSequentialRole(RoleOf(*comp))) continue;
      for (const HloInstruction* instr : comp->instructions()) {
        AddPairs(instr);
        if (instr->opcode() == HloOpcode::kFusion) AddFusedUpdates(instr);
      }
    }
    return std::move(out_);
  }

 private:
  void AddPairs(const HloInstruction* instr);
  std::optional<HloPosition> CopyUnderChain(HloPosition value) const;
  void AddFusedUpdates(const HloInstruction* fusion);
  void ConfirmOutOfPlace(const HloInstruction* fusion, const ShapeIndex& out, UpdateFinding* u) const;

  const CheckContext& ctx_;
  std::vector<UpdateFinding> out_;
};

// The copy under a chain of in-place updates: back from `value` through
// the updates that wrote it (each in place on the previous one's result)
// to the first, when that one runs on a copy.
std::optional<HloPosition> UpdateFinder::CopyUnderChain(HloPosition value) const {
  for (int step = 0; step < 16 && value.instruction; ++step) {
    const InPlacePair* pair = nullptr;
    for (const InPlacePair& p : ctx_.PairsOf(value.instruction))
      if (p.output_index == value.index && p.operand_number < value.instruction->operand_count()) pair = &p;
    if (!pair) return std::nullopt;
    HloPosition operand{value.instruction->operand(pair->operand_number), pair->operand_index};
    if (const CopySite* copy = ctx_.CopyUnder(operand)) return copy->copy;
    value = DefiningPosition(operand.instruction, operand.index);
  }
  return std::nullopt;
}

void UpdateFinder::AddPairs(const HloInstruction* instr) {
  bool fusion = instr->opcode() == HloOpcode::kFusion;
  for (const InPlacePair& p : ctx_.PairsOf(instr)) {
    if (p.operand_number >= instr->operand_count()) continue;
    UpdateFinding u;
    u.site = CheckContext::SiteOf(instr, p);
    if (const Shape* out = instr->shape().Subshape(p.output_index)) u.buffer_bytes = ByteSizeOf(*out);
    HloPosition operand{instr->operand(p.operand_number), p.operand_index};
    HloPosition value = DefiningPosition(operand.instruction, operand.index);
    u.operand = value;
    if (const CopySite* copy = ctx_.CopyUnder(operand)) {
      u.verdict = UpdateVerdict::kInPlaceOnCopy;
      u.runs_on = copy->copy;
      u.copy_of = DefiningPosition(copy->source, copy->source_index);
    } else {
      u.verdict = UpdateVerdict::kInPlace;
      u.shares_copy = CopyUnderChain(value);
    }
    u.full_rewrite = fusion && p.fused_update && FusionRewritesInFull(*instr, *p.fused_update);
    u.bytes_written = u.full_rewrite ? u.buffer_bytes : UpdateBytesOf(*u.site.instruction);
    if (!u.bytes_written && !p.fused_update) u.bytes_written = u.buffer_bytes;
    u.executions = ctx_.counts().Of(instr);
    u.enclosing_loops = ctx_.counts().EnclosingLoops(instr->parent());
    u.executions_upper_bound = ctx_.counts().IsUpperBound(instr->parent());
    u.source = ctx_.Source(u.site.instruction);
    if (!u.source) u.source = ctx_.Source(instr);
    ConfirmInPlace(ctx_, {instr, p.output_index}, value, &u);
    out_.push_back(std::move(u));
  }
}

// Out of place: confirmed when the fusion's output shares no operand's
// slice. XLA may still put that output in the slice of an operand that dies
// there (may-alias reuse of an element-wise fusion): same memory, but every
// byte is rewritten — the claim "no in-place pair" still holds.
void UpdateFinder::ConfirmOutOfPlace(const HloInstruction* fusion, const ShapeIndex& out,
                                     UpdateFinding* u) const {
  const BufferAssignment* ba = ctx_.buffer_assignment();
  if (!ba) return;
  Confirmation& c = u->confirmation;
  c.subject = {fusion, out};
  c.subject_slice = ba->SliceOf(fusion->name(), out);
  if (!c.subject_slice) {
    c.basis = Confirmation::Basis::kOutputNotListed;
    return;
  }
  c.confirmed = true;
  c.basis = Confirmation::Basis::kOwnSlice;
  for (const HloInstruction* o : fusion->operands()) {
    HloPosition v = DefiningPosition(o, {});
    std::optional<Slice> s = ba->SliceOf(v.instruction->name(), v.index);
    if (s && s->allocation == c.subject_slice->allocation && s->offset == c.subject_slice->offset) {
      c.basis = Confirmation::Basis::kReusedDyingOperand;
      c.object = v;
      c.object_slice = s;
    }
  }
}

// Updates inside a fusion that are not in-place pairs: either the fusion's
// output (a full new buffer: out of place) or consumed inside the kernel
// (never written to memory: not materialized).
void UpdateFinder::AddFusedUpdates(const HloInstruction* fusion) {
  const HloComputation* fused = fusion->fused_computation();
  if (!fused) return;
  std::set<const HloInstruction*> paired;
  for (const InPlacePair& p : ctx_.PairsOf(fusion))
    if (p.fused_update) paired.insert(p.fused_update);
  // Which fused instructions are outputs (through tuple / bitcast)?
  std::map<const HloInstruction*, ShapeIndex> outputs;
  std::vector<std::pair<const HloInstruction*, ShapeIndex>> work = {{fused->root_instruction(), {}}};
  while (!work.empty()) {
    auto [node, idx] = work.back();
    work.pop_back();
    if (node->opcode() == HloOpcode::kTuple) {
      for (int64_t i = 0; i < node->operand_count(); ++i) {
        ShapeIndex sub = idx;
        sub.push_back(i);
        work.push_back({node->operand(i), sub});
      }
    } else if (node->opcode() == HloOpcode::kBitcast && node->operand_count() == 1) {
      work.push_back({node->operand(0), idx});
    } else {
      outputs.emplace(node, idx);
    }
  }
  const BufferAssignment* ba = ctx_.buffer_assignment();
  for (const HloInstruction* inner : fused->instructions()) {
    // Nested fusions: their updates count as part of this kernel.
    if (inner->opcode() == HloOpcode::kFusion) continue;
    if (!IsUpdateOpcode(inner->opcode()) || paired.count(inner)) continue;
    UpdateFinding u;
    u.site = {inner, fusion, {}};
    // The array it updates, a value inside the kernel (or a fused parameter).
    if (inner->operand_count() > 0) u.operand = {inner->operand(0), {}};
    u.buffer_bytes = ByteSizeOf(inner->shape());
    u.executions = ctx_.counts().Of(fusion);
    u.enclosing_loops = ctx_.counts().EnclosingLoops(fusion->parent());
    u.executions_upper_bound = ctx_.counts().IsUpperBound(fusion->parent());
    u.source = ctx_.Source(inner);
    auto out = outputs.find(inner);
    if (out == outputs.end()) {
      // The updated array may still be written out in full after element-
      // wise work (e.g. convert(dus(convert(p))) for bf16 buffers).
      std::vector<const HloInstruction*> frontier = {inner};
      for (int step = 0; step < 64 && !frontier.empty() && out == outputs.end(); ++step) {
        const HloInstruction* n = frontier.back();
        frontier.pop_back();
        for (const HloInstruction* user : n->users()) {
          HloOpcode op = user->opcode();
          bool carries = IsElementwiseOpcode(op) || op == HloOpcode::kBitcast || op == HloOpcode::kReshape ||
                         op == HloOpcode::kTranspose || op == HloOpcode::kCopy;
          if (!carries) continue;
          auto it = outputs.find(user);
          if (it != outputs.end()) {
            out = it;
            break;
          }
          frontier.push_back(user);
        }
      }
    }
    if (out != outputs.end()) {
      // The buffer written is the fusion's output (e.g. bf16), not the
      // fused update's own shape (the f32 it computes in).
      u.site.output_index = out->second;
      if (const Shape* written = fusion->shape().Subshape(out->second)) u.buffer_bytes = ByteSizeOf(*written);
      u.verdict = UpdateVerdict::kOutOfPlace;
      u.bytes_written = u.buffer_bytes;
      ConfirmOutOfPlace(fusion, out->second, &u);
    } else {
      u.verdict = UpdateVerdict::kNotMaterialized;
      u.bytes_written = 0;
      if (ba) {
        bool listed = ba->SliceOf(inner->name(), {}).has_value();
        u.confirmation.confirmed = !listed;
        u.confirmation.basis = listed ? Confirmation::Basis::kListed : Confirmation::Basis::kNoBuffer;
        u.confirmation.subject = {inner, {}};
      }
    }
    out_.push_back(std::move(u));
  }
}

}  // namespace

std::vector<UpdateFinding> FindUpdates(const CheckContext& ctx) { return UpdateFinder(ctx).Run(); }

}  // namespace hloscope
