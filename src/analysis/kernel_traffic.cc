#include "hloscope/analysis/kernel_traffic.h"

#include <algorithm>
#include <vector>

#include "hloscope/analysis/in_place.h"
#include "hloscope/ir/computation.h"
#include "hloscope/support/saturating.h"

namespace hloscope {
namespace {

// The in-place updates a run writes in place: (operand number, output
// index, the fused update).
struct InPlaceWrite {
  int64_t operand_number;
  ShapeIndex output_index;
  const HloInstruction* update;
};

std::vector<InPlaceWrite> InPlaceWrites(const HloInstruction& fusion) {
  std::vector<InPlaceWrite> out;
  for (const InPlacePair& p : GetInPlaceInputOutputPairs(fusion)) {
    // Annotated aliasing (custom calls) says nothing about what is written;
    // an array operand only (a tuple operand's leaf: whole operand counted).
    if (!p.fused_update || !p.operand_index.empty()) continue;
    if (FusionRewritesInFull(fusion, *p.fused_update)) continue;
    if (!UpdateBytesOf(*p.fused_update)) continue;
    out.push_back({p.operand_number, p.output_index, p.fused_update});
  }
  return out;
}

bool IsSelecting(const HloInstruction& user, const HloInstruction& operand) {
  switch (user.opcode()) {
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kSlice:
    case HloOpcode::kGather:
      return user.operand_count() > 0 && user.operand(0) == &operand;
    default:
      return false;
  }
}

// Bytes the kernel reads of fused parameter `param` (whose whole size is
// `full`); `update` is the in-place update on it, or nullptr.
std::optional<int64_t> ParameterReads(const HloInstruction& param, std::optional<int64_t> full,
                                      const HloInstruction* update) {
  if (!full) return std::nullopt;
  // InPlaceWrites admits only updates whose bytes are known.
  const int64_t update_bytes = update ? UpdateBytesOf(*update).value_or(*full) : 0;
  int64_t read = 0;
  // Users through bitcasts (a bitcast moves no data). Bounded: every
  // instruction of the fused computation at most once.
  std::vector<const HloInstruction*> values = {&param};
  std::vector<const HloInstruction*> seen;
  while (!values.empty()) {
    const HloInstruction* v = values.back();
    values.pop_back();
    for (const HloInstruction* user : v->users()) {
      if (std::find(seen.begin(), seen.end(), user) != seen.end()) continue;
      seen.push_back(user);
      if (user->opcode() == HloOpcode::kBitcast) {
        values.push_back(user);
        continue;
      }
      if (update && user == update && user->operand_count() > 0 && user->operand(0) == v) {
        // A dynamic-update-slice writes over its operand without reading it;
        // a scatter reads the rows it combines.
        if (update->opcode() == HloOpcode::kScatter) read = SatAdd(read, update_bytes);
        continue;
      }
      if (IsSelecting(*user, *v)) {
        std::optional<int64_t> selected = ByteSizeOf(user->shape());
        if (!selected) return full;
        read = SatAdd(read, *selected);
        continue;
      }
      if (update && IsElementwiseOpcode(user->opcode())) {
        // Emitted in place, the fusion evaluates element-wise users only
        // where it writes (FusionRewritesInFull rejected every other kind).
        read = SatAdd(read, update_bytes);
        continue;
      }
      return full;
    }
  }
  return std::min(read, *full);
}

// An unfused kernel, as HloCostAnalysis prices it: an update writes its
// update, a selection reads what it selects; anything else reads its
// operands and writes its output (array leaves: a variadic sort's tuple is
// its arrays, not XLA's index table).
KernelTraffic UnfusedTrafficOf(const HloInstruction& instr) {
  KernelTraffic t;
  auto size = [](const HloInstruction* i) { return LeafByteSizeOf(i->shape()); };
  const int64_t n = instr.operand_count();
  switch (instr.opcode()) {
    case HloOpcode::kDynamicUpdateSlice:
      if (n < 2) break;
      t.bytes_written = size(instr.operand(1));
      t.bytes_read = t.bytes_written;
      for (int64_t i = 2; i < n; ++i) SatAccumulate(&t.bytes_read, size(instr.operand(i)));
      return t;
    case HloOpcode::kScatter: {
      const int64_t operands = (n - 1) / 2;
      if (operands < 1) break;
      t.bytes_written = 0;
      for (int64_t k = 0; k < operands; ++k)
        SatAccumulate(&t.bytes_written, size(instr.operand(operands + 1 + k)));
      // The rows it combines and the updates, and the indices.
      t.bytes_read =
          SatAdd(SatMul(t.bytes_written, std::optional<int64_t>(2)), size(instr.operand(operands)));
      return t;
    }
    case HloOpcode::kGather:
    case HloOpcode::kSlice:
    case HloOpcode::kDynamicSlice:
      t.bytes_written = LeafByteSizeOf(instr.shape());
      t.bytes_read = t.bytes_written;
      for (int64_t i = 1; i < n; ++i) SatAccumulate(&t.bytes_read, size(instr.operand(i)));
      return t;
    default:
      break;
  }
  t.bytes_read = 0;
  for (const HloInstruction* op : instr.operands()) SatAccumulate(&t.bytes_read, size(op));
  t.bytes_written = LeafByteSizeOf(instr.shape());
  return t;
}

}  // namespace

KernelTraffic TrafficOf(const HloInstruction& fusion) {
  if (fusion.opcode() != HloOpcode::kFusion) return UnfusedTrafficOf(fusion);
  KernelTraffic t;
  std::vector<InPlaceWrite> writes = InPlaceWrites(fusion);
  const HloComputation* fused = fusion.fused_computation();

  t.bytes_read = 0;
  for (int64_t i = 0; i < fusion.operand_count(); ++i) {
    std::optional<int64_t> full = LeafByteSizeOf(fusion.operand(i)->shape());
    const HloInstruction* param = fused ? fused->parameter(i) : nullptr;
    if (!param || !fusion.operand(i)->shape().IsArray()) {
      SatAccumulate(&t.bytes_read, full);
      continue;
    }
    const HloInstruction* update = nullptr;
    for (const InPlaceWrite& w : writes)
      if (w.operand_number == i) update = w.update;
    SatAccumulate(&t.bytes_read, ParameterReads(*param, full, update));
  }

  const Shape& shape = fusion.shape();
  auto leaf_written = [&](const ShapeIndex& index, const Shape& leaf) -> std::optional<int64_t> {
    for (const InPlaceWrite& w : writes)
      if (w.output_index == index) return UpdateBytesOf(*w.update);
    return LeafByteSizeOf(leaf);
  };
  if (shape.IsTuple()) {
    t.bytes_written = 0;
    for (size_t k = 0; k < shape.tuple_shapes.size(); ++k)
      SatAccumulate(&t.bytes_written,
                    leaf_written(ShapeIndex{static_cast<int64_t>(k)}, *shape.tuple_shapes[k]));
  } else {
    t.bytes_written = leaf_written(ShapeIndex{}, shape);
  }
  return t;
}

}  // namespace hloscope
