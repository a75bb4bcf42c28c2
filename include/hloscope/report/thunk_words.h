// The sentence that says how the copies compare with what XLA:GPU runs
// (analysis/thunks.h), for text and HTML, and the JSON of it.
#ifndef HLOSCOPE_REPORT_THUNK_WORDS_H_
#define HLOSCOPE_REPORT_THUNK_WORDS_H_

#include <string>
#include <string_view>

#include "hloscope/analysis/findings.h"
#include "hloscope/report/json_model.h"

namespace hloscope {

// "copies checked against the thunks XLA:GPU runs (PATH): all 3 copies run:
// 2 as memcpys (kCopy thunks), 1 as a kernel; also memcpys (kCopy thunks),
// not copies: loop_dynamic_update_slice_fusion (a fused update)". Paths and
// names are Shown(); the caller escapes for HTML.
std::string ThunkCheckLine(const ThunkCheck& t);

// The module's "thunks" member: null without a dump.
Json ThunkCheckJson(const std::optional<ThunkCheck>& t);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_THUNK_WORDS_H_
