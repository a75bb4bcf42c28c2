// The gates users put in CI: one policy, used by the CLI's --fail-on-* and
// --max-* flags and by Python's assert_inplace / assert_budget, so a file
// gets the same verdict through both.
//
// What counts:
// * Scalar copies (rank 0: the loop counter XLA copies in every loop, the
//   constants a loop starts from) are not counted unless
//   count_scalar_copies; they never make a program slow.
// * An update is in place when its verdict is in-place or not-materialized
//   and XLA's buffer assignment does not contradict it. in-place-on-copy,
//   out-of-place and contradicted in-place verdicts are not.
// * A copy whose executions (or bytes) are unknown breaks every byte budget.
// * Findings made inside library code (analysis/source_origin.h: JAX's
//   private jitted helpers such as jit(_threefry_split), or frames under
//   site-packages) are not counted unless count_library: their hints cannot
//   be acted on. Updates picked by name or line are counted wherever they are.
// * Copies moving fewer than min_bytes per call are not counted (a copy
//   whose total is unknown always is).
#ifndef HLOSCOPE_ANALYSIS_POLICY_H_
#define HLOSCOPE_ANALYSIS_POLICY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hloscope/analysis/findings.h"
#include "hloscope/analysis/line_spec.h"

namespace hloscope {

struct GateOptions {
  bool fail_on_copies_in_loops = false;
  bool fail_on_out_of_place = false;               // every update not in place (see above)
  bool fail_on_contradiction = false;              // any verdict the buffer assignment contradicts
  std::optional<int64_t> max_copy_bytes;           // per call, all copies
  std::optional<int64_t> max_copies;               // number of copies
  std::optional<int64_t> max_copies_in_loops;      // number of copies inside loops
  std::optional<int64_t> max_copy_bytes_in_loops;  // per call, copies inside loops
  bool count_scalar_copies = false;
  bool count_library = false;  // --include-library
  int64_t min_bytes = 0;       // --min-bytes: per call
  // Restrict the update, copies-in-loops and contradiction gates to these
  // updates, by instruction or fusion name (`name`, `%name`,
  // `computation/name`, resolved through the module's name index; a name
  // that matches several instructions is a violation) and/or by source
  // line; a copy in a loop is then checked only when it feeds a selected
  // update or comes from a selected line. Selecting nothing is a violation.
  std::vector<std::string> update_names;
  std::vector<LineSpec> lines;

  bool any() const;
  bool selective() const { return !update_names.empty() || !lines.empty(); }
};

// True when `copy` counts for gates and budgets.
bool CountsForGates(const CopyFinding& copy, const GateOptions& options);
// In place by the rule above.
bool IsInPlace(const UpdateFinding& update);

struct Violation {
  enum class Kind : uint8_t {
    kCopyInLoop,        // copy: a counted copy inside a loop
    kUpdateNotInPlace,  // update (+ its copy, when it runs on one)
    kContradiction,     // update: XLA's buffer assignment contradicts the verdict
    kCopyBytes,         // copies over max_copy_bytes
    kCopyCount,         // copies over max_copies
    kCopiesInLoops,     // copies in loops over max_copies_in_loops
    kCopyBytesInLoops,  // copies in loops over max_copy_bytes_in_loops
    kNothingSelected,   // update_names / lines select no update
    kAmbiguousName,     // a name in update_names matches several instructions
  };
  Kind kind = Kind::kCopyInLoop;
  const ModuleCheck* module = nullptr;  // nullptr for kNothingSelected
  const CopyFinding* copy = nullptr;
  const UpdateFinding* update = nullptr;
  std::vector<const CopyFinding*> copies;  // the copies a budget counted
  int64_t limit = 0;
  int64_t amount = 0;           // bytes or count found (known part)
  bool amount_unknown = false;  // some copy's bytes per call are unknown
  // kNothingSelected: the selection as given; kAmbiguousName: the name and
  // the instructions it matches.
  std::vector<std::string> selected_names;
  std::vector<std::string> selected_lines;
  std::vector<const HloInstruction*> candidates;
};

// The violations of every module (budgets are per module), in a stable
// order: per module updates, copies in loops, contradictions, budgets;
// then kNothingSelected if a selection matched no update in any module.
std::vector<Violation> EvaluateGates(const std::vector<const ModuleCheck*>& modules,
                                     const GateOptions& options);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_POLICY_H_
