// Loops: what one iteration of each while moves — the copies inside it,
// and the loop-carried state rewritten in full (a body root element that
// is neither passed through, nor a copy, nor produced by a chain of
// in-place updates on the carry).
#include <algorithm>

#include "check_context.h"
#include "hloscope/analysis/collectives.h"
#include "hloscope/support/saturating.h"
#include "whole_reads.h"

namespace hloscope {
namespace {

// Is this array a buffer the loop works on by slices: read by a
// dynamic-slice or gather, or updated by a dynamic-update-slice or
// scatter — directly, inside a fusion, a nested loop or a branch, or through
// a copy or bitcast of it? Then a copy or full rewrite of it every iteration
// is O(buffer) work where the program asked for O(slice): the per-step cost
// grows with the buffer. An array the iteration reads whole anyway (an
// optimizer's weights, a 12-byte RNG state) is rewritten at the cost the
// program itself sets. Static slices do not count: jax.random's threefry
// loops take their u32[4] key words apart with `slice` and swap them between
// carries every iteration — fixed-size work, not a buffer (a swap of two big
// arrays looks the same in HLO, so swapped carries are not flagged either).
class SliceAccess {
 public:
  bool Of(const HloInstruction* value, int depth = 0) {
    if (!value || depth > 8 || visited_.size() > 4096) return false;
    if (std::find(visited_.begin(), visited_.end(), value) != visited_.end()) return false;
    visited_.push_back(value);
    if (ProducedByUpdate(value)) return true;
    for (const HloInstruction* user : value->users()) {
      switch (user->opcode()) {
        case HloOpcode::kDynamicSlice:
        case HloOpcode::kGather:
        case HloOpcode::kDynamicUpdateSlice:
        case HloOpcode::kScatter:
          if (user->operand(0) == value) return true;
          break;
        case HloOpcode::kBitcast:
        case HloOpcode::kCopy:
        case HloOpcode::kConvert:  // a bf16 buffer is updated in f32 between converts
          if (Of(user, depth + 1)) return true;
          break;
        case HloOpcode::kFusion:
          for (int64_t k = 0; k < user->operand_count(); ++k)
            if (user->operand(k) == value && user->fused_computation() &&
                Of(user->fused_computation()->parameter(k), depth + 1))
              return true;
          break;
        case HloOpcode::kConditional:
          // Operand k+1 is branch k's argument.
          for (int64_t k = 1; k < user->operand_count(); ++k) {
            if (user->operand(k) != value) continue;
            size_t branch = 0;
            for (const CalledComputation& cc : user->called_computations()) {
              if (cc.role != CallRole::kBranch && cc.role != CallRole::kTrueComputation &&
                  cc.role != CallRole::kFalseComputation)
                continue;
              if (static_cast<int64_t>(branch++) == k - 1 && cc.computation &&
                  Of(cc.computation->parameter(0), depth + 1))
                return true;
            }
          }
          break;
        case HloOpcode::kTuple:
          // An element of a nested loop's state: its carry in that body.
          for (const HloInstruction* t : user->users()) {
            if (t->opcode() != HloOpcode::kWhile || !t->while_body()) continue;
            for (int64_t m = 0; m < user->operand_count(); ++m)
              if (user->operand(m) == value && Carry(t->while_body(), m, depth + 1)) return true;
          }
          break;
        default:
          break;
      }
    }
    // A tuple-shaped value (a branch or nested body parameter): its
    // elements are what is sliced.
    if (value->shape().IsTuple())
      for (const HloInstruction* user : value->users())
        if (user->opcode() == HloOpcode::kGetTupleElement && Of(user, depth + 1)) return true;
    return false;
  }

  // The value is the result of a slice update: a dynamic-update-slice or
  // scatter, or a fusion whose root is one (behind bitcasts and converts).
  static bool ProducedByUpdate(const HloInstruction* value) {
    const HloInstruction* v = value;
    if (v->opcode() == HloOpcode::kFusion && v->fused_computation())
      v = v->fused_computation()->root_instruction();
    while ((v->opcode() == HloOpcode::kBitcast || v->opcode() == HloOpcode::kConvert) &&
           v->operand_count() == 1)
      v = v->operand(0);
    return v->opcode() == HloOpcode::kDynamicUpdateSlice || v->opcode() == HloOpcode::kScatter;
  }

  // A kernel that rewrites the carry `old` as select(iota == i, new, old):
  // a one-row update written as a whole-buffer `jnp.where`; or as
  // old + one_hot(i) * x (old - …): a scatter-add written with a one-hot
  // mask, zero everywhere but row i. The select (the add) must produce the
  // kernel's result and take the carry's old value as an operand (behind
  // bitcasts), and the add's other operand must be built from an
  // `iota == index` mask; an iota and a select elsewhere in the kernel — a
  // solver's stage array built with `where` — do not make one.
  static bool MaskedUpdate(const HloInstruction* kernel, const HloPosition& old) {
    const HloComputation* fused = kernel ? kernel->fused_computation() : nullptr;
    if (!fused) return false;
    bool iota = false;
    for (const HloInstruction* i : fused->instructions()) iota |= i->opcode() == HloOpcode::kIota;
    if (!iota) return false;
    const HloInstruction* root = fused->root_instruction();
    while (root->opcode() == HloOpcode::kBitcast && root->operand_count() == 1) root = root->operand(0);
    auto is_old = [&](const HloInstruction* v) {
      while (v->opcode() == HloOpcode::kBitcast && v->operand_count() == 1) v = v->operand(0);
      if (v->opcode() != HloOpcode::kParameter) return false;
      int64_t k = v->parameter_number();
      return k < kernel->operand_count() && DefiningPosition(kernel->operand(k), {}) == old;
    };
    if (root->opcode() == HloOpcode::kSelect && root->operand_count() == 3)
      return is_old(root->operand(1)) || is_old(root->operand(2));
    if ((root->opcode() == HloOpcode::kAdd || root->opcode() == HloOpcode::kSubtract) &&
        root->operand_count() == 2)
      for (int64_t b = 0; b < 2; ++b)
        if (is_old(root->operand(b)) && OneHotMasked(root->operand(1 - b))) return true;
    return false;
  }

  // `v` is zero but where an `iota == index` mask holds: a product (or a
  // select against zero) with one factor made from such a compare (behind
  // broadcasts, converts, bitcasts), looked for two products deep.
  static bool OneHotMasked(const HloInstruction* v) {
    auto through = [](const HloInstruction* x) {
      while ((x->opcode() == HloOpcode::kBitcast || x->opcode() == HloOpcode::kBroadcast ||
              x->opcode() == HloOpcode::kConvert || x->opcode() == HloOpcode::kReshape) &&
             x->operand_count() == 1)
        x = x->operand(0);
      return x;
    };
    auto iota_compare = [&](const HloInstruction* x) {
      x = through(x);
      if (x->opcode() != HloOpcode::kCompare || x->operand_count() != 2) return false;
      std::optional<std::string_view> dir = x->attribute("direction");
      if (!dir || *dir != "EQ") return false;
      return through(x->operand(0))->opcode() == HloOpcode::kIota ||
             through(x->operand(1))->opcode() == HloOpcode::kIota;
    };
    v = through(v);
    if (v->opcode() == HloOpcode::kMultiply && v->operand_count() == 2)
      return iota_compare(v->operand(0)) || iota_compare(v->operand(1)) ||
             OneHotProduct(v->operand(0), iota_compare) || OneHotProduct(v->operand(1), iota_compare);
    if (v->opcode() == HloOpcode::kSelect && v->operand_count() == 3) return iota_compare(v->operand(0));
    return false;
  }
  // One level more: (mask * a) * b.
  template <typename F>
  static bool OneHotProduct(const HloInstruction* v, const F& iota_compare) {
    while ((v->opcode() == HloOpcode::kBitcast || v->opcode() == HloOpcode::kBroadcast) &&
           v->operand_count() == 1)
      v = v->operand(0);
    return v->opcode() == HloOpcode::kMultiply && v->operand_count() == 2 &&
           (iota_compare(v->operand(0)) || iota_compare(v->operand(1)));
  }

  // The array at a position: a tuple-shaped value (a loop body's
  // parameter) is followed into its element only, not into its siblings.
  bool OfPosition(const HloPosition& pos, int depth = 0) {
    if (pos.index.empty()) return Of(pos.instruction, depth);
    if (!pos.instruction || depth > 8) return false;
    for (const HloInstruction* user : pos.instruction->users()) {
      if (user->opcode() != HloOpcode::kGetTupleElement || user->tuple_index() != pos.index[0]) continue;
      HloPosition inner{user, ShapeIndex(pos.index.begin() + 1, pos.index.end())};
      if (OfPosition(inner, depth + 1)) return true;
    }
    return false;
  }

  // Carry j of a loop body: the get-tuple-elements of its parameter.
  bool Carry(const HloComputation* body, int64_t j, int depth = 0) {
    const HloInstruction* param = body ? body->parameter(0) : nullptr;
    if (!param) return false;
    for (const HloInstruction* user : param->users())
      if (user->opcode() == HloOpcode::kGetTupleElement && user->tuple_index() == j && Of(user, depth))
        return true;
    return false;
  }

 private:
  std::vector<const HloInstruction*> visited_;
};

// A rewrite claim against the dump: the value that rewrites the carry and
// the carry itself must be listed at one allocation and offset.
void ConfirmRewrite(const CheckContext& ctx, const HloPosition& value, const HloPosition& carry,
                    Confirmation* c) {
  const BufferAssignment* ba = ctx.buffer_assignment();
  if (!ba) return;
  c->subject = ctx.ListedValue(value);
  c->object = ctx.ListedValue(carry);
  c->subject_slice = ba->SliceOf(c->subject.instruction->name(), c->subject.index);
  c->object_slice = ba->SliceOf(c->object.instruction->name(), c->object.index);
  if (!c->subject_slice || !c->object_slice) {
    c->basis = Confirmation::Basis::kNotListed;
    return;
  }
  c->basis = Confirmation::Basis::kSlicesCompared;
  c->confirmed = c->subject_slice->allocation == c->object_slice->allocation &&
                 c->subject_slice->offset == c->object_slice->offset;
}

// Walks back from `cur` through what writes into its operand's buffer:
// in-place pairs (dynamic-update-slice, scatter, aliasing custom calls),
// nested whiles (copy insertion makes a while's state its operand's
// buffers), and conditionals and calls whose every branch (the callee)
// returns, at that index, its parameter's value through such a chain — a
// `lax.cond` with an updating and a pass-through branch updates the carry
// in place, it does not rewrite it. Returns where the walk stops; `moved`
// says whether it took a step.
HloPosition FollowInPlace(const CheckContext& ctx, HloPosition cur, bool* moved, int depth = 0) {
  for (int step = 0; step < 64 && depth < 8; ++step) {
    const HloInstruction* i = cur.instruction;
    if (i->opcode() == HloOpcode::kWhile && i->operand_count() == 1) {
      *moved = true;
      cur = DefiningPosition(i->operand(0), cur.index);
      continue;
    }
    if (i->opcode() == HloOpcode::kConditional || i->opcode() == HloOpcode::kCall) {
      std::optional<HloPosition> next;
      bool agree = true;
      int64_t branch = 0;
      for (const CalledComputation& cc : i->called_computations()) {
        bool is_branch = cc.role == CallRole::kBranch || cc.role == CallRole::kTrueComputation ||
                         cc.role == CallRole::kFalseComputation;
        if (!cc.computation || (i->opcode() == HloOpcode::kConditional) != is_branch) continue;
        int64_t this_branch = branch++;
        bool inner = false;
        HloPosition end = FollowInPlace(ctx, DefiningPosition(cc.computation->root_instruction(), cur.index),
                                        &inner, depth + 1);
        // DefiningPosition crosses from a callee's parameter to the
        // caller's operand by itself; a parameter of the callee is mapped.
        HloPosition from = end;
        if (end.instruction->parent() == cc.computation) {
          int64_t operand = i->opcode() == HloOpcode::kConditional ? this_branch + 1
                            : end.instruction->opcode() == HloOpcode::kParameter
                                ? end.instruction->parameter_number()
                                : -1;
          if (end.instruction->opcode() != HloOpcode::kParameter || operand < 0 ||
              operand >= i->operand_count()) {
            agree = false;
            break;
          }
          from = DefiningPosition(i->operand(operand), end.index);
        }
        if (next && !(*next == from)) agree = false;
        next = from;
      }
      // Every branch must hand back the same operand value (a branch that
      // returns something else rewrites the carry).
      if (!agree || !next || *next == cur) break;
      *moved = true;
      cur = *next;
      continue;
    }
    const InPlacePair* pp = nullptr;
    for (const InPlacePair& p : ctx.PairsOf(i))
      if (p.output_index == cur.index) pp = &p;
    if (!pp) break;
    *moved = true;
    cur = DefiningPosition(i->operand(pp->operand_number), pp->operand_index);
  }
  return cur;
}

// Every carry with its init and update (LoopCarry).
std::vector<LoopCarry> LoopCarries(const CheckContext& ctx, const HloInstruction* w) {
  std::vector<LoopCarry> out;
  const HloComputation* body = w->while_body();
  if (!w->shape().IsTuple() || w->operand_count() != 1 || !body) return out;
  const HloInstruction* root = body->root_instruction();
  const HloInstruction* param = body->parameter(0);
  for (size_t j = 0; j < w->shape().tuple_shapes.size(); ++j) {
    LoopCarry c;
    c.index = static_cast<int64_t>(j);
    c.shape = w->shape().tuple_shapes[j];
    c.bytes = ByteSizeOf(*c.shape);
    ShapeIndex at{c.index};
    HloPosition init = DefiningPosition(w->operand(0), at);
    for (int step = 0; step < 16; ++step) {
      const CopySite* copy = ctx.CopyAt(init);
      if (!copy) break;
      if (!c.init_copy) c.init_copy = copy->copy.instruction;
      init = DefiningPosition(copy->source, copy->source_index);
    }
    c.init = ctx.At(init.instruction);
    if (std::optional<HloPosition> p = ctx.ParameterOrigin({w->operand(0), at})) {
      c.parameter = p->instruction;
      c.parameter_index = p->index;
    }
    if (root->opcode() == HloOpcode::kTuple && c.index < root->operand_count()) {
      HloPosition d = DefiningPosition(root->operand(c.index), {});
      if (!(d.instruction == param && d.index == at)) c.update = ctx.At(d.instruction);
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

LoopFinding AnalyzeLoop(const CheckContext& ctx, const HloInstruction* w,
                        const std::vector<CopyFinding>& copies,
                        const std::vector<CollectiveFinding>& collectives) {
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
  l.carries = LoopCarries(ctx, w);
  // The loop's buffer: the largest carry it touches at run-time positions
  // (dynamic slices, gathers, in-place updates). Per-step state beside it —
  // an environment's 2 KiB board next to a 4 MiB replay buffer, a counter —
  // does not grow with the buffer even when the step indexes it and
  // rewrites it whole, so the growth flags are raised only for arrays that
  // are comparable to the buffer (at least 1/8 of its bytes) or share its
  // longest dimension (a replay buffer's narrow `reward[capacity]` field
  // beside `obs[capacity, 16]`): docs/analysis.md, "Loops".
  const HloInstruction* param = body->parameter(0);
  auto carry_shape = [&](int64_t j) -> const Shape* {
    const Shape* state = param ? &param->shape() : nullptr;
    if (!state || !state->IsTuple() || j < 0 || j >= static_cast<int64_t>(state->tuple_shapes.size()))
      return nullptr;
    return state->tuple_shapes[j];
  };
  auto longest = [](const Shape* shape) -> int64_t {
    int64_t n = 0;
    if (shape && !shape->IsTuple())
      for (int64_t d : shape->dimensions) n = std::max(n, d);
    return n;
  };
  int64_t buffer_bytes = 0, buffer_longest = 0;
  for (int64_t j = 0; carry_shape(j); ++j) {
    SliceAccess access;
    int64_t bytes = ByteSizeOf(*carry_shape(j)).value_or(0);
    if (bytes > buffer_bytes && access.Carry(body, j)) {
      buffer_bytes = bytes;
      buffer_longest = longest(carry_shape(j));
    }
  }
  auto comparable = [&](const Shape* shape) {
    std::optional<int64_t> bytes = shape ? ByteSizeOf(*shape) : std::nullopt;
    if (!bytes) return false;
    return SatMul(*bytes, 8) >= buffer_bytes || (buffer_longest > 1 && longest(shape) == buffer_longest);
  };
  // Copies per iteration: copies whose enclosing loops include this while.
  // A copy runs once per iteration of this loop times the trip counts of
  // the loops between it and this one — whatever this loop's own trip count
  // and its callers' (a data-dependent while_loop still has per-iteration
  // bytes: what the user needs most there).
  std::optional<int64_t> copy_bytes = 0;
  for (const CopyFinding& c : copies) {
    if (std::find(c.enclosing_loops.begin(), c.enclosing_loops.end(), w) == c.enclosing_loops.end()) continue;
    std::optional<int64_t> per_iteration_runs = counts.RunsPerIteration(c.enclosing_loops, w);
    if (!c.bytes || !per_iteration_runs) {
      copy_bytes = std::nullopt;
      break;
    }
    SatAccumulate(&copy_bytes, SatMul(*c.bytes, *per_iteration_runs));
    if (!c.minor) {
      LoopScaling s;
      s.kind = LoopScaling::Kind::kCopy;
      s.copy = c.copy;
      s.shape = c.shape;
      s.bytes = c.bytes;
      // The copy's array: the copy itself (an update on it), and what it
      // copies (a carry of this loop, or a value of the body).
      SliceAccess access;
      s.grows_with_buffer =
          (access.Of(c.copy.instruction) || access.OfPosition(c.copied_from)) && comparable(c.shape);
      l.scaling.push_back(s);
    }
  }
  l.copy_bytes_per_iteration = copy_bytes;
  int64_t rewrite = 0;
  const HloInstruction* root = body->root_instruction();
  if (root->opcode() == HloOpcode::kTuple && param) {
    for (int64_t j = 0; j < root->operand_count(); ++j) {
      HloPosition d = DefiningPosition(root->operand(j), {});
      if (d.instruction == param && d.index == ShapeIndex{j}) continue;  // passed through
      if (ctx.CopyAt(d)) continue;                                       // counted as a copy
      // Walk back through in-place updates on the same buffer.
      bool in_place_chain = false;
      FollowInPlace(ctx, d, &in_place_chain);
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
        SliceAccess access;
        sc.grows_with_buffer =
            (access.Carry(body, j) || SliceAccess::MaskedUpdate(d.instruction, HloPosition{param, {j}})) &&
            comparable(&s);
        ConfirmRewrite(ctx, d, HloPosition{param, {j}}, &sc.confirmation);
        l.scaling.push_back(sc);
      }
    }
  }
  l.rewrite_bytes_per_iteration = rewrite;
  // Kernels that read the loop's buffer whole every iteration (whole_reads.h):
  // the step's work grows with the buffer although nothing is copied or
  // rewritten (attention over a whole KV cache, a sort of a priority
  // buffer). Only carries the loop indexes at run-time positions and that
  // are comparable to its buffer are followed, as for rewrites; a kernel
  // that rewrites the same carry is that rewrite already. An array made
  // afresh inside an enclosing loop's step (not carried in from it) and
  // filled by this loop is that step's workspace (a Runge-Kutta solver's
  // stage array, read whole to combine the stages): its size is the
  // algorithm's, not a buffer the program keeps, so it is not followed.
  // Filled: one of its dimensions is the loop's trip count (a row per
  // stage). A KV cache made in each step of a lax.map, far longer than the
  // decode loop that writes it, is read whole with every row it has, filled
  // or not: it is followed.
  auto workspace = [&](int64_t j) {
    for (const LoopCarry& c : l.carries) {
      if (c.index != j) continue;
      if (c.parameter || !c.init.instruction || c.init.instruction->opcode() == HloOpcode::kParameter ||
          counts.EnclosingLoops(c.init.instruction->parent()).empty())
        return false;
      const Shape* shape = carry_shape(j);
      return !l.trip_count || !shape->IsArray() ||
             std::find(shape->dimensions.begin(), shape->dimensions.end(), *l.trip_count) !=
                 shape->dimensions.end();
    }
    return false;
  };
  for (int64_t j = 0; carry_shape(j); ++j) {
    SliceAccess access;
    if (carry_shape(j)->IsTuple() || !comparable(carry_shape(j)) || !access.Carry(body, j) || workspace(j))
      continue;
    for (const WholeRead& read : WholeReadsOfCarry(ctx, body, j)) {
      const HloInstruction* kernel = read.kernel;
      bool rewrite_of_carry = std::any_of(l.scaling.begin(), l.scaling.end(), [&](const LoopScaling& s) {
        return s.kind == LoopScaling::Kind::kCarryRewritten && s.carry == j &&
               s.rewritten_by.instruction == kernel;
      });
      if (rewrite_of_carry) continue;
      LoopScaling sc;
      sc.kind = LoopScaling::Kind::kWholeRead;
      sc.carry = j;
      sc.kernel = kernel;
      sc.slice = read.slice;
      sc.for_op = read.served.op;
      sc.source = read.served.op ? (read.served.line_of ? ctx.Source(read.served.line_of) : std::nullopt)
                                 : ctx.Source(kernel);
      sc.shape = &read.array->shape();
      sc.bytes = ByteSizeOf(read.array->shape());
      sc.grows_with_buffer = true;
      l.scaling.push_back(sc);
    }
  }
  // Collectives per iteration, as copies are counted.
  std::optional<int64_t> collective_bytes = 0;
  for (const CollectiveFinding& c : collectives) {
    if (std::find(c.enclosing_loops.begin(), c.enclosing_loops.end(), w) == c.enclosing_loops.end()) continue;
    std::optional<int64_t> runs = counts.RunsPerIteration(c.enclosing_loops, w);
    SatAccumulate(&collective_bytes, SatMul(c.bytes, runs));
    LoopScaling sc;
    sc.kind = LoopScaling::Kind::kCollective;
    sc.collective = c.instruction;
    sc.shape = c.shape;
    sc.bytes = c.bytes;
    // It grows with buffer size when it gathers a buffer to index it, or
    // moves a carry whole around the devices (a ring, a pipeline stage, a
    // re-shard and back) that is the loop's buffer or comparable to it: in
    // a loop that indexes a buffer at run-time positions (a KV cache, a
    // replay buffer), a carry under 1/8 of that buffer (the decode step's
    // activations) is not taken to grow with it.
    sc.grows_with_buffer = c.cause.cause == CollectiveCause::kDynamicIndex;
    // Partial sums follow the contraction's output, which the rules
    // cannot relate to a buffer: not claimed.
    if (!sc.grows_with_buffer && c.enclosing_loops.front() == w &&
        c.cause.cause != CollectiveCause::kReduction) {
      for (int64_t j : CarriesMovedWhole(c, body)) sc.grows_with_buffer |= comparable(carry_shape(j));
    }
    l.scaling.push_back(sc);
  }
  if (!collectives.empty()) l.collective_bytes_per_iteration = collective_bytes;
  l.scales_with_buffer = std::any_of(l.scaling.begin(), l.scaling.end(),
                                     [](const LoopScaling& s) { return s.grows_with_buffer; });
  return l;
}

}  // namespace hloscope
