// ModuleStats: what `hloscope stats` prints — computations by role,
// instructions by opcode, parameter and output bytes.
#ifndef HLOSCOPE_ANALYSIS_MODULE_STATS_H_
#define HLOSCOPE_ANALYSIS_MODULE_STATS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hloscope/analysis/call_graph.h"
#include "hloscope/ir/module.h"

namespace hloscope {

struct ModuleStats {
  const HloModule* module = nullptr;
  int64_t computations = 0;
  int64_t instructions = 0;
  std::map<ComputationRole, int64_t> computations_by_role;
  std::map<std::string, int64_t> instructions_by_opcode;
  std::vector<std::string> unknown_opcodes;  // spelled as in the text
  int64_t parameter_count = 0;
  std::optional<int64_t> parameter_bytes;  // sum over entry parameter leaves
  std::optional<int64_t> output_bytes;     // entry root leaves
  bool is_scheduled = false;
  bool has_stack_frames = false;
};

ModuleStats ComputeModuleStats(const HloModule& module);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_MODULE_STATS_H_
