#include "cli/commands.h"

#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "hloscope/analysis/module_stats.h"
#include "hloscope/ir/printer.h"
#include "hloscope/parser/parser.h"
#include "hloscope/report/render_stats.h"

namespace hloscope::cli {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitError = 2;

struct CommonFlags {
  std::string file;
  std::string format = "text";
};

OutputFormat ToFormat(const std::string& s) {
  return s == "json" ? OutputFormat::kJson : OutputFormat::kText;
}

int RunStats(const CommonFlags& flags) {
  auto group = ParseHloFile(flags.file);
  if (!group.ok()) {
    std::cerr << group.error().Format();
    return kExitError;
  }
  std::vector<ModuleStats> stats;
  for (const auto& m : group->modules) stats.push_back(ComputeModuleStats(*m));
  RenderStats(stats, ToFormat(flags.format), std::cout);
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

}  // namespace

int Main(int argc, char** argv) {
  CLI::App app{"hloscope: did XLA update my array in place, or copy it?"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "hloscope 0.1.0");

  CommonFlags stats_flags;
  CLI::App* stats = app.add_subcommand(
      "stats", "Computations by role, instructions by opcode, parameter and output bytes");
  stats->add_option("FILE", stats_flags.file, "optimized HLO text ('-' for stdin)")
      ->required();
  stats->add_option("--format", stats_flags.format, "text or json")
      ->check(CLI::IsMember({"text", "json"}));

  CommonFlags print_flags;
  CLI::App* print = app.add_subcommand(
      "print", "Parse and print the module back in canonical HLO text");
  print->add_option("FILE", print_flags.file, "optimized HLO text ('-' for stdin)")
      ->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? kExitOk : kExitError;
  }
  if (stats->parsed()) return RunStats(stats_flags);
  if (print->parsed()) return RunPrint(print_flags);
  return kExitError;
}

}  // namespace hloscope::cli
