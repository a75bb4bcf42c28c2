// The command line as data: every command and every flag, defined once —
// its names, value, help text, group, the commands that take it, and how it
// sets its field of CommandLine — in the spirit of ripgrep's flag table.
// RunCli (cli.cc) registers each command's flags with CLI11 from these
// tables; docs/cli.md is generated from them (CliReferenceMarkdown,
// `hloscope reference --format markdown`, tools/gen_catalog_docs.py).
#ifndef HLOSCOPE_SRC_APP_COMMAND_LINE_H_
#define HLOSCOPE_SRC_APP_COMMAND_LINE_H_

#include <CLI/CLI.hpp>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hloscope/analysis/finding_filter.h"
#include "hloscope/analysis/policy.h"
#include "hloscope/report/format.h"
#include "hloscope/support/input_file.h"

namespace hloscope {

enum class Command : uint8_t {
  kCheck,
  kReport,
  kDiff,
  kRun,
  kStats,
  kMemory,
  kPrint,
  kFusions,
  kCost,
  kWhere,
  kAnnotate,
  kExplain,
  kScopes,
  kMcp,
  kRules,
  kReference,
};

// A set of commands.
class CommandSet {
 public:
  constexpr CommandSet(std::initializer_list<Command> commands) {
    for (Command c : commands) bits_ |= 1u << static_cast<unsigned>(c);
  }
  constexpr bool Has(Command c) const { return bits_ & (1u << static_cast<unsigned>(c)); }

 private:
  uint32_t bits_ = 0;
};

// Everything the flags and positionals of any command set.
struct CommandLine {
  // Positionals.
  std::string file;         // FILE (check, report, stats, ...): a path, '-', or a dump folder
  std::string a, b;         // diff A B
  std::string location;     // where LOCATION
  std::string instruction;  // explain INSTRUCTION
  // Input.
  std::string format;  // --format; empty: the command's first format
  std::string buffer_assignment;
  bool no_buffer_assignment = false;
  std::string thunk_metadata;
  std::string pre_partition;
  bool no_pre_partition = false;
  uint64_t max_input_bytes = kDefaultMaxInputBytes;
  bool allow_unoptimized = false;
  // Which findings count.
  FindingFilter filter;
  // What fails.
  bool fail = false;                 // --fail: the default preset
  std::vector<std::string> fail_on;  // --fail-on NAME (gates, presets)
  GateSet legacy_gates;              // --fail-on-copies-in-loops and the like
  Budgets budgets;
  std::vector<std::string> updates;  // --update
  std::vector<std::string> lines;    // --line
  // Output.
  bool kernels = false;     // check --kernels
  bool no_kernels = false;  // diff --no-kernels
  std::vector<std::string> source_roots;
  std::vector<std::string> roots;  // mcp --root
  std::vector<std::string> sarif_roots;
  std::string output = "-";  // report -o
  int context = 2;
  bool whole_files = false;  // annotate --all
  std::string source_file;   // annotate --file
  // run.
  std::string json_path, html_path, keep_dumps;
  bool warn = false;
  bool raise = false;
  bool profile = false;   // run --profile
  bool no_dumps = false;  // run --no-buffer-assignment
  int reports = 2;
  // cost.
  std::string target;  // --target
  std::string trace;   // --trace
  int top = 10;        // --top
};

struct CommandEntry {
  Command command;
  std::string_view name;
  std::string_view help;
  std::span<const OutputFormat> formats;  // the first is the default; empty: no --format
  // Positionals: (name, help), bound in cli.cc.
  std::string_view usage;  // "FILE", "A B", ...
};

struct FlagEntry {
  std::string_view names;  // CLI11 spelling: "-o,--output", "--include-minor,--count-scalar-copies"
  std::string_view value;  // "N", "PATH", ...; empty: a switch
  std::string_view group;  // "Input", "Findings", "Gates", "Output", "Run"
  std::string_view help;
  CommandSet commands;
  // Registers the flag on `cmd`, writing into `line`.
  CLI::Option* (*bind)(CLI::App& cmd, CommandLine& line, const FlagEntry& self, const CommandEntry& command);
};

std::span<const CommandEntry> CommandCatalog();
std::span<const FlagEntry> FlagCatalog();
const CommandEntry& EntryOf(Command command);

// Registers every flag `command` takes.
void BindFlags(CLI::App& cmd, CommandLine& line, const CommandEntry& command);

// The gates the gate flags ask for (--fail, --fail-on, the --fail-on-*
// switches); nullopt and `error` set for an unknown name.
std::optional<GateSet> RequestedGates(const CommandLine& line, std::string* error);

// docs/cli.md: every command with its flags, and every flag with the
// commands that take it.
std::string CliReferenceMarkdown();

}  // namespace hloscope

#endif  // HLOSCOPE_SRC_APP_COMMAND_LINE_H_
