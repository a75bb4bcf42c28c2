// `hloscope mcp`: replaces this process with the Python package's MCP
// server (python/hloscope/mcp_server.py), which runs this executable for
// each tool call. The protocol and its JSON-RPC framing are the `mcp` SDK's;
// the answers are this executable's.
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "hloscope/app/commands.h"

namespace hloscope {
namespace {

namespace fs = std::filesystem;

// Run with `python -c`: a Python without the package (or without `mcp`)
// says so in one line and exits 2, instead of a traceback.
constexpr const char* kBootstrap =
    "import sys\n"
    "try:\n"
    "    from hloscope.mcp_server import main\n"
    "except ImportError as e:\n"
    "    sys.stderr.write(f'hloscope mcp: {sys.executable} cannot import hloscope.mcp_server ({e}): install "
    "hloscope there (pip install \"hloscope[mcp]\") or set HLOSCOPE_PYTHON to a Python that has it\\n')\n"
    "    sys.exit(2)\n"
    "sys.exit(main(sys.argv[1:]))\n";

bool Executable(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0;
}

// $HLOSCOPE_PYTHON; else the Python of the environment this executable
// was installed into: beside it (pip puts the CLI in the environment's
// bin/), or in bin/ above it (a wheel repaired by auditwheel keeps the real
// executable in site-packages/hloscope.scripts/); else python3 on PATH.
std::string FindPython(const fs::path& self) {
  if (const char* env = std::getenv("HLOSCOPE_PYTHON"); env && *env) return env;
  fs::path dir = self.parent_path();
  for (int up = 0; up < 5 && !dir.empty() && dir != dir.root_path(); ++up, dir = dir.parent_path())
    for (const fs::path& candidate : {dir / "python3", dir / "bin" / "python3"})
      if (Executable(candidate)) return candidate.string();
  return "python3";
}

}  // namespace

int RunMcpCommand(const McpRequest& request, std::ostream& err) {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) self.clear();
  std::string python = FindPython(self);
  std::vector<std::string> args = {python, "-c", kBootstrap};
  if (!self.empty()) args.insert(args.end(), {"--hloscope", self.string()});
  for (const std::string& r : request.roots) args.insert(args.end(), {"--root", r});
  for (const std::string& r : request.source_roots) args.insert(args.end(), {"--source-root", r});
  if (request.max_input_bytes)
    args.insert(args.end(), {"--max-input-bytes", std::to_string(request.max_input_bytes)});
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::cout.flush();
  std::cerr.flush();
  execvp(argv[0], argv.data());
  err << fmt::format(
      "hloscope mcp: error: cannot start {} ({}): the MCP server runs on Python; set HLOSCOPE_PYTHON to a "
      "Python with hloscope and mcp installed (pip install 'hloscope[mcp]')\n",
      python, std::strerror(errno));
  return kExitError;
}

}  // namespace hloscope
