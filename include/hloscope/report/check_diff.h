// Comparing two compilations: `hloscope diff A B`.
//
// Both sides are `check` documents (docs/json-format.md): a baseline saved
// with `check --format json`, or one made now from HLO. Instruction names
// differ between two compilations of one program (copy.7 in one is copy.12
// in the other), so findings are matched by what they are: their kind, the
// user's source line, JAX's op_name, the opcode, the cause, the role (loop
// nesting, parameter number) and the shape pattern (element type and rank;
// the dimensions are what changes when a buffer grows). A line that moved
// (the fixed version of a program) is matched again without the line, by
// function and op_name.
//
// Growth is judged per run: the bytes one execution of a copy, update,
// kernel or loop iteration moves, against the growth of the module's
// arguments. A program whose trip count grows runs more often — per call
// grows, per run does not — and that is reported as a change, not as
// "grows with the buffer".
#ifndef HLOSCOPE_REPORT_CHECK_DIFF_H_
#define HLOSCOPE_REPORT_CHECK_DIFF_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hloscope/report/json_model.h"

namespace hloscope {

// kCarry: a loop carry rewritten in full every iteration (a loop's
// `scaling` entry of kind carry-rewrite; carries that are copied are copies).
enum class DiffKind : uint8_t { kParameter, kCopy, kUpdate, kLoop, kCarry, kKernel };
enum class DiffStatus : uint8_t { kOnlyInA, kOnlyInB, kChanged, kUnchanged };

std::string_view DiffKindName(DiffKind kind);        // "parameter", "copy", ...
std::string_view DiffStatusName(DiffStatus status);  // "only-in-a", "only-in-b", "changed", "unchanged"

// One side of a matched group: the findings of one compilation with one
// identity (two copies of one buffer on one line are one group, count 2).
struct DiffSide {
  int64_t count = 0;
  std::vector<std::string> instructions;  // names, as detail only (never matched)
  std::string shape;                      // of the first, without layout
  // Per run: one execution of each finding of the group (a copy's bytes, an
  // update's bytes written, a kernel's bytes read + written, a loop's bytes
  // copied + rewritten per iteration, a parameter's bytes).
  std::optional<int64_t> bytes;
  std::optional<int64_t> bytes_per_call;  // summed over the group
  std::optional<int64_t> executions;      // the most any of the group runs
  std::optional<int64_t> array_bytes;     // bytes of the array involved (copied, updated, the parameter)
  std::string state;           // copies: cause; updates: verdict; loops: trip count; parameters: donation
  bool scalar = false;         // copies: scalar copies (summarized, not gated by default)
  bool in_loop = false;        // runs inside a loop
  std::string tied_parameter;  // copies: the entry parameter copied (name), if any
  std::optional<int64_t> trip_count;                // loops
  std::optional<int64_t> copy_bytes_per_iteration;  // loops
};

struct DiffItem {
  DiffKind kind = DiffKind::kCopy;
  DiffStatus status = DiffStatus::kUnchanged;
  std::string what;        // "copy f32[_,128] (read-after-update)"
  std::string source;      // "dumps/make_dumps.py:32" (B's, if in B), or ""
  std::string moved_from;  // A's line when B's differs (not a change: the code moved)
  std::string op_name;
  std::optional<DiffSide> a, b;
  std::optional<double> bytes_ratio;     // b.bytes / a.bytes
  std::optional<double> per_call_ratio;  // b.bytes_per_call / a.bytes_per_call
  // log(bytes_ratio) / log(size ratio): 1 linear in the arrays, 0 fixed.
  std::optional<double> exponent;
  bool grows = false;                // bytes per run grow with the arrays (exponent >= 0.5)
  std::string grows_with;            // the argument it tracks ("buf.1"), if one
  std::vector<std::string> changes;  // "cause: not-donated → read-after-update", ...
};

// An entry argument whose size differs between the compilations.
struct SizeChange {
  int64_t number = 0;
  std::string name;
  std::string a_shape, b_shape;
  std::optional<int64_t> a_bytes, b_bytes;
  double ratio = 1;
};

struct ModuleDiff {
  std::string a_name, b_name, a_path, b_path, a_signature, b_signature;
  std::vector<SizeChange> sizes;
  // The experiment's size factor: the largest argument growth (or shrink);
  // nullopt when no argument changed size.
  std::optional<double> size_ratio;
  std::string size_parameter;  // the argument that grew the most
  bool kernels_compared = false;
  std::vector<DiffItem> items;  // parameters, copies, updates, loops, kernels
};

struct DiffResult {
  std::vector<ModuleDiff> modules;                // paired modules
  std::vector<std::string> only_in_a, only_in_b;  // unpaired: "jit_f (f32[8]) -> f32[8] in PATH"
};

struct DiffOptions {
  bool count_scalar_copies = false;  // scalar copies are items like any other (else summarized)
};

// Pairs the documents' modules (by name, then by entry signature with the
// dimensions left out, then in order) and diffs each pair. Documents are
// check documents (the caller checked `command`).
DiffResult DiffDocuments(const Json& a, const Json& b, const DiffOptions& options = {});
ModuleDiff DiffModules(const Json& a, const Json& b, const DiffOptions& options = {});

// A ratio as the diff prints it: 3 significant digits, whole from 100 up.
std::string RatioText(double r);

// "f32[16384,128]{1,0}" -> "f32[_,_]": the shape pattern findings match by.
std::string ShapePattern(std::string_view shape);

// The regression gate of `diff`: what in B is worse than in A.
struct DiffGates {
  bool fail_on_new_copies = false;                // an array copy only in B, or more of them
  bool fail_on_new_out_of_place = false;          // an update out of place or on a copy in B, in place in A
  bool fail_on_more_bytes_per_iteration = false;  // a loop copies or rewrites more per iteration
  int64_t min_bytes = 0;                          // ignore copies and loops moving fewer bytes per run
  bool any() const {
    return fail_on_new_copies || fail_on_new_out_of_place || fail_on_more_bytes_per_iteration;
  }
};

struct DiffRegression {
  const ModuleDiff* module = nullptr;
  const DiffItem* item = nullptr;
  std::string gate;  // "new-copies", "new-out-of-place", "more-bytes-per-iteration"
  std::string text;  // one sentence
};

std::vector<DiffRegression> EvaluateDiffGates(const DiffResult& result, const DiffGates& gates);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_CHECK_DIFF_H_
