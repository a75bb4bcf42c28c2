// Reading XLA's `-buffer-assignment.txt` dumps (BufferAssignment::ToString).
//
// The dump is the ground truth for "did XLA update in place": two HLO values
// that sit in the same allocation at the same offset share memory. This
// parser keeps only the allocation list, which every XLA version writes:
//
//   BufferAssignment:
//   allocation 0: size 4096, parameter 0, shape |f32[1024]| at ShapeIndex {},
//       output shape is |f32[1024]|, maybe-live-out:      (one line in XLA)
//    value: <21 fusion @0> (size=4096,offset=0): f32[1024]{0}
//    value: <40 while.3{1} (phi) @0> (size=4096,offset=0): f32[1024]{0}
//    reused by buffers of a different color:
//     value: <7 copy.1 @1> (color=1)
//
// Older versions append `Total bytes used`, `Used values:` and a live-range
// table; those are skipped. Allocation headers wrapped over several lines
// (documentation examples reflowed by clang-format) are joined. Format
// details: docs/xla-reference.md section 3.2.
#ifndef HLOSCOPE_PARSER_BUFFER_ASSIGNMENT_H_
#define HLOSCOPE_PARSER_BUFFER_ASSIGNMENT_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hloscope/ir/shape.h"
#include "hloscope/parser/dump_naming.h"
#include "hloscope/support/input_file.h"
#include "hloscope/support/result.h"

namespace hloscope {

// One HLO value placed in an allocation:
// `value: <ID NAME[{idx}][ (phi)][ @color]> (size=S,offset=O): SHAPE`.
struct BufferValue {
  int64_t id = 0;           // HloValue id, unique within the module
  std::string instruction;  // defining instruction, without '%'
  ShapeIndex index;         // empty when printed as `{}` or not at all
  bool phi = false;         // a while/conditional phi value
  int64_t color = 0;        // `@C`; 0 (XLA's default) when not printed
  // Bytes and offset within the allocation. -1 for entries of the
  // "reused by buffers of a different color" list, which print no slice.
  int64_t size = 0;
  int64_t offset = 0;
  std::string shape;  // with layout, as printed
};

// One `allocation N: size S, ...:` block: a contiguous chunk of memory and
// the values that live in it (at their offsets, possibly at different times).
struct BufferAllocation {
  int64_t index = 0;
  int64_t size = 0;
  int64_t color = 0;
  std::optional<int64_t> page;  // `, page N` (newest XLA only)
  std::optional<int64_t> parameter_number;
  ShapeIndex parameter_index;   // `at ShapeIndex {..}`
  std::string parameter_shape;  // `shape |f32[4]|`, without the bars
  std::string output_shape;     // `output shape is |...|`, without the bars
  bool maybe_live_out = false;
  bool is_constant = false;
  bool is_thread_local = false;
  // Set only by an explicit `tuple` flag; current XLA does not print it.
  bool is_tuple = false;
  bool is_preallocated_temp = false;
  bool is_entry_computation_parameter = false;
  // Header items this parser does not know, verbatim, so a newer XLA flag
  // shows up instead of being silently dropped.
  std::vector<std::string> unknown_flags;
  std::vector<BufferValue> values;  // sorted by id, as XLA prints them
  // Values of another color that reuse this allocation's free space. XLA
  // lists them above as well; these entries carry size = offset = -1.
  std::vector<BufferValue> cross_color_values;
  // The header line verbatim, without the newline; a header wrapped over
  // several lines is joined with single spaces.
  std::string header;
  int64_t line = 0;  // 1-based line of the header in the dump
};

// Where a value lives: allocation index, byte offset and byte size.
struct Slice {
  int64_t allocation = 0;
  int64_t offset = 0;
  int64_t size = 0;
  friend bool operator==(const Slice&, const Slice&) = default;
};

// A parsed buffer-assignment dump: the allocations plus an index from
// (instruction, shape index) to the slice of the value defined there.
class BufferAssignment {
 public:
  const std::vector<BufferAllocation>& allocations() const { return allocations_; }
  // The allocation whose header says `allocation <index>`; nullptr if none.
  const BufferAllocation* FindAllocation(int64_t index) const;
  // The value defined at (instruction, index); nullptr when the dump does
  // not list it. Never an entry of a cross-color list.
  const BufferValue* FindValue(std::string_view instruction, const ShapeIndex& index = {}) const;
  // Where the value defined at (instruction, index) lives; nullopt if the
  // dump does not list it (fused intermediates, unallocated constants, ...).
  // Only the primary listing counts: "reused by buffers of a different
  // color" entries never override it.
  std::optional<Slice> SliceOf(std::string_view instruction, const ShapeIndex& index = {}) const;
  // True when both values are listed and have the same allocation and
  // offset; nullopt when either is missing.
  std::optional<bool> SameSlice(std::string_view a, const ShapeIndex& ai, std::string_view b,
                                const ShapeIndex& bi) const;
  // Sum of allocation sizes (XLA's "Total bytes used").
  int64_t total_bytes() const;

 private:
  friend Result<BufferAssignment> ParseBufferAssignment(std::string_view, std::string_view);
  struct ValueRef {
    ShapeIndex index;
    size_t allocation;  // position in allocations_
    size_t value;       // position in allocations_[allocation].values
  };

  std::vector<BufferAllocation> allocations_;
  // Instruction name -> its values (usually one; tuples have one per index).
  std::map<std::string, std::vector<ValueRef>, std::less<>> by_instruction_;
};

// Parses the text of a `-buffer-assignment.txt` dump. `path` is only used in
// diagnostics. Malformed input yields a Diagnostic pointing at the offending
// line and column.
Result<BufferAssignment> ParseBufferAssignment(std::string_view text, std::string_view path);
// Reads and parses a dump ("-" = stdin); I/O errors become diagnostics
// (the same checks as for HLO input: support/input_file.h).
Result<BufferAssignment> ReadBufferAssignmentFile(const std::string& path, const InputOptions& options = {});

// The buffer-assignment dump that belongs to an HLO dump, if it exists:
// `X.txt` -> `X-buffer-assignment.txt` (XLA's --xla_dump_to naming, e.g.
// module_0001.jit_f.cpu_after_optimizations.txt), and `module.hlo.txt` or
// `as_text.hlo.txt` -> `buffer-assignment.txt` in the same folder (the
// layout of tests/fixtures/jax). nullopt if no such file.
// Only a regular file inside the folder is taken (support/found_file.h);
// one refused is added to `refused`.
std::optional<std::string> FindBufferAssignmentBeside(const std::string& hlo_path,
                                                      std::vector<RefusedFile>* refused = nullptr);

}  // namespace hloscope

#endif  // HLOSCOPE_PARSER_BUFFER_ASSIGNMENT_H_
