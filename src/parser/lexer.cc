// Lexical layer of the HLO parser: whitespace and comments, names, integers,
// strings, balanced groups and attribute values. XLA's own lexer
// (xla/hlo/parser/hlo_lexer.cc) makes tokens; this one scans in place and
// leaves values as views of the input.
#include <fmt/format.h>

#include <charconv>
#include <cstring>

#include "parser/parser_impl.h"

namespace hloscope {

std::string DescribeChar(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return fmt::format("'{}'", c);
  if (c == '\n') return "end of line";
  return fmt::format("byte 0x{:02x}", u);
}

void HloParserImpl::ErrorExpected(std::string_view what) {
  if (p_ >= s_.size()) Error(p_, fmt::format("expected {}, found end of input", what));
  Error(p_, fmt::format("expected {}, found {}", what, DescribeChar(s_[p_])));
}

// space   ::= (' ' | '\t' | '\r' | '\n' | comment)*
// comment ::= '//' ... end of line | '/*' ... '*/'
// A line `// -----` (hlo-opt --split-input-file) also ends the module.
void HloParserImpl::SkipSpaceSlow() {
  const char* data = s_.data();
  const size_t n = s_.size();
  while (p_ < n) {
    // Tight loop over whitespace (indentation, line ends) first.
    char c = data[p_];
    if (kCharClasses.bits[static_cast<unsigned char>(c)] & CharClasses::kWhitespace) {
      // data[n] is the '\0' sentinel: no bounds check needed.
      ++p_;
      while (kCharClasses.bits[static_cast<unsigned char>(data[p_])] & CharClasses::kWhitespace) ++p_;
      continue;
    }
    if (c == '/' && p_ + 1 < s_.size()) {
      if (s_[p_ + 1] == '/') {
        size_t eol = s_.find('\n', p_);
        std::string_view comment =
            s_.substr(p_ + 2, (eol == std::string_view::npos ? s_.size() : eol) - p_ - 2);
        // Only the exact marker: longer dashed lines are decoration.
        size_t k = comment.find_first_not_of(' ');
        size_t e = comment.find_last_not_of(" \r");
        if (k != std::string_view::npos && comment.substr(k, e - k + 1) == "-----") split_seen_ = true;
        p_ = eol == std::string_view::npos ? s_.size() : eol + 1;
        continue;
      }
      if (s_[p_ + 1] == '*') {
        size_t end = s_.find("*/", p_ + 2);
        if (end == std::string_view::npos) Error(p_, "unterminated '/*' comment");
        p_ = end + 2;
        continue;
      }
    }
    break;
  }
}

bool HloParserImpl::Consume(char c) {
  SkipSpace();
  if (Peek() == c) {
    ++p_;
    return true;
  }
  return false;
}

void HloParserImpl::Expect(char c, std::string_view context) {
  if (!Consume(c)) ErrorExpected(fmt::format("'{}' {}", c, context));
}

bool HloParserImpl::ConsumeKeyword(std::string_view kw) {
  SkipSpace();
  if (s_.substr(p_, kw.size()) == kw && !IsIdentChar(PeekAt(p_ + kw.size()))) {
    p_ += kw.size();
    return true;
  }
  return false;
}

// name ::= ['%'] [A-Za-z_][A-Za-z0-9_.-]*
std::string_view HloParserImpl::ParseName(std::string_view what) {
  SkipSpace();
  size_t start = p_;
  if (Peek() == '%') ++p_;
  std::string_view id = ScanIdentifier();
  if (id.empty()) {
    p_ = start;
    ErrorExpected(what);
  }
  return id;
}

// int ::= ['-'] [0-9]+        (must fit in int64)
int64_t HloParserImpl::ParseInt64() {
  SkipSpace();
  size_t start = p_;
  bool negative = Peek() == '-';
  if (negative) ++p_;
  if (!IsDigit(Peek())) {
    p_ = start;
    ErrorExpected("an integer");
  }
  size_t digits = p_;
  while (IsDigit(Peek())) ++p_;
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(s_.data() + digits, s_.data() + p_, v);
  if (ec != std::errc() || v > static_cast<uint64_t>(INT64_MAX) + negative)
    Error(start, fmt::format("integer '{}' does not fit in 64 bits", s_.substr(start, p_ - start)));
  return negative ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
}

// string ::= '"' ([^"\\] | '\\' any)* '"' | "'" ([^'\\] | '\\' any)* "'"
size_t HloParserImpl::ScanString(size_t start) {
  // memchr for the closing quote, then count the backslashes before it: an
  // odd count means it is escaped. (find_first_of with a two-character set
  // calls memchr once per input byte in libstdc++: 40% of parse time.)
  char quote = s_[start];
  const char* base = s_.data();
  const char* end = base + s_.size();
  const char* p = base + start + 1;
  while (true) {
    const char* q = static_cast<const char*>(std::memchr(p, quote, end - p));
    if (!q) Error(start, "unterminated string literal");
    size_t slashes = 0;
    for (const char* b = q; b > base + start + 1 && b[-1] == '\\'; --b) ++slashes;
    if (slashes % 2 == 0) return static_cast<size_t>(q - base) + 1;
    p = q + 1;
  }
}

// Skips a balanced (), [] or {} group, strings and /* */ comments inside it
// included. Nesting is tracked with a small stack, not recursion, so deep
// input cannot overflow.
size_t HloParserImpl::ScanBalanced(size_t start) {
  std::string stack;
  size_t i = start;
  const char* data = s_.data();
  const size_t n = s_.size();
  while (i < n) {
    // Skip ordinary bytes with a table lookup; only brackets, quotes and
    // '/' need the switch (metadata and backend_config are mostly text).
    while (i < n && !(kCharClasses.bits[static_cast<unsigned char>(data[i])] & CharClasses::kBalancedSpecial))
      ++i;
    if (i >= n) break;
    char c = data[i];
    switch (c) {
      case '(':
        stack.push_back(')');
        break;
      case '[':
        stack.push_back(']');
        break;
      case '{':
        stack.push_back('}');
        break;
      case ')':
      case ']':
      case '}':
        if (stack.empty() || stack.back() != c)
          Error(i, stack.empty() ? fmt::format("unbalanced '{}'", c)
                                 : fmt::format("unbalanced '{}': expected '{}'", c, stack.back()));
        stack.pop_back();
        if (stack.empty()) return i + 1;
        break;
      case '"':
        i = ScanString(i);
        continue;
      case '/':
        // `/*index=5*/` in tuple shardings; a comment may hold brackets.
        if (PeekAt(i + 1) == '*') {
          size_t end = s_.find("*/", i + 2);
          if (end == std::string_view::npos) Error(i, "unterminated '/*' comment");
          i = end + 2;
          continue;
        }
        break;
      default:
        break;
    }
    ++i;
  }
  Error(start, fmt::format("unbalanced '{}': no matching '{}' before end of input", s_[start],
                           stack.empty() ? '?' : stack.front()));
}

// value ::= balanced group | string | bare text up to ',' / space / newline
size_t HloParserImpl::ScanAttributeValue() {
  SkipSpace();
  size_t i = p_;
  if (i >= s_.size()) ErrorExpected("an attribute value");
  char c = s_[i];
  if (c == '{' || c == '(') return ScanBalanced(i);
  if (c == '"' || c == '\'') return ScanString(i);
  // Bare values: kLoop, LT, 0_1x1_1, b01f_01io->b01f, %comp, 3, -inf, iota
  // replica groups [2,2]<=[4]T(1,0) and mesh ones mesh['a'=2,'b'=4] {'b'}.
  while (i < s_.size()) {
    c = s_[i];
    if (c == '[' || c == '(' || c == '{') {
      i = ScanBalanced(i);
      continue;
    }
    if (c == ' ' || c == '\t') {
      // `mesh[...] {'axis_1'}` and `literal=s32[2]{0} {1, 2}`: a value
      // continues when a group follows on the same line.
      size_t j = i;
      while (j < s_.size() && (s_[j] == ' ' || s_[j] == '\t')) ++j;
      if (j < s_.size() && (s_[j] == '{' || s_[j] == '[')) {
        i = j;
        continue;
      }
      break;
    }
    if (c == ',' && s_.substr(p_, 5) == "mesh[" && s_[i - 1] == ']') {
      // `replica_groups=mesh['a'=4,'b'=2], device_ids=([2,4]T(1,0)) {'a'}`:
      // a mesh whose devices are not in iota order (XLA's Mesh::ToString)
      // writes a comma inside the value.
      size_t j = i + 1;
      while (j < s_.size() && (s_[j] == ' ' || s_[j] == '\t')) ++j;
      if (s_.substr(j, 12) == "device_ids=(") {
        i = j + 11;
        continue;
      }
    }
    if (c == ',' || c == '\n' || c == '\r' || c == '}' || c == ')') break;
    if (c == '/' && (PeekAt(i + 1) == '*' || PeekAt(i + 1) == '/')) break;  // comment
    ++i;
  }
  if (i == p_) ErrorExpected("an attribute value");
  return i;
}

}  // namespace hloscope
