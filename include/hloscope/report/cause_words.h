// The sentences about one copy: why it exists (CauseDetail) and the fix
// (CauseHint), from the templates of the row of the rule that explained it
// (analysis/cause_catalog.def) filled with the words of its family.
#ifndef HLOSCOPE_REPORT_CAUSE_WORDS_H_
#define HLOSCOPE_REPORT_CAUSE_WORDS_H_

#include <string>

#include "hloscope/analysis/findings.h"
#include "hloscope/report/wording_template.h"

namespace hloscope {

// Why a copy exists, one line in the user's terms.
std::string CauseDetail(const CopyFinding& copy);
// The one-line fix for a copy; "" when there is none to offer.
std::string CauseHint(const CopyFinding& copy);
// The values and flags the templates of `copy`'s rule are filled with.
WordArgs CauseWords(const CopyFinding& copy);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_CAUSE_WORDS_H_
