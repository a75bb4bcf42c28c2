#include "hloscope/support/terminal_text.h"

#include <algorithm>
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

namespace {

constexpr size_t kChunk = 64 * 1024;

// Where the trailing bytes of `s` that could still become a valid UTF-8
// sequence begin (s.size() when there are none).
size_t IncompleteTail(std::string_view s) {
  for (size_t back = 1; back <= 3 && back <= s.size(); ++back) {
    unsigned char c = static_cast<unsigned char>(s[s.size() - back]);
    if ((c & 0xc0) == 0x80) continue;  // a continuation byte: look further back
    size_t need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
    return need > back ? s.size() - back : s.size();
  }
  return s.size();
}

}  // namespace

TerminalSafeStreambuf::TerminalSafeStreambuf(std::streambuf* destination, TerminalTextOptions options)
    : destination_(destination), options_(options) {}

TerminalSafeStreambuf::~TerminalSafeStreambuf() { Finish(); }

bool TerminalSafeStreambuf::Drain(bool all) {
  size_t n = all ? pending_.size() : IncompleteTail(pending_);
  if (n == 0) return !failed_;
  std::string_view part(pending_.data(), n);
  std::string escaped;
  if (!IsTerminalSafe(part, options_)) {
    escaped = EscapeForTerminal(part, options_);
    part = escaped;
  }
  if (!failed_ && destination_->sputn(part.data(), static_cast<std::streamsize>(part.size())) !=
                      static_cast<std::streamsize>(part.size()))
    failed_ = true;
  pending_.erase(0, n);
  return !failed_;
}

bool TerminalSafeStreambuf::Finish() {
  Drain(/*all=*/true);
  if (!failed_ && destination_->pubsync() != 0) failed_ = true;
  return !failed_;
}

TerminalSafeStreambuf::int_type TerminalSafeStreambuf::overflow(int_type ch) {
  if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
  pending_ += traits_type::to_char_type(ch);
  if (pending_.size() >= kChunk && !Drain(/*all=*/false)) return traits_type::eof();
  return failed_ ? traits_type::eof() : ch;
}

std::streamsize TerminalSafeStreambuf::xsputn(const char* s, std::streamsize n) {
  // A large write (a whole report) goes through in chunks, not copied whole.
  std::streamsize done = 0;
  while (done < n && !failed_) {
    size_t take = std::min(static_cast<size_t>(n - done), kChunk);
    pending_.append(s + done, take);
    done += static_cast<std::streamsize>(take);
    if (pending_.size() >= kChunk) Drain(/*all=*/false);
  }
  return failed_ ? 0 : done;
}

int TerminalSafeStreambuf::sync() {
  // A flush in the middle of a character keeps its start for the rest.
  if (!Drain(/*all=*/false)) return -1;
  return destination_->pubsync() == 0 ? 0 : -1;
}

}  // namespace hloscope
