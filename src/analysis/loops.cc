// Loops: what one iteration of each while moves — the copies inside it,
// and the loop-carried state rewritten in full (a body root element that
// is neither passed through, nor a copy, nor produced by a chain of
// in-place updates on the carry).
#include <algorithm>

#include "check_context.h"
#include "hloscope/support/saturating.h"

namespace hloscope {

LoopFinding AnalyzeLoop(const CheckContext& ctx, const HloInstruction* w,
                        const std::vector<CopyFinding>& copies) {
  const ExecutionCounts& counts = ctx.counts();
  LoopFinding l;
  l.loop = w;
  const TripCount& t = counts.TripCountOf(w);
  l.trip_count = t.count;
  l.trip_count_source = t.source;
  l.executions = counts.Of(w);
  l.enclosing_loops = counts.EnclosingLoops(w->parent());
  l.source = ctx.Source(w);
  const HloComputation* body = w->while_body();
  if (!body) return l;
  std::optional<int64_t> body_runs = counts.Of(body);
  // Copies per iteration: copies whose enclosing loops include this while.
  std::optional<int64_t> copy_bytes = 0;
  for (const CopyFinding& c : copies) {
    if (std::find(c.enclosing_loops.begin(), c.enclosing_loops.end(), w) == c.enclosing_loops.end()) continue;
    if (!c.bytes || !c.executions || !body_runs || *body_runs == 0) {
      copy_bytes = std::nullopt;
      break;
    }
    // A saturated count has lost the ratio: the amount is at least huge.
    int64_t per_iteration_runs =
        IsSaturated(*c.executions) || IsSaturated(*body_runs) ? kSaturated : *c.executions / *body_runs;
    SatAccumulate(&copy_bytes, SatMul(*c.bytes, per_iteration_runs));
    if (!c.scalar) {
      LoopScaling s;
      s.kind = LoopScaling::Kind::kCopy;
      s.copy = c.copy;
      s.shape = c.shape;
      s.bytes = c.bytes;
      l.scaling.push_back(s);
    }
  }
  l.copy_bytes_per_iteration = copy_bytes;
  int64_t rewrite = 0;
  const HloInstruction* root = body->root_instruction();
  const HloInstruction* param = body->parameter(0);
  if (root->opcode() == HloOpcode::kTuple && param) {
    for (int64_t j = 0; j < root->operand_count(); ++j) {
      HloPosition d = DefiningPosition(root->operand(j), {});
      if (d.instruction == param && d.index == ShapeIndex{j}) continue;  // passed through
      if (ctx.CopyAt(d)) continue;                                       // counted as a copy
      // Walk back through in-place updates on the same buffer.
      HloPosition cur = d;
      bool in_place_chain = false;
      for (int step = 0; step < 64; ++step) {
        const InPlacePair* pp = nullptr;
        for (const InPlacePair& p : ctx.PairsOf(cur.instruction))
          if (p.output_index == cur.index) pp = &p;
        if (!pp) break;
        in_place_chain = true;
        cur = DefiningPosition(cur.instruction->operand(pp->operand_number), pp->operand_index);
      }
      if (in_place_chain) continue;
      const Shape& s = root->operand(j)->shape();
      if (s.IsTuple()) continue;
      std::optional<int64_t> b = ByteSizeOf(s);
      if (!b) continue;
      rewrite = SatAdd(rewrite, *b);
      std::optional<int64_t> elements = s.ElementCount();
      if (elements && *elements > 1 && d.instruction->opcode() != HloOpcode::kParameter) {
        LoopScaling sc;
        sc.kind = LoopScaling::Kind::kCarryRewritten;
        sc.carry = j;
        sc.rewritten_by = d;
        sc.shape = &s;
        sc.bytes = b;
        l.scaling.push_back(sc);
      }
    }
  }
  l.rewrite_bytes_per_iteration = rewrite;
  l.scales_with_buffer = !l.scaling.empty();
  return l;
}

}  // namespace hloscope
