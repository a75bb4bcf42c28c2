// Rendering `hloscope diff`: the answer first (what scales, what is new,
// what is gone), then each section; and the JSON document
// (docs/json-format.md, docs/schema/diff.schema.json).
#ifndef HLOSCOPE_REPORT_RENDER_DIFF_H_
#define HLOSCOPE_REPORT_RENDER_DIFF_H_

#include <ostream>
#include <string>
#include <vector>

#include "hloscope/report/check_diff.h"

namespace hloscope {

struct DiffInputs {
  std::string a, b;  // the two inputs as given (file, folder, baseline)
};

// The one-line answers of a module pair: "What scales: …", "What is new: …",
// "What is gone: …" (the text's first lines, the JSON's summary.text).
std::vector<std::string> DiffSummaryLines(const ModuleDiff& m);

void RenderDiffText(const DiffResult& result, const DiffInputs& inputs, std::ostream& out);
// With `regressions` (the gates asked for, evaluated) the document carries
// their verdict.
void WriteDiffJson(const DiffResult& result, const DiffInputs& inputs,
                   const std::vector<DiffRegression>* regressions, std::ostream& out);
std::string DiffJsonText(const DiffResult& result, const DiffInputs& inputs,
                         const std::vector<DiffRegression>* regressions = nullptr);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_RENDER_DIFF_H_
