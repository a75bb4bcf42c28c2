#include "hloscope/support/diagnostic.h"

#include <fmt/format.h>

#include <algorithm>

namespace hloscope {

namespace {
constexpr size_t kMaxShownLine = 240;

// Replaces bytes that would garble a terminal (binary input) by '?'.
std::string Printable(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 && c != '\t') c = '?';
    if (u == 0x7f) c = '?';
  }
  return out;
}
}  // namespace

std::string Diagnostic::Format() const {
  if (line == 0) return fmt::format("{}: error: {}\n", path, message);
  std::string pad(caret > 0 ? static_cast<size_t>(caret - 1) : 0, ' ');
  // Keep tabs in the caret line so it lines up under tab-indented text.
  for (size_t i = 0; i < pad.size() && i < line_text.size(); ++i)
    if (line_text[i] == '\t') pad[i] = '\t';
  return fmt::format("{}:{}:{}: error: {}\n{}\n{}^\n", path, line, column, message, line_text, pad);
}

Diagnostic MakeDiagnostic(std::string_view path, std::string_view text, size_t offset, std::string message) {
  Diagnostic d;
  d.path = std::string(path);
  d.message = std::move(message);
  offset = std::min(offset, text.size());
  int64_t line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  size_t line_end = text.find('\n', offset);
  if (line_end == std::string_view::npos) line_end = text.size();
  if (line_end > line_start && text[line_end - 1] == '\r') --line_end;
  d.line = line;
  size_t col = offset - line_start;
  std::string_view full = text.substr(line_start, line_end - line_start);
  d.column = static_cast<int64_t>(col) + 1;
  if (full.size() > kMaxShownLine) {
    // A window around the column keeps the caret readable on huge lines.
    size_t begin = col > kMaxShownLine / 2 ? col - kMaxShownLine / 2 : 0;
    d.line_text = Printable(full.substr(begin, kMaxShownLine));
    d.caret = static_cast<int64_t>(col - begin) + 1;
    return d;
  }
  d.line_text = Printable(full);
  d.caret = d.column;
  return d;
}

}  // namespace hloscope
