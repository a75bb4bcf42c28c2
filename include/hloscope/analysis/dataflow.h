// Value tracing with XLA's dataflow rules (xla/hlo/analysis/
// hlo_dataflow_analysis.cc, InitializeInstructionValueSets).
//
// An HloValue is defined at one position (instruction, shape index). Some
// instructions only forward values they receive: get-tuple-element, the
// elements of a tuple, bitcast, call (its callee's root), the parameters of a
// called computation, opt-barrier, domain, copy-done, the -done of an async
// all-gather, all-reduce or collective-permute. DefiningPosition() walks
// through those to the position that defines the value — the name XLA's
// buffer-assignment dump lists it under (`while.3{1} (phi)`, `copy.7`).
#ifndef HLOSCOPE_ANALYSIS_DATAFLOW_H_
#define HLOSCOPE_ANALYSIS_DATAFLOW_H_

#include <string>
#include <vector>

#include "hloscope/analysis/operand_numbers.h"
#include "hloscope/ir/module.h"

namespace hloscope {

// (instruction, shape index): a place where a value appears.
struct HloPosition {
  const HloInstruction* instruction = nullptr;
  ShapeIndex index;

  bool operator==(const HloPosition& o) const { return instruction == o.instruction && index == o.index; }
};

// The position that defines the value found at (instr, index).
// While and conditional results, and the parameters of while bodies and
// conditions, define phi values; they are returned as they are.
HloPosition DefiningPosition(const HloInstruction* instr, const ShapeIndex& index = {});

// Walks one step further back than DefiningPosition for loop state: the
// value a while-body parameter (or a while result) starts from, i.e. the
// defining position of the loop's init at that index. Returns the input
// unchanged when it is not loop state.
HloPosition LoopInitOf(const HloPosition& position);

// The instructions that read the value defined at `position`, following it
// through forwarding instructions (tuple, get-tuple-element, bitcast, call,
// while init -> body parameter). Each use is (user, operand number).
// `numbers`, when given, finds the operand numbers in wide users without
// scanning them: for callers that walk every value of a module.
struct HloUse {
  const HloInstruction* user = nullptr;
  int64_t operand_number = 0;
  ShapeIndex operand_index;  // where the value sits inside that operand
};
std::vector<HloUse> UsesOf(const HloPosition& position, OperandNumbers* numbers = nullptr);

// True when the value at `position` reaches the entry root (is live out),
// following forwarding instructions; fills the entry output indices.
bool ReachesEntryOutput(const HloPosition& position, std::vector<ShapeIndex>* outputs);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_DATAFLOW_H_
