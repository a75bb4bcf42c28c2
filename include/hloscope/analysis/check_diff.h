// Comparing two compilations: `hloscope diff A B`, an analysis over two
// check documents (analysis/check_document.h: a baseline saved with `check
// --format json`, or one made now from HLO). Instruction names differ
// between two compilations of one program (copy.7 in one is copy.12 in the
// other), so findings are matched by what they are: their kind, the user's
// source line, JAX's op_name, the opcode, the cause, the role (loop
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
//
// Everything here is typed (identities, states and changes); the sentences
// are report/render_diff.cc's. The regression gate is the gate policy's
// (analysis/policy.h, EvaluateDiffGates).
#ifndef HLOSCOPE_ANALYSIS_CHECK_DIFF_H_
#define HLOSCOPE_ANALYSIS_CHECK_DIFF_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hloscope/analysis/check_document.h"
#include "hloscope/analysis/finding_filter.h"
#include "hloscope/analysis/memory_diff.h"
#include "hloscope/analysis/policy.h"

namespace hloscope {

// kCarry: a loop carry rewritten in full every iteration (a loop's
// `scaling` entry of kind carry-rewrite; carries that are copied are copies).
enum class DiffKind : uint8_t { kParameter, kCopy, kUpdate, kLoop, kCarry, kKernel, kCollective };
enum class DiffStatus : uint8_t { kOnlyInA, kOnlyInB, kChanged, kUnchanged };

// What a group's findings are in: a copy's cause, an update's verdict, a
// loop's trip-count source, a parameter's donation. `text` is the value as
// the document wrote it, kept for values this hloscope does not know.
struct DiffState {
  std::optional<CopyCause> cause;
  std::optional<UpdateVerdict> verdict;
  std::optional<TripCountSource> trip_count_source;
  std::optional<bool> donated, copied;  // parameters
  std::string text;

  bool empty() const { return !cause && !verdict && !trip_count_source && !donated && text.empty(); }
  bool operator==(const DiffState& o) const {
    return cause == o.cause && verdict == o.verdict && trip_count_source == o.trip_count_source &&
           donated == o.donated && copied == o.copied && text == o.text;
  }
};

// What a matched group is, as data (report/render_diff.cc words it).
struct DiffIdentity {
  DiffKind kind = DiffKind::kCopy;
  std::string pattern;  // shape pattern: "f32[_,128]" (ShapePattern)
  // kCopy: the copy kind ("copy", "copy-start", ...) and its cause; the
  // summarized scalar copies are one group.
  std::string copy_kind;
  DiffState cause;
  bool scalar_copies = false;
  // kUpdate: the opcode and whether it is fused.
  std::string opcode;
  bool fused = false;
  // kLoop, kCarry: loop nesting; kCarry: the carry number.
  size_t loop_depth = 0;
  std::optional<int64_t> carry;
  // kParameter: its number and name; kKernel: the fusion kind.
  int64_t number = -1;
  std::string name;
  std::string kernel_kind;
  // kCollective: its family ("all-gather") and cause (in `cause`).
  std::string family;
};

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
  std::optional<int64_t> flops;           // kernels: FLOPs per run (transcendentals included)
  std::optional<int64_t> array_bytes;     // bytes of the array involved (copied, updated, the parameter)
  DiffState state;                        // copies: cause; updates: verdict; loops: trip count; parameters
  bool scalar = false;                    // copies: scalar copies (summarized, not gated by default)
  bool in_loop = false;                   // runs inside a loop
  bool library = false;                   // made inside library code (analysis/source_origin.h)
  // The gates its findings belong to, each classified as the gate policy
  // classifies a live finding (analysis/policy.h; contradictions included).
  GateSet gates;
  std::string tied_parameter;                       // copies: the entry parameter copied (name), if any
  std::optional<int64_t> trip_count;                // loops
  std::optional<int64_t> copy_bytes_per_iteration;  // loops
  // Loops: what kernels read of the loop's buffer whole every iteration
  // (check's `whole-read` scaling entries; an attention over a KV cache).
  std::optional<int64_t> whole_read_bytes;
};

// A change between A and B of a matched group.
struct DiffChange {
  enum class Kind : uint8_t {
    kCount,       // a → b findings
    kState,       // the state differs
    kShape,       // parameters: the shape
    kTripCount,   // loops
    kBytes,       // per run (loops: per iteration), with bytes_ratio
    kExecutions,  // runs per call
  };
  Kind kind = Kind::kCount;
  std::optional<int64_t> a, b;  // kCount, kTripCount, kBytes, kExecutions
  DiffState a_state, b_state;   // kState
  std::string a_text, b_text;   // kShape
};

struct DiffItem {
  DiffKind kind = DiffKind::kCopy;
  DiffStatus status = DiffStatus::kUnchanged;
  DiffIdentity what;
  std::string source;      // "dumps/make_dumps.py:32" (B's, if in B), or ""
  std::string moved_from;  // A's line when B's differs (not a change: the code moved)
  std::string op_name;
  std::optional<DiffSide> a, b;
  std::optional<double> bytes_ratio;     // b.bytes / a.bytes
  std::optional<double> per_call_ratio;  // b.bytes_per_call / a.bytes_per_call
  // log(bytes_ratio) / log(size ratio): 1 linear in the arrays, 0 fixed.
  std::optional<double> exponent;
  // Kernels: their FLOPs per run, the same way. A kernel whose bytes stay
  // while its FLOPs grow (a matmul over a growing contraction, a sort) grows.
  std::optional<double> flops_ratio;
  std::optional<double> flops_exponent;
  std::optional<double> whole_read_ratio;  // loops: b.whole_read_bytes / a.whole_read_bytes
  std::optional<double> whole_read_exponent;
  bool grows = false;      // bytes (or a kernel's FLOPs) per run grow with the arrays (exponent >= 0.5)
  std::string grows_with;  // the argument it tracks ("buf.1"), if one
  std::vector<DiffChange> changes;
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
  int64_t a_devices = 1, b_devices = 1;  // SPMD programs: byte figures are per device
  std::vector<SizeChange> sizes;
  // The experiment's size factor: the largest argument growth (or shrink);
  // nullopt when no argument changed size.
  std::optional<double> size_ratio;
  std::string size_parameter;  // the argument that grew the most
  bool kernels_compared = false;
  std::vector<DiffItem> items;       // parameters, copies, updates, loops, kernels
  std::optional<MemoryDiff> memory;  // when either side has its buffer assignment
  // Either side's answer stands out, and the larger estimated time: paired
  // modules are listed so, the user's first (JAX's helpers stand out in
  // nothing and take no time).
  bool stands_out = false;
  double estimated_seconds = 0;
  // Nothing differs: every item unchanged, the peak the same.
  bool Quiet() const;
};

// A module one side has and the other not.
struct UnpairedModule {
  std::string name, entry_signature, path;
};

struct DiffResult {
  std::vector<ModuleDiff> modules;  // paired modules
  std::vector<UnpairedModule> only_in_a, only_in_b;
  // Each only_in_b module against nothing: every finding of it is new (the
  // regression gate judges these too; not shown).
  std::vector<ModuleDiff> new_modules;
};

// Pairs the documents' modules (by name, then by entry signature with the
// dimensions left out, then in order) and diffs each pair. Minor copies
// are one summarized item unless the filter includes them.
DiffResult DiffDocuments(const CheckDocument& a, const CheckDocument& b, const FindingFilter& filter = {});
ModuleDiff DiffModules(const DocModule& a, const DocModule& b, const FindingFilter& filter = {});

// "f32[16384,128]{1,0}" -> "f32[_,_]": the shape pattern findings match by.
std::string ShapePattern(std::string_view shape);
std::string WithoutLayout(std::string_view shape);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_CHECK_DIFF_H_
