// Rendering `hloscope check` findings: text for people (the answer first,
// then copies by bytes moved, updates, loops, parameters) and the JSON
// document (docs/json-format.md).
#ifndef HLOSCOPE_REPORT_RENDER_CHECK_H_
#define HLOSCOPE_REPORT_RENDER_CHECK_H_

#include <ostream>
#include <vector>

#include "hloscope/analysis/findings.h"
#include "hloscope/analysis/policy.h"
#include "hloscope/report/json_model.h"

namespace hloscope {

struct CheckTextOptions {
  // Show copies smaller than this many bytes per call only in the count.
  int64_t min_copy_bytes_shown = 0;
};

void RenderCheckText(const std::vector<const ModuleCheck*>& modules, const CheckTextOptions& options,
                     std::ostream& out);
// The document; with `gates` (the gates that were asked for, evaluated),
// it carries their violations too.
Json CheckToJson(const std::vector<const ModuleCheck*>& modules,
                 const std::vector<Violation>* violations = nullptr);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_RENDER_CHECK_H_
