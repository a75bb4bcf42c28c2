// The gate policy: what breaks a budget, decided once for every door —
// `check --fail/--fail-on/--max-*`, `hloscope run --fail/--warn/--raise`,
// Python's watch(raise_on=...), assert_inplace/assert_budget, and the
// regression gate of `diff`. Each finding is classified into at most one
// gate (the classification below); a gate set (a named preset, or gates by
// name) says which gates fail; the finding filter (finding_filter.h) says
// which findings count. The same module gives the same verdict through every
// door (tests/python/test_gates_agree.py runs every fixture through all of
// them); docs/analysis.md "Gates" is generated from the tables here.
//
// The classification (per finding, first that applies):
// * copies-in-loops: an array copy that runs inside a loop — a cost every
//   iteration — of at least kSmallLoopCopyBytes, or one that grows with
//   buffer size;
// * small-copies-in-loops: the other array copies inside loops (a small,
//   fixed-size carry copied every iteration: a few hundred bytes of loop
//   state whatever the buffer's size) — failing only when asked for
//   (`--fail-on small-copies-in-loops`, preset `strict`);
// * not-in-place: an update that is out of place, that XLA's buffer
//   assignment contradicts, or that runs on a copy made for any reason but
//   the one below;
// * full-rewrites: an update that shares its buffer but rewrites all of it,
//   inside a loop, or a loop carry a loop rewrites in full every iteration
//   where the loop otherwise works on it at run-time positions ("grows with
//   buffer size");
// * reshards-in-loops: a collective the partitioner put inside a loop
//   (not one the program wrote, not a reduction of partial sums) that moves
//   a loop-carried buffer whole every iteration: a gather of a sharded
//   buffer to read or update it at a run-time index, a re-shard of a carry;
// * undonated: a copy, outside any loop, of an argument that is not donated
//   (once per call), and the updates that run on it — advice with a hint,
//   failing only when asked for (`--fail-on undonated`, preset `strict`);
// * contradictions: a verdict XLA's buffer assignment contradicts (the
//   tool's error, not the program's; an in-place verdict it contradicts is
//   also not-in-place).
// The default preset fails on the costs that recur every iteration:
// copies-in-loops, not-in-place, full-rewrites and reshards-in-loops.
#ifndef HLOSCOPE_ANALYSIS_POLICY_H_
#define HLOSCOPE_ANALYSIS_POLICY_H_

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hloscope/analysis/finding_filter.h"
#include "hloscope/analysis/findings.h"
#include "hloscope/analysis/gate.h"
#include "hloscope/analysis/line_spec.h"

namespace hloscope {

struct GateEntry {
  Gate gate;
  std::string_view name;  // "copies-in-loops": --fail-on NAME, raise_on=NAME
  std::string_view help;  // one line: what fails
  bool diff_only;         // compares two compilations
};
std::span<const GateEntry> GateCatalog();
const GateEntry& EntryOf(Gate gate);

struct GatePreset {
  std::string_view name;  // "default", "strict"
  std::string_view help;
  GateSet gates;
};
std::span<const GatePreset> GatePresets();
// The preset `--fail`, `run --fail`, watch(raise_on="default") and
// assert_inplace use.
GateSet DefaultGates();
// A gate or preset by name; names may use '_' for '-' (Python's spelling);
// nullopt for an unknown name.
std::optional<GateSet> GatesNamed(std::string_view name);

// Budgets: limits on the copies that count (per module).
struct Budgets {
  std::optional<int64_t> max_copy_bytes;           // per call, all copies
  std::optional<int64_t> max_copies;               // number of copies
  std::optional<int64_t> max_copies_in_loops;      // number of copies inside loops
  std::optional<int64_t> max_copy_bytes_in_loops;  // per call, copies inside loops
  // The memory one call needs per device (MemoryUsage::device_peak_bytes);
  // a module without its buffer assignment breaks it (the peak is unknown).
  std::optional<int64_t> max_peak_bytes;
  bool any() const {
    return max_copy_bytes || max_copies || max_copies_in_loops || max_copy_bytes_in_loops || max_peak_bytes;
  }
};

// What fails: gates by name or preset, budgets, and a selection. Which
// findings count is the command's FindingFilter, given alongside.
struct GateOptions {
  GateSet gates;
  Budgets budgets;
  // Restrict the finding gates to these updates, by instruction or fusion
  // name (`name`, `%name`, `computation/name`, resolved through the
  // module's name index; a name that matches several instructions is a
  // violation) and/or by source line; a copy is then checked only when it
  // feeds a selected update or comes from a selected line. Selecting
  // nothing is a violation. Selected updates count wherever they are
  // (library code included).
  std::vector<std::string> update_names;
  std::vector<LineSpec> lines;

  bool any() const { return !gates.empty() || budgets.any(); }
  bool selective() const { return !update_names.empty() || !lines.empty(); }
};

// The floor under which a copy in a loop that does not grow with buffer
// size is small-copies-in-loops, not copies-in-loops: one 4 KiB page per
// execution (f32[1024]). The copies the default gates failed on in correct
// scans were loop state of 8 B to 256 B.
inline constexpr int64_t kSmallLoopCopyBytes = 4096;

// The classification, on the facts both a live check and a check document
// (a diff baseline) have, so that both are judged by the same rules.
struct CopyGateFacts {
  bool in_loop = false;
  std::optional<CopyCause> cause;
  std::optional<int64_t> bytes;  // per execution; unknown is never small
  bool grows_with_buffer = false;
};
std::optional<Gate> CopyGate(const CopyGateFacts& facts);
struct UpdateGateFacts {
  std::optional<UpdateVerdict> verdict;
  std::optional<bool> confirmed;  // by XLA's buffer assignment
  bool full_rewrite = false;
  bool in_loop = false;
  // The copy it runs on (in-place-on-copy): its gate.
  std::optional<Gate> runs_on_gate;
};
std::optional<Gate> UpdateGate(const UpdateGateFacts& facts);
std::optional<Gate> RewriteGate(bool carry_rewritten, bool grows_with_buffer);
std::optional<Gate> CollectiveGate(bool in_loop, bool grows_with_buffer,
                                   std::optional<CollectiveCause> cause);

// The gate a finding belongs to (nullopt: none — a copy outside loops that
// is not an undonated argument's, an update in place). `module` finds the
// copy an update runs on.
std::optional<Gate> GateOf(const CopyFinding& copy);
std::optional<Gate> GateOf(const UpdateFinding& update, const ModuleCheck& module);
std::optional<Gate> GateOf(const LoopScaling& scaling);
std::optional<Gate> GateOf(const CollectiveFinding& collective);
// In place: verdict in-place or not-materialized, and XLA's buffer
// assignment does not contradict it.
bool IsInPlace(const UpdateFinding& update);

struct DiffItem;
struct ModuleDiff;
struct DiffResult;

struct Violation {
  enum class Kind : uint8_t {
    kCopyInLoop,        // copy (copies-in-loops)
    kUpdateNotInPlace,  // update (+ its copy, when it runs on one) (not-in-place)
    kFullRewrite,       // update, or loop + scaling (full-rewrites)
    kUndonatedCopy,     // copy (+ the updates running on it) (undonated)
    kContradiction,     // update or loop + scaling: XLA's buffer assignment contradicts the verdict
    kReshardInLoop,     // collective (reshards-in-loops)
    kCopyBytes,         // copies over max_copy_bytes
    kCopyCount,         // copies over max_copies
    kCopiesInLoops,     // copies in loops over max_copies_in_loops
    kCopyBytesInLoops,  // copies in loops over max_copy_bytes_in_loops
    kPeakBytes,         // the memory peak over max_peak_bytes (or unknown)
    kNothingSelected,   // update_names / lines select no update
    kAmbiguousName,     // a name in update_names matches several instructions
    // diff: B against A (diff_item, diff_module).
    kNewCopy,                // new-copies
    kNewNotInPlace,          // new-not-in-place
    kMoreBytesPerIteration,  // more-bytes-per-iteration
    kMorePeakBytes,          // more-peak-bytes (diff_module; amount B's peak, limit A's)
  };
  Kind kind = Kind::kCopyInLoop;
  std::optional<Gate> gate;             // the finding gates' kinds
  const ModuleCheck* module = nullptr;  // nullptr for kNothingSelected
  const CopyFinding* copy = nullptr;
  const UpdateFinding* update = nullptr;
  const LoopFinding* loop = nullptr;
  const LoopScaling* scaling = nullptr;
  const CollectiveFinding* collective = nullptr;
  std::vector<const CopyFinding*> copies;     // the copies a budget counted
  std::vector<const UpdateFinding*> updates;  // kUndonatedCopy: the updates on the copy
  int64_t limit = 0;
  int64_t amount = 0;           // bytes or count found (known part)
  bool amount_unknown = false;  // some copy's bytes per call (or the peak) are unknown
  // kNothingSelected: the selection as given; kAmbiguousName: the name and
  // the instructions it matches.
  std::vector<std::string> selected_names;
  std::vector<std::string> selected_lines;
  std::vector<const HloInstruction*> candidates;
  // diff: the matched finding of B that breaks the gate (for the finding
  // gates too: a finding of B that A does not have, or has fewer of), and
  // its module pair.
  const DiffItem* diff_item = nullptr;
  const ModuleDiff* diff_module = nullptr;
};

// The violations of every module (budgets are per module), in a stable
// order: per module not-in-place updates, copies in loops, full rewrites,
// undonated copies, contradictions, budgets; then kNothingSelected if a
// selection matched no update in any module.
std::vector<Violation> EvaluateGates(const std::vector<const ModuleCheck*>& modules,
                                     const GateOptions& options, const FindingFilter& filter);

// The regression gate of `diff`: the diff-only gates (new-copies, ...) and
// the finding gates judged on B's findings that A does not have (or has
// fewer of) — a module only B has is new in every finding — so `diff
// EMPTY X --fail` fails exactly when `check X --fail` does.
std::vector<Violation> EvaluateDiffGates(const DiffResult& result, const GateOptions& options,
                                         const FindingFilter& filter);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_POLICY_H_
