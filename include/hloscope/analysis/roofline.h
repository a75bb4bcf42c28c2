// Roofline: a time estimate for a kernel from its FLOPs and bytes —
// max(FLOPs / peak FLOP rate, bytes / memory bandwidth) — on a named target,
// from the vendor's published peak figures (docs/cost.md lists them and
// their sources) or, for CPUs, figures measured on a machine
// (tools/measure_cpu_roofline.py). An estimate, labelled so everywhere: it
// ignores caches, launch overheads, overlap and occupancy (XLA's own GPU
// model, gpu_performance_model_base.cc, adds those).
#ifndef HLOSCOPE_ANALYSIS_ROOFLINE_H_
#define HLOSCOPE_ANALYSIS_ROOFLINE_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "hloscope/ir/module.h"

namespace hloscope {

struct Roofline {
  std::string_view name;               // "h100", "tpu-v5e", "cpu"
  std::string_view description;        // "NVIDIA H100 SXM (HBM3)"
  double matmul_flops_per_second = 0;  // dot and convolution (tensor/matrix units, bf16)
  double vector_flops_per_second = 0;  // everything else (f32 vector units)
  double bytes_per_second = 0;         // main memory (HBM, DRAM)
  std::string_view source;             // where the figures come from
  // What one device sends to the others per second (NVLink, TPU ICI; one
  // direction); 0 where no figure is published for the target (the CPU's
  // host "devices" share its memory): collectives are then timed at
  // bytes_per_second.
  double interconnect_bytes_per_second = 0;
};

// Every target we know, the default for each backend first.
std::span<const Roofline> Rooflines();
const Roofline* FindRoofline(std::string_view name);

// The target a module was compiled for, as far as its text says (GPU
// custom-calls and fusion kinds, TPU tiled layouts), as a Rooflines() name:
// "h100" for GPU, "tpu-v5e" for TPU, else "cpu".
std::string_view GuessTarget(const HloModule& module);

// Seconds for `flops` matrix FLOPs, `vector_flops` other FLOPs and `bytes`.
double EstimateSeconds(const Roofline& roofline, int64_t matmul_flops, int64_t vector_flops, int64_t bytes);
// Seconds for a collective to send or receive `bytes` per device.
double EstimateCollectiveSeconds(const Roofline& roofline, int64_t bytes);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_ROOFLINE_H_
