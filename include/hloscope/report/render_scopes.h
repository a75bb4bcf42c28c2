// Rendering `hloscope scopes`: each module's named scopes with their
// instruction counts, as text (indented by nesting) or JSON
// (docs/schema/scopes.schema.json); and the message for a --scope that
// matches nothing.
#ifndef HLOSCOPE_REPORT_RENDER_SCOPES_H_
#define HLOSCOPE_REPORT_RENDER_SCOPES_H_

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "hloscope/analysis/scope_list.h"

namespace hloscope {

struct ModuleScopes {
  const HloModule* module = nullptr;
  std::vector<ScopeCount> scopes;
};

void RenderScopesText(const std::vector<ModuleScopes>& modules, std::ostream& out);
void WriteScopesJson(const std::vector<ModuleScopes>& modules, std::ostream& out);

// "no instruction lies in scope 'x' (closest: a, b, c; `hloscope scopes FILE` lists them all)".
std::string UnknownScopeMessage(std::string_view scope, const std::vector<std::string>& closest,
                                std::string_view input);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_RENDER_SCOPES_H_
