// hloscope: the command-line tool. All work happens in the library; this
// file only hands argv over (see cli/commands.cc for the flags).
#include "cli/commands.h"

int main(int argc, char** argv) { return hloscope::cli::Main(argc, argv); }
