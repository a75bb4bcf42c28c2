// Rendering `hloscope annotate`: the user's Python source with a gutter of
// findings per line, like `pprof -list`:
//
//   line mark  copies/call  source
//     50  ■    400.0 KiB        new = buf.at[i].set(0.0)     → select_dynamic-update-slice_fusion
//                │ copy copy f32[1024]{0} 4.0 KiB × 100 = 400.0 KiB per call — read-after-update
//
// Marks: ■ a copy is attributed to the line, ▲ the line reads a value after
// its in-place update (forcing a copy), ○ an update there runs on a copy or
// out of place, ● an update in place, · compiled with no findings. Lines
// whose file is not on disk are still listed, from the metadata alone.
#ifndef HLOSCOPE_REPORT_RENDER_ANNOTATE_H_
#define HLOSCOPE_REPORT_RENDER_ANNOTATE_H_

#include <ostream>
#include <string>
#include <vector>

#include "hloscope/analysis/line_facts.h"
#include "hloscope/analysis/module_analysis.h"
#include "hloscope/analysis/source_files.h"
#include "hloscope/report/json_model.h"

namespace hloscope {

struct AnnotateOptions {
  std::string scope;         // named-scope filter (shown in the heading)
  int context = 2;           // source lines shown around annotated lines
  bool whole_files = false;  // print every line of each file
};

// The mark of a line (see above); ' ' when it has no instructions.
std::string_view LineMark(const LineFacts& facts);

// One module's annotation as text.
void RenderAnnotateText(const ModuleAnalysis& analysis, const std::vector<LineFacts>& facts,
                        const AnnotateOptions& options, SourceFiles& files, std::ostream& out);
// One module object of the annotate document.
Json AnnotateModuleJson(const ModuleAnalysis& analysis, const std::vector<LineFacts>& facts,
                        SourceFiles& files);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_RENDER_ANNOTATE_H_
