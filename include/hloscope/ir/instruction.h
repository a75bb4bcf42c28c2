// HloInstruction: one line of a computation.
//
//   ROOT %dus.3 = f32[10]{0} dynamic-update-slice(%p0, %upd, %i), metadata={...}
//
// It is an SSA value like an LLVM instruction: a name, a shape, an opcode,
// operands (other instructions of the same computation), and attributes.
// Every attribute is kept verbatim (name and value text), so opcodes and
// attributes from newer XLA versions survive a parse/print round trip; the
// ones hloscope needs are also decoded (called computations, metadata,
// parameter number, tuple index, fusion kind).
//
// Instructions live in their module's arena and are never destroyed one by
// one: all members are views, pointers and spans.
#ifndef HLOSCOPE_IR_INSTRUCTION_H_
#define HLOSCOPE_IR_INSTRUCTION_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "hloscope/ir/metadata.h"
#include "hloscope/ir/opcode.h"
#include "hloscope/ir/packed.h"
#include "hloscope/ir/shape.h"

namespace hloscope {

class HloComputation;

// `name=value`, both views of the input (value verbatim, e.g. `{...}`).
// Packed views (24 bytes, not 32): a large module has a million of these.
struct HloAttribute {
  PackedStr name;
  PackedStr value;
};

// Why an instruction calls a computation: the attribute that names it.
enum class CallRole : uint8_t {
  kCalls,               // fusion, async-start, call-start: calls=
  kToApply,             // reduce, map, sort, scatter, all-reduce, call
  kBody,                // while body=
  kCondition,           // while condition=
  kBranch,              // conditional branch_computations={..}
  kTrueComputation,     // conditional true_computation=
  kFalseComputation,    // conditional false_computation=
  kCalledComputations,  // custom-call called_computations={..}
  kSelect,              // select-and-scatter select=
  kScatter,             // select-and-scatter scatter=
  kOther,               // an attribute this version does not know
};

struct CalledComputation {
  CallRole role;
  HloComputation* computation;
};

enum class FusionKind : uint8_t { kNone, kLoop, kInput, kOutput, kCustom, kOther };

class HloInstruction {
 public:
  std::string_view name() const { return name_.view(); }
  HloOpcode opcode() const { return opcode_; }
  // The opcode as written; differs from HloOpcodeString for kUnknown.
  std::string_view opcode_text() const {
    return opcode_ == HloOpcode::kUnknown && rare_ ? rare_->opcode_text.view() : HloOpcodeString(opcode_);
  }
  const Shape& shape() const { return *shape_; }
  HloComputation* parent() const { return parent_; }
  bool is_root() const { return is_root_; }

  std::span<HloInstruction* const> operands() const { return operands_; }
  HloInstruction* operand(size_t i) const { return operands_[i]; }
  int64_t operand_count() const { return static_cast<int64_t>(operands_.size()); }
  std::span<HloInstruction* const> users() const { return users_; }
  std::span<HloInstruction* const> control_predecessors() const {
    if (!rare_) return {};
    return rare_->control_predecessors;
  }
  std::span<const CalledComputation> called_computations() const { return called_; }
  // The first computation called in `role`, or nullptr.
  HloComputation* called(CallRole role) const;

  std::span<const HloAttribute> attributes() const { return attributes_; }
  // The value text of attribute `name`, verbatim; nullopt when absent.
  std::optional<std::string_view> attribute(std::string_view name) const;
  // `backend_config` value (raw JSON dict or quoted string, as printed).
  std::optional<std::string_view> backend_config() const { return attribute("backend_config"); }

  const OpMetadata* metadata() const { return metadata_; }

  // Text inside the parentheses for parameter (the number) and constant (the
  // literal); empty otherwise.
  std::string_view operand_text() const { return operand_text_.view(); }
  int64_t parameter_number() const { return int_attr_; }  // kParameter
  int64_t tuple_index() const { return int_attr_; }       // kGetTupleElement
  FusionKind fusion_kind() const { return fusion_kind_; }

  // Shortcuts for called computations.
  HloComputation* fused_computation() const { return called(CallRole::kCalls); }
  HloComputation* while_body() const { return called(CallRole::kBody); }
  HloComputation* while_condition() const { return called(CallRole::kCondition); }

  // Byte offset of the instruction's name in the module's source text.
  uint64_t source_offset() const { return offset_; }
  // Dense id, unique within the module (0..N-1): index for per-instruction
  // arrays in analyses.
  uint32_t id() const { return id_; }

 private:
  friend class HloParserImpl;
  friend class HloModule;

  // What few instructions have (an opcode this version does not know,
  // control-predecessors=), kept out of line: 16 bytes less per
  // instruction, 12 MB on a 100 MB module.
  struct Rare {
    PackedStr opcode_text;
    PackedSpan<HloInstruction* const> control_predecessors;
  };

  // 8-byte fields first, then the packed 12-byte ones (see packed.h).
  const Shape* shape_ = nullptr;
  HloComputation* parent_ = nullptr;
  const OpMetadata* metadata_ = nullptr;
  uint64_t offset_ = 0;
  Rare* rare_ = nullptr;
  PackedStr name_;
  PackedStr operand_text_;
  PackedSpan<HloInstruction* const> operands_;
  PackedSpan<HloInstruction* const> users_;
  PackedSpan<const CalledComputation> called_;
  PackedSpan<const HloAttribute> attributes_;
  int32_t int_attr_ = -1;
  uint32_t id_ = 0;
  HloOpcode opcode_ = HloOpcode::kUnknown;
  FusionKind fusion_kind_ = FusionKind::kNone;
  bool is_root_ = false;
};

}  // namespace hloscope

#endif  // HLOSCOPE_IR_INSTRUCTION_H_
