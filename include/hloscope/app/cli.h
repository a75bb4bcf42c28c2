// The hloscope command line as a library function: `main` hands argv over,
// and tests run the very same code in-process.
#ifndef HLOSCOPE_APP_CLI_H_
#define HLOSCOPE_APP_CLI_H_

#include <ostream>
#include <string>
#include <vector>

namespace hloscope {

// Runs `hloscope ARGS...` (without the program name); writes the output to
// `out` and messages to `err`. Returns the exit code (app/commands.h).
int RunCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// docs/cli.md: every command and flag, from the tables the CLI is built from.
std::string CliReference();

}  // namespace hloscope

#endif  // HLOSCOPE_APP_CLI_H_
