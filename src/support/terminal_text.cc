#include "hloscope/support/terminal_text.h"

#include <cstdint>

namespace hloscope {
namespace {

const char kHex[] = "0123456789abcdef";

// The length of the valid UTF-8 sequence at s[i] (1-4), or 0 when the
// bytes there are not valid UTF-8 (overlong forms and surrogates included).
size_t Utf8Length(std::string_view s, size_t i, uint32_t* code_point) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  size_t n;
  uint32_t cp;
  if (c < 0x80) {
    *code_point = c;
    return 1;
  } else if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
    cp = c & 0x1f;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    cp = c & 0x0f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    unsigned char cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xc0) != 0x80) return 0;
    cp = cp << 6 | (cc & 0x3f);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff))
    return 0;
  *code_point = cp;
  return n;
}

bool Kept(uint32_t cp, const TerminalTextOptions& o) {
  if (cp == '\n') return o.keep_newlines;
  if (cp == '\t') return o.keep_tabs;
  return !(cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f));
}

}  // namespace

bool IsTerminalSafe(std::string_view s, const TerminalTextOptions& o) {
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = 0;
    size_t n = Utf8Length(s, i, &cp);
    if (n == 0 || !Kept(cp, o)) return false;
    i += n;
  }
  return true;
}

std::string EscapeForTerminal(std::string_view s, const TerminalTextOptions& o) {
  if (IsTerminalSafe(s, o)) return std::string(s);
  std::string out;
  out.reserve(s.size() + 16);
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = 0;
    size_t n = Utf8Length(s, i, &cp);
    if (n == 0) {  // not UTF-8: the byte itself
      unsigned char c = static_cast<unsigned char>(s[i]);
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
      ++i;
      continue;
    }
    if (Kept(cp, o)) {
      out.append(s.substr(i, n));
    } else if (cp < 0x80) {
      out += "\\x";
      out += kHex[cp >> 4];
      out += kHex[cp & 15];
    } else {  // C1 (two bytes in UTF-8)
      out += "\\u00";
      out += kHex[cp >> 4];
      out += kHex[cp & 15];
    }
    i += n;
  }
  return out;
}

}  // namespace hloscope
