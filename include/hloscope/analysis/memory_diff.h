// What grows in memory between two compilations (`hloscope diff`,
// Python's scaling()): the peak per device at each side and the buffers
// that make the difference. The peak is argument + output - alias + temp
// (analysis/memory_usage.h); its growth is split into the allocations
// that grew (arguments, outputs — a scan's stacked output is an output
// allocation) and, for the temporaries' heap, the values live at its
// fullest moment. Buffers are matched as diff matches findings: by what
// they are (role, shape pattern) and where they come from (source line,
// op_name), never by instruction names.
#ifndef HLOSCOPE_ANALYSIS_MEMORY_DIFF_H_
#define HLOSCOPE_ANALYSIS_MEMORY_DIFF_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hloscope/analysis/check_document.h"

namespace hloscope {

struct MemoryBufferChange {
  // kAllocation: an argument or output allocation (role "argument",
  // "donated-argument", "output"); kLive: a value live where the
  // temporaries peak (role: its kind, "temporary", "copy", "loop-carry",
  // "loop-update").
  enum class Where : uint8_t { kAllocation, kLive };
  Where where = Where::kAllocation;
  std::string role;
  std::string value_kind;                   // outputs: "loop-update" (a stacked output), "copy", ...
  std::string pattern;                      // "f32[_,_]"
  std::string a_shape, b_shape;             // without layout
  std::optional<int64_t> a_bytes, b_bytes;  // nullopt: not listed on that side
  // Not listed on a side whose list was cut (at most 50 allocations, 20
  // live values): it may be below the list's end rather than absent.
  bool a_cut = false, b_cut = false;
  std::optional<int64_t> parameter_number;
  std::string instruction;          // B's (A's if only in A): detail only
  std::optional<DocSource> source;  // B's, else A's
  std::optional<double> exponent;   // log(bytes ratio) / log(size ratio)
  bool grows = false;               // exponent >= 0.5 and more than 5 % larger

  int64_t added() const { return b_bytes.value_or(0) - a_bytes.value_or(0); }
};

struct MemoryDiff {
  // Device memory (space 0) per device; nullopt on a side without its
  // buffer assignment.
  std::optional<int64_t> a_peak, b_peak;
  std::optional<int64_t> a_argument, b_argument, a_output, b_output, a_alias, b_alias, a_temp, b_temp;
  std::optional<double> ratio;     // b_peak / a_peak
  std::optional<double> exponent;  // of the peak in the size
  // Buffers whose bytes differ (or that one side alone lists), the largest
  // change first; arguments included (they are what the experiment grows).
  std::vector<MemoryBufferChange> buffers;
  int64_t unchanged = 0;  // matched buffers of equal bytes

  bool known() const { return a_peak && b_peak; }
};

// nullopt when neither side has memory. `size_ratio`: the experiment's
// size factor (ModuleDiff::size_ratio), for exponents.
std::optional<MemoryDiff> DiffMemory(const std::optional<DocMemory>& a, const std::optional<DocMemory>& b,
                                     std::optional<double> size_ratio);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_MEMORY_DIFF_H_
