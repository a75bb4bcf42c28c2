// `hloscope check DIR`: every optimized module of an XLA dump folder, each
// opened as its own session so that it is checked against its own buffer
// assignment (a dump describes one module).
#include <fmt/format.h>

#include <memory>
#include <sstream>

#include "hloscope/app/commands.h"
#include "hloscope/parser/dump_folder.h"
#include "hloscope/report/render_dump_folder.h"
#include "hloscope/support/found_file.h"

namespace hloscope {

void PrintRefused(const DumpFolder& dump, std::ostream& err) {
  std::vector<SessionNote> notes;
  for (const RefusedFile& r : dump.refused)
    notes.push_back({SessionNote::Kind::kFoundFileRefused, r.path, 0, r.reason});
  PrintNotes(notes, err);
}

std::optional<OpenedDumpFolder> OpenDumpFolder(const std::string& folder, const SessionRequest& base,
                                               std::ostream& err) {
  if (!base.buffer_assignment_path.empty() || !base.thunk_metadata_path.empty() ||
      !base.pre_partition_path.empty()) {
    err << fmt::format(
        "hloscope: error: {} is a dump folder: each module is checked with the buffer assignment beside "
        "it (--buffer-assignment, --thunk-metadata and --pre-partition take one module's dump: pass its HLO "
        "file)\n",
        folder);
    return std::nullopt;
  }
  Result<DumpFolder> listed = ListDumpFolder(folder);
  if (!listed.ok()) {
    err << listed.error().Format();
    return std::nullopt;
  }
  OpenedDumpFolder opened;
  opened.dump = std::move(listed).value();
  const DumpFolder& dump = opened.dump;
  if (dump.optimized_files() == 0) {
    PrintRefused(dump, err);
    err << InputDiagnostic(folder,
                           dump.modules.empty()
                               ? "a folder without XLA module dumps (module_NNNN.NAME.*.txt): dump with "
                                 "XLA_FLAGS=--xla_dump_to=DIR, or pass an HLO file"
                               : fmt::format("a dump folder of {} module{} without an optimized HLO dump "
                                             "(*after_optimizations.txt): only HLO before optimization, "
                                             "whose copies are not yet decided",
                                             dump.modules.size(), dump.modules.size() == 1 ? "" : "s"))
               .Format();
    return std::nullopt;
  }
  for (const DumpModule& m : dump.modules)
    for (const DumpHloFile& f : m.files) {
      if (!f.optimized) continue;
      SessionRequest r = base;
      r.path = f.path;
      r.text.reset();
      // The listing found its module before partitioning: no second scan
      // of the folder per module.
      if (base.find_pre_partition) r.pre_partition_path = f.pre_partition;
      r.pre_partition_found = true;
      r.find_pre_partition = false;
      Result<std::unique_ptr<Session>> s = Session::Open(r);
      if (!s.ok()) {
        // The user named the folder, not this file: where it fails, never its text.
        err << UnquotedFoundFileError(s.error(), "this module, found in the dump folder,").Format();
        PrintRefused(dump, err);
        return std::nullopt;
      }
      opened.sessions.push_back(std::move(s).value());
      opened.owners.push_back(&m);
      opened.files.push_back(&f);
    }
  return opened;
}

int RunCheckFolderCommand(const std::string& folder, const SessionRequest& base, const CheckRequest& request,
                          std::ostream& out, std::ostream& err) {
  std::optional<OpenedDumpFolder> opened = OpenDumpFolder(folder, base, err);
  if (!opened) return kExitError;
  const DumpFolder& dump = opened->dump;
  const std::vector<std::unique_ptr<Session>>& sessions = opened->sessions;
  const std::vector<const DumpModule*>& owners = opened->owners;
  const std::vector<const DumpHloFile*>& files = opened->files;
  // A scope need only exist in one of the modules.
  std::vector<const HloModule*> all;
  for (const auto& s : sessions)
    for (const HloModule* m : s->modules()) all.push_back(m);
  if (!CheckScopeExists(all, request.filter.scope, err)) return kExitError;
  std::vector<std::unique_ptr<ScopedChecks>> scoped;
  std::vector<const ModuleCheck*> modules;
  CheckModuleTitles titles;
  for (size_t i = 0; i < sessions.size(); ++i) {
    scoped.push_back(std::make_unique<ScopedChecks>(*sessions[i], request.filter));
    for (const ModuleCheck* m : scoped.back()->modules()) {
      modules.push_back(m);
      titles.push_back(DumpModuleTitle(*owners[i], *files[i], *m->module));
    }
  }
  auto kernels = [&] {
    std::vector<FusionSelection> out;
    for (const auto& s : sessions)
      for (FusionSelection& k : SessionKernels(*s, request.filter.scope)) out.push_back(std::move(k));
    return out;
  };
  // The text starts with the folder's listing; every module's check follows.
  std::ostringstream listing;
  RenderDumpFolderText(dump, listing);
  auto html = [&](std::ostream& o) {
    ReportRequest report;
    report.filter = request.filter;
    report.html = request.html;
    report.source_roots = request.source_roots;
    std::vector<Session*> all_sessions;
    for (const auto& s : sessions) all_sessions.push_back(s.get());
    o << ReportHtml(all_sessions, report);
  };
  int code = WriteCheckOutput(modules, kernels, request, &titles, out, err, html, listing.str());
  PrintRefused(dump, err);
  for (const auto& s : sessions) PrintNotes(s->Notes(), err);
  return code;
}

}  // namespace hloscope
