// stats and print: the module itself, no analysis of copies.
#include "hloscope/analysis/module_stats.h"
#include "hloscope/app/commands.h"
#include "hloscope/ir/printer.h"
#include "hloscope/report/render_memory.h"
#include "hloscope/report/render_stats.h"

namespace hloscope {

int RunStatsCommand(Session& session, OutputFormat format, std::ostream& out) {
  std::vector<ModuleStats> stats;
  for (const HloModule* m : session.modules()) stats.push_back(ComputeModuleStats(*m));
  Renderers r;
  r.text = [&](std::ostream& o) { RenderStatsText(stats, o); };
  r.json = [&](std::ostream& o) { WriteStatsJson(stats, o); };
  Render(r, format, out);
  return kExitOk;
}

int RunMemoryCommand(Session& session, OutputFormat format, std::ostream& out) {
  std::vector<const ModuleCheck*> modules = session.Checks();
  Renderers r;
  r.text = [&](std::ostream& o) { RenderMemoryText(modules, o); };
  r.json = [&](std::ostream& o) { WriteMemoryJson(modules, o); };
  Render(r, format, out);
  return kExitOk;
}

int RunMemoryFolderCommand(const std::string& folder, const SessionRequest& base, OutputFormat format,
                           std::ostream& out, std::ostream& err) {
  std::optional<OpenedDumpFolder> opened = OpenDumpFolder(folder, base, err);
  if (!opened) return kExitError;
  std::vector<const ModuleCheck*> modules;
  for (const auto& s : opened->sessions)
    for (const ModuleCheck* m : s->Checks()) modules.push_back(m);
  Renderers r;
  r.text = [&](std::ostream& o) { RenderMemoryText(modules, o); };
  r.json = [&](std::ostream& o) { WriteMemoryJson(modules, o); };
  Render(r, format, out);
  PrintRefused(opened->dump, err);
  for (const auto& s : opened->sessions) PrintNotes(s->Notes(), err);
  return kExitOk;
}

int RunPrintCommand(Session& session, std::ostream& out) {
  for (const HloModule* m : session.modules()) out << PrintModule(*m);
  return kExitOk;
}

}  // namespace hloscope
