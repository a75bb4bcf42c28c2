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

int WriteCheckOutput(const std::vector<const ModuleCheck*>& modules,
                     const std::vector<FusionSelection>& kernels, const CheckRequest& request,
                     const CheckModuleTitles* titles, std::ostream& out, std::ostream& err) {
  std::vector<Violation> violations;
  if (request.gates.any()) violations = EvaluateGates(modules, request.gates);
  if (request.format == OutputFormat::kSarif) {
    WriteCheckSarif(modules, request.sarif, out);
  } else if (request.format == OutputFormat::kJson) {
    WriteCheckJson(modules, request.gates.any() ? &violations : nullptr, out,
                   request.kernels ? &kernels : nullptr);
  } else if (titles) {
    for (size_t i = 0; i < modules.size(); ++i) {
      out << "\n" << (i < titles->size() ? (*titles)[i] : "") << "\n";
      RenderCheckText({modules[i]}, request.text, out);
    }
  } else {
    RenderCheckText(modules, request.text, out);
  }
  if (violations.empty()) return kExitOk;
  err << GateFailureMessage("hloscope: check failed", violations, modules) << "\n";
  return kExitFindings;
}

int RunCheckCommand(Session& session, const CheckRequest& request, std::ostream& out, std::ostream& err) {
  if (!CheckScopeExists(session, request.scope, err)) return kExitError;
  ScopedChecks checks(session, request.scope);
  std::vector<FusionSelection> kernels;
  if (request.format == OutputFormat::kJson && request.kernels)
    kernels = SessionKernels(session, request.scope);
  return WriteCheckOutput(checks.modules(), kernels, request, nullptr, out, err);
}

}  // namespace hloscope
