// The answer in words: the lead sentence of each finding header (any kind),
// its fix, the lines `check` opens a module with, and the `answer` JSON
// object. Every door that leads with the answer (check, the report page,
// run's summary, memory, MCP) takes its words from here.
#ifndef HLOSCOPE_REPORT_ANSWER_WORDS_H_
#define HLOSCOPE_REPORT_ANSWER_WORDS_H_

#include <string>
#include <string_view>
#include <vector>

#include "hloscope/analysis/findings.h"
#include "hloscope/report/json_model.h"

namespace hloscope {

std::string_view FindingKindName(FindingKind kind);  // "copy", "collective", …
std::string_view ImpactMeasureName(ImpactMeasure measure);

// "copy.7 (+1) copies f32[16384,128] (8.0 MiB) every iteration of while.2
// (×1000) at train.py:32: 15.6 GiB per call, 99% of the estimated time —
// <the cause>": one sentence, no final period.
std::string FindingLead(const ModuleCheck& module, const FindingHeader& header);
// Why it happens (a copy's or a collective's cause); empty for the kinds
// whose lead says it.
std::string FindingWhy(const FindingHeader& header);
// What to do, in JAX's terms; empty when no fix is known.
std::string FindingFix(const ModuleCheck& module, const FindingHeader& header);
// The answer's first sentence for the module: the top finding's lead, or
// "nothing stands out — …" with what was checked and what dominates.
std::string AnswerLead(const ModuleCheck& module);

struct AnswerTextOptions {
  // Findings that stand out named after the first ("Then: …").
  size_t then = 2;
};
// The lines `check` opens a module with: "<module>: <lead>.", "  Why: …", "  Fix: …",
// "  Then: …", "  In all: <the copy and collective summary>".
std::vector<std::string> AnswerLines(const ModuleCheck& module, const AnswerTextOptions& options = {});

// The module's `answer` object (docs/json-format.md).
Json AnswerJson(const ModuleCheck& module);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_ANSWER_WORDS_H_
