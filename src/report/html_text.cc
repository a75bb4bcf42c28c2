#include "hloscope/report/html_text.h"

#include <fmt/format.h>

#include "hloscope/report/wording.h"

namespace hloscope {

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string HtmlShown(std::string_view input_text) { return HtmlEscape(Shown(input_text)); }

std::string Anchor(size_t module, AnchorKind kind, size_t index) {
  std::string_view k = kind == AnchorKind::kCopy     ? "copy"
                       : kind == AnchorKind::kUpdate ? "update"
                       : kind == AnchorKind::kLoop   ? "loop"
                                                     : "param";
  return fmt::format("m{}-{}-{}", module, k, index);
}

std::string SourceAnchor(size_t module, size_t file, int64_t line) {
  return fmt::format("m{}-src-{}-{}", module, file, line);
}

}  // namespace hloscope
