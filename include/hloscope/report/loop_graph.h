// The loop picture of the HTML report: a module's while loops nested as
// they run, as a Graphviz DOT graph (support/graphviz.h renders it).
//
// One node per loop: its name, trip count, executions per call and source
// line; bytes copied and rewritten per iteration ("grows with buffer size"
// when it does); then one row per carry — its index, shape, what it starts
// as (`argument 0 (ring.1)`, `copy.3 of argument 0`) and what happens to it
// every iteration (copied by copy.7, rewritten in full by fusion.2). An
// edge runs from each loop to the loops in its body, labelled with how
// often the inner one runs per outer iteration. Nodes and rows link to the
// report's tables (html_text.h anchors).
#ifndef HLOSCOPE_REPORT_LOOP_GRAPH_H_
#define HLOSCOPE_REPORT_LOOP_GRAPH_H_

#include <cstddef>
#include <string>

#include "hloscope/analysis/findings.h"

namespace hloscope {

struct LoopGraphOptions {
  size_t module_index = 0;  // for the anchors
  size_t max_loops = 60;    // more are counted in the entry node, not drawn
  size_t max_carries = 24;  // per loop; carries without findings beyond it are counted
};

std::string LoopGraphDot(const ModuleCheck& check, const LoopGraphOptions& options);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_LOOP_GRAPH_H_
