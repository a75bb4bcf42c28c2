// FusionSummary: what `hloscope fusions` shows — one kernel (one loop nest
// on CPU, one launch on GPU): a fusion instruction, or an instruction that
// does its work unfused (a dot, a convolution, a sort, a reduce, a scatter,
// a gather, an FFT, a custom-call, a collective: IsUnfusedKernel). For each
// kernel in a non-fused computation: the operations fused into it, every
// source line they come from (XLA keeps only one line on the fusion
// itself), the bytes it reads and writes, its FLOPs (hlo_cost.h), how often
// it runs per call, and the check findings on it.
#ifndef HLOSCOPE_ANALYSIS_FUSION_SUMMARY_H_
#define HLOSCOPE_ANALYSIS_FUSION_SUMMARY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "hloscope/analysis/backend_config.h"
#include "hloscope/analysis/execution_counts.h"
#include "hloscope/analysis/findings.h"
#include "hloscope/analysis/kernel_traffic.h"
#include "hloscope/analysis/line_spec.h"
#include "hloscope/analysis/source_index.h"
#include "hloscope/ir/module.h"

namespace hloscope {

// Opcodes worth naming inside a kernel: they move or reshape data, update
// arrays in place, or do the heavy arithmetic.
bool IsInterestingFusedOpcode(HloOpcode opcode);
// Work XLA leaves outside fusions that is a kernel of its own (a library
// call, a sort, a collective): dot, convolution, sort, reduce,
// reduce-window, select-and-scatter, scatter, gather, fft, custom-call,
// triangular-solve, cholesky, rng-bit-generator, top-k and the collectives
// (an async pair counts its start). Copies are findings of their own.
bool IsUnfusedKernel(HloOpcode opcode);

struct FusedOp {
  const HloInstruction* instruction = nullptr;
  // Interned in the SourceIndex (op_name only when attributed; see
  // SourceIndex::Of for the instruction's own): a module has ~10 notable
  // ops per kernel, tens of thousands of kernels.
  const SourceLocation* source = nullptr;
};

struct FusionSummary {
  const HloInstruction* fusion = nullptr;
  std::string backend_kind;       // e.g. "__triton"; empty if none
  int64_t instruction_count = 0;  // fused instructions, parameters excluded
  // Opcode (as written) -> count, most frequent first (ties by name);
  // parameters excluded.
  std::vector<std::pair<std::string_view, int64_t>> opcode_counts;
  std::vector<FusedOp> interesting;  // in text order, nested fusions included
  std::vector<FileLines> lines;      // union over the fusion and everything in it
  // The fusion's own location, interned in the SourceIndex (op_name left
  // out; LocationOf adds it): one copy per kernel was a third of the
  // summaries' memory.
  const SourceLocation* source = nullptr;
  // A kernel that only lays an array out anew, or has no line: the op it
  // serves downstream and that op's location (analysis/served_op.h), where
  // the diff reports the kernel; nullptr otherwise.
  const HloInstruction* serves = nullptr;
  const SourceLocation* serves_source = nullptr;
  std::optional<int64_t> bytes_read;     // per run (kernel_traffic.h)
  std::optional<int64_t> bytes_written;  // per run
  // Per run, by XLA's HloCostAnalysis rules (hlo_cost.h); nullopt when not
  // countable (a custom-call: the library's work).
  std::optional<int64_t> flops;
  std::optional<int64_t> transcendentals;
  std::optional<int64_t> executions;
  bool executions_upper_bound = false;
  std::vector<const HloInstruction*> enclosing_loops;  // innermost first
  // Findings of `check` on this kernel.
  std::vector<const UpdateFinding*> updates;
  std::vector<const CopyFinding*> copies;

  // (bytes read + bytes written) × executions; nullopt if any is unknown.
  std::optional<int64_t> bytes_per_call() const;
};

struct FusionsOptions {
  std::string scope;  // named-scope filter on the fused instructions' op_names
};

// The kernels a `fusions` query selects, each summarized when asked for:
// a module has tens of thousands, and summaries of all of them held at once
// were a third of the command's peak memory.
struct FusionSelection {
  const HloModule* module = nullptr;
  // Selected; by bytes read + written per call, largest first (unknown
  // last, ties in text order): the kernels that cost the most lead.
  std::vector<const HloInstruction*> kernels;
  std::vector<KernelTraffic> traffic;  // of kernels[k], per run
  int64_t kernels_total = 0;           // fusions before the scope filter
  const SourceIndex* index = nullptr;
  const ExecutionCounts* counts = nullptr;
  const ModuleCheck* check = nullptr;  // may be null

  FusionSummary Summary(size_t k) const;
};

FusionSelection SelectFusions(const SourceIndex& index, const ExecutionCounts& counts,
                              const ModuleCheck* check, const FusionsOptions& options = {});

// Every selected kernel summarized at once (tests, small modules).
struct ModuleFusions {
  const HloModule* module = nullptr;
  std::vector<FusionSummary> fusions;  // as FusionSelection::kernels: largest bytes per call first
  int64_t kernels_total = 0;           // fusions before the scope filter
};

ModuleFusions SummarizeFusions(const SourceIndex& index, const ExecutionCounts& counts,
                               const ModuleCheck* check, const FusionsOptions& options = {});

// The kernels of a module: fusions and IsUnfusedKernel instructions in
// sequential computations, text order.
std::vector<const HloInstruction*> KernelsOf(const HloModule& module);
// (bytes read + bytes written) × executions of one kernel, as
// FusionSummary::bytes_per_call computes it, without the rest of a summary.
std::optional<int64_t> KernelBytesPerCall(const HloInstruction& fusion, const ExecutionCounts& counts);

// `known_traffic`: the kernel's traffic if already computed (else computed here).
FusionSummary SummarizeFusion(const HloInstruction& fusion, const SourceIndex& index,
                              const ExecutionCounts& counts, const ModuleCheck* check,
                              const KernelTraffic* known_traffic = nullptr);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_FUSION_SUMMARY_H_
