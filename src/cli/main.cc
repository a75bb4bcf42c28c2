// hloscope: the command-line tool. Everything happens in the library
// (app/cli.h); this file only hands argv over.
#include <iostream>
#include <string>
#include <vector>

#include "hloscope/app/cli.h"
#include "hloscope/support/mapped_file.h"

int main(int argc, char** argv) {
  // A dump that shrinks while mapped: a message and exit 2, not SIGBUS.
  hloscope::InstallMappedFileGuard();
  std::vector<std::string> args(argv + 1, argv + argc);
  return hloscope::RunCli(args, std::cout, std::cerr);
}
