// The copy-cause table: the rules that say why XLA kept a copy, in the
// order they are tried — the order of the rows of the catalog
// (analysis/cause_catalog.def), which docs/analysis.md's table is
// generated from. XLA does not record why copy insertion added a copy, so
// the cause is inferred from the dataflow around it; the first rule that
// matches wins, so the order is the policy. When no rule matches the cause
// is `unknown` — never a confident wrong answer.
//
// Each rule belongs to a family (CauseFamily): the family's matcher reads
// the evidence once per copy and names the rule of its family that matched,
// with the family's typed facts (CausePayload, analysis/findings.h).
#ifndef HLOSCOPE_ANALYSIS_COPY_CAUSES_H_
#define HLOSCOPE_ANALYSIS_COPY_CAUSES_H_

#include "hloscope/analysis/cause_catalog.h"
#include "hloscope/analysis/findings.h"

namespace hloscope {

// What kind of copy `copy` is for the table: a layout change, a move
// between memory spaces (protecting: it feeds an update or reaches an
// output, so it plays a protective copy's role), or an ordinary copy.
CopySubject SubjectOf(const CopyFinding& copy, bool feeds_or_returns);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_COPY_CAUSES_H_
