// The hloscope command line: subcommands, flags, exit codes.
// Exit codes: 0 the command ran; 1 a --fail-on/--max-* check found problems;
// 2 usage, parse or I/O error.
#ifndef HLOSCOPE_CLI_COMMANDS_H_
#define HLOSCOPE_CLI_COMMANDS_H_

namespace hloscope::cli {

int Main(int argc, char** argv);

}  // namespace hloscope::cli

#endif  // HLOSCOPE_CLI_COMMANDS_H_
