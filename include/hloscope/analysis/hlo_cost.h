// HloCost: the work of one instruction — FLOPs, transcendentals and bytes
// accessed — by the rules of XLA's HloCostAnalysis
// (xla/service/hlo_cost_analysis.cc; docs/cost.md has the table), so that a
// loop-free module's totals are what JAX's `compiled.cost_analysis()` says.
//
// Where we differ from XLA, on purpose, and only when asked
// (CostOptions::counting):
//  * kPerRun (what `hloscope cost` multiplies by executions): while,
//    conditional, call and async-start cost nothing themselves — their
//    computations are kernels of their own, counted as often as they run
//    (XLA counts a loop body once, jax#13956); a custom-call's FLOPs are
//    unknown (XLA adds -1) and its bytes are its operands and outputs, except
//    GEMM custom-calls (cuBLAS, oneDNN matmul) whose FLOPs are the dot's.
//  * kAsXla: XLA's numbers exactly, -1 and all (tests compare with it).
#ifndef HLOSCOPE_ANALYSIS_HLO_COST_H_
#define HLOSCOPE_ANALYSIS_HLO_COST_H_

#include <cstdint>
#include <memory>

#include "hloscope/ir/module.h"

namespace hloscope {

struct HloCost {
  int64_t flops = 0;
  int64_t transcendentals = 0;
  int64_t bytes_accessed = 0;
  // Some size or count could not be known (an unbounded dimension, a
  // custom-call's FLOPs, an attribute we could not read): a lower bound.
  bool incomplete = false;
  // Custom-calls counted kAsXla: XLA adds -1 to FLOPs and to bytes for each
  // (it cannot know their work); kept apart so that sums stay sizes.
  int64_t xla_unknown_calls = 0;
  // The part of `flops` done by dots, convolutions and library GEMMs
  // (nested in fusions too): a roofline runs them at the matrix rate. Not
  // one of XLA's figures.
  int64_t matmul_flops = 0;

  HloCost& operator+=(const HloCost& other);
  // Each figure times `n` (saturating).
  HloCost Times(int64_t n) const;
};

enum class CostCounting : uint8_t {
  kPerRun,  // one run of the instruction alone (control flow: 0)
  kAsXla,   // HloCostAnalysis's answer for the instruction (loops once)
};

struct CostOptions {
  CostCounting counting = CostCounting::kPerRun;
  int pointer_size = 8;  // tuple index tables (CPU: sizeof(void*))
  // False: FLOPs and transcendentals only (bytes 0) — what a fusion or a
  // reduce takes of the operations inside it, and a third of the time.
  bool count_bytes = true;
};

HloCost CostOf(const HloInstruction& instr, const CostOptions& options = {});

// The same for many instructions of one module: the FLOPs of every fused
// computation and reducer, and the cost of every loop body, are computed
// once and kept (a module's kernels, then its XLA total, visit each once).
class CostAnalysis {
 public:
  CostAnalysis();
  ~CostAnalysis();
  CostAnalysis(const CostAnalysis&) = delete;
  CostAnalysis& operator=(const CostAnalysis&) = delete;

  HloCost Of(const HloInstruction& instr, const CostOptions& options = {});
  // XlaCostAnalysisOf.
  HloCost XlaTotal(const HloModule& module, int pointer_size = 8);

 private:
  struct Memo;
  std::unique_ptr<Memo> memo_;
};

// What `compiled.cost_analysis()` returns for the module: the entry
// computation's instructions, each as XLA counts it (loop bodies once,
// conditionals the max over branches). XLA's figures are flops −
// xla_unknown_calls and bytes_accessed − xla_unknown_calls.
HloCost XlaCostAnalysisOf(const HloModule& module, int pointer_size = 8);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_HLO_COST_H_
