// Golden outputs of fusions / where / annotate / explain: every case of
// tests/golden/cases.txt is rendered through the library functions the CLI
// calls (Report*), with the CLI's flags, and compared with tests/golden/
// NAME.txt after normalising absolute paths. tools/update_golden.py writes
// those files by running the hloscope binary on the same cases.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "hloscope/parser/buffer_assignment.h"
#include "hloscope/parser/parser.h"
#include "hloscope/report/render_annotate.h"
#include "hloscope/report/render_explain.h"
#include "hloscope/report/render_fusions.h"
#include "hloscope/report/render_where.h"

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

// The CLI's flag handling for the four commands (explore_commands.cc).
std::string RunCommand(const std::vector<std::string>& args) {
  std::string command = args.at(0);
  std::vector<std::string> positional;
  std::string format = "text", scope, file_filter, ba_path;
  std::vector<std::string> roots;
  int context = 2;
  bool all = false, no_ba = false;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::string {
      EXPECT_LT(i + 1, args.size()) << a;
      return args.at(++i);
    };
    if (a == "--format") format = value();
    else if (a == "--scope") scope = value();
    else if (a == "--source-root") roots.push_back(value());
    else if (a == "--file") file_filter = value();
    else if (a == "--context") context = std::stoi(value());
    else if (a == "--all") all = true;
    else if (a == "--buffer-assignment") ba_path = value();
    else if (a == "--no-buffer-assignment") no_ba = true;
    else if (a.rfind("--", 0) == 0) ADD_FAILURE() << "flag the golden test does not know: " << a;
    else positional.push_back(a);
  }
  OutputFormat fmt = format == "json" ? OutputFormat::kJson : OutputFormat::kText;
  auto group = ParseHloFile(positional.at(0));
  if (!group.ok()) {
    ADD_FAILURE() << group.error().Format();
    return "";
  }
  std::vector<const HloModule*> modules;
  for (const auto& m : group->modules) modules.push_back(m.get());
  std::ostringstream out;
  if (command == "fusions") {
    FusionsOptions o;
    o.scope = scope;
    ReportFusions(modules, o, fmt, out);
  } else if (command == "where") {
    WhereOptions o;
    o.scope = scope;
    o.source_roots = roots;
    if (positional.size() > 1) o.spec = ParseLineSpec(positional[1]);
    ReportWhere(modules, o, fmt, out);
  } else if (command == "annotate") {
    AnnotateOptions o;
    o.scope = scope;
    o.source_roots = roots;
    o.file = file_filter;
    o.context = context;
    o.whole_files = all;
    ReportAnnotate(modules, o, fmt, out);
  } else if (command == "explain") {
    ExplainOptions o;
    if (positional.size() > 1) o.instruction = positional[1];
    std::optional<BufferAssignment> ba;
    if (ba_path.empty() && !no_ba)
      if (std::optional<std::string> found = FindBufferAssignmentBeside(positional[0])) ba_path = *found;
    if (!ba_path.empty() && !no_ba && modules.size() == 1) {
      auto read = ReadBufferAssignmentFile(ba_path);
      EXPECT_TRUE(read.ok());
      if (read.ok()) {
        ba = std::move(read).value();
        o.check.buffer_assignment = &*ba;
        o.check.buffer_assignment_path = ba_path;
      }
    }
    EXPECT_TRUE(ReportExplain(modules, o, fmt, out));
  } else {
    ADD_FAILURE() << "unknown command " << command;
  }
  return out.str();
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
        ADD_FAILURE() << c.name << ": differs from " << path << " at line " << line << "\n  got:  "
                      << (ha ? la : "<end>") << "\n  want: " << (hb ? lb : "<end>")
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
