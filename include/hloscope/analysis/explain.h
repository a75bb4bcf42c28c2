// `hloscope explain`: HLO in plain words.
//
// For one instruction: what the opcode does, how to read its shape and
// layout, what its fusion kind means, what its metadata says, how often it
// runs and why it is (or is not) updated in place. For a whole module: a
// short guided reading — the entry, the loops with trip counts, the kernels
// by kind, the copies.
#ifndef HLOSCOPE_ANALYSIS_EXPLAIN_H_
#define HLOSCOPE_ANALYSIS_EXPLAIN_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hloscope/analysis/execution_counts.h"
#include "hloscope/analysis/findings.h"
#include "hloscope/analysis/source_index.h"
#include "hloscope/ir/module.h"

namespace hloscope {

// One plain-language sentence for an opcode ("dynamic-update-slice" ->
// "writes a smaller array (the update) into ..."); empty when unknown.
std::string_view DescribeOpcode(std::string_view opcode);

// How to read a shape: element type and count, bytes, and each part of the
// layout ({1,0} minor-to-major order, T(8,128) tiles, E(4) element bits,
// S(1) memory space). One sentence per line.
std::vector<std::string> DescribeShape(const Shape& shape);

// What a fusion kind means ("kLoop": ...); backend_kind refines kCustom.
std::string DescribeFusionKind(std::string_view kind, std::string_view backend_kind = "");

// What an op_name says: the jitted function, the user's named scopes, the
// JAX transformations around them, and the primitive.
std::vector<std::string> DescribeOpName(std::string_view op_name);

struct ExplainSection {
  std::string title;
  std::vector<std::string> lines;
};

struct Explanation {
  std::string module;
  std::string instruction;  // empty for the module reading
  std::string text;         // the HLO line (instruction) or the module header
  std::vector<ExplainSection> sections;
};

struct ExplainContext {
  const SourceIndex& index;
  const ExecutionCounts& counts;
  const ModuleCheck& check;
};

// Looks `name` up (with or without '%') in every computation; nullptr if absent.
const HloInstruction* FindInstructionByName(const HloModule& module, std::string_view name);

Explanation ExplainInstruction(const HloInstruction& instr, const ExplainContext& ctx);
Explanation ExplainModule(const ExplainContext& ctx);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_EXPLAIN_H_
