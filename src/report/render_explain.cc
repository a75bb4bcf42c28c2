#include "hloscope/report/render_explain.h"

#include <fmt/format.h>

#include "hloscope/analysis/source_index.h"
#include "report/json_util.h"

namespace hloscope {

void RenderExplanationText(const Explanation& e, std::ostream& out) {
  out << e.text << "\n";
  for (const ExplainSection& s : e.sections) {
    out << "\n" << s.title << "\n";
    for (const std::string& l : s.lines) out << "  " << l << "\n";
  }
}

Json ExplanationToJson(const Explanation& e) {
  Json j;
  j["module"] = e.module;
  j["instruction"] = e.instruction.empty() ? Json(nullptr) : Json(e.instruction);
  j["text"] = e.text;
  j["sections"] = Json::array();
  for (const ExplainSection& s : e.sections) {
    Json js;
    js["title"] = s.title;
    js["lines"] = s.lines;
    j["sections"].push_back(std::move(js));
  }
  return j;
}

bool ReportExplain(const std::vector<const HloModule*>& modules, const ExplainOptions& options,
                   OutputFormat format, std::ostream& out) {
  std::vector<Explanation> all;
  for (const HloModule* m : modules) {
    if (!options.instruction.empty() && !FindInstructionByName(*m, options.instruction)) continue;
    ModuleAnalysis a(*m, options.check);
    ExplainContext ctx{a.index, a.counts, a.check};
    if (options.instruction.empty()) {
      all.push_back(ExplainModule(ctx));
    } else {
      all.push_back(ExplainInstruction(*FindInstructionByName(*m, options.instruction), ctx));
      break;  // the first module that has it
    }
  }
  if (all.empty()) return false;
  if (format == OutputFormat::kJson) {
    Json doc = JsonDocument("explain");
    doc["explanations"] = Json::array();
    for (const Explanation& e : all) doc["explanations"].push_back(ExplanationToJson(e));
    out << doc.dump(2) << "\n";
    return true;
  }
  for (size_t i = 0; i < all.size(); ++i) {
    if (i) out << "\n";
    RenderExplanationText(all[i], out);
  }
  return true;
}

}  // namespace hloscope
