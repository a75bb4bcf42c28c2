// Rendering `hloscope where FILE train.py:42`: per source line, the line's
// text (when the file is found), the copies and update verdicts it causes,
// and every HLO instruction that came from it, grouped by the kernel
// (fusion) it ended up in, with the loop it runs in and how often.
#ifndef HLOSCOPE_REPORT_RENDER_WHERE_H_
#define HLOSCOPE_REPORT_RENDER_WHERE_H_

#include <ostream>
#include <string>
#include <vector>

#include "hloscope/analysis/module_analysis.h"
#include "hloscope/analysis/source_files.h"
#include "hloscope/analysis/where_query.h"
#include "hloscope/report/json_model.h"

namespace hloscope {

struct WhereModule {
  const ModuleAnalysis* analysis = nullptr;  // with fusions computed
  WhereResult result;
};

void RenderWhereText(const std::vector<WhereModule>& modules, const WhereQuery& query, SourceFiles& files,
                     std::ostream& out);
Json WhereToJson(const std::vector<WhereModule>& modules, const WhereQuery& query, SourceFiles& files);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_RENDER_WHERE_H_
