// The hloscope command line: subcommands, flags, exit codes.
// Exit codes: 0 the command ran; 1 a --fail-on/--max-* check found problems;
// 2 usage, parse or I/O error.
//
// Each subcommand lives in its own Add*Command function: it declares its
// flags on a CLI11 subcommand and returns the function that runs it. Main()
// parses argv and runs the one the user chose.
#ifndef HLOSCOPE_CLI_COMMANDS_H_
#define HLOSCOPE_CLI_COMMANDS_H_

#include <functional>
#include <string>
#include <vector>

#include "hloscope/report/format.h"

namespace CLI {
class App;
}

namespace hloscope::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFindings = 1;
inline constexpr int kExitError = 2;

struct Subcommand {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

// commands.cc
// The FILE argument and --format option every reading command has.
void AddFileAndFormat(CLI::App* cmd, std::string* file, std::string* format);
OutputFormat FormatOf(const std::string& format);

Subcommand AddStatsCommand(CLI::App& app);
Subcommand AddCheckCommand(CLI::App& app);
Subcommand AddPrintCommand(CLI::App& app);

int Main(int argc, char** argv);

// explore_commands.cc
Subcommand AddFusionsCommand(CLI::App& app);
Subcommand AddWhereCommand(CLI::App& app);
Subcommand AddAnnotateCommand(CLI::App& app);
Subcommand AddExplainCommand(CLI::App& app);

}  // namespace hloscope::cli

#endif  // HLOSCOPE_CLI_COMMANDS_H_
