// FindingHeader: what every finding of every kind states the same way —
// its kind, gate, instruction, line, library origin, loops, executions,
// bytes per call and impact — built once by the analysis (answer.h), so
// that the answer's ranking and every generic consumer read one record
// instead of re-deriving it per kind. A header groups the findings that
// share a cause and a fix (50 dropped donations are one header with a
// count); it refers to them by typed pointers into its ModuleCheck.
//
// Impact is one measure across kinds: the share of the call a finding
// accounts for — of the estimated time at the target's roofline for work
// (copies, collectives, kernels), of the memory peak per device for memory
// (temporaries, donations). docs/analysis.md "The answer" states the rule.
#ifndef HLOSCOPE_ANALYSIS_FINDING_HEADER_H_
#define HLOSCOPE_ANALYSIS_FINDING_HEADER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hloscope/analysis/gate.h"
#include "hloscope/analysis/source_map.h"
#include "hloscope/ir/instruction.h"

namespace hloscope {

struct CopyFinding;
struct CollectiveFinding;
struct ParameterFinding;
struct LoopFinding;
struct LoopScaling;
struct LiveValue;

enum class FindingKind : uint8_t {
  kNoOutputs,        // the function computes nothing: no output depends on an argument
  kCopy,             // array copies sharing a cause, loop, line and shape
  kCollective,       // collectives sharing a cause and a line
  kGrowingRead,      // a kernel reads a loop's buffer whole every iteration
  kCarryRewrite,     // a loop rewrites a carried buffer in full every iteration
  kRelayout,         // kernels that only move data into another layout (transposes)
  kDroppedDonation,  // donations the program asked for and XLA did not keep
  kUndonated,        // arguments not donated while outputs of their shape are made
  kPeakTemporary,    // a temporary that makes up much of the memory peak
  kSerialLoop,       // a loop XLA made (a scatter expanded into a while): the op runs one step at a time
};
inline constexpr int kFindingKinds = 10;

enum class ImpactMeasure : uint8_t {
  kTime,    // share of the call's estimated time (roofline), collectives included
  kMemory,  // share of the memory peak per device
};

struct Impact {
  ImpactMeasure measure = ImpactMeasure::kTime;
  double share = 0;    // 0..1
  double seconds = 0;  // kTime: estimated seconds per call
  int64_t bytes = 0;   // kTime: bytes moved per call; kMemory: bytes at the peak (or saved)
};

struct FindingHeader {
  FindingKind kind = FindingKind::kCopy;
  std::optional<Gate> gate;                     // the gate its first finding belongs to
  const HloInstruction* instruction = nullptr;  // its first (largest) finding's
  int64_t count = 1;                            // findings grouped under it
  std::optional<SourceLocation> source;         // the one chosen line
  bool library = false;                         // made inside library code (source_origin.h)
  std::string library_part;
  std::vector<const HloInstruction*> enclosing_loops;  // innermost first
  std::optional<int64_t> executions;                   // of the first finding, per call
  std::optional<int64_t> bytes;                        // of the first finding, per execution
  std::optional<int64_t> bytes_per_call;               // all its findings together
  bool grows_with_buffer = false;
  Impact impact;
  // Above the answer's floor (answer.h): it is named in the answer.
  bool stands_out = false;

  // The findings it heads, by kind.
  std::vector<const CopyFinding*> copies;             // kCopy
  std::vector<const CollectiveFinding*> collectives;  // kCollective
  std::vector<const ParameterFinding*> parameters;    // kDroppedDonation, kUndonated
  const LoopFinding* loop = nullptr;                  // kGrowingRead, kCarryRewrite
  const LoopScaling* scaling = nullptr;               // kGrowingRead, kCarryRewrite
  std::vector<const HloInstruction*> kernels;         // kRelayout, kGrowingRead: the kernels
  const LiveValue* live = nullptr;                    // kPeakTemporary
  // kUndonated, kDroppedDonation: the peak per device now, and the least it
  // can be with the fix (every kept donation aliases its bytes: argument +
  // output - alias; XLA may pack its temporaries otherwise then, so the
  // compiled peak lies between the two — Python's inspect() measures it).
  std::optional<int64_t> peak_before;
  std::optional<int64_t> peak_after;
  // kCollective: bytes of its results live at the memory peak (a gathered
  // array the update then writes into); its impact is the larger share.
  int64_t live_at_peak = 0;
};

// What the answer was measured against, for "nothing stands out" and the
// shares: the call's estimated time and its memory peak.
struct AnswerBasis {
  double seconds = 0;  // kernels' estimated time + collectives' time, per call
  int64_t peak_bytes = 0;
  // true: the peak is XLA's buffer assignment's; false: a floor (arguments
  // + outputs per device), the module having no buffer assignment.
  bool peak_from_buffer_assignment = false;
  // The kernel with the most estimated time, and its seconds.
  const HloInstruction* top_kernel = nullptr;
  double top_kernel_seconds = 0;
  int64_t copies = 0, collectives = 0, loops = 0, arguments = 0;
};

struct Answer {
  std::vector<FindingHeader> ranked;  // every header, by impact, largest first
  AnswerBasis basis;
  bool stands_out() const { return !ranked.empty() && ranked.front().stands_out; }
};

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_FINDING_HEADER_H_
