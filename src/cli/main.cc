// hloscope: the command-line tool. Everything happens in the library
// (app/cli.h); this file only hands argv over.
#include <iostream>
#include <string>
#include <vector>

#include "hloscope/app/cli.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return hloscope::RunCli(args, std::cout, std::cerr);
}
