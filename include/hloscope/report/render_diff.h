// Rendering `hloscope diff`: the answer first (what scales, what is new,
// what is gone), then each section; and the JSON document
// (docs/json-format.md, docs/schema/diff.schema.json).
#ifndef HLOSCOPE_REPORT_RENDER_DIFF_H_
#define HLOSCOPE_REPORT_RENDER_DIFF_H_

#include <ostream>
#include <string>
#include <vector>

#include "hloscope/analysis/check_diff.h"
#include "hloscope/analysis/policy.h"
#include "hloscope/report/json_model.h"

namespace hloscope {

struct DiffInputs {
  std::string a, b;  // the two inputs as given (file, folder, baseline)
};

std::string DiffKindName(DiffKind kind);        // "parameter", "copy", ...
std::string DiffStatusName(DiffStatus status);  // "only-in-a", "only-in-b", "changed", "unchanged"
// "copy f32[_,128] (read-after-update)": what a matched group is.
std::string DiffWhatText(const DiffItem& item);
// A ratio as the diff prints it: 3 significant digits, whole from 100 up.
std::string RatioText(double r);
// A ratio or exponent in JSON: 4 decimals, null when unknown or not finite.
Json OptDouble(const std::optional<double>& d);

// The one-line answers of a module pair: "What scales: …", "What is new: …",
// "What is gone: …" (the text's first lines, the JSON's summary.text).
std::vector<std::string> DiffSummaryLines(const ModuleDiff& m);

void RenderDiffText(const DiffResult& result, const DiffInputs& inputs, std::ostream& out);
// With `regressions` (the gates asked for, evaluated by the gate policy:
// EvaluateDiffGates) the document carries their verdict.
void WriteDiffJson(const DiffResult& result, const DiffInputs& inputs,
                   const std::vector<Violation>* regressions, std::ostream& out);
std::string DiffJsonText(const DiffResult& result, const DiffInputs& inputs,
                         const std::vector<Violation>* regressions = nullptr);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_RENDER_DIFF_H_
