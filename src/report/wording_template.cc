#include "hloscope/report/wording_template.h"

#include <fmt/format.h>

#include <algorithm>

namespace hloscope {
namespace {

// The end of the `{...}` that starts at `open` (the index of its '}'), or
// npos when unbalanced.
size_t Closing(std::string_view t, size_t open) {
  int depth = 0;
  for (size_t i = open; i < t.size(); ++i) {
    if (t[i] == '{') ++depth;
    if (t[i] == '}' && --depth == 0) return i;
  }
  return std::string_view::npos;
}

// The '|' of a conditional's body at depth 0, or npos.
size_t Bar(std::string_view body) {
  int depth = 0;
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i] == '{') ++depth;
    if (body[i] == '}') --depth;
    if (body[i] == '|' && depth == 0) return i;
  }
  return std::string_view::npos;
}

template <typename OnValue, typename OnCondition>
void Walk(std::string_view t, std::string* out, OnValue on_value, OnCondition on_condition) {
  size_t i = 0;
  while (i < t.size()) {
    size_t open = t.find('{', i);
    if (open == std::string_view::npos) {
      if (out) out->append(t.substr(i));
      return;
    }
    if (out) out->append(t.substr(i, open - i));
    size_t close = Closing(t, open);
    if (close == std::string_view::npos) {  // not a placeholder: kept as text
      if (out) out->append(t.substr(open));
      return;
    }
    std::string_view inner = t.substr(open + 1, close - open - 1);
    if (inner.starts_with("?")) {
      size_t colon = inner.find(':');
      std::string_view flag = inner.substr(1, colon == std::string_view::npos ? inner.size() - 1 : colon - 1);
      std::string_view body = colon == std::string_view::npos ? std::string_view() : inner.substr(colon + 1);
      size_t bar = Bar(body);
      std::string_view then = body.substr(0, bar);
      std::string_view otherwise = bar == std::string_view::npos ? std::string_view() : body.substr(bar + 1);
      on_condition(flag, then, otherwise);
    } else {
      on_value(inner);
    }
    i = close + 1;
  }
}

}  // namespace

std::string FillTemplate(std::string_view text, const WordArgs& args) {
  std::string out;
  Walk(
      text, &out,
      [&](std::string_view name) {
        auto it = args.values.find(name);
        out += it == args.values.end() ? std::string("?") : it->second;
      },
      [&](std::string_view flag, std::string_view then, std::string_view otherwise) {
        out += FillTemplate(args.flags.count(flag) ? then : otherwise, args);
      });
  return out;
}

std::string DescribeTemplate(std::string_view text) {
  std::string out;
  Walk(
      text, &out, [&](std::string_view name) { out += "<" + std::string(name) + ">"; },
      [&](std::string_view flag, std::string_view then, std::string_view otherwise) {
        std::string f = std::string(flag);
        std::replace(f.begin(), f.end(), '_', ' ');
        if (then.empty())
          out += fmt::format("{} (unless {})", DescribeTemplate(otherwise), f);
        else if (otherwise.empty())
          out += fmt::format("{} (if {})", DescribeTemplate(then), f);
        else
          out += fmt::format("{} (if {}; otherwise: {})", DescribeTemplate(then), f,
                             DescribeTemplate(otherwise));
      });
  return out;
}

TemplateNames NamesIn(std::string_view text) {
  TemplateNames names;
  Walk(
      text, nullptr, [&](std::string_view name) { names.values.insert(std::string(name)); },
      [&](std::string_view flag, std::string_view then, std::string_view otherwise) {
        names.flags.insert(std::string(flag));
        for (std::string_view part : {then, otherwise}) {
          TemplateNames inner = NamesIn(part);
          names.values.insert(inner.values.begin(), inner.values.end());
          names.flags.insert(inner.flags.begin(), inner.flags.end());
        }
      });
  return names;
}

}  // namespace hloscope
