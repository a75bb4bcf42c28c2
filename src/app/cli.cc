// Flags of every subcommand (CLI11). Flags several commands share are
// declared once (AddInput, AddBufferAssignment, AddScope, AddSourceRoots)
// with one help text; each subcommand then builds its request and calls
// the command in app/commands.h.
#include "hloscope/app/cli.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <sstream>

#include "hloscope/app/commands.h"
#include "hloscope/support/input_file.h"
#include "hloscope/support/terminal_text.h"
#include "hloscope/support/version.h"

namespace hloscope {
namespace {

// A budget is a whole number from 0 to INT64_MAX. CLI11 alone would take
// "-1" (a gate no program passes) and let a number past INT64_MAX through
// unchecked; both are usage errors (exit 2).
const CLI::Validator kBudget(
    [](std::string& value) -> std::string {
      int64_t n = 0;
      const char* end = value.data() + value.size();
      auto [ptr, ec] = std::from_chars(value.data(), end, n);
      if (ec != std::errc() || ptr != end || n < 0)
        return fmt::format("{} is not a whole number from 0 to {}", value, INT64_MAX);
      return "";
    },
    "N");

// What every reading command has: FILE, --format, and how to open it.
struct InputFlags {
  std::string file;
  std::string format = "text";
  std::string buffer_assignment;
  bool no_buffer_assignment = false;
  std::string thunk_metadata;
  uint64_t max_input_bytes = kDefaultMaxInputBytes;
  bool require_optimized = false;  // check: refuse HLO before optimization
  bool allow_unoptimized = false;

  OutputFormat output_format() const {
    return format == "json"    ? OutputFormat::kJson
           : format == "sarif" ? OutputFormat::kSarif
                               : OutputFormat::kText;
  }
  SessionRequest request(bool with_buffer_assignment) const {
    SessionRequest r;
    r.path = file;
    r.buffer_assignment_path = buffer_assignment;
    r.use_buffer_assignment = with_buffer_assignment && !no_buffer_assignment;
    r.thunk_metadata_path = thunk_metadata;
    r.find_thunk_metadata = with_buffer_assignment && !no_buffer_assignment;
    r.input.max_bytes = max_input_bytes;
    r.require_optimized = require_optimized && !allow_unoptimized;
    return r;
  }
};

void AddAllowUnoptimized(CLI::App* cmd, bool* allow) {
  cmd->add_flag(
      "--allow-unoptimized", *allow,
      "read HLO before optimization too (a before_optimizations dump; its copies are not yet decided)");
}

enum class Formats { kNone, kTextJson, kTextJsonSarif };

void AddInput(CLI::App* cmd, InputFlags* f, Formats formats = Formats::kTextJson) {
  cmd->add_option("FILE", f->file,
                  formats == Formats::kTextJsonSarif
                      ? "optimized HLO text ('-' for stdin), or an XLA dump folder (each optimized module)"
                      : "optimized HLO text ('-' for stdin)")
      ->required();
  cmd->add_option("--max-input-bytes", f->max_input_bytes,
                  "refuse inputs (the HLO, the buffer assignment, stdin) larger than N bytes (default 2 GiB)")
      ->check(CLI::PositiveNumber);
  if (formats == Formats::kTextJson)
    cmd->add_option("--format", f->format, "text or json")->check(CLI::IsMember({"text", "json"}));
  if (formats == Formats::kTextJsonSarif)
    cmd->add_option("--format", f->format, "text, json, or sarif (SARIF 2.1.0 for code review)")
        ->check(CLI::IsMember({"text", "json", "sarif"}));
}

void AddBufferAssignment(CLI::App* cmd, InputFlags* f) {
  cmd->add_option("--buffer-assignment", f->buffer_assignment,
                  "XLA's -buffer-assignment.txt dump (found automatically beside a dump)");
  cmd->add_flag("--no-buffer-assignment", f->no_buffer_assignment,
                "do not look for the buffer-assignment dump (nor for the GPU thunk dump)");
  cmd->add_option("--thunk-metadata", f->thunk_metadata,
                  "XLA:GPU's thunk_metadata.txt: which copies run as memcpy thunks (found automatically "
                  "beside a GPU dump)");
}

void AddScope(CLI::App* cmd, std::string* scope) {
  cmd->add_option("--scope", *scope,
                  "only findings inside this jax.named_scope path (e.g. 'grad_step/encoder'; "
                  "JAX's jit(..)/jvp(..)/while/body wrappers are skipped; * and ? match)");
}

void AddSourceRoots(CLI::App* cmd, std::vector<std::string>* roots) {
  cmd->add_option("--source-root", *roots,
                  "directory holding your sources (metadata paths are tried under it by suffix)");
}

using Runner = std::function<int(std::ostream& out, std::ostream& err)>;

// Opens the session for a command, or prints why it cannot.
template <typename Fn>
int WithSession(const InputFlags& f, bool with_buffer_assignment, std::ostream& err, Fn&& fn) {
  Result<std::unique_ptr<Session>> s = Session::Open(f.request(with_buffer_assignment));
  if (!s.ok()) {
    err << s.error().Format();
    return kExitError;
  }
  return fn(**s);
}

Runner AddCheck(CLI::App& app) {
  struct Flags {
    InputFlags in;
    CheckRequest req;
    std::vector<std::string> lines;
  };
  auto f = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand(
      "check", "Every copy, update, loop and parameter: in place or copied, how often, and why");
  AddInput(cmd, &f->in, Formats::kTextJsonSarif);
  AddBufferAssignment(cmd, &f->in);
  f->in.require_optimized = true;
  AddAllowUnoptimized(cmd, &f->in.allow_unoptimized);
  GateOptions& g = f->req.gates;
  cmd->add_flag("--fail-on-copies-in-loops", g.fail_on_copies_in_loops,
                "exit 1 if any array copy runs inside a loop");
  cmd->add_flag("--fail-on-out-of-place", g.fail_on_out_of_place,
                "exit 1 if any update is not in place (out of place, on a copy, or contradicted by XLA)");
  cmd->add_flag("--fail-on-contradiction", g.fail_on_contradiction,
                "exit 1 if the buffer assignment contradicts a verdict");
  cmd->add_option("--max-copy-bytes", g.max_copy_bytes,
                  "exit 1 if array copies move more than N bytes per call")
      ->check(kBudget);
  cmd->add_option("--max-copies", g.max_copies, "exit 1 if there are more than N array copies")
      ->check(kBudget);
  cmd->add_option("--max-copies-in-loops", g.max_copies_in_loops,
                  "exit 1 if more than N array copies run inside loops")
      ->check(kBudget);
  cmd->add_option("--max-copy-bytes-in-loops", g.max_copy_bytes_in_loops,
                  "exit 1 if array copies inside loops move more than N bytes per call")
      ->check(kBudget);
  cmd->add_flag("--count-scalar-copies", g.count_scalar_copies,
                "gates count copies of scalars too (the loop counters XLA copies in every loop)");
  cmd->add_flag("--include-library", g.count_library,
                "gates count findings made inside library code too (jax.random's helpers, site-packages)");
  cmd->add_option("--min-bytes", g.min_bytes, "gates ignore copies moving fewer than N bytes per call")
      ->check(kBudget);
  cmd->add_option("--update", g.update_names,
                  "gate only this update (instruction or fusion name; repeatable)");
  cmd->add_option("--line", f->lines, "gate only the updates of this line (train.py:42; repeatable)");
  cmd->add_option("--min-copy-bytes", f->req.text.min_copy_bytes_shown,
                  "list only copies moving at least N bytes per call (text)")
      ->check(kBudget);
  cmd->add_flag("--kernels", f->req.kernels,
                "JSON: each module's kernels too, so that a baseline for `hloscope diff` compares them");
  AddScope(cmd, &f->req.scope);
  cmd->add_option("--sarif-root", f->req.sarif.source_roots,
                  "SARIF: source paths under this directory (your repository) are written relative to it");
  return [f](std::ostream& out, std::ostream& err) {
    f->req.format = f->in.output_format();
    f->req.sarif.input_path = f->in.file;
    f->req.sarif.min_bytes = std::max<int64_t>(1, f->req.text.min_copy_bytes_shown);
    for (const std::string& text : f->lines) {
      std::string error;
      std::optional<LineSpec> spec = ParseLineSpec(text, &error);
      if (!spec) {
        err << fmt::format("hloscope check: --line {}: {}\n", text, error);
        return kExitError;
      }
      f->req.gates.lines.push_back(*spec);
    }
    std::error_code ec;
    if (f->in.file != "-" && std::filesystem::is_directory(f->in.file, ec))
      return RunCheckFolderCommand(f->in.file, f->in.request(true), f->req, out, err);
    return WithSession(f->in, true, err, [&](Session& s) { return RunCheckCommand(s, f->req, out, err); });
  };
}

Runner AddStats(CLI::App& app) {
  auto f = std::make_shared<InputFlags>();
  CLI::App* cmd =
      app.add_subcommand("stats", "Computations by role, instructions by opcode, parameter and output bytes");
  AddInput(cmd, f.get());
  return [f](std::ostream& out, std::ostream& err) {
    return WithSession(*f, false, err,
                       [&](Session& s) { return RunStatsCommand(s, f->output_format(), out); });
  };
}

Runner AddPrint(CLI::App& app) {
  auto f = std::make_shared<InputFlags>();
  CLI::App* cmd = app.add_subcommand("print", "Parse and print the module back in canonical HLO text");
  AddInput(cmd, f.get(), Formats::kNone);
  return [f](std::ostream& out, std::ostream& err) {
    return WithSession(*f, false, err, [&](Session& s) { return RunPrintCommand(s, out); });
  };
}

Runner AddFusions(CLI::App& app) {
  struct Flags {
    InputFlags in;
    FusionsRequest req;
  };
  auto f = std::make_shared<Flags>();
  CLI::App* cmd =
      app.add_subcommand("fusions",
                         "Every kernel (fusion): its kind, the operations and source lines fused into it, "
                         "bytes read and written, executions per call");
  AddInput(cmd, &f->in);
  AddBufferAssignment(cmd, &f->in);
  AddScope(cmd, &f->req.scope);
  return [f](std::ostream& out, std::ostream& err) {
    f->req.format = f->in.output_format();
    return WithSession(f->in, true, err, [&](Session& s) {
      return CheckScopeExists(s, f->req.scope, err) ? RunFusionsCommand(s, f->req, out) : kExitError;
    });
  };
}

Runner AddWhere(CLI::App& app) {
  struct Flags {
    InputFlags in;
    std::string location;
    WhereRequest req;
  };
  auto f = std::make_shared<Flags>();
  CLI::App* cmd =
      app.add_subcommand("where",
                         "The HLO instructions that come from a line of your code (train.py:42, :42-50, "
                         "train.py:42-50, or a function name), with their kernel, loop, copies and updates");
  AddInput(cmd, &f->in);
  cmd->add_option("LOCATION", f->location,
                  "FILE.py:LINE, FILE.py:FIRST-LAST, :LINE, FILE.py, or a function name");
  AddBufferAssignment(cmd, &f->in);
  AddScope(cmd, &f->req.query.scope);
  AddSourceRoots(cmd, &f->req.source_roots);
  return [f](std::ostream& out, std::ostream& err) {
    if (f->location.empty() && f->req.query.scope.empty()) {
      err << "hloscope where: give a LOCATION (train.py:42) or --scope\n";
      return kExitError;
    }
    if (!f->location.empty()) {
      std::string error;
      f->req.query.spec = ParseLineSpec(f->location, &error);
      if (!f->req.query.spec) {
        err << "hloscope where: " << error << "\n";
        return kExitError;
      }
    }
    f->req.format = f->in.output_format();
    return WithSession(f->in, true, err, [&](Session& s) { return RunWhereCommand(s, f->req, out); });
  };
}

Runner AddAnnotate(CLI::App& app) {
  struct Flags {
    InputFlags in;
    AnnotateRequest req;
  };
  auto f = std::make_shared<Flags>();
  CLI::App* cmd =
      app.add_subcommand("annotate",
                         "Your Python source with each line's copies, update verdicts and kernels in a "
                         "gutter (like pprof -list)");
  AddInput(cmd, &f->in);
  AddBufferAssignment(cmd, &f->in);
  AddSourceRoots(cmd, &f->req.source_roots);
  AddScope(cmd, &f->req.text.scope);
  cmd->add_option("--file", f->req.file, "only this source file (train.py or a path suffix)");
  cmd->add_option("--context", f->req.text.context, "source lines shown around annotated lines")
      ->check(CLI::Range(0, 1000));
  cmd->add_flag("--all", f->req.text.whole_files, "print every line of each file");
  return [f](std::ostream& out, std::ostream& err) {
    f->req.format = f->in.output_format();
    return WithSession(f->in, true, err, [&](Session& s) {
      return CheckScopeExists(s, f->req.text.scope, err) ? RunAnnotateCommand(s, f->req, out) : kExitError;
    });
  };
}

Runner AddExplain(CLI::App& app) {
  struct Flags {
    InputFlags in;
    ExplainRequest req;
  };
  auto f = std::make_shared<Flags>();
  CLI::App* cmd =
      app.add_subcommand("explain",
                         "One instruction in plain words (opcode, shape and layout, fusion kind, metadata, "
                         "in place or not); without INSTRUCTION, a guided reading of the module");
  AddInput(cmd, &f->in);
  cmd->add_option("INSTRUCTION", f->req.instruction,
                  "instruction name, e.g. copy.7, %fusion.3 or COMPUTATION/NAME");
  AddBufferAssignment(cmd, &f->in);
  return [f](std::ostream& out, std::ostream& err) {
    f->req.format = f->in.output_format();
    f->req.input_name = f->in.file;
    return WithSession(f->in, true, err, [&](Session& s) { return RunExplainCommand(s, f->req, out, err); });
  };
}

Runner AddReport(CLI::App& app) {
  struct Flags {
    InputFlags in;
    ReportRequest req;
  };
  auto f = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand(
      "report",
      "One self-contained HTML page: the answer first, a picture of the loops, your annotated source, and "
      "every finding in sortable tables");
  AddInput(cmd, &f->in, Formats::kNone);
  AddBufferAssignment(cmd, &f->in);
  f->in.require_optimized = true;
  AddAllowUnoptimized(cmd, &f->in.allow_unoptimized);
  AddSourceRoots(cmd, &f->req.source_roots);
  AddScope(cmd, &f->req.html.scope);
  cmd->add_option("-o,--output", f->req.output_path, "the HTML file to write ('-' for stdout, the default)");
  cmd->add_option("--context", f->req.html.context, "source lines shown around annotated lines")
      ->check(CLI::Range(0, 1000));
  return [f](std::ostream& out, std::ostream& err) {
    f->req.html.title = f->in.file;
    return WithSession(f->in, true, err, [&](Session& s) { return RunReportCommand(s, f->req, out, err); });
  };
}

// `after_dashes`: what followed `--` on the command line (RunCli splits it
// off before CLI11 sees it: CLI11 would hand it to the top-level app).
Runner AddRun(CLI::App& app, std::shared_ptr<const std::vector<std::string>> after_dashes) {
  auto req = std::make_shared<RunRequest>();
  CLI::App* cmd = app.add_subcommand("run",
                                     "Run a program unchanged (hloscope run -- python train.py) and check "
                                     "every XLA compilation it makes; the "
                                     "summary is printed when it exits");
  cmd->add_option("--json", req->json_path, "also write the summary as JSON to this file");
  cmd->add_option("--html", req->html_path,
                  "also write the `hloscope report` page of the compilation that moves the most bytes");
  cmd->add_option("--keep-dumps", req->keep_dumps, "dump into this (new or empty) folder and keep it");
  cmd->add_flag("--warn", req->warn,
                "print a warning as soon as a compilation has a copy in a loop or an update not in place "
                "(of at least --min-bytes per call)");
  cmd->add_flag("--fail", req->fail, "exit 1 at the end if a compilation did (for CI)");
  cmd->add_flag("--raise", req->raise,
                "raise BudgetError in the program, in the call whose compilation did (like JAX_DEBUG_NANS)");
  bool* dumps = &req->buffer_assignment;
  cmd->add_flag_callback(
      "--no-buffer-assignment", [dumps] { *dumps = false; },
      "no XLA dumps (on CPU they cost a quarter of the compile time): the program's Python writes each "
      "module's HLO itself; verdicts unconfirmed");
  cmd->add_option("--min-bytes", req->budget.min_bytes, "what --warn and --fail count (default 1)")
      ->check(kBudget);
  cmd->add_option("--reports", req->worst_reports, "full reports of this many worst functions (default 2)")
      ->check(CLI::Range(0, 1000));
  // Everything from the program's name on belongs to the program
  // (`hloscope run --warn python train.py --json x`: --json is the program's).
  cmd->prefix_command();
  cmd->footer("COMMAND: the program and its arguments, after the options (or after --)");
  return [req, cmd, after_dashes](std::ostream& out, std::ostream& err) {
    req->command = cmd->remaining();
    req->command.insert(req->command.end(), after_dashes->begin(), after_dashes->end());
    return RunRunCommand(*req, out, err);
  };
}

Runner AddScopes(CLI::App& app) {
  auto f = std::make_shared<InputFlags>();
  CLI::App* cmd = app.add_subcommand("scopes",
                                     "The jax.named_scope paths in the module, with how many instructions "
                                     "each holds (what --scope selects)");
  AddInput(cmd, f.get());
  return [f](std::ostream& out, std::ostream& err) {
    return WithSession(*f, false, err,
                       [&](Session& s) { return RunScopesCommand(s, f->output_format(), out); });
  };
}

Runner AddDiff(CLI::App& app) {
  struct Flags {
    DiffRequest req;
    std::string format = "text";
    bool no_buffer_assignment = false;
    bool no_kernels = false;
    uint64_t max_input_bytes = kDefaultMaxInputBytes;
  };
  auto f = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand(
      "diff",
      "Compare two compilations (files, `check --format json` baselines or dump folders): what grows with "
      "the "
      "arguments, what is new, what is gone, matched by source line, op_name, opcode and role, not by names");
  cmd->add_option("A", f->req.a, "the baseline: optimized HLO, a check JSON document, or a dump folder")
      ->required();
  cmd->add_option("B", f->req.b, "the new compilation: the same kinds")->required();
  cmd->add_option("--format", f->format, "text or json")->check(CLI::IsMember({"text", "json"}));
  DiffGates& g = f->req.gates;
  cmd->add_flag("--fail-on-new-copies", g.fail_on_new_copies,
                "exit 1 if B has an array copy A does not have (or more of one)");
  cmd->add_flag("--fail-on-new-out-of-place", g.fail_on_new_out_of_place,
                "exit 1 if an update is out of place or on a copy in B but not in A");
  cmd->add_flag("--fail-on-more-bytes-per-iteration", g.fail_on_more_bytes_per_iteration,
                "exit 1 if a loop copies or rewrites more bytes per iteration in B than in A");
  cmd->add_option("--min-bytes", g.min_bytes, "gates ignore copies and loops moving fewer bytes per run")
      ->check(kBudget);
  cmd->add_flag("--count-scalar-copies", f->req.diff.count_scalar_copies,
                "match scalar copies one by one (default: one item, as check summarizes them)");
  cmd->add_flag("--no-kernels", f->no_kernels, "do not compare kernels (faster on large modules)");
  AddAllowUnoptimized(cmd, &f->req.allow_unoptimized);
  cmd->add_flag("--no-buffer-assignment", f->no_buffer_assignment,
                "do not look for the buffer-assignment dumps beside HLO inputs");
  cmd->add_option("--max-input-bytes", f->max_input_bytes,
                  "refuse inputs larger than N bytes (default 2 GiB)")
      ->check(CLI::PositiveNumber);
  return [f](std::ostream& out, std::ostream& err) {
    f->req.format = f->format == "json" ? OutputFormat::kJson : OutputFormat::kText;
    f->req.use_buffer_assignment = !f->no_buffer_assignment;
    f->req.kernels = !f->no_kernels;
    f->req.input.max_bytes = f->max_input_bytes;
    return RunDiffCommand(f->req, out, err);
  };
}

}  // namespace

int RunCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"hloscope: did XLA update my array in place, or copy it?"};
  app.require_subcommand(1);
  app.set_version_flag("--version", fmt::format("hloscope {}", kHloscopeVersion));
  std::vector<std::pair<CLI::App*, Runner>> commands;
  auto add = [&](Runner (*fn)(CLI::App&)) {
    Runner r = fn(app);
    commands.emplace_back(app.get_subcommands({}).back(), std::move(r));
  };
  add(&AddCheck);
  add(&AddStats);
  add(&AddPrint);
  add(&AddFusions);
  add(&AddWhere);
  add(&AddAnnotate);
  add(&AddExplain);
  add(&AddDiff);
  add(&AddScopes);
  add(&AddReport);
  // `hloscope run [options] -- PROGRAM ARGS`: PROGRAM ARGS are not ours to parse.
  auto after_dashes = std::make_shared<std::vector<std::string>>();
  std::vector<std::string> ours = args;
  if (!ours.empty() && ours.front() == "run") {
    auto dashes = std::find(ours.begin(), ours.end(), "--");
    if (dashes != ours.end()) {
      after_dashes->assign(dashes + 1, ours.end());
      ours.erase(dashes, ours.end());
    }
  }
  Runner run = AddRun(app, after_dashes);
  commands.emplace_back(app.get_subcommands({}).back(), std::move(run));
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
    for (auto& [cmd, run] : commands)
      if (cmd->parsed()) code = run(cmd_out, cmd_err);
  } catch (const CLI::ParseError& e) {
    code = app.exit(e, cmd_out, cmd_err) == 0 ? kExitOk : kExitError;
  }
  bool written = out_filter.Finish() && cmd_out.good() && out.good();
  err_filter.Finish();
  if (!written) {
    err << "hloscope: error: cannot write the output (" << std::strerror(errno) << ")\n";
    return kExitError;
  }
  return code;
}

}  // namespace hloscope
