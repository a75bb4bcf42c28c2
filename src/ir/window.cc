#include "hloscope/ir/window.h"

#include <charconv>

namespace hloscope {
namespace {

std::string_view StripBraces(std::string_view text) {
  if (text.size() >= 2 && text.front() == '{' && text.back() == '}') return text.substr(1, text.size() - 2);
  return text;
}

std::optional<int64_t> Number(std::string_view text) {
  int64_t n = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, n);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return n;
}

// "3x3" -> {3, 3}; "1_1x0_2" with `pairs` -> {1, 1, 0, 2}.
std::optional<std::vector<int64_t>> Split(std::string_view text, bool pairs) {
  std::vector<int64_t> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t x = text.find('x', start);
    std::string_view part =
        text.substr(start, x == std::string_view::npos ? std::string_view::npos : x - start);
    if (pairs) {
      size_t u = part.find('_');
      if (u == std::string_view::npos) return std::nullopt;
      auto lo = Number(part.substr(0, u));
      auto hi = Number(part.substr(u + 1));
      if (!lo || !hi) return std::nullopt;
      out.push_back(*lo);
      out.push_back(*hi);
    } else {
      auto n = Number(part);
      if (!n) return std::nullopt;
      out.push_back(*n);
    }
    if (x == std::string_view::npos) break;
    start = x + 1;
  }
  return out;
}

// Labels of one operand ("b01f"): the dimension of each letter and digit.
struct Labels {
  int64_t first = -1;   // b or i
  int64_t second = -1;  // f or o
  std::vector<int64_t> spatial;
};

std::optional<Labels> ReadLabels(std::string_view text, char first, char second) {
  Labels l;
  std::vector<std::pair<int64_t, int64_t>> spatial;  // (spatial number, dimension)
  for (size_t d = 0; d < text.size(); ++d) {
    char c = text[d];
    if (c == first) {
      l.first = static_cast<int64_t>(d);
    } else if (c == second) {
      l.second = static_cast<int64_t>(d);
    } else if (c >= '0' && c <= '9') {
      spatial.emplace_back(c - '0', static_cast<int64_t>(d));
    } else {
      return std::nullopt;
    }
  }
  if (l.first < 0 || l.second < 0) return std::nullopt;
  l.spatial.assign(spatial.size(), -1);
  for (auto [k, d] : spatial) {
    if (k >= static_cast<int64_t>(spatial.size()) || l.spatial[k] >= 0) return std::nullopt;
    l.spatial[k] = d;
  }
  return l;
}

}  // namespace

std::optional<std::vector<WindowDimension>> ParseWindow(std::string_view text) {
  text = StripBraces(text);
  std::vector<WindowDimension> dims;
  size_t start = 0;
  while (start < text.size()) {
    size_t space = text.find(' ', start);
    std::string_view field =
        text.substr(start, space == std::string_view::npos ? std::string_view::npos : space - start);
    start = space == std::string_view::npos ? text.size() : space + 1;
    if (field.empty()) continue;
    size_t eq = field.find('=');
    if (eq == std::string_view::npos) return std::nullopt;
    std::string_view key = field.substr(0, eq);
    std::string_view value = field.substr(eq + 1);
    const bool pad = key == "pad";
    auto values = Split(value, pad);
    if (!values) return std::nullopt;
    const size_t n = pad ? values->size() / 2 : values->size();
    if (dims.empty()) dims.resize(n);
    if (dims.size() != n) return std::nullopt;
    for (size_t i = 0; i < n; ++i) {
      WindowDimension& d = dims[i];
      if (key == "size") {
        d.size = (*values)[i];
      } else if (key == "stride") {
        d.stride = (*values)[i];
      } else if (pad) {
        d.padding_low = (*values)[2 * i];
        d.padding_high = (*values)[2 * i + 1];
      } else if (key == "lhs_dilate") {
        d.base_dilation = (*values)[i];
      } else if (key == "rhs_dilate") {
        d.window_dilation = (*values)[i];
      }
      // rhs_reversal and newer keys change no count.
    }
  }
  for (const WindowDimension& d : dims)
    if (d.size < 0 || d.stride < 1 || d.base_dilation < 1 || d.window_dilation < 1) return std::nullopt;
  return dims;
}

std::optional<std::vector<WindowDimension>> WindowOf(const HloInstruction& instr) {
  std::optional<std::string_view> text = instr.attribute("window");
  if (!text) return std::vector<WindowDimension>{};
  return ParseWindow(*text);
}

std::optional<ConvolutionDimensionNumbers> ParseDimLabels(std::string_view text) {
  size_t underscore = text.find('_');
  size_t arrow = text.find("->");
  if (underscore == std::string_view::npos || arrow == std::string_view::npos || arrow < underscore)
    return std::nullopt;
  auto in = ReadLabels(text.substr(0, underscore), 'b', 'f');
  auto kernel = ReadLabels(text.substr(underscore + 1, arrow - underscore - 1), 'i', 'o');
  auto out = ReadLabels(text.substr(arrow + 2), 'b', 'f');
  if (!in || !kernel || !out) return std::nullopt;
  if (in->spatial.size() != kernel->spatial.size() || in->spatial.size() != out->spatial.size())
    return std::nullopt;
  ConvolutionDimensionNumbers d;
  d.input_batch = in->first;
  d.input_feature = in->second;
  d.input_spatial = in->spatial;
  d.kernel_input_feature = kernel->first;
  d.kernel_output_feature = kernel->second;
  d.kernel_spatial = kernel->spatial;
  d.output_batch = out->first;
  d.output_feature = out->second;
  d.output_spatial = out->spatial;
  return d;
}

std::optional<std::vector<int64_t>> ParseIntList(std::string_view text) {
  text = StripBraces(text);
  std::vector<int64_t> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t comma = text.find(',', start);
    std::string_view part =
        text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    auto n = Number(part);
    if (!n) return std::nullopt;
    out.push_back(*n);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

std::optional<std::vector<int64_t>> IntListAttribute(const HloInstruction& instr, std::string_view name) {
  std::optional<std::string_view> text = instr.attribute(name);
  if (!text) return std::vector<int64_t>{};
  return ParseIntList(*text);
}

std::optional<int64_t> IntAttribute(const HloInstruction& instr, std::string_view name, int64_t absent) {
  std::optional<std::string_view> text = instr.attribute(name);
  if (!text) return absent;
  return Number(*text);
}

}  // namespace hloscope
