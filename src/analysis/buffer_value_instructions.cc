#include "hloscope/analysis/buffer_value_instructions.h"

#include <functional>

#include "hloscope/ir/name_index.h"

namespace hloscope {
namespace {

// Whether `p` is an element of `items` (std::less: a total order even
// between unrelated pointers, which `<` does not promise).
template <typename T>
bool Within(const T* p, const std::vector<T>& items) {
  std::less<const T*> less;
  return !items.empty() && !less(p, items.data()) && less(p, items.data() + items.size());
}

}  // namespace

BufferValueInstructions::BufferValueInstructions(const BufferAssignment& ba, const HloModule& module)
    : ba_(&ba) {
  const HloNameIndex& names = module.names();
  first_.reserve(ba.allocations().size());
  for (const BufferAllocation& a : ba.allocations()) {
    first_.push_back(defined_.size());
    for (const BufferValue& v : a.values) {
      const HloInstruction* instr = names.UniqueInstructionNamed(v.instruction);
      // None or several: the slow lookup tells which (rare: a name the
      // module lacks ends the check as a foreign dump).
      if (!instr && first_missing_.empty() && names.InstructionsNamed(v.instruction).empty())
        first_missing_ = v.instruction;
      defined_.push_back(instr);
    }
  }
}

const HloInstruction* BufferValueInstructions::Of(const BufferAllocation& a, const BufferValue& v) const {
  const std::vector<BufferAllocation>& all = ba_->allocations();
  // Both by address: `a` and `v` must be this dump's own (not copies).
  if (!Within(&a, all) || !Within(&v, a.values)) return nullptr;
  size_t ai = static_cast<size_t>(&a - all.data());
  return defined_[first_[ai] + static_cast<size_t>(&v - a.values.data())];
}

}  // namespace hloscope
