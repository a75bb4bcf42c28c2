#include "whole_reads.h"

#include <algorithm>
#include <optional>

#include "hloscope/analysis/collective_traffic.h"
#include "hloscope/analysis/kernel_opcodes.h"

namespace hloscope {
namespace {

const HloInstruction* BehindReshapes(const HloInstruction* v) {
  while ((v->opcode() == HloOpcode::kBitcast || v->opcode() == HloOpcode::kConvert ||
          v->opcode() == HloOpcode::kReshape) &&
         v->operand_count() == 1)
    v = v->operand(0);
  return v;
}

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

// Where `kernel` puts its operand `k` updated in place: -1 its whole
// output, e >= 0 element e of a multi-output fusion's tuple; nullopt when it
// does not update that operand in place.
std::optional<int64_t> InPlaceOutput(const HloInstruction* kernel, int64_t k) {
  switch (kernel->opcode()) {
    case HloOpcode::kDynamicUpdateSlice:
    case HloOpcode::kScatter:
      if (k == 0) return -1;
      return std::nullopt;
    case HloOpcode::kFusion: {
      const HloComputation* fused = kernel->fused_computation();
      const HloInstruction* param = fused ? fused->parameter(k) : nullptr;
      if (!param) return std::nullopt;
      auto updates_param = [&](const HloInstruction* v) {
        v = BehindReshapes(v);
        return (v->opcode() == HloOpcode::kDynamicUpdateSlice || v->opcode() == HloOpcode::kScatter) &&
               v->operand_count() > 0 && BehindReshapes(v->operand(0)) == param;
      };
      const HloInstruction* root = fused->root_instruction();
      if (updates_param(root)) return -1;
      if (root->opcode() == HloOpcode::kTuple)
        for (int64_t e = 0; e < root->operand_count(); ++e)
          if (updates_param(root->operand(e))) return e;
      return std::nullopt;
    }
    default:
      return std::nullopt;
  }
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

}  // namespace

std::vector<WholeRead> WholeReadsOfCarry(const HloComputation* body, int64_t j) {
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
        if (std::optional<int64_t> e = InPlaceOutput(user, k)) {
          if (*e < 0) follow(user);
          for (const HloInstruction* g : user->users())
            if (*e >= 0 && g->opcode() == HloOpcode::kGetTupleElement && g->tuple_index() == *e) follow(g);
          continue;
        }
        if (op == HloOpcode::kConvert) follow(user);  // read whole, and its result too
        // Collectives (in every form) are the loop's collective entries; an
        // opcode this version does not know, or an async wrapper, is not
        // claimed to read anything whole.
        if (!IsKernel(*user) || IsCollective(*user) || op == HloOpcode::kUnknown ||
            op == HloOpcode::kAsyncStart || !ReadsOperandWhole(user, k))
          continue;
        bool seen = std::any_of(out.begin(), out.end(), [&](const WholeRead& r) { return r.kernel == user; });
        if (!seen) out.push_back({user, v});
      }
    }
  }
  return out;
}

}  // namespace hloscope
