// Reading a check document back: the inverse of the JSON model
// (report/json_model.h) into the typed CheckDocument the diff analyses
// (analysis/check_document.h). Forgiving: a field missing from a
// hand-edited or older baseline reads as unknown, an enum value this
// hloscope does not know is kept as text.
#ifndef HLOSCOPE_REPORT_CHECK_DOCUMENT_READER_H_
#define HLOSCOPE_REPORT_CHECK_DOCUMENT_READER_H_

#include "hloscope/analysis/check_document.h"
#include "hloscope/report/json_model.h"

namespace hloscope {

CheckDocument ReadCheckDocument(const Json& document);
// One module of it (an element of "modules").
DocModule ReadDocModule(const Json& module);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_CHECK_DOCUMENT_READER_H_
