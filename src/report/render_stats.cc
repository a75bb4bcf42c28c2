#include "hloscope/report/render_stats.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "hloscope/report/enum_names.h"
#include "hloscope/report/json_model.h"
#include "hloscope/support/human_bytes.h"

namespace hloscope {
namespace {

// Roles by name, sorted like the text output.
std::map<std::string, int64_t> RolesByName(const ModuleStats& m) {
  std::map<std::string, int64_t> out;
  for (auto& [role, n] : m.computations_by_role) out[std::string(ComputationRoleName(role))] += n;
  return out;
}

Json RolesJson(const ModuleStats& m) {
  Json j = Json::object();
  for (auto& [name, n] : RolesByName(m)) j[name] = n;
  return j;
}

}  // namespace

void WriteStatsJson(const std::vector<ModuleStats>& modules, std::ostream& out) {
  {
    Json doc = JsonEnvelope("stats");
    doc["modules"] = Json::array();
    for (const ModuleStats& m : modules) {
      Json j = ModuleHeaderJson(*m.module);
      j["is_scheduled"] = m.is_scheduled;
      j["has_stack_frames"] = m.has_stack_frames;
      j["computations"] = m.computations;
      j["instructions"] = m.instructions;
      j["computations_by_role"] = RolesJson(m);
      j["instructions_by_opcode"] = m.instructions_by_opcode;
      j["unknown_opcodes"] = m.unknown_opcodes;
      j["parameter_count"] = m.parameter_count;
      j["parameter_bytes"] = Opt(m.parameter_bytes);
      j["output_bytes"] = Opt(m.output_bytes);
      doc["modules"].push_back(std::move(j));
    }
    out << JsonText(doc);
  }
}

void RenderStatsText(const std::vector<ModuleStats>& modules, std::ostream& out) {
  for (size_t i = 0; i < modules.size(); ++i) {
    const ModuleStats& m = modules[i];
    if (i) out << "\n";
    out << fmt::format("module {}  (entry {}{})\n", m.module->name(), m.module->entry_computation()->name(),
                       m.is_scheduled ? ", scheduled" : "");
    out << fmt::format("  parameters: {} ({})   output: {}\n", m.parameter_count,
                       HumanBytes(m.parameter_bytes), HumanBytes(m.output_bytes));
    out << fmt::format("  computations: {}\n", m.computations);
    for (const auto& [role, n] : RolesByName(m)) out << fmt::format("    {:<18}{:>8}\n", role, n);
    out << fmt::format("  instructions: {}\n", m.instructions);
    std::vector<std::pair<std::string, int64_t>> ops(m.instructions_by_opcode.begin(),
                                                     m.instructions_by_opcode.end());
    std::stable_sort(ops.begin(), ops.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    for (const auto& [op, n] : ops) out << fmt::format("    {:<26}{:>8}\n", op, n);
    if (!m.unknown_opcodes.empty())
      out << fmt::format("  opcodes this hloscope does not know (kept): {}\n",
                         fmt::join(m.unknown_opcodes, ", "));
  }
}

}  // namespace hloscope
