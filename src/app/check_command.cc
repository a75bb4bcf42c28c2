#include "hloscope/analysis/scope_filter.h"
#include "hloscope/app/commands.h"
#include "hloscope/report/wording.h"

namespace hloscope {

ScopedChecks::ScopedChecks(Session& session, const std::string& scope) {
  if (scope.empty()) {
    modules_ = session.Checks();
    return;
  }
  filtered_.reserve(session.module_count());
  for (size_t i = 0; i < session.module_count(); ++i) {
    filtered_.push_back(session.Analysis(i).check);
    FilterFindingsByScope(&filtered_.back(), scope);
  }
  for (const ModuleCheck& c : filtered_) modules_.push_back(&c);
}

std::vector<FusionSelection> SessionKernels(Session& session, const std::string& scope) {
  std::vector<FusionSelection> out;
  for (ModuleAnalysis* a : session.Analyses()) {
    FusionsOptions options;
    options.scope = scope;
    out.push_back(SelectFusions(a->EnsureSources(), a->counts, &a->check, options));
  }
  return out;
}

int RunCheckCommand(Session& session, const CheckRequest& request, std::ostream& out, std::ostream& err) {
  if (!CheckScopeExists(session, request.scope, err)) return kExitError;
  ScopedChecks checks(session, request.scope);
  const std::vector<const ModuleCheck*>& modules = checks.modules();
  std::vector<Violation> violations;
  if (request.gates.any()) violations = EvaluateGates(modules, request.gates);
  if (request.format == OutputFormat::kSarif) {
    WriteCheckSarif(modules, request.sarif, out);
  } else if (request.format == OutputFormat::kJson) {
    std::vector<FusionSelection> kernels;
    if (request.kernels) kernels = SessionKernels(session, request.scope);
    WriteCheckJson(modules, request.gates.any() ? &violations : nullptr, out,
                   request.kernels ? &kernels : nullptr);
  } else
    RenderCheckText(modules, request.text, out);
  if (violations.empty()) return kExitOk;
  err << GateFailureMessage("hloscope: check failed", violations, modules) << "\n";
  return kExitFindings;
}

}  // namespace hloscope
