#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>

#include "hloscope/analysis/line_facts.h"
#include "hloscope/app/commands.h"
#include "hloscope/report/wording.h"
#include "hloscope/support/output_file.h"

namespace hloscope {
namespace {

// The page of every module of the sessions (a dump folder has one session
// per module).
void WriteReport(const std::vector<Session*>& sessions, const ReportRequest& request, std::ostream& out) {
  std::vector<std::unique_ptr<ScopedChecks>> scoped;
  std::vector<HtmlModule> modules;
  for (Session* session : sessions) {
    scoped.push_back(std::make_unique<ScopedChecks>(*session, request.filter));
    std::vector<ModuleAnalysis*> analyses = session->Analyses();
    for (size_t i = 0; i < analyses.size(); ++i) {
      const ModuleAnalysis& a = *analyses[i];
      analyses[i]->EnsureSources();
      HtmlModule m;
      m.check = scoped.back()->modules()[i];
      LineQuery q;
      q.scope = request.filter.scope;
      q.list_instructions = false;
      m.lines = CollectLineFacts(a.sources(), a.counts, *m.check, q);
      modules.push_back(std::move(m));
    }
  }
  SourceFiles files(request.source_roots);
  HtmlReportOptions html = request.html;
  html.scope = request.filter.scope;
  RenderHtmlReport(modules, html, files, out);
}

}  // namespace

std::string ReportHtml(Session& session, const ReportRequest& request) {
  return ReportHtml({&session}, request);
}

std::string ReportHtml(const std::vector<Session*>& sessions, const ReportRequest& request) {
  std::ostringstream out;
  WriteReport(sessions, request, out);
  return out.str();
}

int RunReportCommand(Session& session, const ReportRequest& request, std::ostream& out, std::ostream& err) {
  if (!CheckScopeExists(session, request.filter.scope, err)) return kExitError;
  if (request.output_path.empty() || request.output_path == "-") {
    WriteReport({&session}, request, out);
    return kExitOk;
  }
  // support/output_file.h: a regular file is replaced whole (a failed run
  // never leaves half a page), a device or FIFO is written into, never
  // replaced, and no link at a temporary name is followed.
  std::ostringstream page;
  WriteReport({&session}, request, page);
  if (std::string why = WriteOutputFile(request.output_path, page.str()); !why.empty()) {
    err << fmt::format("hloscope report: cannot write {}: {}\n", Shown(request.output_path), why);
    return kExitError;
  }
  return kExitOk;
}

}  // namespace hloscope
