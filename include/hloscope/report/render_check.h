// Rendering `hloscope check` findings: text for people (the answer first,
// then copies by bytes moved, updates, loops, parameters) and JSON for
// machines (docs/json-format.md, schema_version 1).
#ifndef HLOSCOPE_REPORT_RENDER_CHECK_H_
#define HLOSCOPE_REPORT_RENDER_CHECK_H_

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hloscope/analysis/findings.h"
#include "hloscope/report/format.h"

namespace hloscope {

struct RenderOptions {
  // Show copies smaller than this many bytes per call only in the count.
  int64_t min_copy_bytes_shown = 0;
  bool color = false;
};

// The `source` object of the JSON format (docs/json-format.md); null when
// there is no location.
nlohmann::ordered_json SourceJson(const std::optional<SourceLocation>& source);

// The one-line answer for a module, e.g. "jit_f: 2 copies, 400 MiB per call,
// 99% inside while.7 at train.py:42".
std::string Headline(const ModuleCheck& module);

void RenderCheckText(const std::vector<ModuleCheck>& modules, const RenderOptions& options,
                     std::ostream& out);
nlohmann::ordered_json CheckToJson(const std::vector<ModuleCheck>& modules);
void RenderCheck(const std::vector<ModuleCheck>& modules, OutputFormat format,
                 const RenderOptions& options, std::ostream& out);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_RENDER_CHECK_H_
