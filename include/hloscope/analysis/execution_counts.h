// How many times each instruction runs per call of the entry computation.
//
// The product, along the call chain, of: while loop trip counts (bodies run
// N times, conditions N+1), conditional branches (at most once per run of the
// conditional), calls, fusions and async computations (once per run of their
// caller). A loop whose trip count cannot be found makes everything inside it
// unknown — reported with the loop's name, never guessed.
#ifndef HLOSCOPE_ANALYSIS_EXECUTION_COUNTS_H_
#define HLOSCOPE_ANALYSIS_EXECUTION_COUNTS_H_

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "hloscope/ir/module.h"

namespace hloscope {

enum class TripCountSource : uint8_t {
  kKnownTripCount,     // XLA's known_trip_count annotation in backend_config
  kInductionVariable,  // our match of while_loop_analysis.cc's pattern
  kUnknown,
};

struct TripCount {
  std::optional<int64_t> count;
  TripCountSource source = TripCountSource::kUnknown;
};

// Trip count of a while instruction: backend_config known_trip_count first,
// else the induction-variable pattern (init constant, add constant step,
// compare LT/LE/GT/GE against a constant), else unknown.
TripCount ComputeTripCount(const HloInstruction& while_instr);

class ExecutionCounts {
 public:
  static ExecutionCounts Run(const HloModule& module);

  // Executions per entry call; nullopt when an enclosing loop is unknown.
  std::optional<int64_t> Of(const HloComputation* comp) const;
  std::optional<int64_t> Of(const HloInstruction* instr) const { return Of(instr->parent()); }
  // True when a conditional sits on the call chain: the count is an upper
  // bound ("at most").
  bool IsUpperBound(const HloComputation* comp) const;
  // While loops around `comp`, innermost first (through fusions and calls).
  std::vector<const HloInstruction*> EnclosingLoops(const HloComputation* comp) const;
  const TripCount& TripCountOf(const HloInstruction* while_instr) const;
  // How often something inside `enclosing` (innermost first, as
  // EnclosingLoops gives them) runs per iteration of `loop`, one of them:
  // the product of the trip counts of the loops inside `loop`. Known
  // whatever `loop`'s own trip count; nullopt when an inner one is unknown.
  std::optional<int64_t> RunsPerIteration(const std::vector<const HloInstruction*>& enclosing,
                                          const HloInstruction* loop) const;

 private:
  struct Info {
    std::optional<int64_t> count;
    bool upper_bound = false;
    bool done = false;
  };
  void Visit(const HloComputation* comp, int depth);

  std::unordered_map<const HloComputation*, Info> info_;
  std::unordered_map<const HloInstruction*, TripCount> trips_;
};

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_EXECUTION_COUNTS_H_
