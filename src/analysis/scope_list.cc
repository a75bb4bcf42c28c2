#include "hloscope/analysis/scope_list.h"

#include <algorithm>
#include <map>

#include "hloscope/analysis/scope_filter.h"
#include "hloscope/ir/computation.h"

namespace hloscope {
namespace {

size_t EditDistance(std::string_view a, std::string_view b) {
  // Scope names are short; cap the work on long ones.
  a = a.substr(0, 256);
  b = b.substr(0, 256);
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string_view LastSegment(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::vector<ScopeCount> ListScopes(const HloModule& module) {
  std::map<std::string, int64_t> counts;
  // One op_name is shared by many instructions (a fused kernel's ops): the
  // scope path is worked out once per distinct op_name.
  std::map<std::string_view, std::string> paths;
  for (const HloComputation* comp : module.computations())
    for (const HloInstruction* instr : comp->instructions()) {
      const OpMetadata* md = instr->metadata();
      if (!md || md->op_name.empty()) continue;
      auto [it, fresh] = paths.try_emplace(md->op_name);
      if (fresh) it->second = UserScopePath(md->op_name);
      const std::string& path = it->second;
      if (path.empty()) continue;
      for (size_t slash = path.find('/'); slash != std::string::npos; slash = path.find('/', slash + 1))
        ++counts[path.substr(0, slash)];
      ++counts[path];
    }
  std::vector<ScopeCount> out;
  for (auto& [path, n] : counts) out.push_back({path, n});
  return out;
}

bool AnyInstructionInScope(const HloModule& module, std::string_view scope) {
  ScopeMatcher matcher(scope);
  if (matcher.empty()) return true;
  for (const HloComputation* comp : module.computations())
    for (const HloInstruction* instr : comp->instructions()) {
      const OpMetadata* md = instr->metadata();
      if (md && matcher.Matches(md->op_name)) return true;
    }
  return false;
}

std::vector<std::string> ClosestScopes(const std::vector<ScopeCount>& scopes, std::string_view scope,
                                       size_t n) {
  std::vector<std::pair<size_t, std::string>> ranked;
  for (const ScopeCount& s : scopes) {
    size_t d = std::min(EditDistance(s.path, scope), EditDistance(LastSegment(s.path), LastSegment(scope)));
    ranked.push_back({d, s.path});
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (size_t i = 0; i < ranked.size() && i < n; ++i) out.push_back(ranked[i].second);
  return out;
}

}  // namespace hloscope
