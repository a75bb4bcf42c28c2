// The command line: the commands and flags of the tables in
// command_line.cc registered with CLI11, then each command's request built
// from what they set (one CommandLine) and handed to its function in
// app/commands.h.
#include "hloscope/app/cli.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <new>
#include <sstream>

#include "command_line.h"
#include "hloscope/app/commands.h"
#include "hloscope/support/input_file.h"
#include "hloscope/support/terminal_text.h"
#include "hloscope/support/version.h"

namespace hloscope {
namespace {

OutputFormat FormatOf(const CommandLine& l, Command command) {
  const CommandEntry& c = EntryOf(command);
  if (!l.format.empty())
    if (std::optional<OutputFormat> f = FormatNamed(l.format)) return *f;
  return c.formats.empty() ? OutputFormat::kText : c.formats.front();
}

SessionRequest InputRequest(const CommandLine& l, bool with_buffer_assignment, bool require_optimized) {
  SessionRequest r;
  r.path = l.file;
  r.buffer_assignment_path = l.buffer_assignment;
  r.use_buffer_assignment = with_buffer_assignment && !l.no_buffer_assignment;
  r.thunk_metadata_path = l.thunk_metadata;
  r.find_thunk_metadata = with_buffer_assignment && !l.no_buffer_assignment;
  r.pre_partition_path = l.no_pre_partition ? "" : l.pre_partition;
  r.find_pre_partition = !l.no_pre_partition;
  r.input.max_bytes = l.max_input_bytes;
  r.require_optimized = require_optimized && !l.allow_unoptimized;
  return r;
}

// Opens the session for a command, or prints why it cannot; runs the
// command and prints the session's notes (the one warning channel) after.
template <typename Fn>
int WithSession(const SessionRequest& request, std::ostream& err, Fn&& fn) {
  Result<std::unique_ptr<Session>> s = Session::Open(request);
  if (!s.ok()) {
    err << s.error().Format();
    return kExitError;
  }
  int code = fn(**s);
  PrintNotes((*s)->Notes(), err);
  return code;
}

// The gate options of the gate flags; false (with a message) when a name
// or a line is not understood.
bool GatesOf(const CommandLine& l, std::string_view command, GateOptions* gates, std::ostream& err) {
  std::string error;
  std::optional<GateSet> set = RequestedGates(l, &error);
  if (!set) {
    err << fmt::format("hloscope {}: {}\n", command, error);
    return false;
  }
  gates->gates = *set;
  gates->budgets = l.budgets;
  gates->update_names = l.updates;
  for (const std::string& text : l.lines) {
    std::optional<LineSpec> spec = ParseLineSpec(text, &error);
    if (!spec) {
      err << fmt::format("hloscope {}: --line {}: {}\n", command, text, error);
      return false;
    }
    gates->lines.push_back(*spec);
  }
  return true;
}

int RunCheck(const CommandLine& l, Command command, std::ostream& out, std::ostream& err) {
  CheckRequest req;
  req.format = command == Command::kReport ? OutputFormat::kHtml : FormatOf(l, command);
  req.filter = l.filter;
  req.kernels = l.kernels;
  req.sarif.input_path = l.file;
  req.sarif.source_roots = l.sarif_roots;
  req.sarif.min_bytes = std::max<int64_t>(1, l.filter.min_bytes);
  req.html.title = l.file;
  req.html.context = l.context;
  req.source_roots = l.source_roots;
  if (!GatesOf(l, EntryOf(command).name, &req.gates, err)) return kExitError;
  SessionRequest input = InputRequest(l, true, true);
  std::error_code ec;
  if (l.file != "-" && std::filesystem::is_directory(l.file, ec))
    return RunCheckFolderCommand(l.file, input, req, out, err);
  return WithSession(input, err, [&](Session& s) {
    if (command == Command::kReport) {
      ReportRequest r;
      r.filter = l.filter;
      r.html = req.html;
      r.source_roots = l.source_roots;
      r.output_path = l.output;
      return RunReportCommand(s, r, out, err);
    }
    return RunCheckCommand(s, req, out, err);
  });
}

int RunDiff(const CommandLine& l, std::ostream& out, std::ostream& err) {
  DiffRequest req;
  req.a = l.a;
  req.b = l.b;
  req.format = FormatOf(l, Command::kDiff);
  req.filter = l.filter;
  if (!GatesOf(l, "diff", &req.gates, err)) return kExitError;
  req.use_buffer_assignment = !l.no_buffer_assignment;
  req.kernels = !l.no_kernels;
  req.allow_unoptimized = l.allow_unoptimized;
  req.input.max_bytes = l.max_input_bytes;
  return RunDiffCommand(req, out, err);
}

int RunRun(const CommandLine& l, const std::vector<std::string>& program, std::ostream& out,
           std::ostream& err) {
  RunRequest req;
  req.command = program;
  req.keep_dumps = l.keep_dumps;
  req.json_path = l.json_path;
  req.html_path = l.html_path;
  req.warn = l.warn;
  req.raise = l.raise;
  req.profile = l.profile;
  req.buffer_assignment = !l.no_dumps;
  req.worst_reports = l.reports;
  req.filter = l.filter;
  if (!GatesOf(l, "run", &req.gates, err)) return kExitError;
  // --warn, --fail and --raise judge by the gates asked for, else by the
  // default preset.
  bool fail = !req.gates.gates.empty();
  if (req.gates.gates.empty()) req.gates.gates = DefaultGates();
  req.fail = fail;
  return RunRunCommand(req, out, err);
}

int RunInspection(const CommandLine& l, Command command, std::ostream& out, std::ostream& err) {
  OutputFormat format = FormatOf(l, command);
  switch (command) {
    case Command::kStats:
      return WithSession(InputRequest(l, false, false), err,
                         [&](Session& s) { return RunStatsCommand(s, format, out); });
    case Command::kMemory: {
      std::error_code ec;
      if (l.file != "-" && std::filesystem::is_directory(l.file, ec))
        return RunMemoryFolderCommand(l.file, InputRequest(l, true, true), format, out, err);
      return WithSession(InputRequest(l, true, true), err,
                         [&](Session& s) { return RunMemoryCommand(s, format, out); });
    }
    case Command::kPrint:
      return WithSession(InputRequest(l, false, false), err,
                         [&](Session& s) { return RunPrintCommand(s, out); });
    case Command::kScopes:
      return WithSession(InputRequest(l, false, false), err,
                         [&](Session& s) { return RunScopesCommand(s, format, out); });
    case Command::kFusions: {
      FusionsRequest req;
      req.format = format;
      req.filter = l.filter;
      return WithSession(InputRequest(l, true, false), err, [&](Session& s) {
        return CheckScopeExists(s, req.filter.scope, err) ? RunFusionsCommand(s, req, out) : kExitError;
      });
    }
    case Command::kCost: {
      CostRequest req;
      req.format = format;
      req.target = l.target;
      req.top = l.top;
      req.trace = l.trace;
      req.input.max_bytes = l.max_input_bytes;
      return WithSession(InputRequest(l, false, false), err,
                         [&](Session& s) { return RunCostCommand(s, req, out, err); });
    }
    case Command::kWhere: {
      if (l.location.empty() && l.filter.scope.empty()) {
        err << "hloscope where: give a LOCATION (train.py:42) or --scope\n";
        return kExitError;
      }
      WhereRequest req;
      req.format = format;
      req.query.scope = l.filter.scope;
      req.source_roots = l.source_roots;
      if (!l.location.empty()) {
        std::string error;
        req.query.spec = ParseLineSpec(l.location, &error);
        if (!req.query.spec) {
          err << "hloscope where: " << error << "\n";
          return kExitError;
        }
      }
      return WithSession(InputRequest(l, true, false), err,
                         [&](Session& s) { return RunWhereCommand(s, req, out); });
    }
    case Command::kAnnotate: {
      AnnotateRequest req;
      req.format = format;
      req.filter = l.filter;
      req.file = l.source_file;
      req.source_roots = l.source_roots;
      req.text.scope = l.filter.scope;
      req.text.context = l.context;
      req.text.whole_files = l.whole_files;
      return WithSession(InputRequest(l, true, false), err, [&](Session& s) {
        return CheckScopeExists(s, req.filter.scope, err) ? RunAnnotateCommand(s, req, out) : kExitError;
      });
    }
    case Command::kExplain: {
      ExplainRequest req;
      req.format = format;
      req.instruction = l.instruction;
      req.input_name = l.file;
      return WithSession(InputRequest(l, true, false), err,
                         [&](Session& s) { return RunExplainCommand(s, req, out, err); });
    }
    case Command::kMcp: {
      McpRequest req;
      req.roots = l.roots;
      req.source_roots = l.source_roots;
      req.max_input_bytes = l.max_input_bytes;
      return RunMcpCommand(req, err);
    }
    case Command::kRules:
      return RunRulesCommand(format, out);
    case Command::kReference:
      return RunReferenceCommand(format, CliReferenceMarkdown(), out);
    case Command::kCheck:
    case Command::kReport:
    case Command::kDiff:
    case Command::kRun:
      break;
  }
  return kExitError;
}

// The positionals of a command.
void BindPositionals(CLI::App& cmd, CommandLine& l, Command command) {
  switch (command) {
    case Command::kCheck:
      cmd.add_option("FILE", l.file,
                     "optimized HLO text ('-' for stdin), or an XLA dump folder (each optimized module)")
          ->required();
      break;
    case Command::kMemory:
      cmd.add_option("FILE", l.file,
                     "optimized HLO text ('-' for stdin), or an XLA dump folder (each optimized module)")
          ->required();
      break;
    case Command::kReport:
    case Command::kStats:
    case Command::kPrint:
    case Command::kFusions:
    case Command::kCost:
    case Command::kAnnotate:
    case Command::kScopes:
      cmd.add_option("FILE", l.file, "optimized HLO text ('-' for stdin)")->required();
      break;
    case Command::kWhere:
      cmd.add_option("FILE", l.file, "optimized HLO text ('-' for stdin)")->required();
      cmd.add_option("LOCATION", l.location,
                     "FILE.py:LINE, FILE.py:FIRST-LAST, :LINE, FILE.py, or a function name");
      break;
    case Command::kExplain:
      cmd.add_option("FILE", l.file, "optimized HLO text ('-' for stdin)")->required();
      cmd.add_option("INSTRUCTION", l.instruction,
                     "instruction name, e.g. copy.7, %fusion.3 or COMPUTATION/NAME");
      break;
    case Command::kDiff:
      cmd.add_option("A", l.a, "the baseline: optimized HLO, a check JSON document, or a dump folder")
          ->required();
      cmd.add_option("B", l.b, "the new compilation: the same kinds")->required();
      break;
    case Command::kRun:
      // Everything from the program's name on belongs to the program
      // (`hloscope run --warn python train.py --json x`: --json is the program's).
      cmd.prefix_command();
      cmd.footer("COMMAND: the program and its arguments, after the options (or after --)");
      break;
    case Command::kMcp:
    case Command::kRules:
    case Command::kReference:
      break;
  }
}

}  // namespace

int RunCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"hloscope: did XLA update my array in place, or copy it?"};
  app.require_subcommand(1);
  app.set_version_flag("--version", fmt::format("hloscope {}", kHloscopeVersion));
  CommandLine line;
  std::vector<std::pair<CLI::App*, Command>> commands;
  for (const CommandEntry& c : CommandCatalog()) {
    CLI::App* cmd = app.add_subcommand(std::string(c.name), std::string(c.help));
    if (c.command == Command::kReference) cmd->group("");  // not listed: for the docs
    BindPositionals(*cmd, line, c.command);
    BindFlags(*cmd, line, c);
    commands.emplace_back(cmd, c.command);
  }
  // `hloscope run [options] -- PROGRAM ARGS`: PROGRAM ARGS are not ours to
  // parse (CLI11 would hand what follows `--` to the top-level app).
  std::vector<std::string> after_dashes;
  std::vector<std::string> ours = args;
  if (!ours.empty() && ours.front() == "run") {
    auto dashes = std::find(ours.begin(), ours.end(), "--");
    if (dashes != ours.end()) {
      after_dashes.assign(dashes + 1, ours.end());
      ours.erase(dashes, ours.end());
    }
  }
  std::vector<std::string> argv_storage = {"hloscope"};
  argv_storage.insert(argv_storage.end(), ours.begin(), ours.end());
  std::vector<const char*> argv;
  for (const std::string& a : argv_storage) argv.push_back(a.c_str());
  // What the command writes is filtered on its way (support/terminal_text.h:
  // no control character from the input, valid UTF-8), in chunks; a failed
  // write (a full disk) is an error, not exit 0.
  TerminalSafeStreambuf out_filter(out.rdbuf(), {.keep_newlines = true});
  TerminalSafeStreambuf err_filter(err.rdbuf(), {.keep_newlines = true});
  std::ostream cmd_out(&out_filter), cmd_err(&err_filter);
  int code = kExitError;
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
    for (auto& [cmd, command] : commands) {
      if (!cmd->parsed()) continue;
      switch (command) {
        case Command::kCheck:
        case Command::kReport:
          code = RunCheck(line, command, cmd_out, cmd_err);
          break;
        case Command::kDiff:
          code = RunDiff(line, cmd_out, cmd_err);
          break;
        case Command::kRun: {
          std::vector<std::string> program = cmd->remaining();
          program.insert(program.end(), after_dashes.begin(), after_dashes.end());
          code = RunRun(line, program, cmd_out, cmd_err);
          break;
        }
        default:
          code = RunInspection(line, command, cmd_out, cmd_err);
      }
    }
  } catch (const CLI::ParseError& e) {
    code = app.exit(e, cmd_out, cmd_err) == 0 ? kExitOk : kExitError;
  } catch (const std::bad_alloc&) {
    // An input larger than the memory it may use (ulimit -v, a container):
    // a message and exit 2, not SIGABRT. What was mapped is released by now.
    cmd_err << "hloscope: error: out of memory (the input needs more memory than this process may use; "
               "docs/robustness.md gives the memory needed per input byte)\n";
    code = kExitError;
  }
  bool written = out_filter.Finish() && cmd_out.good() && out.good();
  err_filter.Finish();
  if (!written) {
    err << "hloscope: error: cannot write the output (" << std::strerror(errno) << ")\n";
    return kExitError;
  }
  return code;
}

std::string CliReference() { return CliReferenceMarkdown(); }

}  // namespace hloscope
