// Golden outputs of every command: each case of tests/golden/cases.txt is
// run through RunCli (the CLI itself, in-process) and compared with
// tests/golden/NAME.txt after normalising absolute paths.
// tools/update_golden.py writes those files by running the hloscope binary
// on the same cases.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "hloscope/app/cli.h"

namespace hloscope {
namespace {

namespace fs = std::filesystem;

const fs::path kRoot = HLOSCOPE_SOURCE_DIR;
const fs::path kGolden = kRoot / "tests" / "golden";

struct Case {
  std::string name;
  std::vector<std::string> args;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

std::string Trim(std::string s) {
  size_t a = s.find_first_not_of(" \t");
  size_t b = s.find_last_not_of(" \t\r");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

std::vector<Case> ReadCases() {
  std::vector<Case> cases;
  std::ifstream in(kGolden / "cases.txt");
  std::string line;
  while (std::getline(in, line)) {
    line = Trim(line);
    if (line.empty() || line[0] == '#') continue;
    size_t bar = line.find('|');
    Case c{Trim(line.substr(0, bar)), {}};
    std::istringstream args(Trim(line.substr(bar + 1)));
    std::string a;
    while (args >> a) {
      for (size_t p; (p = a.find("{ROOT}")) != std::string::npos;) a.replace(p, 6, kRoot.string());
      c.args.push_back(a);
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

// Same rule as normalize() in tools/update_golden.py: an absolute path
// before /tools/ or /tests/fixtures/ becomes <ROOT>.
std::string NormalizePaths(const std::string& text) {
  static const char* kMarkers[] = {"/tools/", "/tests/fixtures/"};
  static const std::string kStops = " \t\n\"'(),=";
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    size_t hit = std::string::npos;
    std::string marker;
    for (const char* m : kMarkers) {
      size_t k = text.find(m, i);
      if (k != std::string::npos && (hit == std::string::npos || k < hit)) {
        hit = k;
        marker = m;
      }
    }
    if (hit == std::string::npos) {
      out += text.substr(i);
      break;
    }
    size_t start = hit;
    while (start > i && kStops.find(text[start - 1]) == std::string::npos) --start;
    if (start < hit && text[start] == '/') {
      out += text.substr(i, start - i);
      out += "<ROOT>";
    } else {
      out += text.substr(i, hit - i);
    }
    out += marker;
    i = hit + marker.size();
  }
  return out;
}

// The command run in-process, exactly as the CLI runs it: stdout, then
// stderr and the exit code when either says something (same rule as
// recorded() in tools/update_golden.py).
std::string RunCommand(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  int code = RunCli(args, out, err);
  EXPECT_TRUE(code == 0 || code == 1) << "exit " << code << ": " << err.str();
  if (code == 0 && err.str().empty()) return out.str();
  return out.str() + "--- stderr (exit " + std::to_string(code) + ") ---\n" + err.str();
}

class ExploreGolden : public ::testing::TestWithParam<Case> {};

TEST_P(ExploreGolden, MatchesGoldenFile) {
  const Case& c = GetParam();
  fs::path path = kGolden / (c.name + ".txt");
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << path << " is missing: run python3 tools/update_golden.py";
  std::stringstream want;
  want << in.rdbuf();
  std::string got = NormalizePaths(RunCommand(c.args));
  if (got != want.str()) {
    // Point at the first differing line.
    std::istringstream a(got), b(want.str());
    std::string la, lb;
    int line = 0;
    while (true) {
      ++line;
      bool ha = static_cast<bool>(std::getline(a, la)), hb = static_cast<bool>(std::getline(b, lb));
      if (!ha && !hb) break;
      if (!ha || !hb || la != lb) {
        ADD_FAILURE() << c.name << ": differs from " << path << " at line " << line
                      << "\n  got:  " << (ha ? la : "<end>") << "\n  want: " << (hb ? lb : "<end>")
                      << "\nIf the change is intended: python3 tools/update_golden.py";
        break;
      }
    }
  }
}

TEST(ExploreGoldenRules, NormalizePaths) {
  EXPECT_EQ(NormalizePaths("(/work/main/tools/fixture_programs/loops.py)"),
            "(<ROOT>/tools/fixture_programs/loops.py)");
  EXPECT_EQ(NormalizePaths("\"file\": \"/x/y/tests/fixtures/jax/a/b.txt\","),
            "\"file\": \"<ROOT>/tests/fixtures/jax/a/b.txt\",");
  EXPECT_EQ(NormalizePaths("fixture_programs/loops.py:50 tools/x"), "fixture_programs/loops.py:50 tools/x");
}

TEST(ExploreGoldenRules, EnoughCases) { EXPECT_GE(ReadCases().size(), 12u); }

INSTANTIATE_TEST_SUITE_P(Cases, ExploreGolden, ::testing::ValuesIn(ReadCases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace hloscope
