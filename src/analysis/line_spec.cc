#include "hloscope/analysis/line_spec.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <vector>

#include "hloscope/analysis/source_files.h"

namespace hloscope {
namespace {

std::optional<int64_t> ParseInt(std::string_view s) {
  if (s.empty()) return std::nullopt;
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < 0) return std::nullopt;
  return v;
}

// "42" or "42-50" -> (first, last).
bool ParseRange(std::string_view s, int64_t* first, int64_t* last) {
  size_t dash = s.find('-');
  std::optional<int64_t> a = ParseInt(s.substr(0, dash));
  std::optional<int64_t> b = dash == std::string_view::npos ? a : ParseInt(s.substr(dash + 1));
  if (!a || !b || *a == 0 || *b < *a) return false;
  *first = *a;
  *last = *b;
  return true;
}

}  // namespace

bool SourceFileMatches(std::string_view path, std::string_view spec_file) {
  if (spec_file.empty()) return true;
  std::vector<std::string_view> want = PathComponents(spec_file);
  std::vector<std::string_view> have = PathComponents(path);
  if (want.empty() || want.size() > have.size()) return false;
  return std::equal(want.rbegin(), want.rend(), have.rbegin());
}

bool FunctionMatches(std::string_view function, std::string_view name) {
  if (name.empty() || function.empty()) return false;
  if (function == name) return true;
  if (function.size() > name.size() && function.ends_with(name) &&
      function[function.size() - name.size() - 1] == '.')
    return true;
  // Nested in it: "name.<locals>.inner" or "outer.<locals>.name.<locals>.inner".
  std::string nested = std::string(name) + ".<locals>.";
  size_t pos = function.find(nested);
  return pos != std::string_view::npos && (pos == 0 || function[pos - 1] == '.');
}

bool LineSpec::Matches(const SourceLocation& loc) const {
  if (loc.file.empty() || loc.line <= 0) return false;
  if (!function.empty()) {
    if (!file.empty() && !SourceFileMatches(loc.file, file)) return false;
    return FunctionMatches(loc.function, function);
  }
  if (!file.empty() && !SourceFileMatches(loc.file, file)) return false;
  if (first > 0 && (loc.line < first || loc.line > last)) return false;
  return true;
}

std::optional<LineSpec> ParseLineSpec(std::string_view text, std::string* error) {
  auto fail = [&](std::string msg) -> std::optional<LineSpec> {
    if (error) *error = std::move(msg);
    return std::nullopt;
  };
  LineSpec spec;
  spec.text = std::string(text);
  if (text.empty()) return fail("empty location");
  size_t colon = text.rfind(':');
  if (colon != std::string_view::npos) {
    spec.file = std::string(text.substr(0, colon));
    std::string_view rest = text.substr(colon + 1);
    if (rest.empty()) return spec;  // "train.py:" = the whole file
    if (!ParseRange(rest, &spec.first, &spec.last)) {
      // file:function
      if (rest.find_first_of("0123456789") == 0)
        return fail(fmt::format("bad line range '{}' (expected N or N-M)", rest));
      spec.function = std::string(rest);
    }
    return spec;
  }
  if (text.find_first_not_of("0123456789-") == std::string_view::npos) {
    if (!ParseRange(text, &spec.first, &spec.last))
      return fail(fmt::format("bad line range '{}' (expected N or N-M)", text));
    return spec;
  }
  if (text.find('/') != std::string_view::npos || text.ends_with(".py")) {
    spec.file = std::string(text);
    return spec;
  }
  spec.function = std::string(text);
  return spec;
}

}  // namespace hloscope
