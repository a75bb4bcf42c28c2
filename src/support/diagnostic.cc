#include "hloscope/support/diagnostic.h"

#include <fmt/format.h>

#include <algorithm>

#include "hloscope/support/terminal_text.h"

namespace hloscope {

namespace {
constexpr size_t kMaxShownLine = 240;

// Text for one line of the diagnostic: input bytes that would garble a
// terminal (binary input, escape sequences) are written as \xNN.
std::string Shown(std::string_view s) {
  return EscapeForTerminal(s, {.keep_newlines = false, .keep_tabs = true});
}

// The caret line under `shown_prefix` (the escaped text before the caret):
// one space per character, tabs kept so it lines up under tab-indented text.
std::string CaretPad(std::string_view shown_prefix) {
  std::string pad;
  for (size_t i = 0; i < shown_prefix.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(shown_prefix[i]);
    if ((c & 0xc0) == 0x80) continue;  // a UTF-8 continuation byte: same character
    pad += c == '\t' ? '\t' : ' ';
  }
  return pad;
}
}  // namespace

std::string Diagnostic::Format() const {
  if (line == 0) return fmt::format("{}: error: {}\n", Shown(path), Shown(message));
  // A position without its line (a file hloscope found: support/found_file.h).
  if (caret == 0 && line_text.empty())
    return fmt::format("{}:{}:{}: error: {}\n", Shown(path), line, column, Shown(message));
  size_t before = caret > 0 ? static_cast<size_t>(caret - 1) : 0;
  before = std::min(before, line_text.size());
  std::string pad = CaretPad(Shown(line_text.substr(0, before)));
  return fmt::format("{}:{}:{}: error: {}\n{}\n{}^\n", Shown(path), line, column, Shown(message),
                     Shown(line_text), pad);
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
    d.line_text = std::string(full.substr(begin, kMaxShownLine));
    d.caret = static_cast<int64_t>(col - begin) + 1;
    return d;
  }
  d.line_text = std::string(full);
  d.caret = d.column;
  return d;
}

Diagnostic InputDiagnostic(std::string path, std::string message) {
  Diagnostic d;
  d.path = std::move(path);
  d.message = std::move(message);
  return d;
}

}  // namespace hloscope
