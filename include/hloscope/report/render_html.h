// `hloscope report`: one self-contained HTML page (no network access, no
// file beside it), readable with JavaScript off and nicer with it on.
//
// For each module, in this order:
//   1. the answer: the headline, the largest copy, the few findings that
//      matter (array copies in user code by bytes per call, updates that are
//      not in place, loops that grow with a buffer), and what XLA's buffer
//      assignment confirmed;
//   2. the loop picture (loop_graph.h laid out by Graphviz as inline SVG);
//   3. the annotated source: the user's lines with their marks and bytes per
//      call, each linked to its findings and back;
//   4. the tables — copies, updates, loops, parameters — sortable and
//      filterable by scope, loop and origin with JavaScript; scalar and small
//      copies and those made inside library code (source_origin.h) collapsed
//      under their own headings.
// Every string from the input is inert text (html_text.h).
#ifndef HLOSCOPE_REPORT_RENDER_HTML_H_
#define HLOSCOPE_REPORT_RENDER_HTML_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "hloscope/analysis/findings.h"
#include "hloscope/analysis/line_facts.h"
#include "hloscope/analysis/source_files.h"

namespace hloscope {

struct HtmlReportOptions {
  std::string title;  // what was checked: the input's path
  std::string scope;  // the --scope the findings were filtered by, if any
  // The notebook form (Report._repr_html_): the page body alone, the
  // picture and the source folded, styles scoped to the report's element.
  bool compact = false;
  int context = 2;  // source lines shown around each annotated line
  // Array copies moving less than this per call are listed with the scalar
  // copies, folded.
  int64_t small_copy_bytes = 1024;
  // Lay the loop picture out with Graphviz (false: the page without it; the
  // fuzzer renders most pages so, Graphviz being a hundred times slower
  // than the rest of the page).
  bool picture = true;
};

// One module: its findings (scope-filtered, when a scope is asked for) and
// the facts of its source lines computed over the same findings.
struct HtmlModule {
  const ModuleCheck* check = nullptr;
  std::vector<LineFacts> lines;
};

void RenderHtmlReport(const std::vector<HtmlModule>& modules, const HtmlReportOptions& options,
                      SourceFiles& files, std::ostream& out);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_RENDER_HTML_H_
