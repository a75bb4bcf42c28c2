#include "hloscope/analysis/scope_filter.h"
#include "hloscope/app/commands.h"
#include "hloscope/report/wording.h"

namespace hloscope {

std::vector<ModuleCheck> ScopedChecks(Session& session, const std::string& scope) {
  std::vector<ModuleCheck> out;
  for (size_t i = 0; i < session.module_count(); ++i) {
    out.push_back(session.Analysis(i).check);
    if (!scope.empty()) FilterFindingsByScope(&out.back(), scope);
  }
  return out;
}

std::vector<const ModuleCheck*> Pointers(const std::vector<ModuleCheck>& checks) {
  std::vector<const ModuleCheck*> out;
  for (const ModuleCheck& c : checks) out.push_back(&c);
  return out;
}

int RunCheckCommand(Session& session, const CheckRequest& request, std::ostream& out, std::ostream& err) {
  std::vector<ModuleCheck> checks = ScopedChecks(session, request.scope);
  std::vector<const ModuleCheck*> modules = Pointers(checks);
  std::vector<Violation> violations;
  if (request.gates.any()) violations = EvaluateGates(modules, request.gates);
  if (request.format == OutputFormat::kJson)
    out << JsonText(CheckToJson(modules, request.gates.any() ? &violations : nullptr));
  else
    RenderCheckText(modules, request.text, out);
  if (violations.empty()) return kExitOk;
  err << GateFailureMessage("hloscope: check failed", violations, modules) << "\n";
  return kExitFindings;
}

}  // namespace hloscope
