// JSON a user hands back (a `diff` baseline, Python's diff() documents):
// parsed with limits, so a hostile document is a diagnostic, never a
// signal. nlohmann's DOM builds and destroys nested values recursively, so
// 200,000 nested arrays overflow the stack; a number like 1e999999 throws
// out_of_range, which is not a parse_error.
#ifndef HLOSCOPE_REPORT_JSON_INPUT_H_
#define HLOSCOPE_REPORT_JSON_INPUT_H_

#include <string>
#include <string_view>

#include "hloscope/report/json_model.h"
#include "hloscope/support/result.h"

namespace hloscope {

// Deeper than any document hloscope writes (a check document nests about
// ten levels): more is not hloscope's output.
inline constexpr int kMaxJsonInputDepth = 64;

// `text` parsed; a diagnostic at the offending byte of `path` when it is not
// JSON, nests deeper than kMaxJsonInputDepth, or holds a number out of
// range. `what` ends the message: what the document should have been.
Result<Json> ParseJsonInput(std::string_view text, std::string_view path, std::string_view what);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_JSON_INPUT_H_
