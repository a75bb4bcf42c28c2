// `hloscope report` and `check --format sarif` as a user runs them: the
// page holds the answer, the loop picture, the annotated source and the
// tables, every internal link has its target, hostile strings from the
// input stay inert; SARIF results sit on the user's lines with the right
// rule and level. (tests/python/test_report_browser.py renders the pages
// in headless Chromium; test_sarif.py validates against the schema.)
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "run_cli.h"

namespace hloscope {
namespace {

namespace fs = std::filesystem;
const fs::path kRoot = fs::path(HLOSCOPE_SOURCE_DIR);
const std::string kExample = (kRoot / "examples/dumps/replay_rollout.cpu_after_optimizations.txt").string();

std::string Read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string AfterOptimizations(const fs::path& dir) {
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().ends_with("after_optimizations.txt")) return e.path().string();
  return "";
}

fs::path TempDir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("hloscope_report_test_" + name + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

TEST(Report, TheExamplesPageHasTheAnswerThePictureTheSourceAndTheTables) {
  fs::path out = TempDir("example") / "report.html";
  CliRun r = Cli({"report", kExample, "-o", out.string(), "--source-root", kRoot.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  std::string page = Read(out);
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  // The answer first: its lead, then the copy, then the growing loop.
  size_t headline =
      page.find("<p class=\"headline\">jit_rollout: 2 copies (copy.7, copy) copy f32[16384,128]");
  EXPECT_NE(page.find("In all: 2 copies (+4 scalar copies), 15.6 GiB moved per call"), std::string::npos);
  size_t picture = page.find("<svg");
  size_t source = page.find("Your source");
  size_t tables = page.find("<section class=\"copies\">");
  ASSERT_NE(headline, std::string::npos);
  EXPECT_LT(headline, picture);
  EXPECT_LT(picture, source);
  EXPECT_LT(source, tables);
  EXPECT_NE(page.find("and 1 more like it</b> (15.6 GiB per call together)"), std::string::npos);
  EXPECT_NE(page.find("2 confirmed</span>"), std::string::npos);
  // The picture marks the copied carry; the source line carries its bytes.
  EXPECT_NE(page.find("copied by copy.7 (8.0 MiB)"), std::string::npos);
  EXPECT_NE(page.find("buf.at[ptr].set(x)"), std::string::npos);
  EXPECT_NE(page.find("<td class=\"num\">15.6 GiB</td>"), std::string::npos);
  // Self-contained: nothing is fetched.
  EXPECT_EQ(page.find("src=\"http"), std::string::npos);
  EXPECT_EQ(page.find("href=\"http"), std::string::npos);
  fs::remove_all(out.parent_path());
}

TEST(Report, EveryInternalLinkHasItsTarget) {
  for (const std::string& input : {kExample, AfterOptimizations(kRoot / "tests/fixtures/diff/slow_1024"),
                                   (kRoot / "tests/fixtures/jax/nested_fori/module.hlo.txt").string()}) {
    CliRun r = Cli({"report", input});
    ASSERT_EQ(r.code, 0) << r.err;
    std::set<std::string> ids;
    std::regex id_re("id=\"([^\"]+)\"");
    for (std::sregex_iterator it(r.out.begin(), r.out.end(), id_re), end; it != end; ++it)
      ids.insert((*it)[1]);
    std::regex href_re("href=\"#([^\"]+)\"");
    size_t links = 0;
    for (std::sregex_iterator it(r.out.begin(), r.out.end(), href_re), end; it != end; ++it, ++links)
      EXPECT_TRUE(ids.count((*it)[1])) << input << ": no target for #" << (*it)[1];
    EXPECT_GT(links, 5u) << input;
  }
}

// A module whose metadata was written by someone hostile: markup in
// op_name and in a source path, a terminal escape.
fs::path HostileModule() {
  fs::path dir = TempDir("hostile");
  std::string hlo = Read(kRoot / "tests/fixtures/jax/loop_read_after_write/module.hlo.txt");
  auto replace_all = [&](const std::string& from, const std::string& to) {
    for (size_t p = hlo.find(from); p != std::string::npos; p = hlo.find(from, p + to.size()))
      hlo.replace(p, from.size(), to);
  };
  replace_all("\"/work/main/tools/fixture_programs/loops.py\"",
              "\"/tmp/<img src=x onerror=alert(1)>/\\\"><script>document.title='pwned'</script>.py\"");
  replace_all("jit(loop_read_after_write)/while/body",
              "jit(loop_read_after_write)/while/body/<svg onload=alert(2)>\\x1b[2J");
  std::ofstream(dir / "module.hlo.txt") << hlo;
  return dir / "module.hlo.txt";
}

TEST(Report, HostileStringsStayInertText) {
  fs::path input = HostileModule();
  CliRun r = Cli({"report", input.string(), "--no-buffer-assignment"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find("<img"), std::string::npos);
  EXPECT_EQ(r.out.find("<svg onload"), std::string::npos);
  EXPECT_EQ(r.out.find("<script>document"), std::string::npos);
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos);
  EXPECT_NE(r.out.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
  EXPECT_NE(r.out.find("&lt;svg onload=alert(2)&gt;\\x1b[2J/closed_call/scatter"), std::string::npos);
  fs::remove_all(input.parent_path());
}

TEST(Report, ErrorsAreDiagnosticsWithExitTwo) {
  CliRun unwritable = Cli({"report", kExample, "-o", "/nonexistent-dir/r.html"});
  EXPECT_EQ(unwritable.code, 2);
  EXPECT_EQ(unwritable.err.rfind("hloscope report: cannot write /nonexistent-dir/r.html: ", 0), 0u)
      << unwritable.err;
  CliRun scope = Cli({"report", kExample, "--scope", "no_such_scope"});
  EXPECT_EQ(scope.code, 2);
  EXPECT_NE(scope.err.find("no_such_scope"), std::string::npos) << scope.err;
  CliRun missing = Cli({"report", "/nonexistent.hlo"});
  EXPECT_EQ(missing.code, 2);
}

nlohmann::json Sarif(const std::vector<std::string>& args) {
  CliRun r = Cli(args);
  EXPECT_EQ(r.code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(Sarif, TheRingBuffersCopiesAreWarningsOnTheUsersLine) {
  nlohmann::json doc =
      Sarif({"check", AfterOptimizations(kRoot / "tests/fixtures/diff/slow_1024"), "--format", "sarif"});
  EXPECT_EQ(doc["version"], "2.1.0");
  const nlohmann::json& results = doc["runs"][0]["results"];
  ASSERT_EQ(results.size(), 2u);
  for (const nlohmann::json& res : results) {
    EXPECT_EQ(res["ruleId"], "copy/read-after-update");
    EXPECT_EQ(res["level"], "warning");
    const nlohmann::json& loc = res["locations"][0]["physicalLocation"];
    EXPECT_TRUE(
        loc["artifactLocation"]["uri"].get<std::string>().ends_with("tools/fixture_programs/ring_buffer.py"));
    EXPECT_EQ(loc["region"]["startLine"], 19);
    EXPECT_NE(res["message"]["text"].get<std::string>().find(" Fix: carry the value you need"),
              std::string::npos);
    const nlohmann::json& rule = doc["runs"][0]["tool"]["driver"]["rules"][res["ruleIndex"].get<size_t>()];
    EXPECT_EQ(rule["id"], res["ruleId"]);
  }
  EXPECT_NE(results[0]["partialFingerprints"], results[1]["partialFingerprints"]);
}

TEST(Sarif, TheFixedRingBufferHasOnlyNotes) {
  nlohmann::json doc =
      Sarif({"check", AfterOptimizations(kRoot / "tests/fixtures/diff/fixed_1024"), "--format", "sarif"});
  for (const nlohmann::json& res : doc["runs"][0]["results"]) EXPECT_EQ(res["level"], "note") << res.dump();
}

TEST(Sarif, SarifRootMakesPathsRelativeToTheRepository) {
  nlohmann::json doc = Sarif({"check", AfterOptimizations(kRoot / "tests/fixtures/diff/slow_1024"),
                              "--format", "sarif", "--sarif-root", "/work/main"});
  const nlohmann::json& art =
      doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
  EXPECT_EQ(art["uri"], "tools/fixture_programs/ring_buffer.py");
  EXPECT_EQ(art["uriBaseId"], "SRCROOT");
  EXPECT_EQ(doc["runs"][0]["originalUriBaseIds"]["SRCROOT"]["uri"], "file:///work/main/");
}

// A module someone sends you may name "ROOT/../../etc/x.py": its uri is
// not made relative to SRCROOT (it would climb out of the repository).
TEST(Sarif, AUriNeverClimbsOutOfTheSourceRoot) {
  std::filesystem::path file = std::filesystem::temp_directory_path() / "hloscope_sarif_climb.hlo";
  std::ofstream(file) << "HloModule m\nENTRY %e (p: f32[1024], i: s32[]) -> f32[1024] {\n"
                         "  %p = f32[1024]{0} parameter(0)\n  %i = s32[] parameter(1)\n"
                         "  %cp = f32[1024]{0} copy(%p)\n  %c = f32[1]{0} constant({1})\n"
                         "  ROOT %d = f32[1024]{0} dynamic-update-slice(%cp, %c, %i), "
                         "metadata={source_file=\"/work/main/../../etc/x.py\" source_line=3}\n}\n";
  nlohmann::json doc = Sarif(
      {"check", file.string(), "--format", "sarif", "--sarif-root", "/work/main", "--allow-unoptimized"});
  std::filesystem::remove(file);
  ASSERT_FALSE(doc["runs"][0]["results"].empty()) << doc.dump();
  for (const nlohmann::json& res : doc["runs"][0]["results"])
    for (const nlohmann::json& loc : res["locations"]) {
      const nlohmann::json& art = loc["physicalLocation"]["artifactLocation"];
      EXPECT_FALSE(art.contains("uriBaseId")) << art.dump();
      EXPECT_EQ(art["uri"].get<std::string>().find(".."), std::string::npos) << art.dump();
    }
}

TEST(Sarif, NonDonatedArgumentsAreWarningsOutsideLoopsToo) {
  nlohmann::json doc =
      Sarif({"check", (kRoot / "tests/fixtures/jax/at_set_not_donated/module.hlo.txt").string(), "--format",
             "sarif"});
  const nlohmann::json& results = doc["runs"][0]["results"];
  ASSERT_FALSE(results.empty());
  EXPECT_EQ(results[0]["ruleId"], "copy/non-donated-parameter");
  EXPECT_EQ(results[0]["level"], "warning");
}

}  // namespace
}  // namespace hloscope
