// `hloscope check FILE|DIR`: the check of one session, or of each module of
// a dump folder, in the format asked for.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "hloscope/analysis/jax_op_name.h"
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

void PrintNotes(const std::vector<SessionNote>& notes, std::ostream& err) {
  std::vector<SessionNote> printed;
  for (const SessionNote& n : notes) {
    if (std::find(printed.begin(), printed.end(), n) != printed.end()) continue;
    printed.push_back(n);
    err << kNotePrefix << NoteText(n) << "\n";
  }
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

int WriteCheckOutput(const std::vector<const ModuleCheck*>& modules, const KernelsFn& kernels,
                     const CheckRequest& request, const CheckModuleTitles* titles, std::ostream& out,
                     std::ostream& err, const std::function<void(std::ostream&)>& html,
                     std::string_view text_preface) {
  std::vector<Violation> violations;
  if (request.gates.any()) violations = EvaluateGates(modules, request.gates, request.filter);
  Renderers r;
  r.text = [&](std::ostream& o) {
    CheckTextOptions options{request.filter};
    o << text_preface;
    if (!titles) return RenderCheckText(modules, options, o);
    // A folder: the modules whose answer stands out first, by their work
    // per call; modules with nothing to say (JAX's
    // helper jits: _threefry_split, convert_element_type, …) in one line
    // at the end. The JSON keeps the dump's order.
    // JAX's own helpers called outside jit (jit__normal: jax.random at the
    // top level) go last, standing out or not: the user's modules first.
    std::vector<size_t> order, quiet, helpers;
    for (size_t i = 0; i < modules.size(); ++i) {
      const ModuleCheck& m = *modules[i];
      bool silent = !m.answer.stands_out() && m.answer.basis.copies == 0 && m.collectives.empty();
      (silent ? quiet : IsPrivateJitModule(m.module->name()) ? helpers : order).push_back(i);
    }
    // Standing out first; then the module with more work per call (the
    // user's step, not JAX's eager helpers), whatever its top finding's
    // measure.
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      const Answer& x = modules[a]->answer;
      const Answer& y = modules[b]->answer;
      if (x.stands_out() != y.stands_out()) return x.stands_out();
      return x.basis.seconds > y.basis.seconds;
    });
    order.insert(order.end(), helpers.begin(), helpers.end());
    for (size_t i : order) {
      o << "\n" << (i < titles->size() ? (*titles)[i] : "") << "\n";
      RenderCheckText({modules[i]}, options, o);
    }
    if (!quiet.empty()) {
      std::vector<std::string> names;
      for (size_t i : quiet) names.push_back(std::string(modules[i]->module->name()));
      o << fmt::format(
          "\n+ {} module{} where nothing stands out and nothing is copied: {} (`check` one of them, "
          "or --format json, for its detail)\n",
          quiet.size(), quiet.size() == 1 ? "" : "s", fmt::join(names, ", "));
    }
  };
  r.json = [&](std::ostream& o) {
    std::vector<FusionSelection> selected;
    if (request.kernels) selected = kernels();
    WriteCheckJson(modules, request.gates.any() ? &violations : nullptr, o,
                   request.kernels ? &selected : nullptr);
  };
  r.sarif = [&](std::ostream& o) { WriteCheckSarif(modules, request.sarif, o); };
  r.html = html;
  Render(r, request.format, out);
  if (violations.empty()) return kExitOk;
  err << GateFailureMessage("hloscope: check failed", violations, modules) << "\n";
  return kExitFindings;
}

int RunCheckCommand(Session& session, const CheckRequest& request, std::ostream& out, std::ostream& err) {
  if (!CheckScopeExists(session, request.filter.scope, err)) return kExitError;
  ScopedChecks checks(session, request.filter);
  ReportRequest report;
  report.filter = request.filter;
  report.html = request.html;
  report.source_roots = request.source_roots;
  return WriteCheckOutput(
      checks.modules(), [&] { return SessionKernels(session, request.filter.scope); }, request, nullptr, out,
      err, [&](std::ostream& o) { o << ReportHtml(session, report); });
}

}  // namespace hloscope
