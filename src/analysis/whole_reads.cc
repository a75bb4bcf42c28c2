#include "whole_reads.h"

#include <algorithm>
#include <optional>

#include "hloscope/analysis/collective_traffic.h"
#include "hloscope/analysis/kernel_opcodes.h"
#include "hloscope/analysis/served_op.h"

namespace hloscope {
namespace {

// Inside a fusion: does this value get read whole? Not when every use
// takes slices of it or updates it in place; elementwise steps in between
// (bitcast, reshape, convert, copy) are computed only for the elements the
// slice takes.
bool ReadWholeInFusion(const HloInstruction* value, int depth = 0) {
  if (depth > 8) return true;
  for (const HloInstruction* user : value->users()) {
    switch (user->opcode()) {
      case HloOpcode::kBitcast:
      case HloOpcode::kReshape:
      case HloOpcode::kConvert:
      case HloOpcode::kCopy:
        if (ReadWholeInFusion(user, depth + 1)) return true;
        break;
      case HloOpcode::kSlice:
      case HloOpcode::kDynamicSlice:
      case HloOpcode::kGather:
      case HloOpcode::kDynamicUpdateSlice:
      case HloOpcode::kScatter:
        if (user->operand(0) != value) return true;
        break;
      case HloOpcode::kFusion:  // TPU nests fusions: the slice may be inside
        for (int64_t k = 0; k < user->operand_count(); ++k) {
          if (user->operand(k) != value) continue;
          const HloComputation* nested = user->fused_computation();
          const HloInstruction* p = nested ? nested->parameter(k) : nullptr;
          if (!p || ReadWholeInFusion(p, depth + 1)) return true;
        }
        break;
      default:
        return true;
    }
  }
  return false;
}

// The in-place pair by which `kernel` updates its (array) operand `k`, by
// the same pairs the update verdicts use (XLA's in-place rules; a TPU
// permission its buffer assignment declined is not one), with the result
// its whole output ({}) or one element of a multi-output fusion's tuple
// ({e}); nullptr when it does not update that operand in place.
const InPlacePair* InPlacePairOf(const CheckContext& ctx, const HloInstruction* kernel, int64_t k) {
  for (const InPlacePair& pair : ctx.PairsOf(kernel))
    if (pair.operand_number == k && pair.operand_index.empty() && pair.output_index.size() <= 1) return &pair;
  return nullptr;
}

// A collective in any form: its own opcode, an async wrapper, or a TPU
// fusion around one (the collective's start, continuation or done kernel).
bool IsCollective(const HloInstruction& instr) {
  if (IsCollectiveKernelOpcode(instr.opcode()) || CollectiveFamilyOf(instr)) return true;
  if (const HloComputation* fused = instr.fused_computation())
    for (const HloInstruction* i : fused->instructions())
      if (CollectiveFamilyOf(*i)) return true;
  return false;
}

bool ReadsOperandWhole(const HloInstruction* kernel, int64_t k) {
  switch (kernel->opcode()) {
    case HloOpcode::kSlice:
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kGather:
    case HloOpcode::kDynamicUpdateSlice:
    case HloOpcode::kScatter:
      return k != 0;
    case HloOpcode::kFusion: {
      const HloComputation* fused = kernel->fused_computation();
      const HloInstruction* p = fused ? fused->parameter(k) : nullptr;
      return p && ReadWholeInFusion(p);
    }
    default:
      return true;
  }
}

// The dimensions the in-place update `pair` of `kernel`'s operand `k`
// writes a part of at a run-time position (a KV cache's row), in that
// operand's dims: a dynamic-update-slice, alone or fused, whose update is
// shorter than the array along the dimension and whose start there is not
// a constant; empty when the update is not such a one.
std::vector<bool> RowWrittenDims(const InPlacePair& pair, const HloInstruction* kernel, int64_t k) {
  const HloInstruction* dus = pair.fused_update ? pair.fused_update : kernel;
  if (dus->opcode() != HloOpcode::kDynamicUpdateSlice || dus->operand_count() < 2) return {};
  const Shape& array = dus->operand(0)->shape();
  const Shape& update = dus->operand(1)->shape();
  // In the operand's own dims only (not behind a bitcast inside a fusion).
  if (!array.IsArray() || !update.IsArray() || array.rank() != update.rank() ||
      dus->operand_count() != 2 + array.rank() || array.dimensions != kernel->operand(k)->shape().dimensions)
    return {};
  std::vector<bool> dims(array.rank(), false);
  for (int64_t d = 0; d < array.rank(); ++d)
    dims[d] =
        update.dimensions[d] < array.dimensions[d] && dus->operand(2 + d)->opcode() != HloOpcode::kConstant;
  return dims;
}

// The dynamic-slice through which `kernel` reads its operand `k`: the kernel
// itself, or one taking the fused parameter directly; nullptr otherwise.
const HloInstruction* DynamicSliceOf(const HloInstruction* kernel, int64_t k) {
  if (kernel->opcode() == HloOpcode::kDynamicSlice) return k == 0 ? kernel : nullptr;
  const HloComputation* fused = kernel->fused_computation();
  const HloInstruction* p = fused ? fused->parameter(k) : nullptr;
  if (!p) return nullptr;
  for (const HloInstruction* u : p->users())
    if (u->opcode() == HloOpcode::kDynamicSlice && u->operand(0) == p) return u;
  return nullptr;
}

// The op a relayout, or a kernel without a line of its own, serves.
ServedOp ServedBy(const CheckContext& ctx, const HloInstruction* kernel) {
  return ServedOpOf(*kernel, [&ctx](const HloInstruction& i) { return ctx.Source(&i); });
}

}  // namespace

std::vector<WholeRead> WholeReadsOfCarry(const CheckContext& ctx, const HloComputation* body, int64_t j) {
  std::vector<WholeRead> out;
  const HloInstruction* param = body->parameter(0);
  if (!param) return out;
  std::vector<const HloInstruction*> values;
  auto follow = [&](const HloInstruction* v) {
    if (values.size() < 256 && std::find(values.begin(), values.end(), v) == values.end())
      values.push_back(v);
  };
  for (const HloInstruction* user : param->users())
    if (user->opcode() == HloOpcode::kGetTupleElement && user->tuple_index() == j) follow(user);
  // Slices taken with dynamic-slice, kept until every row-written dimension
  // is known: {kernel, the slice, the value it slices}.
  struct SliceRead {
    const HloInstruction* kernel;
    const HloInstruction* slice;
    const HloInstruction* value;
  };
  std::vector<SliceRead> slices;
  std::vector<std::pair<std::vector<int64_t>, std::vector<bool>>> row_written;  // dims -> dims written by row
  for (size_t i = 0; i < values.size(); ++i) {
    const HloInstruction* v = values[i];
    for (const HloInstruction* user : v->users()) {
      if (user->parent() != body) continue;
      for (int64_t k = 0; k < user->operand_count(); ++k) {
        if (user->operand(k) != v) continue;
        HloOpcode op = user->opcode();
        if (op == HloOpcode::kBitcast || op == HloOpcode::kCopy) {
          follow(user);
          continue;
        }
        // An asynchronous copy (a prefetch to another memory space) is a copy
        // finding of its own.
        if (op == HloOpcode::kCopyStart || op == HloOpcode::kCopyDone) continue;
        if (const InPlacePair* pair = InPlacePairOf(ctx, user, k)) {
          if (std::vector<bool> rows = RowWrittenDims(*pair, user, k); !rows.empty() && v->shape().IsArray())
            row_written.push_back({v->shape().dimensions, std::move(rows)});
          const ShapeIndex& e = pair->output_index;
          if (e.empty()) follow(user);
          for (const HloInstruction* g : user->users())
            if (!e.empty() && g->opcode() == HloOpcode::kGetTupleElement && g->tuple_index() == e[0])
              follow(g);
          continue;
        }
        if (op == HloOpcode::kConvert) follow(user);  // read whole, and its result too
        // Collectives (in every form) are the loop's collective entries; an
        // opcode this version does not know, or an async wrapper, is not
        // claimed to read anything whole.
        if (!IsKernel(*user) || IsCollective(*user) || op == HloOpcode::kUnknown ||
            op == HloOpcode::kAsyncStart)
          continue;
        if (!ReadsOperandWhole(user, k)) {
          if (const HloInstruction* ds = DynamicSliceOf(user, k)) slices.push_back({user, ds, v});
          continue;
        }
        bool seen = std::any_of(out.begin(), out.end(), [&](const WholeRead& r) { return r.kernel == user; });
        if (!seen) out.push_back({user, v, false, ServedBy(ctx, user)});
      }
    }
  }
  // A slice that spans, in full, a dimension the loop writes a row of at a
  // run-time position reads every row of it (a layer of a stacked KV cache,
  // `cache[l]`, of which step t wrote row t): it grows with the buffer as a
  // whole read does. A row or a fixed window of that dimension does not.
  for (const SliceRead& r : slices) {
    if (!r.value->shape().IsArray() || !r.slice->shape().IsArray()) continue;
    const std::vector<int64_t>& dims = r.value->shape().dimensions;
    const std::vector<int64_t>& taken = r.slice->shape().dimensions;
    if (taken.size() != dims.size()) continue;
    bool spans = false;
    for (const auto& [written_dims, rows] : row_written)
      if (written_dims == dims)
        for (size_t d = 0; d < dims.size(); ++d) spans |= rows[d] && taken[d] == dims[d] && dims[d] > 1;
    bool seen = std::any_of(out.begin(), out.end(), [&](const WholeRead& w) { return w.kernel == r.kernel; });
    if (spans && !seen) out.push_back({r.kernel, r.slice, true, ServedBy(ctx, r.kernel)});
  }
  return out;
}

}  // namespace hloscope
