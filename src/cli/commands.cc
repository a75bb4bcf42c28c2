#include "cli/commands.h"

#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "hloscope/analysis/check.h"
#include "hloscope/analysis/module_stats.h"
#include "hloscope/analysis/scope_filter.h"
#include "hloscope/parser/buffer_assignment.h"
#include "hloscope/report/render_check.h"
#include "hloscope/ir/printer.h"
#include "hloscope/parser/parser.h"
#include "hloscope/report/render_stats.h"

namespace hloscope::cli {
namespace {

struct CommonFlags {
  std::string file;
  std::string format = "text";
};

int RunStats(const CommonFlags& flags) {
  auto group = ParseHloFile(flags.file);
  if (!group.ok()) {
    std::cerr << group.error().Format();
    return kExitError;
  }
  std::vector<ModuleStats> stats;
  for (const auto& m : group->modules) stats.push_back(ComputeModuleStats(*m));
  RenderStats(stats, FormatOf(flags.format), std::cout);
  return kExitOk;
}

int RunPrint(const CommonFlags& flags) {
  auto group = ParseHloFile(flags.file);
  if (!group.ok()) {
    std::cerr << group.error().Format();
    return kExitError;
  }
  for (const auto& m : group->modules) std::cout << PrintModule(*m);
  return kExitOk;
}

struct CheckFlags {
  CommonFlags common;
  std::string buffer_assignment;
  bool no_buffer_assignment = false;
  bool fail_on_copies_in_loops = false;
  bool fail_on_out_of_place = false;
  bool fail_on_contradiction = false;
  std::optional<int64_t> max_copy_bytes;
  std::optional<int64_t> max_copies;
  int64_t min_copy_bytes_shown = 0;
  std::string scope;
};

// The --fail-on / --max-* budget: one line per broken rule.
std::vector<std::string> BudgetViolations(const std::vector<ModuleCheck>& modules,
                                          const CheckFlags& flags) {
  std::vector<std::string> out;
  for (const ModuleCheck& m : modules) {
    int64_t total = 0;
    bool unknown = false;
    for (const CopyFinding& c : m.copies) {
      if (c.total_bytes) total += *c.total_bytes;
      else unknown = true;
      if (flags.fail_on_copies_in_loops && !c.enclosing_loops.empty())
        out.push_back(fmt::format("{}: {} copies {} inside {} ({})", m.name, c.instruction,
                                  HumanBytes(c.bytes), c.enclosing_loops.front(),
                                  CopyCauseName(c.cause)));
    }
    if (flags.max_copy_bytes && (total > *flags.max_copy_bytes || unknown))
      out.push_back(fmt::format("{}: copies move {} per call{}, budget {}", m.name, HumanBytes(total),
                                unknown ? " plus an unknown amount" : "",
                                HumanBytes(*flags.max_copy_bytes)));
    if (flags.max_copies && static_cast<int64_t>(m.copies.size()) > *flags.max_copies)
      out.push_back(fmt::format("{}: {} copies, budget {}", m.name, m.copies.size(), *flags.max_copies));
    for (const UpdateFinding& u : m.updates) {
      if (flags.fail_on_out_of_place &&
          (u.verdict == UpdateVerdict::kOutOfPlace || u.verdict == UpdateVerdict::kInPlaceOnCopy))
        out.push_back(fmt::format("{}: {} is {}", m.name, u.instruction, UpdateVerdictName(u.verdict)));
      if (flags.fail_on_contradiction && u.confirmed && !*u.confirmed)
        out.push_back(fmt::format("{}: verdict for {} contradicted by the buffer assignment", m.name,
                                  u.instruction));
    }
  }
  return out;
}

int RunCheck(const CheckFlags& flags) {
  auto group = ParseHloFile(flags.common.file);
  if (!group.ok()) {
    std::cerr << group.error().Format();
    return kExitError;
  }
  std::optional<BufferAssignment> ba;
  std::string ba_path = flags.buffer_assignment;
  if (ba_path.empty() && !flags.no_buffer_assignment && flags.common.file != "-") {
    if (std::optional<std::string> found = FindBufferAssignmentBeside(flags.common.file))
      ba_path = *found;
  }
  if (!ba_path.empty() && !flags.no_buffer_assignment) {
    auto read = ReadBufferAssignmentFile(ba_path);
    if (!read.ok()) {
      std::cerr << read.error().Format();
      return kExitError;
    }
    ba = std::move(read).value();
  }
  std::vector<ModuleCheck> results;
  for (const auto& m : group->modules) {
    CheckOptions options;
    // A dump describes one module; with several modules in one input it is
    // applied only when there is exactly one.
    if (ba && group->modules.size() == 1) {
      options.buffer_assignment = &*ba;
      options.buffer_assignment_path = ba_path;
    }
    results.push_back(CheckModule(*m, options));
    if (!flags.scope.empty()) FilterFindingsByScope(&results.back(), flags.scope);
  }
  RenderOptions render;
  render.min_copy_bytes_shown = flags.min_copy_bytes_shown;
  RenderCheck(results, FormatOf(flags.common.format), render, std::cout);
  std::vector<std::string> violations = BudgetViolations(results, flags);
  for (const std::string& v : violations) std::cerr << "hloscope: check failed: " << v << "\n";
  return violations.empty() ? kExitOk : kExitFindings;
}

}  // namespace

void AddFileAndFormat(CLI::App* cmd, std::string* file, std::string* format) {
  cmd->add_option("FILE", *file, "optimized HLO text ('-' for stdin)")->required();
  cmd->add_option("--format", *format, "text or json")->check(CLI::IsMember({"text", "json"}));
}

OutputFormat FormatOf(const std::string& format) {
  return format == "json" ? OutputFormat::kJson : OutputFormat::kText;
}

Subcommand AddStatsCommand(CLI::App& app) {
  auto flags = std::make_shared<CommonFlags>();
  CLI::App* stats = app.add_subcommand(
      "stats", "Computations by role, instructions by opcode, parameter and output bytes");
  AddFileAndFormat(stats, &flags->file, &flags->format);
  return {stats, [flags] { return RunStats(*flags); }};
}

Subcommand AddCheckCommand(CLI::App& app) {
  auto flags = std::make_shared<CheckFlags>();
  CheckFlags& f = *flags;
  CLI::App* check = app.add_subcommand(
      "check", "Every copy, update, loop and parameter: in place or copied, how often, and why");
  AddFileAndFormat(check, &f.common.file, &f.common.format);
  check->add_option("--buffer-assignment", f.buffer_assignment,
                    "XLA's -buffer-assignment.txt dump (found automatically beside a dump)");
  check->add_flag("--no-buffer-assignment", f.no_buffer_assignment,
                  "do not look for the buffer-assignment dump");
  check->add_flag("--fail-on-copies-in-loops", f.fail_on_copies_in_loops,
                  "exit 1 if any copy runs inside a loop");
  check->add_flag("--fail-on-out-of-place", f.fail_on_out_of_place,
                  "exit 1 if any update is out of place or runs on a copy");
  check->add_flag("--fail-on-contradiction", f.fail_on_contradiction,
                  "exit 1 if the buffer assignment contradicts a verdict");
  check->add_option("--max-copy-bytes", f.max_copy_bytes,
                    "exit 1 if copies move more than N bytes per call");
  check->add_option("--max-copies", f.max_copies, "exit 1 if there are more than N copies");
  check->add_option("--min-copy-bytes", f.min_copy_bytes_shown,
                    "list only copies moving at least N bytes per call (text)");
  check->add_option("--scope", f.scope, "only findings inside this jax.named_scope path");
  return {check, [flags] { return RunCheck(*flags); }};
}

Subcommand AddPrintCommand(CLI::App& app) {
  auto flags = std::make_shared<CommonFlags>();
  CLI::App* print = app.add_subcommand(
      "print", "Parse and print the module back in canonical HLO text");
  print->add_option("FILE", flags->file, "optimized HLO text ('-' for stdin)")->required();
  return {print, [flags] { return RunPrint(*flags); }};
}

int Main(int argc, char** argv) {
  CLI::App app{"hloscope: did XLA update my array in place, or copy it?"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "hloscope 0.1.0");
  std::vector<Subcommand> commands = {
      AddCheckCommand(app),
      AddStatsCommand(app),
      AddPrintCommand(app),
      AddFusionsCommand(app),
      AddWhereCommand(app),
      AddAnnotateCommand(app),
      AddExplainCommand(app),
  };
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? kExitOk : kExitError;
  }
  for (const Subcommand& c : commands)
    if (c.app->parsed()) return c.run();
  return kExitError;
}

}  // namespace hloscope::cli
