#include "hloscope/report/json_input.h"

#include <fmt/format.h>

#include <algorithm>

#include "hloscope/support/diagnostic.h"

namespace hloscope {
namespace {

// The offset of the first bracket that opens level `limit` + 1, outside
// strings; npos when the text never nests that deep. A scan, not a parse:
// malformed text is left to the parser's own message.
size_t TooDeepAt(std::string_view text, int limit) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return i;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::string_view::npos;
}

}  // namespace

Result<Json> ParseJsonInput(std::string_view text, std::string_view path, std::string_view what) {
  if (size_t at = TooDeepAt(text, kMaxJsonInputDepth); at != std::string_view::npos)
    return MakeDiagnostic(path, text, at,
                          fmt::format("JSON nested deeper than {} levels ({})", kMaxJsonInputDepth, what));
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const Json::parse_error& e) {
    // e.byte is 1-based: the byte after the last one read.
    size_t at = e.byte > 0 ? std::min<size_t>(e.byte - 1, text.size()) : 0;
    return MakeDiagnostic(path, text, at, fmt::format("not valid JSON ({})", what));
  } catch (const Json::exception& e) {
    // out_of_range (a number too large for a double), and the like: no
    // position from the library, so the message names the kind.
    return InputDiagnostic(std::string(path), fmt::format("unreadable JSON: {} ({})", e.what(), what));
  }
}

}  // namespace hloscope
