// Golden outputs of every command: each case of tests/golden/cases.txt is
// run through RunCli (the CLI itself, in-process) and compared with
// tests/golden/NAME.txt after normalising absolute paths.
//
// This test is also what writes those files: run with the environment
// variable HLOSCOPE_UPDATE_GOLDEN=1, each case whose output differs from its
// file (or has none) rewrites it with exactly what would have been compared
// and prints "hloscope golden: wrote tests/golden/NAME.txt". The one way to
// do that is `python3 tools/update_golden.py` (it builds this test and runs
// it with the variable; --check compares only). So the format of a golden
// file (Recorded) and the path rule (NormalizePaths) live here and nowhere
// else.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "hloscope/app/cli.h"

namespace hloscope {
namespace {

namespace fs = std::filesystem;

const fs::path kRoot = HLOSCOPE_SOURCE_DIR;
const fs::path kGolden = kRoot / "tests" / "golden";
constexpr const char* kUpdateHint = "python3 tools/update_golden.py";

// HLOSCOPE_UPDATE_GOLDEN set (to anything but "" or "0"): rewrite the files.
bool Updating() {
  const char* v = std::getenv("HLOSCOPE_UPDATE_GOLDEN");
  return v != nullptr && *v != '\0' && std::string(v) != "0";
}

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

// An absolute path before /tools/ or /tests/fixtures/ becomes <ROOT>, so the
// goldens do not depend on where the repository (or the fixture programs
// recorded in the HLO) were: the path runs back from the marker to a stop
// character, and is replaced only when it starts with '/'.
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

// What a golden file holds: stdout, then stderr and the exit code when
// either says something (a gate that fails, a warning).
std::string Recorded(const std::string& out, const std::string& err, int code) {
  if (code == 0 && err.empty()) return out;
  return out + "--- stderr (exit " + std::to_string(code) + ") ---\n" + err;
}

// The command run in-process, exactly as the CLI runs it, recorded and
// normalised: what is compared with, or written to, the golden file. Sets
// *ok to false on an exit code other than 0 or 1 (a usage or input error:
// never a golden).
std::string RunCommand(const std::vector<std::string>& args, bool* ok) {
  std::ostringstream out, err;
  int code = RunCli(args, out, err);
  *ok = code == 0 || code == 1;
  EXPECT_TRUE(*ok) << "exit " << code << ": " << err.str();
  return NormalizePaths(Recorded(out.str(), err.str(), code));
}

std::string ReadFile(const fs::path& path, bool* exists) {
  std::ifstream in(path, std::ios::binary);
  *exists = static_cast<bool>(in);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class ExploreGolden : public ::testing::TestWithParam<Case> {};

TEST_P(ExploreGolden, MatchesGoldenFile) {
  const Case& c = GetParam();
  fs::path path = kGolden / (c.name + ".txt");
  bool ok = false, exists = false;
  std::string got = RunCommand(c.args, &ok);
  std::string want = ReadFile(path, &exists);
  if (Updating()) {
    if (!ok || (exists && got == want)) return;
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file << got;
    ASSERT_TRUE(file.flush()) << "could not write " << path;
    std::cout << "hloscope golden: wrote tests/golden/" << c.name << ".txt" << std::endl;
    return;
  }
  ASSERT_TRUE(exists) << path << " is missing: run " << kUpdateHint;
  if (got == want) return;
  // Point at the first differing line.
  std::istringstream a(got), b(want);
  std::string la, lb;
  int line = 0;
  while (true) {
    ++line;
    bool ha = static_cast<bool>(std::getline(a, la)), hb = static_cast<bool>(std::getline(b, lb));
    if (!ha && !hb) {
      // The lines are equal: only a final newline or a '\r' differs.
      ADD_FAILURE() << c.name << ": differs from " << path << " in its line endings"
                    << "\nIf the change is intended: " << kUpdateHint;
      break;
    }
    if (!ha || !hb || la != lb) {
      ADD_FAILURE() << c.name << ": differs from " << path << " at line " << line
                    << "\n  got:  " << (ha ? la : "<end>") << "\n  want: " << (hb ? lb : "<end>")
                    << "\nIf the change is intended: " << kUpdateHint;
      break;
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

TEST(ExploreGoldenRules, Recorded) {
  EXPECT_EQ(Recorded("out\n", "", 0), "out\n");
  EXPECT_EQ(Recorded("out\n", "", 1), "out\n--- stderr (exit 1) ---\n");
  EXPECT_EQ(Recorded("out\n", "warn\n", 0), "out\n--- stderr (exit 0) ---\nwarn\n");
}

TEST(ExploreGoldenRules, EnoughCases) { EXPECT_GE(ReadCases().size(), 12u); }

// Every case has its own name, and every file in tests/golden belongs to a
// case: a renamed or removed case leaves no golden behind that nothing checks.
TEST(ExploreGoldenRules, EveryGoldenFileHasACase) {
  std::set<std::string> names;
  for (const Case& c : ReadCases()) EXPECT_TRUE(names.insert(c.name).second) << "two cases named " << c.name;
  for (const auto& entry : fs::directory_iterator(kGolden)) {
    const fs::path& p = entry.path();
    if (p.filename() == "cases.txt" || p.extension() != ".txt") continue;
    EXPECT_TRUE(names.count(p.stem().string())) << p << " is no case of cases.txt: delete it";
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, ExploreGolden, ::testing::ValuesIn(ReadCases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace hloscope
