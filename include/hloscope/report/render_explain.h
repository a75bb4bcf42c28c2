// Rendering `hloscope explain`: an Explanation as titled sections of plain
// sentences (text), or JSON (schema_version 1).
#ifndef HLOSCOPE_REPORT_RENDER_EXPLAIN_H_
#define HLOSCOPE_REPORT_RENDER_EXPLAIN_H_

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hloscope/analysis/explain.h"
#include "hloscope/report/format.h"

namespace hloscope {

void RenderExplanationText(const Explanation& e, std::ostream& out);
nlohmann::ordered_json ExplanationToJson(const Explanation& e);

struct ExplainOptions {
  std::string instruction;  // empty: the guided reading of each module
  CheckOptions check;       // e.g. the buffer assignment to confirm verdicts
};

// The whole command after parsing. Returns false (and writes nothing) when
// the instruction is in none of the modules.
bool ReportExplain(const std::vector<const HloModule*>& modules, const ExplainOptions& options,
                   OutputFormat format, std::ostream& out);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_RENDER_EXPLAIN_H_
