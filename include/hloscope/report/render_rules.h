// `hloscope rules`: the catalog (analysis/cause_catalog.def) and the gates
// (analysis/policy.h) for people (text), for tools (JSON: what the JSON
// Schema's enums are generated from) and for docs/analysis.md (markdown).
#ifndef HLOSCOPE_REPORT_RENDER_RULES_H_
#define HLOSCOPE_REPORT_RENDER_RULES_H_

#include <ostream>

#include "hloscope/report/json_model.h"

namespace hloscope {

void RenderRulesText(std::ostream& out);
Json RulesJson();
// The cause table of docs/analysis.md, and its gates table.
void RenderRulesMarkdown(std::ostream& out);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_RENDER_RULES_H_
