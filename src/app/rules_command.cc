// rules and reference: the catalogs, no input.
#include "hloscope/app/commands.h"
#include "hloscope/report/render_rules.h"

namespace hloscope {

int RunRulesCommand(OutputFormat format, std::ostream& out) {
  Renderers r;
  r.text = [](std::ostream& o) { RenderRulesText(o); };
  r.json = [](std::ostream& o) { o << JsonText(RulesJson()); };
  r.markdown = [](std::ostream& o) { RenderRulesMarkdown(o); };
  Render(r, format, out);
  return kExitOk;
}

int RunReferenceCommand(OutputFormat format, const std::string& cli_markdown, std::ostream& out) {
  Renderers r;
  r.markdown = [&](std::ostream& o) { o << cli_markdown; };
  r.json = [](std::ostream& o) { o << JsonText(RulesJson()); };
  Render(r, format, out);
  return kExitOk;
}

}  // namespace hloscope
