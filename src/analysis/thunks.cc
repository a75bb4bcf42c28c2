#include "hloscope/analysis/thunks.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "hloscope/ir/name_index.h"

namespace hloscope {
namespace {

// What a kCopy thunk that is not a listed copy runs: XLA:GPU emits a memcpy
// for a fusion whose only work is a one-element dynamic-update-slice or a
// contiguous (dynamic-)slice.
ThunkCheck::MemcpyOf MemcpyOf(const HloInstruction& instr, const ModuleCheck& check) {
  if (instr.opcode() != HloOpcode::kFusion || !instr.fused_computation()) return ThunkCheck::MemcpyOf::kOther;
  if (!check.UpdatesOf(&instr).empty()) return ThunkCheck::MemcpyOf::kFusedUpdate;
  for (const HloInstruction* i : instr.fused_computation()->instructions())
    if (i->opcode() == HloOpcode::kSlice || i->opcode() == HloOpcode::kDynamicSlice)
      return ThunkCheck::MemcpyOf::kSlice;
  return ThunkCheck::MemcpyOf::kOther;
}

}  // namespace

void CheckThunks(const HloModule& module, const ThunkMetadata& metadata, std::string path,
                 ModuleCheck* check) {
  ThunkCheck t;
  t.path = std::move(path);
  t.thunks = static_cast<int64_t>(metadata.thunks.size());
  // The first thunk of an instruction: XLA may split one instruction into
  // several (a kCopy and its event); the copy is the kCopy one if any.
  std::unordered_map<const HloInstruction*, const Thunk*> thunk_of;
  for (const Thunk& th : metadata.thunks) {
    // Thunk annotations are instruction names, unique in XLA's modules.
    std::vector<const HloInstruction*> named = module.names().InstructionsNamed(th.profile_annotation);
    if (named.size() != 1) {
      ++t.unmatched;
      continue;
    }
    t.copy_thunks += th.kind == "kCopy";
    // A fusion XLA runs as a memcpy may be annotated with the instruction
    // inside it that becomes the memcpy (a fused `copy` of a slice).
    const HloInstruction* instr = named[0];
    for (int depth = 0; depth < 16; ++depth) {
      const HloComputation* comp = instr->parent();
      if (!comp || comp->callers().size() != 1 || comp->callers()[0]->opcode() != HloOpcode::kFusion) break;
      instr = comp->callers()[0];
    }
    auto [slot, fresh] = thunk_of.emplace(instr, &th);
    if (!fresh && slot->second->kind != "kCopy" && th.kind == "kCopy") slot->second = &th;
  }
  if (!t.applied()) {  // another module's dump: claims nothing
    check->thunks = std::move(t);
    return;
  }
  for (CopyFinding& c : check->copies) {
    auto it = thunk_of.find(c.copy.instruction);
    if (it == thunk_of.end()) {
      t.copies_not_run.push_back(c.copy);
      continue;
    }
    c.thunk = CopyThunk{it->second->id, it->second->kind};
    (it->second->kind == "kCopy" ? t.copies_as_copy_thunks : t.copies_as_kernels) += 1;
  }
  for (const auto& [instr, th] : thunk_of)
    if (th->kind == "kCopy" && check->CopiesOf(instr).empty())
      t.other_copy_thunks.push_back({instr, MemcpyOf(*instr, *check)});
  // By thunk id: the order XLA runs them.
  std::sort(t.other_copy_thunks.begin(), t.other_copy_thunks.end(), [&](const auto& a, const auto& b) {
    return thunk_of.at(a.instruction)->id < thunk_of.at(b.instruction)->id;
  });
  check->thunks = std::move(t);
}

}  // namespace hloscope
