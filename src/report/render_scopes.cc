#include "hloscope/report/render_scopes.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "hloscope/report/json_model.h"

namespace hloscope {

void RenderScopesText(const std::vector<ModuleScopes>& modules, std::ostream& out) {
  for (const ModuleScopes& m : modules) {
    out << fmt::format("{}: {} named scope{}\n", m.module->name(), m.scopes.size(),
                       m.scopes.size() == 1 ? "" : "s");
    for (const ScopeCount& s : m.scopes) {
      int64_t depth = std::count(s.path.begin(), s.path.end(), '/');
      std::string label = std::string(2 + 2 * depth, ' ') + s.path;
      out << fmt::format("{:<48} {:>8} instruction{}\n", label, s.instructions,
                         s.instructions == 1 ? "" : "s");
    }
    if (m.scopes.empty()) out << "  (no op_name names a jax.named_scope)\n";
  }
}

void WriteScopesJson(const std::vector<ModuleScopes>& modules, std::ostream& out) {
  Json doc = JsonEnvelope("scopes");
  Json list = Json::array();
  for (const ModuleScopes& m : modules) {
    Json j = ModuleHeaderJson(*m.module);
    Json scopes = Json::array();
    for (const ScopeCount& s : m.scopes)
      scopes.push_back({{"path", s.path}, {"instructions", s.instructions}});
    j["scopes"] = std::move(scopes);
    list.push_back(std::move(j));
  }
  doc["modules"] = std::move(list);
  out << JsonText(doc);
}

std::string UnknownScopeMessage(std::string_view scope, const std::vector<std::string>& closest,
                                std::string_view input) {
  if (closest.empty())
    return fmt::format("no instruction lies in scope '{}' ({} names no jax.named_scope)", scope, input);
  return fmt::format("no instruction lies in scope '{}' (closest: {}; `hloscope scopes {}` lists them all)",
                     scope, fmt::join(closest, ", "), input);
}

}  // namespace hloscope
