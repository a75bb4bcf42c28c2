// The commands, as library functions over a Session: what `hloscope
// COMMAND` does after its flags are read. The CLI (app/cli.h) and the
// Python extension call these, so both give the same answers.
//
// Exit codes: 0 the command ran; 1 a --fail-on-*/--max-* gate was broken;
// 2 usage, parse or I/O error (messages go to `err`).
#ifndef HLOSCOPE_APP_COMMANDS_H_
#define HLOSCOPE_APP_COMMANDS_H_

#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "hloscope/analysis/check_diff.h"
#include "hloscope/analysis/finding_filter.h"
#include "hloscope/analysis/policy.h"
#include "hloscope/analysis/where_query.h"
#include "hloscope/app/session.h"
#include "hloscope/parser/dump_folder.h"
#include "hloscope/report/format.h"
#include "hloscope/report/render_annotate.h"
#include "hloscope/report/render_check.h"
#include "hloscope/report/render_html.h"
#include "hloscope/report/render_sarif.h"
#include "hloscope/report/run_summary.h"

namespace hloscope {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFindings = 1;
inline constexpr int kExitError = 2;

// Every module's check findings, restricted to the filter's named scope.
// Without a scope they are the session's own, not copies (a copy per module
// doubled the memory of an input of many small modules).
class ScopedChecks {
 public:
  ScopedChecks(Session& session, const std::string& scope);
  ScopedChecks(Session& session, const FindingFilter& filter) : ScopedChecks(session, filter.scope) {}
  const std::vector<const ModuleCheck*>& modules() const { return modules_; }

 private:
  std::vector<ModuleCheck> filtered_;
  std::vector<const ModuleCheck*> modules_;
};

// Every request has the same two option structs where it applies: the
// FindingFilter (which findings count: --include-minor, --include-library,
// --min-bytes, --scope) and the GateOptions (what fails: --fail, --fail-on,
// --max-*, --update, --line), set by the same flags (app/flags.h) and the
// same Python keywords.

// Prints notes on `err`, each once, with the one prefix (report/wording.h).
void PrintNotes(const std::vector<SessionNote>& notes, std::ostream& err);

struct CheckRequest {
  OutputFormat format = OutputFormat::kText;
  FindingFilter filter;
  GateOptions gates;
  // JSON only: each module's kernels too (`--kernels`), so that a baseline
  // for `diff` compares them.
  bool kernels = false;
  SarifOptions sarif;  // --format sarif
  // --format html: the `report` page.
  HtmlReportOptions html;
  std::vector<std::string> source_roots;
};

// Every module's kernels, selected by the same scope (builds the source
// index: as costly as the check on a large module).
std::vector<FusionSelection> SessionKernels(Session& session, const std::string& scope);
// Prints the report; prints broken gates to `err` and returns 1 for them.
int RunCheckCommand(Session& session, const CheckRequest& request, std::ostream& out, std::ostream& err);
// A dump folder's optimized modules, each opened with the buffer
// assignment beside it; nullopt (and the diagnostic on `err`) for a folder
// without one, or a file that does not open.
struct OpenedDumpFolder {
  DumpFolder dump;
  std::vector<std::unique_ptr<Session>> sessions;
  std::vector<const DumpModule*> owners;  // per session
  std::vector<const DumpHloFile*> files;  // per session
};
std::optional<OpenedDumpFolder> OpenDumpFolder(const std::string& folder, const SessionRequest& base,
                                               std::ostream& err);
// A note per file of the folder that was not read (DumpFolder::refused).
void PrintRefused(const DumpFolder& dump, std::ostream& err);
// `check DIR`: a dump folder. Lists its modules (text), then checks every
// optimized one, each with the buffer assignment beside it; gates count
// them all. `base` is the request each file is opened with (its path and
// buffer assignment are the file's). No optimized module is an error.
int RunCheckFolderCommand(const std::string& folder, const SessionRequest& base, const CheckRequest& request,
                          std::ostream& out, std::ostream& err);
// What both print: the modules' findings in the request's format, and the
// broken gates (returns 1 for them). `titles`: text only, a line above
// each module's check (a dump folder's file and signature).
using CheckModuleTitles = std::vector<std::string>;
// `kernels`: the modules' kernels, asked for only when the JSON carries them
// (--kernels); `html`: the report page (--format html).
using KernelsFn = std::function<std::vector<FusionSelection>()>;
int WriteCheckOutput(const std::vector<const ModuleCheck*>& modules, const KernelsFn& kernels,
                     const CheckRequest& request, const CheckModuleTitles* titles, std::ostream& out,
                     std::ostream& err, const std::function<void(std::ostream&)>& html,
                     std::string_view text_preface = "");

struct FusionsRequest {
  OutputFormat format = OutputFormat::kText;
  FindingFilter filter;  // its scope
};
int RunFusionsCommand(Session& session, const FusionsRequest& request, std::ostream& out);

// `hloscope cost`: FLOPs and bytes per call by line, loop and kernel, with a
// roofline estimate on `target` (a Rooflines() name; empty: the module's).
struct CostRequest {
  OutputFormat format = OutputFormat::kText;
  std::string target;
  int top = 10;        // text rows per table
  std::string trace;   // a profiler trace: measured time beside the estimate
  InputOptions input;  // its read limits
};
int RunCostCommand(Session& session, const CostRequest& request, std::ostream& out, std::ostream& err);

struct WhereRequest {
  OutputFormat format = OutputFormat::kText;
  WhereQuery query;
  std::vector<std::string> source_roots;
};
int RunWhereCommand(Session& session, const WhereRequest& request, std::ostream& out);

struct AnnotateRequest {
  OutputFormat format = OutputFormat::kText;
  FindingFilter filter;  // its scope
  std::string file;      // only files matching this (SourceFileMatches)
  std::vector<std::string> source_roots;
  AnnotateOptions text;  // context, whole files
};
int RunAnnotateCommand(Session& session, const AnnotateRequest& request, std::ostream& out);

struct ReportRequest {
  FindingFilter filter;  // its scope
  HtmlReportOptions html;
  std::vector<std::string> source_roots;
  std::string output_path = "-";  // "-": `out`
};
// `hloscope report`: the HTML page (render_html.h), written to
// output_path; a file that cannot be written is an error (exit 2).
int RunReportCommand(Session& session, const ReportRequest& request, std::ostream& out, std::ostream& err);
// The page as a string (the Python package's Report.save_html); of several
// sessions (a dump folder), one page with every module.
std::string ReportHtml(Session& session, const ReportRequest& request);
std::string ReportHtml(const std::vector<Session*>& sessions, const ReportRequest& request);

struct RunRequest {
  std::vector<std::string> command;  // the program and its arguments
  std::string keep_dumps;            // empty: a private temporary folder, removed at the end
  std::string json_path;             // --json FILE
  std::string html_path;             // --html FILE: the report page of the worst compilation
  bool warn = false;                 // a line on stderr as soon as a compilation breaks the budget
  bool fail = false;                 // exit 1 at the end if one did (the program's own failure wins)
  // false (--no-buffer-assignment): no XLA dumps; the program's Python
  // writes each module's HLO itself (app/run_bootstrap.h); verdicts unconfirmed.
  bool buffer_assignment = true;
  // --raise: the program's Python waits after each compile for hloscope's
  // verdict and raises BudgetError in the compiling call (app/run_bootstrap.h).
  bool raise = false;
  // --profile: the program's Python (app/run_bootstrap.h) traces it with
  // jax.profiler from its first compile to its exit; each compilation's
  // measured time per call is read from the trace (analysis/measured_cost.h).
  bool profile = false;
  // What --warn, --fail and --raise count (the default preset unless
  // --fail-on names gates), and which findings count.
  GateOptions gates;
  FindingFilter filter;
  int worst_reports = 2;
};
// `hloscope run`: runs the program with XLA dumping into a folder, checks
// every optimized module as it appears, prints the summary to `err` when
// the program exits. Returns the program's exit code (128 + N when a
// signal N killed it), else 1 for --fail, 2 when it could not start.
int RunRunCommand(const RunRequest& request, std::ostream& out, std::ostream& err);

struct ExplainRequest {
  OutputFormat format = OutputFormat::kText;
  std::string instruction;  // empty: the guided reading of each module
  std::string input_name;   // for "no instruction named X in FILE"
};
int RunExplainCommand(Session& session, const ExplainRequest& request, std::ostream& out, std::ostream& err);

struct DiffRequest {
  std::string a, b;  // each a file of optimized HLO, a `check --format json` baseline, or a dump folder
  OutputFormat format = OutputFormat::kText;
  GateOptions gates;
  FindingFilter filter;
  bool kernels = true;  // compare kernels too (builds each module's source index)
  bool use_buffer_assignment = true;
  bool allow_unoptimized = false;  // HLO inputs: read HLO before optimization too
  InputOptions input;
};
// One side of a diff as a check document: a baseline as saved, HLO checked
// now (with the buffer assignment beside it), or every optimized module of
// a dump folder, each checked with its own buffer assignment.
Result<Json> LoadCheckDocument(const std::string& path, const DiffRequest& request);
// Prints the comparison; prints regressions to `err` and returns 1 for them.
int RunDiffCommand(const DiffRequest& request, std::ostream& out, std::ostream& err);

int RunStatsCommand(Session& session, OutputFormat format, std::ostream& out);
// `memory`: each module's memory by its buffer assignment (a module without
// one says how to get it).
int RunMemoryCommand(Session& session, OutputFormat format, std::ostream& out);
// `memory DIR`: every optimized module of a dump folder (OpenDumpFolder).
int RunMemoryFolderCommand(const std::string& folder, const SessionRequest& base, OutputFormat format,
                           std::ostream& out, std::ostream& err);
// `hloscope mcp`: the Model Context Protocol server for coding agents
// (docs/agents.md). The server is the Python package's
// (python/hloscope/mcp_server.py, on the `mcp` SDK), which runs this
// executable for each tool call: this command finds a Python that has the
// package and replaces itself with it, so that the agent's stdio is the
// server's. Returns only when that cannot start (2, with a message).
struct McpRequest {
  std::vector<std::string> roots;         // folders the tools may read (--root); empty: the current one
  std::vector<std::string> source_roots;  // --source-root; empty: the roots
  uint64_t max_input_bytes = 0;           // --max-input-bytes; 0: the CLI's default
};
int RunMcpCommand(const McpRequest& request, std::ostream& err);
// `hloscope scopes`: every module's named scopes with instruction counts.
int RunScopesCommand(Session& session, OutputFormat format, std::ostream& out);
// `hloscope rules`: the catalog of causes and rules, and the gates.
int RunRulesCommand(OutputFormat format, std::ostream& out);
// `hloscope reference`: `cli` (the command-line reference, markdown) and
// the catalog (JSON), what tools/gen_catalog_docs.py writes the docs from.
int RunReferenceCommand(OutputFormat format, const std::string& cli_markdown, std::ostream& out);
// A --scope no instruction of the session lies in: prints which scopes are
// closest to `err` and returns false (the command exits 2).
bool CheckScopeExists(Session& session, const std::string& scope, std::ostream& err);
// The same over modules of several sessions (a dump folder).
bool CheckScopeExists(const std::vector<const HloModule*>& modules, const std::string& scope,
                      std::ostream& err);
int RunPrintCommand(Session& session, std::ostream& out);

}  // namespace hloscope

#endif  // HLOSCOPE_APP_COMMANDS_H_
