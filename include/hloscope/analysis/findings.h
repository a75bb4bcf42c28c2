// Findings of `hloscope check`: the data every renderer (text, JSON, Python)
// draws from. Plain structs, one per kind of answer; names are exactly as in
// the HLO text, without '%'. docs/json-format.md documents each field.
#ifndef HLOSCOPE_ANALYSIS_FINDINGS_H_
#define HLOSCOPE_ANALYSIS_FINDINGS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hloscope/analysis/source_map.h"

namespace hloscope {

// Why a copy exists. The documented set (docs/json-format.md); a copy whose
// cause no rule explains is kUnknown — never a wrong confident cause.
enum class CopyCause {
  kNonDonatedParameter,   // an entry argument is updated or returned, not donated
  kConstantUpdated,       // a constant is updated (or returned): constants are read-only
  kLoopCarriedLive,       // a loop-carried value's old version is still live
  kReadAfterUpdate,       // a value is still read after an in-place update of it
  kOutputDuplicated,      // the same value appears twice in the entry output
  kOutputPassthrough,     // an entry output passes a parameter/constant through
  kOutputAliasing,        // a result is copied into a donated argument's buffer
  kConditionalBranch,     // a conditional branch protects its input or fills its output
  kLayoutChange,          // physical transpose (layout assignment)
  kMemorySpaceMove,       // between memory spaces (S(n)), prefetch/offload
  kUnknown,
};
std::string_view CopyCauseName(CopyCause cause);

enum class CopyClass { kProtective, kLayoutChange, kMemorySpaceMove };
std::string_view CopyClassName(CopyClass c);

struct CopyFinding {
  std::string instruction;
  std::string computation;
  std::string kind;  // "copy", "copy-start", "copy-fusion"
  CopyClass copy_class = CopyClass::kProtective;
  std::string shape;
  // Rank 0 (loop counters, loop-start constants): real, but never what
  // makes a program slow; renderers summarise them.
  bool scalar = false;
  std::optional<int64_t> bytes;
  std::optional<int64_t> executions;
  std::optional<int64_t> total_bytes;
  bool executions_upper_bound = false;  // inside a conditional branch
  std::vector<std::string> enclosing_loops;  // innermost first
  CopyCause cause = CopyCause::kUnknown;
  std::string cause_detail;  // one line in the user's terms
  std::string hint;          // one-line fix, or empty
  std::string copied_from;   // the value copied (defining position)
  std::vector<std::string> feeds;  // updates that run on this copy
  std::optional<SourceLocation> source;
};

enum class UpdateVerdict { kInPlace, kInPlaceOnCopy, kOutOfPlace, kNotMaterialized };
std::string_view UpdateVerdictName(UpdateVerdict v);

struct UpdateFinding {
  std::string instruction;
  std::string opcode;
  std::string computation;
  std::optional<std::string> fusion;  // enclosing fusion instruction
  UpdateVerdict verdict = UpdateVerdict::kInPlace;
  bool full_rewrite = false;  // shares the buffer but writes all of it
  std::optional<std::string> copy;  // the copy it runs on (kInPlaceOnCopy)
  std::string operand;              // the buffer value it writes into
  std::string reason;               // one line: why this verdict
  std::optional<int64_t> buffer_bytes;
  std::optional<int64_t> bytes_written;  // per execution
  std::optional<int64_t> executions;
  bool executions_upper_bound = false;
  std::optional<bool> confirmed;  // by XLA's buffer assignment; null: no dump
  std::string confirmation;       // what was compared
  std::optional<SourceLocation> source;
};

struct LoopFinding {
  std::string instruction;
  std::string computation;
  std::optional<int64_t> trip_count;
  std::string trip_count_source;
  std::optional<int64_t> executions;
  std::optional<int64_t> copy_bytes_per_iteration;
  std::optional<int64_t> rewrite_bytes_per_iteration;
  bool scales_with_buffer = false;
  std::vector<std::string> scaling;  // what grows with buffer size, one line each
  std::vector<std::string> enclosing_loops;
  std::optional<SourceLocation> source;
};

struct ParameterFinding {
  int64_t number = 0;
  std::string name;
  std::string shape;
  std::optional<int64_t> bytes;
  bool donated = false;
  bool copied = false;
  std::vector<std::string> copies;
};

struct ModuleCheck {
  std::string name;
  std::string entry;
  std::string buffer_assignment;  // path of the dump used, or empty
  std::vector<ParameterFinding> parameters;
  std::vector<CopyFinding> copies;    // sorted by total bytes, largest first
  std::vector<UpdateFinding> updates;
  std::vector<LoopFinding> loops;
};

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_FINDINGS_H_
