// The copy-cause table: the rules that say why XLA kept a copy, in the
// order they are tried. XLA does not record why copy insertion added a
// copy, so the cause is inferred from the dataflow around it; the first
// rule that matches wins, so the order is the policy (docs/analysis.md
// shows the same table, and a test keeps the two in step). When no rule
// matches the cause is `unknown` — never a confident wrong answer.
#ifndef HLOSCOPE_ANALYSIS_COPY_CAUSES_H_
#define HLOSCOPE_ANALYSIS_COPY_CAUSES_H_

#include <span>
#include <string_view>

#include "hloscope/analysis/findings.h"

namespace hloscope {

struct CauseRuleGroup {
  std::string_view name;             // as in docs/analysis.md
  std::span<const CauseRule> rules;  // the rules this step can yield
};

// The steps of the table, in the order they are tried.
std::span<const CauseRuleGroup> CauseRuleTable();

// The cause a rule gives.
CopyCause CauseOf(CauseRule rule);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_COPY_CAUSES_H_
