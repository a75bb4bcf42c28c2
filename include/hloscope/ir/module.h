// HloModule: one compiled program, the top-level unit of HLO text.
//
//   HloModule jit_f, is_scheduled=true, input_output_alias={ {}: (0, {}, may-alias) }, ...
//   FileNames ... StackFrames ...        (optional source tables)
//   %fused_computation (...) -> ... { ... }
//   ENTRY %main.5 (...) -> ... { ... }
//
// It owns everything parsed from it: the source text its views point into,
// the arena holding instructions and computations, and the interned shapes.
// Several modules may share one source buffer (one `as_text()` string).
#ifndef HLOSCOPE_IR_MODULE_H_
#define HLOSCOPE_IR_MODULE_H_

#include <forward_list>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hloscope/ir/computation.h"
#include "hloscope/ir/stack_frames.h"
#include "hloscope/support/arena.h"

namespace hloscope {

enum class AliasKind : uint8_t { kMayAlias, kMustAlias };

// One entry of `input_output_alias={ {OUT}: (PARAM, {PARAM_IDX}, kind) }`.
struct InputOutputAlias {
  ShapeIndex output_index;
  int64_t parameter_number = 0;
  ShapeIndex parameter_index;
  AliasKind kind = AliasKind::kMayAlias;
};

// One entry of `buffer_donor={ (PARAM, {IDX}) }`.
struct BufferDonor {
  int64_t parameter_number = 0;
  ShapeIndex parameter_index;
};

class HloNameIndex;

class HloModule {
 public:
  explicit HloModule(std::shared_ptr<const std::string> source)
      : source_text_(*source), source_(std::move(source)) {}
  // `source` owns the memory `text` points into (a string, a mapped file).
  HloModule(std::shared_ptr<const void> source, std::string_view text)
      : source_text_(text), source_(std::move(source)) {}
  HloModule(const HloModule&) = delete;
  HloModule& operator=(const HloModule&) = delete;
  ~HloModule();

  std::string_view name() const { return name_; }
  // The file (or "<stdin>") this module was read from.
  const std::string& path() const { return path_; }
  std::string_view source() const { return source_text_; }
  // 1-based line of a byte offset into source() (for reports).
  int64_t LineOf(uint64_t offset) const;

  HloComputation* entry_computation() const { return entry_; }
  // In text order (callees before callers in printed HLO).
  std::span<HloComputation* const> computations() const { return computations_; }
  // Every computation and instruction by name (ir/name_index.h), built on
  // first use and kept; the lookups below use it.
  const HloNameIndex& names() const;
  // The computation `name` (without '%'); nullptr if none or ambiguous.
  HloComputation* GetComputation(std::string_view name) const;

  // Header attributes, verbatim, in text order.
  std::span<const HloAttribute> attributes() const { return attributes_; }
  std::optional<std::string_view> attribute(std::string_view name) const;
  bool is_scheduled() const { return is_scheduled_; }
  const std::vector<InputOutputAlias>& input_output_aliases() const { return aliases_; }
  const std::vector<BufferDonor>& buffer_donors() const { return donors_; }
  const StackFrameIndex& stack_frames() const { return stack_frames_; }

  int64_t instruction_count() const;

  Arena& arena() { return arena_; }
  // Bytes held by the IR (arena, shapes), not counting the source text.
  size_t MemoryUsage() const;

 private:
  friend class HloParserImpl;

  std::string_view source_text_;
  std::shared_ptr<const void> source_;  // keeps source_text_ alive
  std::string path_;
  std::string_view name_;
  HloComputation* entry_ = nullptr;
  std::span<HloComputation* const> computations_;
  std::span<const HloAttribute> attributes_;
  bool is_scheduled_ = false;
  std::vector<InputOutputAlias> aliases_;
  std::vector<BufferDonor> donors_;
  StackFrameIndex stack_frames_;
  Arena arena_;
  // Lists, not deques: a deque allocates 1 KiB when constructed, and an
  // input may hold 250,000 modules of a few instructions each.
  std::forward_list<Shape> shapes_;
  // Text the parser had to make up (names of nested operands).
  std::forward_list<std::string> synthesized_;
  mutable std::vector<uint64_t> line_starts_;
  // A deleter defined in module.cc, so that HloNameIndex can stay
  // incomplete here (it includes this header's computations).
  struct NamesDeleter {
    void operator()(HloNameIndex* p) const;
  };
  mutable std::once_flag names_once_;
  mutable std::unique_ptr<HloNameIndex, NamesDeleter> names_;
};

}  // namespace hloscope

#endif  // HLOSCOPE_IR_MODULE_H_
