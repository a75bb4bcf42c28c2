#include "hlo_mutator.h"

#include <algorithm>
#include <random>
#include <string_view>
#include <vector>

namespace hloscope::fuzz {
namespace {

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
         c == '-';
}

struct Span {
  size_t begin, end;  // [begin, end)
};

// Every `%name` token (the name without the '%').
std::vector<Span> Names(const std::string& text) {
  std::vector<Span> out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') continue;
    size_t j = i + 1;
    while (j < text.size() && IsNameChar(text[j])) ++j;
    if (j > i + 1) out.push_back({i + 1, j});
    i = j - 1;
  }
  return out;
}

std::vector<Span> Lines(const std::string& text) {
  std::vector<Span> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    size_t end = nl == std::string::npos ? text.size() : nl + 1;
    out.push_back({start, end});
    start = end;
  }
  return out;
}

// The names of computations: `%name (` or `name {` at the start of a line,
// after an optional `ENTRY `.
std::vector<std::string> ComputationNames(const std::string& text) {
  std::vector<std::string> out;
  for (Span line : Lines(text)) {
    std::string_view l(text.data() + line.begin, line.end - line.begin);
    if (l.substr(0, 6) == "ENTRY ") l.remove_prefix(6);
    if (!l.empty() && l[0] == '%') l.remove_prefix(1);
    size_t n = 0;
    while (n < l.size() && IsNameChar(l[n])) ++n;
    if (n == 0 || n >= l.size()) continue;
    std::string_view rest = l.substr(n);
    if (rest.substr(0, 2) == " (" || rest.substr(0, 2) == " {") out.emplace_back(l.substr(0, n));
  }
  return out;
}

// Attribute keys whose value names a computation.
constexpr std::string_view kCallKeys[] = {
    "calls=", "to_apply=", "body=", "condition=", "branch_computations={"};

class Mutator {
 public:
  Mutator(std::string& text, uint32_t seed) : text_(text), rng_(seed) {}

  bool Apply() {
    switch (Pick(9)) {
      case 0:
        return RenameOperand(/*self=*/false);
      case 1:
        return RenameOperand(/*self=*/true);
      case 2:
        return ChangeShape();
      case 3:
        return DeleteAttribute();
      case 4:
        return DuplicateLine();
      case 5:
        return DeleteLine();
      case 6:
        return SwapLines();
      case 7:
        return ReplaceCallee();
      default:
        return HugeNumber();
    }
  }

 private:
  size_t Pick(size_t n) { return n == 0 ? 0 : std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }

  // An operand (a %name after `(` or `, ` on the right of `=`) renamed to
  // another name of the module, or to the instruction's own name.
  bool RenameOperand(bool self) {
    std::vector<Span> names = Names(text_);
    if (names.size() < 2) return false;
    Span target = names[Pick(names.size())];
    std::string replacement;
    if (self) {
      // The name defined on the target's line.
      size_t line_start = text_.rfind('\n', target.begin);
      line_start = line_start == std::string::npos ? 0 : line_start + 1;
      size_t pct = text_.find('%', line_start);
      if (pct == std::string::npos || pct + 1 >= target.begin) return false;
      size_t j = pct + 1;
      while (j < text_.size() && IsNameChar(text_[j])) ++j;
      replacement = text_.substr(pct + 1, j - pct - 1);
    } else {
      Span other = names[Pick(names.size())];
      replacement = text_.substr(other.begin, other.end - other.begin);
    }
    text_.replace(target.begin, target.end - target.begin, replacement);
    return true;
  }

  // A dimension list `[...]` or an element type changed.
  bool ChangeShape() {
    std::vector<size_t> brackets;
    for (size_t i = 0; i + 1 < text_.size(); ++i)
      if (text_[i] == '[' && (i == 0 || text_[i - 1] != '{')) brackets.push_back(i);
    if (brackets.empty()) return false;
    size_t open = brackets[Pick(brackets.size())];
    size_t close = text_.find(']', open);
    if (close == std::string::npos || close - open > 64) return false;
    static constexpr std::string_view kDims[] = {"",
                                                 "0",
                                                 "1",
                                                 "2,3",
                                                 "1,1,1,1,1,1,1,1",
                                                 "4294967296",
                                                 "9223372036854775807",
                                                 "<=8",
                                                 "1000000,1000000"};
    text_.replace(open + 1, close - open - 1, kDims[Pick(std::size(kDims))]);
    if (Pick(3) == 0 && open > 0) {
      // And the element type before it.
      size_t t = open;
      while (t > 0 && IsNameChar(text_[t - 1])) --t;
      static constexpr std::string_view kTypes[] = {"pred", "s4", "f32", "c128", "token", "f8e4m3fn", "u64"};
      text_.replace(t, open - t, kTypes[Pick(std::size(kTypes))]);
    }
    return true;
  }

  // `, key=value` removed, up to the next `, ` or the end of the line.
  bool DeleteAttribute() {
    std::vector<size_t> starts;
    for (size_t i = 0; i + 2 < text_.size(); ++i) {
      if (text_[i] != ',' || text_[i + 1] != ' ') continue;
      size_t j = i + 2;
      while (j < text_.size() && IsNameChar(text_[j])) ++j;
      if (j > i + 2 && j < text_.size() && text_[j] == '=') starts.push_back(i);
    }
    if (starts.empty()) return false;
    size_t s = starts[Pick(starts.size())];
    size_t e = text_.find(", ", s + 2);
    size_t nl = text_.find('\n', s);
    if (e == std::string::npos || (nl != std::string::npos && nl < e))
      e = nl == std::string::npos ? text_.size() : nl;
    text_.erase(s, e - s);
    return true;
  }

  bool DuplicateLine() {
    std::vector<Span> lines = Lines(text_);
    if (lines.empty()) return false;
    Span l = lines[Pick(lines.size())];
    Span at = lines[Pick(lines.size())];
    text_.insert(at.begin, text_.substr(l.begin, l.end - l.begin));
    return true;
  }

  bool DeleteLine() {
    std::vector<Span> lines = Lines(text_);
    if (lines.size() < 2) return false;
    Span l = lines[Pick(lines.size())];
    text_.erase(l.begin, l.end - l.begin);
    return true;
  }

  bool SwapLines() {
    std::vector<Span> lines = Lines(text_);
    if (lines.size() < 2) return false;
    size_t a = Pick(lines.size()), b = Pick(lines.size());
    if (a == b) return false;
    if (a > b) std::swap(a, b);
    std::string first = text_.substr(lines[a].begin, lines[a].end - lines[a].begin);
    std::string second = text_.substr(lines[b].begin, lines[b].end - lines[b].begin);
    if (first.empty() || first.back() != '\n') first += '\n';
    if (second.empty() || second.back() != '\n') second += '\n';
    text_.replace(lines[b].begin, lines[b].end - lines[b].begin, first);
    text_.replace(lines[a].begin, lines[a].end - lines[a].begin, second);
    return true;
  }

  // A called computation replaced by another one of the module (the entry,
  // the caller itself): call-graph cycles, fusions calling non-fused
  // computations, loops whose body is their condition.
  bool ReplaceCallee() {
    std::vector<std::string> comps = ComputationNames(text_);
    if (comps.empty()) return false;
    std::vector<size_t> sites;
    for (std::string_view key : kCallKeys)
      for (size_t p = text_.find(key); p != std::string::npos; p = text_.find(key, p + 1))
        sites.push_back(p + key.size());
    if (sites.empty()) return false;
    size_t at = sites[Pick(sites.size())];
    if (at < text_.size() && text_[at] == '%') ++at;
    size_t end = at;
    while (end < text_.size() && IsNameChar(text_[end])) ++end;
    text_.replace(at, end - at, comps[Pick(comps.size())]);
    return true;
  }

  // A number (a trip count, a dimension, an index, a stack-frame id) made
  // huge, zero or negative.
  bool HugeNumber() {
    std::vector<Span> numbers;
    for (size_t i = 0; i < text_.size(); ++i) {
      if (text_[i] < '0' || text_[i] > '9') continue;
      size_t j = i;
      while (j < text_.size() && text_[j] >= '0' && text_[j] <= '9') ++j;
      numbers.push_back({i, j});
      i = j;
    }
    if (numbers.empty()) return false;
    Span n = numbers[Pick(numbers.size())];
    static constexpr std::string_view kValues[] = {
        "0", "1", "-1", "2147483648", "4294967295", "9223372036854775807", "18446744073709551616"};
    text_.replace(n.begin, n.end - n.begin, kValues[Pick(std::size(kValues))]);
    return true;
  }

  std::string& text_;
  std::mt19937 rng_;
};

}  // namespace

bool MutateHloText(std::string& text, uint32_t seed) {
  Mutator m(text, seed);
  bool any = false;
  int edits = 1 + static_cast<int>(seed % 3);
  for (int i = 0; i < edits; ++i) any |= m.Apply();
  return any;
}

}  // namespace hloscope::fuzz
