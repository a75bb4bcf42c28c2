// scopes: the named scopes of each module; and the check every --scope
// gets, so that a misspelt scope is an error instead of an empty report.
#include "hloscope/analysis/scope_list.h"
#include "hloscope/app/commands.h"
#include "hloscope/report/render_scopes.h"

namespace hloscope {

int RunScopesCommand(Session& session, OutputFormat format, std::ostream& out) {
  std::vector<ModuleScopes> modules;
  for (const HloModule* m : session.modules()) modules.push_back({m, ListScopes(*m)});
  Renderers r;
  r.text = [&](std::ostream& o) { RenderScopesText(modules, o); };
  r.json = [&](std::ostream& o) { WriteScopesJson(modules, o); };
  Render(r, format, out);
  return kExitOk;
}

bool CheckScopeExists(Session& session, const std::string& scope, std::ostream& err) {
  return CheckScopeExists(session.modules(), scope, err);
}

bool CheckScopeExists(const std::vector<const HloModule*>& modules, const std::string& scope,
                      std::ostream& err) {
  if (scope.empty()) return true;
  std::vector<ScopeCount> all;
  for (const HloModule* m : modules) {
    if (AnyInstructionInScope(*m, scope)) return true;
    std::vector<ScopeCount> s = ListScopes(*m);
    all.insert(all.end(), s.begin(), s.end());
  }
  std::string input = modules.empty() ? "" : modules.front()->path();
  err << "hloscope: error: "
      << UnknownScopeMessage(scope, ClosestScopes(all, scope), input.empty() ? "FILE" : input) << "\n";
  return false;
}

}  // namespace hloscope
