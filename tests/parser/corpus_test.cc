// The whole third-party corpus (../shared/corpus, listed in MANIFEST.tsv):
// every HLO text file parses, except the few listed in
// tests/corpus_expected_failures.tsv, which must fail on exactly the listed
// line; and every parsed module survives print -> parse unchanged. The JAX
// fixtures of tests/fixtures/jax take the same round trip.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "hloscope/ir/printer.h"
#include "parse_helpers.h"

namespace hloscope {
namespace {

namespace fs = std::filesystem;

const fs::path kCorpus = HLOSCOPE_CORPUS_DIR;
const fs::path kExpectedFailures = fs::path(HLOSCOPE_SOURCE_DIR) / "tests" / "corpus_expected_failures.tsv";

std::vector<std::string> SplitTabs(const std::string& line) {
  std::vector<std::string> cols;
  std::stringstream ss(line);
  std::string col;
  while (std::getline(ss, col, '\t')) cols.push_back(col);
  return cols;
}

// HLO text files of the manifest (everything but buffer_assignment/).
std::vector<std::string> CorpusHloFiles() {
  std::vector<std::string> files;
  std::ifstream in(kCorpus / "MANIFEST.tsv");
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (header) {
      header = false;
      continue;
    }
    std::vector<std::string> cols = SplitTabs(line);
    if (cols.empty() || cols[0].empty()) continue;
    if (cols[0].rfind("buffer_assignment/", 0) == 0) continue;
    files.push_back(cols[0]);
  }
  return files;
}

struct ExpectedFailure {
  int64_t line = 0;
  std::string reason;
};

std::map<std::string, ExpectedFailure> ExpectedFailures() {
  std::map<std::string, ExpectedFailure> out;
  std::ifstream in(kExpectedFailures);
  EXPECT_TRUE(in) << "cannot read " << kExpectedFailures;
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (header) {  // file, line, reason
      header = false;
      continue;
    }
    std::vector<std::string> cols = SplitTabs(line);
    EXPECT_EQ(cols.size(), 3u) << "bad row: " << line;
    if (cols.size() < 3) continue;
    EXPECT_FALSE(cols[2].empty()) << "no reason given for " << cols[0];
    out[cols[0]] = {std::stoll(cols[1]), cols[2]};
  }
  return out;
}

class CorpusTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(kCorpus / "MANIFEST.tsv")) GTEST_SKIP() << "corpus not found at " << kCorpus;
  }
};

TEST_F(CorpusTest, ManifestListsExistingFiles) {
  std::vector<std::string> files = CorpusHloFiles();
  EXPECT_GE(files.size(), 800u);
  for (const std::string& f : files) EXPECT_TRUE(fs::exists(kCorpus / f)) << f;
}

TEST_F(CorpusTest, EveryFileParsesExceptTheExpectedFailures) {
  std::map<std::string, ExpectedFailure> expected = ExpectedFailures();
  std::vector<std::string> files = CorpusHloFiles();
  int parsed = 0, failed = 0;
  int64_t modules = 0, instructions = 0;
  for (const std::string& f : files) {
    auto r = ParseHloFile((kCorpus / f).string());
    auto it = expected.find(f);
    if (it == expected.end()) {
      EXPECT_TRUE(r.ok()) << f << ":\n" << (r.ok() ? "" : r.error().Format());
      if (!r.ok()) continue;
      ++parsed;
      for (const auto& m : r->modules) {
        ++modules;
        instructions += m->instruction_count();
        EXPECT_NE(m->entry_computation(), nullptr) << f;
      }
      continue;
    }
    ++failed;
    EXPECT_FALSE(r.ok()) << f << " parses now; remove it from " << kExpectedFailures.filename();
    if (r.ok()) continue;
    EXPECT_EQ(r.error().line, it->second.line) << f << " (" << it->second.reason << "):\n"
                                               << r.error().Format();
  }
  // Every listed failure is a corpus file.
  for (const auto& [file, failure] : expected)
    EXPECT_NE(std::find(files.begin(), files.end(), file), files.end())
        << file << " is listed in " << kExpectedFailures.filename() << " but not in the manifest";
  EXPECT_EQ(failed, static_cast<int>(expected.size()));
  RecordProperty("files_parsed", parsed);
  RecordProperty("modules", static_cast<int>(modules));
  RecordProperty("instructions", static_cast<int>(instructions));
  EXPECT_GT(instructions, 10000);
}

// Prints every module, parses the text back and compares the IR; printing
// the reparsed module must give the same text again. Returns the number of
// modules checked.
int ExpectRoundTrip(const std::string& label, const std::string& path) {
  auto r = ParseHloFile(path);
  if (!r.ok()) return 0;  // covered by the parse test
  int checked = 0;
  for (size_t i = 0; i < r->modules.size(); ++i) {
    const HloModule& m = *r->modules[i];
    std::string printed = PrintModule(m);
    auto again = ParseHloText(printed);
    if (!again.ok()) {
      ADD_FAILURE() << label << " module " << i << ": printed text does not parse:\n"
                    << again.error().Format();
      continue;
    }
    if (again->modules.size() != 1) {
      ADD_FAILURE() << label << " module " << i << ": printed as " << again->modules.size() << " modules";
      continue;
    }
    std::string diff = testing::DiffModules(m, *again->modules[0]);
    EXPECT_EQ(diff, "") << label << " module " << i;
    EXPECT_EQ(PrintModule(*again->modules[0]), printed)
        << label << " module " << i << ": printing is not stable";
    ++checked;
  }
  return checked;
}

TEST_F(CorpusTest, PrintParseRoundTrip) {
  int modules = 0;
  for (const std::string& f : CorpusHloFiles()) modules += ExpectRoundTrip(f, (kCorpus / f).string());
  EXPECT_GT(modules, 1000);
  RecordProperty("modules_round_tripped", modules);
}

TEST(JaxFixturesTest, ParseAndRoundTrip) {
  fs::path dir = fs::path(HLOSCOPE_SOURCE_DIR) / "tests" / "fixtures" / "jax";
  if (!fs::exists(dir)) GTEST_SKIP() << "no fixtures at " << dir;
  int n = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    fs::path module = entry.path() / "module.hlo.txt";
    if (!fs::exists(module)) continue;
    ++n;
    auto r = ParseHloFile(module.string());
    ASSERT_TRUE(r.ok()) << r.error().Format();
    EXPECT_EQ(ExpectRoundTrip(entry.path().filename().string(), module.string()), 1);
  }
  EXPECT_GT(n, 0);
}

}  // namespace
}  // namespace hloscope
