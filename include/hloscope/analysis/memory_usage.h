// Memory: what one call of the module needs per device, from XLA's buffer
// assignment — the same allocation list `compiled.memory_analysis()` sums
// (CompiledMemoryStats::PopulateBufferStatsFromAllocations,
// xla/pjrt/pjrt_executable.cc) — and when the temporaries peak, from the
// schedule (the module's instruction order).
//
// The parts, per memory space (the allocation's color; XLA's default
// colorer makes it the memory space, S(5) being host memory):
//   argument  entry-parameter allocations (a donated one counts here and
//             in output and alias, as in XLA)
//   output    maybe-live-out allocations (the result, its tuple table)
//   alias     parameter allocations that are also outputs (donations XLA kept)
//   temp      preallocated temps: XLA merges a space's temporaries into one
//             allocation packed by the heap simulator, so its size is the
//             heap's (fragmentation included)
//   constant, thread-local: kept apart, counted in no total (as in XLA)
// The peak per space is argument + output - alias + temp: every allocation
// is reserved for the whole call (CompiledMemoryStats' "device memory
// needed", less the generated code). Within the temp heap, the moment its
// live values cover the most bytes is found by replaying the schedule
// (HloLiveRange's flattening: a loop's condition and body, a
// conditional's branches and a call's callee run before their caller's
// instruction) with each value live from its definition to its last use.
// The model and its limits: docs/memory.md.
#ifndef HLOSCOPE_ANALYSIS_MEMORY_USAGE_H_
#define HLOSCOPE_ANALYSIS_MEMORY_USAGE_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "hloscope/analysis/buffer_value_instructions.h"
#include "hloscope/analysis/dataflow.h"
#include "hloscope/analysis/source_map.h"
#include "hloscope/parser/buffer_assignment.h"

namespace hloscope {

class ModuleCheck;

// XLA's Layout::kHostMemorySpace: `S(5)` in a shape, the color of host
// allocations under the default colorer.
inline constexpr int64_t kHostMemorySpace = 5;

// What an allocation holds, as the dump's flags say.
enum class AllocationRole : uint8_t {
  kArgument,         // an entry parameter, not an output
  kDonatedArgument,  // an entry parameter that is also an output: the donation XLA kept
  kOutput,           // an output (or its tuple table), not a parameter
  kTemporary,        // the heap of one memory space's temporaries
  kConstant,
  kThreadLocal,  // values of reducers and comparators (to_apply): no device memory
  kOther,        // none of these flags
};

struct MemorySpaceUsage {
  int64_t color = 0;
  bool host = false;
  int64_t argument_bytes = 0;
  int64_t output_bytes = 0;
  int64_t alias_bytes = 0;
  int64_t temp_bytes = 0;
  int64_t constant_bytes = 0;
  int64_t thread_local_bytes = 0;
  // argument + output - alias + temp (saturating).
  int64_t peak_bytes = 0;
};

// An argument's buffer, as the caller will see it.
enum class ArgumentMemory : uint8_t {
  kDonatedReused,     // donated, and XLA writes an output into it
  kDonatedNotReused,  // donated, and XLA did not alias it: both it and the output are live
  kDonorOnly,         // a buffer_donor: XLA may reuse it for temporaries only
  kKept,              // not donated: the caller's array stays alive beside the outputs
  kKeptAndCopied,     // not donated, and updated in place on a copy of it
};

// What a value live at the temp heap's peak is.
enum class LiveValueKind : uint8_t {
  kTemporary,   // an intermediate result
  kCopy,        // a copy finding's destination
  kLoopCarry,   // a loop's state (a while or its body/condition parameter)
  kLoopUpdate,  // a buffer updated in place inside a loop (a scan's stacked output)
};

struct AllocationUsage {
  const BufferAllocation* allocation = nullptr;
  AllocationRole role = AllocationRole::kOther;
  int64_t bytes = 0;
  // The value that made it: the entry parameter for an argument, else the
  // largest value defined by an instruction of this module (phi values
  // only when nothing else is listed). instruction nullptr when none of
  // the listed names is this module's.
  HloPosition value;
  const BufferValue* listed = nullptr;  // the value as the dump lists it (not for arguments)
  // Arguments: the entry parameter's number (its ParameterFinding has the
  // donation asked for) and what becomes of its buffer.
  std::optional<int64_t> parameter_number;
  std::optional<ArgumentMemory> argument;
  std::optional<SourceLocation> source;
  // Outputs: what the value is — kLoopUpdate for a buffer a loop updates
  // in place (a scan's stacked output), kCopy for a copy's destination.
  std::optional<LiveValueKind> value_kind;
};

struct LiveValue {
  HloPosition value;
  const BufferValue* listed = nullptr;  // as the dump lists it (its shape)
  int64_t bytes = 0;
  LiveValueKind kind = LiveValueKind::kTemporary;
  // kCopy: the copy finding's `copy` (ModuleCheck::FindCopy).
  HloPosition copy;
  std::optional<SourceLocation> source;
  // Its live range in the flattened schedule: [start, end].
  int64_t start = 0, end = 0;
};

// The moment a temp heap is fullest in the schedule.
struct TempPeak {
  int64_t color = 0;
  // The instruction running then (its computation is its parent) and its
  // position in the flattened schedule.
  const HloInstruction* instruction = nullptr;
  int64_t time = 0;
  int64_t schedule_length = 0;
  // Bytes the live values cover (their byte ranges in the heap, united):
  // at most the heap's size, the rest being fragmentation.
  int64_t live_bytes = 0;
  int64_t heap_bytes = 0;
  std::vector<LiveValue> live;  // largest first, at most kMaxLiveValues
  int64_t live_count = 0;       // all of them
  std::optional<SourceLocation> source;
  // Live bytes across the schedule for a picture: the schedule cut into
  // at most kTimelineBuckets equal spans, each the most bytes live in it.
  std::vector<int64_t> timeline;
};

struct MemoryUsage {
  std::vector<MemorySpaceUsage> spaces;  // by color, the device's default (0) first
  // Allocations that hold memory for the call (no constants or
  // thread-local ones), largest first, at most kMaxAllocations.
  std::vector<AllocationUsage> allocations;
  int64_t allocation_count = 0;  // all of them
  // The default space's temp heap at its fullest, when the module is
  // scheduled and the heap lists values.
  std::optional<TempPeak> temp_peak;

  const MemorySpaceUsage* Space(int64_t color) const;
  // The default device space's peak (0 when the dump lists no allocation).
  int64_t device_peak_bytes() const;
};

inline constexpr size_t kMaxAllocations = 50;
inline constexpr size_t kMaxLiveValues = 20;
inline constexpr int64_t kTimelineBuckets = 240;

struct MemoryOptions {
  SourceOptions source;
  // `ba`'s values resolved in the module, when the caller has them (the
  // check does); resolved anew when null.
  const BufferValueInstructions* instructions = nullptr;
};

// The memory of `module` by its buffer assignment `ba` (which must be the
// module's). `check` supplies the parameters' donations and the copy
// findings the values link to; CheckModule calls this last.
MemoryUsage AnalyzeMemory(const HloModule& module, const BufferAssignment& ba, const ModuleCheck& check,
                          const MemoryOptions& options = {});

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_MEMORY_USAGE_H_
