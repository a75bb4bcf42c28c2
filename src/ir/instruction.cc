#include "hloscope/ir/instruction.h"

#include "hloscope/ir/computation.h"
#include "hloscope/ir/module.h"
#include "hloscope/ir/name_index.h"

namespace hloscope {

HloComputation* HloInstruction::called(CallRole role) const {
  for (const CalledComputation& c : called_)
    if (c.role == role) return c.computation;
  return nullptr;
}

std::optional<std::string_view> HloInstruction::attribute(std::string_view name) const {
  for (const HloAttribute& a : attributes_)
    if (a.name == name) return a.value;
  return std::nullopt;
}

HloInstruction* HloComputation::GetInstruction(std::string_view name) const {
  return const_cast<HloInstruction*>(parent_->names().FindInstruction(*this, name));
}

}  // namespace hloscope

// The IR's size on large modules is mostly instructions (see packed.h and
// docs/performance.md); keep an eye on growth.
static_assert(sizeof(hloscope::HloInstruction) <= 128);
