#include "hloscope/analysis/jax_op_name.h"

#include <array>
#include <utility>

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

}  // namespace

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
