// RunCli in-process, its exit code and both streams captured: what the
// app-layer tests assert on.
#ifndef HLOSCOPE_TESTS_APP_RUN_CLI_H_
#define HLOSCOPE_TESTS_APP_RUN_CLI_H_

#include <sstream>
#include <string>
#include <vector>

#include "hloscope/app/cli.h"

namespace hloscope {

struct CliRun {
  int code;
  std::string out, err;
};

inline CliRun Cli(std::vector<std::string> args) {
  std::ostringstream out, err;
  int code = RunCli(args, out, err);
  return {code, out.str(), err.str()};
}

}  // namespace hloscope

#endif  // HLOSCOPE_TESTS_APP_RUN_CLI_H_
