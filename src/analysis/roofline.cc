#include "hloscope/analysis/roofline.h"

#include <algorithm>

#include "hloscope/analysis/backend_config.h"
#include "hloscope/analysis/call_graph.h"
#include "hloscope/ir/computation.h"

namespace hloscope {
namespace {

// Dense (no sparsity) peaks from the vendors' data sheets; docs/cost.md
// cites each. The CPU row is this project's 2-core CI machine, measured by
// tools/measure_cpu_roofline.py (XLA's own f32 matmul, a fused element-wise
// loop near the caches, an in-place pass over 256 MiB): two runs gave
// 200–222 GFLOP/s, 64–67 GFLOP/s and 28–30 GB/s; the lower of each is here.
constexpr Roofline kRooflines[] = {
    {"cpu", "a 2-core x86 CPU (the CI machine's figures)", 2.0e11, 6.4e10, 2.8e10,
     "tools/measure_cpu_roofline.py on the project's 2-core CI machine (jax 0.10.2), 2026-12-05: medians of "
     "7"},
    {"h100", "NVIDIA H100 SXM (HBM3)", 989e12, 67e12, 3.35e12,
     "NVIDIA H100 data sheet: BF16 dense, FP32, HBM3; NVLink 4 (900 GB/s both ways)", 450e9},
    {"a100", "NVIDIA A100 SXM 80GB", 312e12, 19.5e12, 2.039e12,
     "NVIDIA A100 data sheet: BF16 dense, FP32, HBM2e; NVLink 3 (600 GB/s both ways)", 300e9},
    {"tpu-v5e", "Google TPU v5e (one chip)", 197e12, 197e12 / 8, 819e9,
     "Google Cloud TPU v5e documentation: BF16 peak, HBM bandwidth, ICI 1,600 Gbps", 200e9},
    {"tpu-v5p", "Google TPU v5p (one chip)", 459e12, 459e12 / 8, 2.765e12,
     "Google Cloud TPU v5p documentation: BF16 peak, HBM bandwidth, ICI 4,800 Gbps", 600e9},
    {"tpu-v4", "Google TPU v4 (one chip)", 275e12, 275e12 / 8, 1.2e12,
     "Google Cloud TPU v4 documentation: BF16 peak, HBM bandwidth"},
};

}  // namespace

std::span<const Roofline> Rooflines() { return kRooflines; }

const Roofline* FindRoofline(std::string_view name) {
  for (const Roofline& r : kRooflines)
    if (r.name == name) return &r;
  return nullptr;
}

std::string_view GuessTarget(const HloModule& module) {
  for (const HloComputation* c : module.computations()) {
    // TPU tiles every array (the first instruction tells); GPU's library
    // calls and fusion emitters are instructions of non-fused computations.
    if (RoleOf(*c) == ComputationRole::kFused) {
      const HloInstruction* first = c->instructions().empty() ? nullptr : c->instructions().front();
      if (first && first->shape().layout && !first->shape().layout->tiles.empty()) return "tpu-v5e";
      continue;
    }
    for (const HloInstruction* i : c->instructions()) {
      // TPU layouts are tiled: f32[8,128]{1,0:T(8,128)}.
      if (i->shape().layout && !i->shape().layout->tiles.empty()) return "tpu-v5e";
      if (i->opcode() == HloOpcode::kCustomCall) {
        std::optional<std::string_view> target = i->attribute("custom_call_target");
        if (target && (target->find("__cublas") != std::string_view::npos ||
                       target->find("__cudnn") != std::string_view::npos ||
                       target->find("__triton") != std::string_view::npos))
          return "h100";
      }
      // GPU fusions name their emitter in the backend config ("__triton_gemm",
      // "__cudnn$fusion"), and those are kCustom fusions (every one in the
      // corpus): a substring test of those only, not of every CPU fusion's
      // config (a tenth of the cost part of `check`).
      if (i->opcode() == HloOpcode::kFusion && i->fusion_kind() == FusionKind::kCustom &&
          (BackendConfigMentions(*i, "\"__triton") || BackendConfigMentions(*i, "\"__cu")))
        return "h100";
    }
  }
  return "cpu";
}

double EstimateSeconds(const Roofline& roofline, int64_t matmul_flops, int64_t vector_flops, int64_t bytes) {
  double compute = 0;
  if (roofline.matmul_flops_per_second > 0)
    compute += static_cast<double>(std::max<int64_t>(matmul_flops, 0)) / roofline.matmul_flops_per_second;
  if (roofline.vector_flops_per_second > 0)
    compute += static_cast<double>(std::max<int64_t>(vector_flops, 0)) / roofline.vector_flops_per_second;
  double memory = roofline.bytes_per_second > 0
                      ? static_cast<double>(std::max<int64_t>(bytes, 0)) / roofline.bytes_per_second
                      : 0;
  return std::max(compute, memory);
}

double EstimateCollectiveSeconds(const Roofline& roofline, int64_t bytes) {
  double rate = roofline.interconnect_bytes_per_second > 0 ? roofline.interconnect_bytes_per_second
                                                           : roofline.bytes_per_second;
  return rate > 0 ? static_cast<double>(std::max<int64_t>(bytes, 0)) / rate : 0;
}

}  // namespace hloscope
