// Each value of a buffer-assignment dump resolved to the instruction that
// defines it, once per check. The dump names values by instruction name;
// looking a name up in a module of a million names is a cache miss each
// time, and both the foreign-dump test and the memory analysis need every
// value's instruction (a train step's temp heap lists thousands): resolving
// them once is what keeps the memory analysis within its share of `check`.
#ifndef HLOSCOPE_ANALYSIS_BUFFER_VALUE_INSTRUCTIONS_H_
#define HLOSCOPE_ANALYSIS_BUFFER_VALUE_INSTRUCTIONS_H_

#include <cstddef>
#include <string_view>
#include <vector>

#include "hloscope/ir/module.h"
#include "hloscope/parser/buffer_assignment.h"

namespace hloscope {

class BufferValueInstructions {
 public:
  // `ba` must outlive this; it is read, not copied.
  BufferValueInstructions(const BufferAssignment& ba, const HloModule& module);
  BufferValueInstructions(const BufferValueInstructions&) = delete;
  BufferValueInstructions& operator=(const BufferValueInstructions&) = delete;

  // The instruction that defines `v`, a value of allocation `a` of the
  // dump this was built from; nullptr when the module has no instruction
  // of that name or several (hand-written HLO reusing a name).
  const HloInstruction* Of(const BufferAllocation& a, const BufferValue& v) const;

  // The first value (in dump order) whose name the module lacks: a dump of
  // another module. Empty when every name resolves.
  std::string_view first_missing() const { return first_missing_; }

 private:
  const BufferAssignment* ba_;
  std::vector<size_t> first_;                   // per allocation: its first value's slot
  std::vector<const HloInstruction*> defined_;  // per value, allocation by allocation
  std::string_view first_missing_;
};

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_BUFFER_VALUE_INSTRUCTIONS_H_
