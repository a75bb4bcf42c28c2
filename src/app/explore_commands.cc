// fusions, where, annotate, explain: the analyses each needs, then the
// renderer.
#include <fmt/format.h>

#include "hloscope/analysis/instruction_facts.h"
#include "hloscope/analysis/measured_cost.h"
#include "hloscope/app/commands.h"
#include "hloscope/ir/name_index.h"
#include "hloscope/report/render_cost.h"
#include "hloscope/report/render_explain.h"
#include "hloscope/report/render_fusions.h"
#include "hloscope/report/render_where.h"

namespace hloscope {

int RunFusionsCommand(Session& session, const FusionsRequest& request, std::ostream& out) {
  std::vector<FusionSelection> modules = SessionKernels(session, request.filter.scope);
  Renderers r;
  r.text = [&](std::ostream& o) { RenderFusionsText(modules, request.filter.scope, o); };
  r.json = [&](std::ostream& o) { WriteFusionsJson(modules, request.filter.scope, o); };
  Render(r, request.format, out);
  return kExitOk;
}

int RunCostCommand(Session& session, const CostRequest& request, std::ostream& out, std::ostream& err) {
  ModuleCostOptions options;
  if (!request.target.empty()) {
    options.roofline = FindRoofline(request.target);
    if (!options.roofline) {
      err << "hloscope cost: unknown --target " << request.target << "\n";
      return kExitError;
    }
  }
  std::optional<ProfileTrace> trace;
  if (!request.trace.empty()) {
    Result<ProfileTrace> read = ReadProfileTrace(request.trace, request.input);
    if (!read.ok()) {
      err << read.error().Format();
      return kExitError;
    }
    trace = std::move(read.value());
  }
  std::vector<ModuleCost> modules;
  for (ModuleAnalysis* a : session.Analyses()) {
    modules.push_back(CostModule(a->module, a->counts, &a->EnsureSources(), options));
    if (trace) AttachMeasuredCost(*trace, modules.back());
  }
  CostTextOptions text;
  text.top = request.top;
  Renderers r;
  r.text = [&](std::ostream& o) { RenderCostText(modules, text, o); };
  r.json = [&](std::ostream& o) { WriteCostJson(modules, o); };
  Render(r, request.format, out);
  return kExitOk;
}

int RunWhereCommand(Session& session, const WhereRequest& request, std::ostream& out) {
  std::vector<WhereModule> results;
  for (ModuleAnalysis* a : session.Analyses()) {
    a->EnsureSources();
    results.push_back({a, FindWhere(a->sources(), a->counts, a->check, request.query)});
  }
  SourceFiles files(request.source_roots);
  Renderers r;
  r.text = [&](std::ostream& o) { RenderWhereText(results, request.query, files, o); };
  r.json = [&](std::ostream& o) { o << JsonText(WhereToJson(results, request.query, files)); };
  Render(r, request.format, out);
  return kExitOk;
}

int RunAnnotateCommand(Session& session, const AnnotateRequest& request, std::ostream& out) {
  SourceFiles files(request.source_roots);
  std::vector<ModuleAnalysis*> analyses = session.Analyses();
  std::vector<std::vector<LineFacts>> facts;
  for (ModuleAnalysis* a : analyses) {
    a->EnsureSources();
    LineQuery q;
    if (!request.file.empty()) {
      LineSpec spec;
      spec.file = request.file;
      spec.text = request.file;
      q.spec = spec;
    }
    q.scope = request.filter.scope;
    q.list_instructions = false;
    facts.push_back(CollectLineFacts(a->sources(), a->counts, a->check, q));
  }
  Renderers r;
  r.text = [&](std::ostream& o) {
    for (size_t mi = 0; mi < analyses.size(); ++mi) {
      if (mi) o << "\n";
      RenderAnnotateText(*analyses[mi], facts[mi], request.text, files, o);
    }
  };
  r.json = [&](std::ostream& o) {
    Json doc = JsonEnvelope("annotate");
    doc["scope"] = request.filter.scope.empty() ? Json(nullptr) : Json(request.filter.scope);
    doc["modules"] = Json::array();
    for (size_t mi = 0; mi < analyses.size(); ++mi)
      doc["modules"].push_back(AnnotateModuleJson(*analyses[mi], facts[mi], files));
    o << JsonText(doc);
  };
  Render(r, request.format, out);
  return kExitOk;
}

int RunExplainCommand(Session& session, const ExplainRequest& request, std::ostream& out, std::ostream& err) {
  std::vector<Explanation> all;
  for (ModuleAnalysis* a : session.Analyses()) {
    if (request.instruction.empty()) {
      a->EnsureSources();
      all.push_back(ExplainModule(*a));
      continue;
    }
    HloNameIndex::Lookup found = a->module.names().Resolve(request.instruction);
    if (found.matches.empty()) {
      // A computation's name: its role and who calls it.
      std::string_view name = request.instruction;
      if (name.starts_with("%")) name.remove_prefix(1);
      for (const HloComputation* comp : a->module.computations())
        if (comp->name() == name) {
          all.push_back(ExplainComputation(*a, *comp));
          break;
        }
      if (!all.empty()) break;
      continue;
    }
    if (!found.instruction) {
      std::vector<std::string> names;
      for (const HloInstruction* i : found.matches)
        names.push_back(fmt::format("{}/{}", i->parent()->name(), i->name()));
      err << fmt::format("hloscope explain: '{}' is ambiguous in {}: {} (write COMPUTATION/NAME)\n",
                         request.instruction, a->module.name(), fmt::join(names, ", "));
      return kExitError;
    }
    a->EnsureSources();
    all.push_back(ExplainInstruction(*a, FactsOf(*a, *found.instruction)));
    break;  // the first module that has it
  }
  if (all.empty()) {
    err << fmt::format("hloscope explain: no instruction or computation named '{}' in {}\n",
                       request.instruction, request.input_name);
    return kExitError;
  }
  Renderers r;
  r.text = [&](std::ostream& o) {
    for (size_t i = 0; i < all.size(); ++i) {
      if (i) o << "\n";
      RenderExplanationText(all[i], o);
    }
  };
  r.json = [&](std::ostream& o) {
    Json doc = JsonEnvelope("explain");
    doc["modules"] = Json::array();
    for (const Explanation& e : all) doc["modules"].push_back(ExplanationModuleJson(e));
    o << JsonText(doc);
  };
  Render(r, request.format, out);
  return kExitOk;
}

}  // namespace hloscope
