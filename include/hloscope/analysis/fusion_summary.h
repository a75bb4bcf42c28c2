// FusionSummary: what `hloscope fusions` prints — one fusion instruction is
// one kernel (one loop nest on CPU, one launch on GPU). For each fusion in a
// non-fused computation: its kind, the operations fused into it, every
// source line they come from (XLA keeps only one line on the fusion itself),
// the bytes it reads and writes, and how often it runs per call.
#ifndef HLOSCOPE_ANALYSIS_FUSION_SUMMARY_H_
#define HLOSCOPE_ANALYSIS_FUSION_SUMMARY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hloscope/analysis/execution_counts.h"
#include "hloscope/analysis/findings.h"
#include "hloscope/analysis/source_index.h"
#include "hloscope/ir/module.h"

namespace hloscope {

// "kLoop", "kInput", "kOutput", "kCustom", or the text written for others.
std::string FusionKindName(const HloInstruction& fusion);
// The backend's kind for a fusion: backend_config's
// fusion_backend_config.kind on GPU ("__triton", "__cudnn$fusion", ...),
// fusion_config.kind on CPU ("__ynn_fusion"); empty if none.
std::string FusionBackendKind(const HloInstruction& fusion);

// Opcodes worth naming inside a kernel: they move or reshape data, update
// arrays in place, or do the heavy arithmetic.
bool IsInterestingFusedOpcode(HloOpcode opcode);

struct FusedOp {
  std::string name;
  std::string opcode;
  std::string shape;
  std::optional<SourceLocation> source;
};

struct SourceLines {
  std::string file;  // metadata path
  std::vector<int64_t> lines;  // sorted, distinct
};

struct FusionSummary {
  std::string name;
  std::string computation;        // where the fusion instruction is
  std::string fused_computation;  // what it calls
  std::string kind;               // kLoop / kInput / kOutput / kCustom
  std::string backend_kind;       // e.g. "__triton"; empty if none
  std::string shape;              // output shape
  int64_t instruction_count = 0;  // fused instructions, parameters excluded
  // Opcode -> count, most frequent first (ties by name); parameters excluded.
  std::vector<std::pair<std::string, int64_t>> opcode_counts;
  std::vector<FusedOp> interesting;  // in text order, nested fusions included
  std::vector<SourceLines> lines;    // union over the fusion and everything in it
  std::string lines_text;            // "loops.py:14-16,20; util.py:3"
  std::optional<SourceLocation> source;  // the fusion's own metadata
  std::optional<int64_t> bytes_read;     // sum of operand buffer sizes
  std::optional<int64_t> bytes_written;  // output buffer bytes
  std::optional<int64_t> executions;
  bool executions_upper_bound = false;
  std::vector<std::string> enclosing_loops;  // innermost first
  // Findings of `check` on this kernel, one line each
  // ("dynamic-update-slice.2: in-place-on-copy (on copy.7)").
  std::vector<std::string> findings;
};

struct FusionsOptions {
  std::string scope;  // named-scope filter on the fused instructions' op_names
};

struct ModuleFusions {
  std::string name;
  std::vector<FusionSummary> fusions;  // text order
  int64_t kernels_total = 0;           // fusions before the scope filter
};

ModuleFusions SummarizeFusions(const SourceIndex& index, const ExecutionCounts& counts,
                               const ModuleCheck* check, const FusionsOptions& options = {});

// The summary of one fusion instruction (in a sequential computation).
FusionSummary SummarizeFusion(const HloInstruction& fusion, const SourceIndex& index,
                              const ExecutionCounts& counts, const ModuleCheck* check);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_FUSION_SUMMARY_H_
