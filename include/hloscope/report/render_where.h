// Rendering `hloscope where FILE train.py:42`: per source line, the line's
// text (when the file is found), the copies and update verdicts it causes,
// and every HLO instruction that came from it, grouped by the kernel
// (fusion) it ended up in, with the loop it runs in and how often.
#ifndef HLOSCOPE_REPORT_RENDER_WHERE_H_
#define HLOSCOPE_REPORT_RENDER_WHERE_H_

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hloscope/analysis/source_index.h"
#include "hloscope/report/format.h"

namespace hloscope {

struct WhereOptions {
  std::optional<LineSpec> spec;  // nullopt: every line (with a scope)
  std::string scope;
  std::vector<std::string> source_roots;
};

struct WhereModule {
  const ModuleAnalysis* analysis = nullptr;
  std::vector<LineFacts> lines;
  // Lines of the asked-for file that do have instructions (shown when
  // nothing matched), e.g. "loops.py:44-46,50".
  std::string nearby;
  // Set when the file was matched by its name only: a path from another
  // machine ("/home/me/proj/train.py" vs "/cluster/job/proj/train.py").
  std::string note;
};

WhereModule FindWhere(const ModuleAnalysis& analysis, const WhereOptions& options);

void RenderWhereText(const std::vector<WhereModule>& modules, const WhereOptions& options,
                     SourceFiles& files, std::ostream& out);
nlohmann::ordered_json WhereToJson(const std::vector<WhereModule>& modules,
                                   const WhereOptions& options, SourceFiles& files);

// The update findings of a line, one text each ("dynamic-update-slice.2 in
// fusion.3: in-place-on-copy on copy.7, writes 4 B × 100"); more than
// `max_listed` are grouped by verdict ("520 updates in-place, e.g. ...").
std::vector<std::string> UpdateSummaryLines(const std::vector<const UpdateFinding*>& updates,
                                            size_t max_listed = 4);

// The whole command after parsing. Returns the number of instructions found.
int64_t ReportWhere(const std::vector<const HloModule*>& modules, const WhereOptions& options,
                    OutputFormat format, std::ostream& out);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_RENDER_WHERE_H_
