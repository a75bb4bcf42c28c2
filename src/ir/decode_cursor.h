// DecodeCursor: the scanner the attribute decoders share (collective device
// lists, source_target_pairs, shardings, meshes). Not installed.
//
// The IR keeps attribute values as text; these decoders read one value at a
// time. A malformed value throws DecodeFailure (offset within the value and
// a message), which the public Decode*/Parse* functions catch and return as
// a Diagnostic: no exception crosses a public header, as in the parser.
#ifndef HLOSCOPE_IR_DECODE_CURSOR_H_
#define HLOSCOPE_IR_DECODE_CURSOR_H_

#include <fmt/format.h>

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

#include "hloscope/support/diagnostic.h"

namespace hloscope::ir_internal {

struct DecodeFailure {
  size_t offset;
  std::string message;
};

// A Diagnostic for `failure` in `text`: line and column within the value
// (1-based), the value's line with a caret; no path (the caller knows where
// the value lives: AttributeDiagnostic in hloscope/ir/tile_assignment.h).
inline Diagnostic FailureDiagnostic(std::string_view text, const DecodeFailure& failure) {
  return MakeDiagnostic("", text, failure.offset, failure.message);
}

inline std::string Describe(std::string_view text, size_t i) {
  if (i >= text.size()) return "end of value";
  unsigned char u = static_cast<unsigned char>(text[i]);
  if (u >= 0x20 && u < 0x7f) return fmt::format("'{}'", text[i]);
  if (text[i] == '\n') return "end of line";
  return fmt::format("byte 0x{:02x}", u);
}

class DecodeCursor {
 public:
  explicit DecodeCursor(std::string_view text) : s_(text) {}

  std::string_view text() const { return s_; }
  size_t pos() const { return p_; }
  void set_pos(size_t p) { p_ = p; }

  [[noreturn]] void Fail(size_t offset, std::string message) const {
    throw DecodeFailure{offset, std::move(message)};
  }
  [[noreturn]] void FailExpected(std::string_view what) const {
    Fail(p_, fmt::format("expected {}, found {}", what, Describe(s_, p_)));
  }

  // Spaces, tabs, line ends and /* */ comments (`/*index=5*/` in tuples).
  void SkipSpace() {
    while (p_ < s_.size()) {
      char c = s_[p_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++p_;
      } else if (c == '/' && p_ + 1 < s_.size() && s_[p_ + 1] == '*') {
        size_t end = s_.find("*/", p_ + 2);
        if (end == std::string_view::npos) Fail(p_, "unterminated '/*' comment");
        p_ = end + 2;
      } else {
        break;
      }
    }
  }
  bool AtEnd() {
    SkipSpace();
    return p_ >= s_.size();
  }
  char Peek() {
    SkipSpace();
    return p_ < s_.size() ? s_[p_] : '\0';
  }
  bool Consume(char c) {
    if (Peek() != c) return false;
    ++p_;
    return true;
  }
  void Expect(char c, std::string_view context) {
    if (!Consume(c)) FailExpected(fmt::format("'{}' {}", c, context));
  }
  static bool IsIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
  static bool IsIdentChar(char c) {
    return IsIdentStart(c) || (c >= '0' && c <= '9') || c == '.' || c == '-';
  }
  // The identifier at the cursor ([A-Za-z_][A-Za-z0-9_.-]*), or empty.
  std::string_view PeekWord() {
    SkipSpace();
    size_t e = p_;
    if (e < s_.size() && IsIdentStart(s_[e]))
      while (e < s_.size() && IsIdentChar(s_[e])) ++e;
    return s_.substr(p_, e - p_);
  }
  std::string_view Word() {
    std::string_view w = PeekWord();
    p_ += w.size();
    return w;
  }
  bool ConsumeWord(std::string_view w) {
    if (PeekWord() != w) return false;
    p_ += w.size();
    return true;
  }
  // A decimal integer (optional '-'); errors name `what`.
  int64_t Int(std::string_view what) {
    SkipSpace();
    size_t start = p_;
    size_t e = p_;
    if (e < s_.size() && s_[e] == '-') ++e;
    while (e < s_.size() && s_[e] >= '0' && s_[e] <= '9') ++e;
    if (e == start || (e == start + 1 && s_[start] == '-')) FailExpected(what);
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(s_.data() + start, s_.data() + e, v);
    if (ec != std::errc() || ptr != s_.data() + e)
      Fail(start, fmt::format("integer '{}' does not fit in 64 bits", s_.substr(start, e - start)));
    p_ = e;
    return v;
  }
  // An axis name: 'quoted' (newer XLA) or a bare identifier. Returns the name
  // without quotes; empty when there is none at the cursor.
  std::string_view AxisName() {
    SkipSpace();
    if (p_ < s_.size() && s_[p_] == '\'') {
      size_t end = s_.find('\'', p_ + 1);
      if (end == std::string_view::npos) Fail(p_, "unterminated quoted axis name");
      std::string_view name = s_.substr(p_ + 1, end - p_ - 1);
      p_ = end + 1;
      return name;
    }
    return Word();
  }
  // From an opening bracket at the cursor to past its mate (strings and
  // nested brackets skipped, with a counter: the value is already balanced,
  // the parser checked it). Returns the group's text.
  std::string_view BalancedGroup() {
    SkipSpace();
    size_t start = p_;
    int64_t depth = 0;
    while (p_ < s_.size()) {
      char c = s_[p_];
      if (c == '"') {
        size_t q = p_ + 1;
        while (q < s_.size() && s_[q] != '"') q += s_[q] == '\\' ? 2 : 1;
        if (q >= s_.size()) Fail(p_, "unterminated string");
        p_ = q + 1;
        continue;
      }
      if (c == '{' || c == '[' || c == '(') ++depth;
      if (c == '}' || c == ']' || c == ')') {
        if (--depth == 0) {
          ++p_;
          return s_.substr(start, p_ - start);
        }
        if (depth < 0) break;
      }
      ++p_;
    }
    Fail(start, "unbalanced brackets");
  }

 private:
  std::string_view s_;
  size_t p_ = 0;
};

}  // namespace hloscope::ir_internal

#endif  // HLOSCOPE_IR_DECODE_CURSOR_H_
