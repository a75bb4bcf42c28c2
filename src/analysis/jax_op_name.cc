#include "hloscope/analysis/jax_op_name.h"

#include <array>
#include <utility>
#include <vector>

namespace hloscope {
namespace {

constexpr std::array<std::pair<std::string_view, JaxWrapper>, 17> kWrappers = {{
    {"while", JaxWrapper::kControlFlow},
    {"body", JaxWrapper::kControlFlow},
    {"cond", JaxWrapper::kControlFlow},
    {"scan", JaxWrapper::kControlFlow},
    {"closed_call", JaxWrapper::kCall},
    {"eval_jaxpr", JaxWrapper::kCall},
    {"core_call", JaxWrapper::kCall},
    {"pjit", JaxWrapper::kCall},
    {"jit", JaxWrapper::kCall},
    {"shard_map", JaxWrapper::kCall},
    {"checkpoint", JaxWrapper::kRemat},
    {"remat", JaxWrapper::kRemat},
    {"remat2", JaxWrapper::kRemat},
    {"rematted_computation", JaxWrapper::kRemat},
    {"custom_jvp_call", JaxWrapper::kCustomRule},
    {"custom_vjp_call", JaxWrapper::kCustomRule},
    {"custom_vjp_call_jaxpr", JaxWrapper::kCustomRule},
}};

constexpr std::array<std::pair<std::string_view, JaxTransform>, 20> kTransforms = {{
    {"jit", JaxTransform::kJit},
    {"pjit", JaxTransform::kJit},
    {"vmap", JaxTransform::kBatch},
    {"xmap", JaxTransform::kBatch},
    {"pmap", JaxTransform::kDistribute},
    {"xla_pmap", JaxTransform::kDistribute},
    {"shard_map", JaxTransform::kDistribute},
    {"smap", JaxTransform::kDistribute},
    {"jvp", JaxTransform::kDifferentiate},
    {"transpose", JaxTransform::kDifferentiate},
    {"linearize", JaxTransform::kDifferentiate},
    {"vjp", JaxTransform::kDifferentiate},
    {"checkpoint", JaxTransform::kRemat},
    {"remat", JaxTransform::kRemat},
    {"remat2", JaxTransform::kRemat},
    {"custom_jvp", JaxTransform::kCustomRule},
    {"custom_vjp", JaxTransform::kCustomRule},
    {"custom_jvp_call", JaxTransform::kCustomRule},
    {"custom_vjp_call", JaxTransform::kCustomRule},
    {"custom_vjp_call_jaxpr", JaxTransform::kCustomRule},
}};

bool IsIdentChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
         c == '-';
}

// `name(inner)` spanning the whole text: returns true and sets fn/inner.
bool SplitCall(std::string_view s, std::string_view* fn, std::string_view* inner) {
  if (s.empty() || s.back() != ')') return false;
  size_t open = s.find('(');
  if (open == std::string_view::npos || open == 0) return false;
  for (size_t i = 0; i < open; ++i)
    if (!IsIdentChar(s[i])) return false;
  // The '(' at `open` must close at the very end.
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    if (s[i] == '(')
      ++depth;
    else if (s[i] == ')' && --depth == 0 && i + 1 != s.size())
      return false;
  }
  *fn = s.substr(0, open);
  *inner = s.substr(open + 1, s.size() - open - 2);
  return true;
}

}  // namespace

std::vector<std::string_view> SplitOpNamePath(std::string_view s) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '(' || c == '[' || c == '{')
      ++depth;
    else if ((c == ')' || c == ']' || c == '}') && depth > 0)
      --depth;
    else if (c == '/' && depth == 0) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  out.push_back(s.substr(start));
  return out;
}

UnwrappedSegment UnwrapSegment(std::string_view seg) {
  UnwrappedSegment out;
  if (size_t b = seg.find('['); b != std::string_view::npos && b > 0 && seg.back() == ']')
    seg = seg.substr(0, b);
  std::string_view fn, inner;
  while (SplitCall(seg, &fn, &inner)) {
    out.transforms.push_back(fn);
    seg = inner;
  }
  out.core = seg;
  return out;
}

std::optional<JaxTransform> JaxTransformOf(std::string_view name) {
  for (const auto& [n, kind] : kTransforms)
    if (name == n) return kind;
  return std::nullopt;
}

std::string_view PrivateJitHelper(std::string_view op_name) {
  std::vector<std::string_view> parts = SplitOpNamePath(op_name);
  for (size_t i = 1; i < parts.size(); ++i) {
    UnwrappedSegment u = UnwrapSegment(parts[i]);
    if (!u.core.starts_with('_')) continue;
    for (std::string_view t : u.transforms)
      if (JaxTransformOf(t) == JaxTransform::kJit) return parts[i];
  }
  return {};
}

bool IsPrivateJitModule(std::string_view module_name) {
  return module_name.starts_with("jit__") && module_name.size() > 5;
}

std::optional<JaxWrapper> JaxWrapperOf(std::string_view s) {
  for (const auto& [name, kind] : kWrappers)
    if (s == name) return kind;
  // cond/switch branches: branch_0_fun, branch_1_fun, ...
  if (s.size() > 11 && s.substr(0, 7) == "branch_" && s.substr(s.size() - 4) == "_fun") {
    for (char c : s.substr(7, s.size() - 11))
      if (c < '0' || c > '9') return std::nullopt;
    return JaxWrapper::kControlFlow;
  }
  return std::nullopt;
}

bool IsCallWrapper(std::string_view s) {
  std::optional<JaxWrapper> w = JaxWrapperOf(s);
  // jit/pjit/shard_map are the program's own functions: kept in the path.
  return w == JaxWrapper::kRemat ||
         (w == JaxWrapper::kCall && (s == "closed_call" || s == "eval_jaxpr" || s == "core_call"));
}

}  // namespace hloscope
