// HloComputation: a named list of instructions with one ROOT, like a function.
//
//   %body.7 (p: (s32[], f32[8])) -> (s32[], f32[8]) { ... }
//
// The module's ENTRY computation is like main(); the others are called by
// instructions (fusions, while bodies and conditions, branches, reducers).
// Instructions are kept in text order, which is the schedule when the module
// says is_scheduled=true.
#ifndef HLOSCOPE_IR_COMPUTATION_H_
#define HLOSCOPE_IR_COMPUTATION_H_

#include <span>
#include <string_view>
#include <vector>

#include "hloscope/ir/instruction.h"

namespace hloscope {

class HloModule;

class HloComputation {
 public:
  std::string_view name() const { return name_; }
  HloModule* parent() const { return parent_; }
  HloInstruction* root_instruction() const { return root_; }
  std::span<HloInstruction* const> instructions() const { return instructions_; }
  int64_t instruction_count() const { return static_cast<int64_t>(instructions_.size()); }
  // Parameters by number (nullptr for a gap in hand-written text).
  std::span<HloInstruction* const> parameters() const { return parameters_; }
  HloInstruction* parameter(int64_t i) const {
    return i >= 0 && i < static_cast<int64_t>(parameters_.size()) ? parameters_[i] : nullptr;
  }
  bool is_entry() const { return is_entry_; }
  // `execution_thread="host"` after the closing brace; empty = main thread.
  std::string_view execution_thread() const { return execution_thread_; }
  // The signature text `(a: f32[]) -> f32[]` as printed; empty if absent.
  std::string_view signature() const { return signature_; }
  // Looks an instruction up by name (without '%') in the module's name
  // index; nullptr if absent.
  HloInstruction* GetInstruction(std::string_view name) const;
  uint64_t source_offset() const { return offset_; }
  // Dense id, unique within the module (0..N-1, in the order parsed): index
  // for per-computation arrays in analyses.
  uint32_t id() const { return id_; }

  // Instructions that call this computation (filled after parsing).
  std::span<HloInstruction* const> callers() const { return callers_; }
  // Every operand (and control predecessor) is written before its user in
  // the text, as in everything XLA prints: then no operand cycle can exist,
  // and the verifier need not look for one. False when unknown.
  bool operands_precede_users() const { return operands_precede_users_; }

 private:
  friend class HloParserImpl;
  friend class HloModule;

  std::string_view name_;
  std::string_view signature_;
  std::string_view execution_thread_;
  HloModule* parent_ = nullptr;
  HloInstruction* root_ = nullptr;
  std::span<HloInstruction* const> instructions_;
  std::span<HloInstruction* const> parameters_;
  PackedSpan<HloInstruction* const> callers_;
  uint64_t offset_ = 0;
  uint32_t id_ = 0;
  bool is_entry_ = false;
  bool operands_precede_users_ = false;
};

}  // namespace hloscope

#endif  // HLOSCOPE_IR_COMPUTATION_H_
