// XLA's backend_config on an instruction, decoded in one place: the
// backend's proto printed as JSON (or, by older printers, a quoted string
// holding that JSON), int64 fields as JSON strings ("n":"10"). Everything
// hloscope reads from it is a function here, so no caller parses JSON.
#ifndef HLOSCOPE_ANALYSIS_BACKEND_CONFIG_H_
#define HLOSCOPE_ANALYSIS_BACKEND_CONFIG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hloscope/ir/instruction.h"

namespace hloscope {

// A while's known_trip_count.n (WhileLoopTripCountAnnotator); negative
// counts read as 0.
std::optional<int64_t> KnownTripCount(const HloInstruction& instr);

// A fusion's backend kind: GPU's fusion_backend_config.kind, CPU's
// fusion_config.kind ("__triton", "__ynn_fusion"); "" when none.
std::string FusionBackendKind(const HloInstruction& fusion);
// True when the backend config's text holds `needle` (a quick test on a
// module's every fusion, without decoding each: GuessTarget's "__triton").
bool BackendConfigMentions(const HloInstruction& instr, std::string_view needle);

// TPU's aliasing_operands.lists[].indices: groups of buffers XLA:TPU puts in
// one place, numbered over the operands first, then the output's leaves.
std::vector<std::vector<int64_t>> AliasingOperandLists(const HloInstruction& instr);

// A library GEMM's (cuBLAS `__cublas$gemm`, `__cublas$lt$matmul`) lhs
// contracting dimensions: gemm_backend_config.dot_dimension_numbers.
// nullopt when the config does not say.
std::optional<std::vector<int64_t>> GemmLhsContractingDims(const HloInstruction& instr);

// An all-reduce-start that XLA:GPU runs with NVSHMEM (not in place).
bool UsesNvshmem(const HloInstruction& instr);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_BACKEND_CONFIG_H_
