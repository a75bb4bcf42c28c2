// Rendering `hloscope check` findings: text for people (the answer first,
// then copies by bytes moved, updates, loops, parameters) and the JSON
// document (docs/json-format.md).
#ifndef HLOSCOPE_REPORT_RENDER_CHECK_H_
#define HLOSCOPE_REPORT_RENDER_CHECK_H_

#include <ostream>
#include <string>
#include <vector>

#include "hloscope/analysis/finding_filter.h"
#include "hloscope/analysis/findings.h"
#include "hloscope/analysis/fusion_summary.h"
#include "hloscope/analysis/policy.h"
#include "hloscope/report/json_model.h"

namespace hloscope {

struct CheckTextOptions {
  // Copies moving fewer than filter.min_bytes per call are left out; minor
  // copies are itemised only with include_minor, library copies listed with
  // the user's only with include_library (finding_filter.h).
  FindingFilter filter;
};

void RenderCheckText(const std::vector<const ModuleCheck*>& modules, const CheckTextOptions& options,
                     std::ostream& out);
// The document (docs/json-format.md), written as it is built; with
// `violations` (the gates that were asked for, evaluated), it carries their
// verdict too; with `kernels` (one selection per module, `check --kernels`),
// each module carries its kernels, for `diff` to compare.
void WriteCheckJson(const std::vector<const ModuleCheck*>& modules, const std::vector<Violation>* violations,
                    std::ostream& out, const std::vector<FusionSelection>* kernels = nullptr);
// The same document as a string.
// One module's object of the check document, as WriteCheckJson writes it
// (`kernels`: its kernels, as --kernels adds them), as a tree: what `diff`
// reads back one module at a time, with no text in between.
Json CheckModuleJson(const ModuleCheck& module, const FusionSelection* kernels);

std::string CheckJsonText(const std::vector<const ModuleCheck*>& modules,
                          const std::vector<Violation>* violations = nullptr,
                          const std::vector<FusionSelection>* kernels = nullptr);
// The entry computation's signature without layouts, as diff pairs
// compilations: "(f32[1024,128], s32[]) -> f32[1024,128]".
std::string EntrySignature(const HloModule& module);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_RENDER_CHECK_H_
