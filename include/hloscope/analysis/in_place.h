// In-place input/output pairs: where XLA *must* write an instruction's
// result into the buffer of one of its operands (xla AliasInfo::
// GetInPlaceInputOutputPairs and GetFusionInstructionInPlaceInputOutputPairs;
// docs: ../shared/docs/xla-reference.md §2.1-2.2).
//
// The pair is a compile-time guarantee: operand and output are one HloBuffer.
// Whether that buffer is the caller's original array, or a copy XLA made
// first, is what the update analysis works out next.
#ifndef HLOSCOPE_ANALYSIS_IN_PLACE_H_
#define HLOSCOPE_ANALYSIS_IN_PLACE_H_

#include <optional>
#include <vector>

#include "hloscope/ir/module.h"

namespace hloscope {

struct InPlacePair {
  int64_t operand_number = 0;
  ShapeIndex operand_index;
  ShapeIndex output_index;
  // For fusions: the dynamic-update-slice / scatter inside the fused
  // computation that makes the pair; nullptr for annotated aliasing.
  const HloInstruction* fused_update = nullptr;
  // Declared by output_to_operand_aliasing rather than discovered.
  bool annotated = false;
  // Declared by TPU's aliasing_operands: a permission XLA:TPU's buffer
  // assignment may decline (the checks then follow its dump).
  bool permission = false;
};

std::vector<InPlacePair> GetInPlaceInputOutputPairs(const HloInstruction& instr);

// TPU's `"aliasing_operands":{"lists":[{"indices":["0","2"]}]}` in the
// backend_config: operand k of n shares the buffer of output leaf m when a
// list holds both k and n + m. Annotated pairs; scalars included.
std::vector<InPlacePair> ParseAliasingOperands(const HloInstruction& instr);

// Parses `output_to_operand_aliasing={{0}: (1, {}), {1}: (2, {0})}`.
std::vector<InPlacePair> ParseOutputToOperandAliasing(std::string_view value);

// Is this a dynamic-update-slice or scatter (the ops that update arrays)?
bool IsUpdateOpcode(HloOpcode opcode);

// The bytes an update writes: a dynamic-update-slice its update operand, a
// scatter its updates operands; nullopt for other instructions.
std::optional<int64_t> UpdateBytesOf(const HloInstruction& update);

// Whether the emitter rewrites a fusion's whole output although `dus`
// inside it forms an in-place pair (XLA's CanEmitFusedDynamicUpdateSliceInPlace
// conditions; docs/xla-reference.md §2.7). False for a scatter.
bool FusionRewritesInFull(const HloInstruction& fusion, const HloInstruction& dus);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_IN_PLACE_H_
