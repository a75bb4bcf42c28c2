// RunCli in-process: exit codes, messages, the Session's buffer-assignment
// rules and shared flags, as a user sees them.
#include "hloscope/app/cli.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "hloscope/app/session.h"
#include "run_cli.h"

namespace hloscope {
namespace {

namespace fs = std::filesystem;
const fs::path kFixtures = fs::path(HLOSCOPE_SOURCE_DIR) / "tests" / "fixtures" / "jax";

std::string Fixture(const std::string& name) { return (kFixtures / name / "module.hlo.txt").string(); }

fs::path TempFile(const std::string& name, const std::string& text) {
  fs::path p = fs::temp_directory_path() / ("hloscope_cli_test_" + name);
  std::ofstream(p) << text;
  return p;
}

TEST(CliTest, ExitCodes) {
  EXPECT_EQ(Cli({"check", Fixture("loop_dus_donated")}).code, 0);
  EXPECT_EQ(Cli({"check", Fixture("loop_read_after_write"), "--fail-on-copies-in-loops"}).code, 1);
  CliRun usage = Cli({"check"});
  EXPECT_EQ(usage.code, 2);
  EXPECT_NE(usage.err.find("FILE is required"), std::string::npos) << usage.err;
  CliRun missing = Cli({"check", "/nonexistent.txt"});
  EXPECT_EQ(missing.code, 2);
  EXPECT_EQ(missing.err.rfind("/nonexistent.txt: error: cannot open file", 0), 0u) << missing.err;
  EXPECT_EQ(Cli({"frobnicate"}).code, 2);
  CliRun version = Cli({"--version"});
  EXPECT_EQ(version.code, 0);
  EXPECT_EQ(version.out.rfind("hloscope ", 0), 0u);
  CliRun bad_line = Cli({"check", Fixture("loop_dus_donated"), "--line", "train.py:9-3"});
  EXPECT_EQ(bad_line.code, 2);
  EXPECT_NE(bad_line.err.find("--line train.py:9-3"), std::string::npos) << bad_line.err;
}

// A correctly donated fori_loop copies only its 4-byte counter each
// iteration: the loop gates pass, as assert_inplace does, unless scalar
// copies are asked for — and then only the small-copies gate fails on it.
TEST(CliTest, ScalarLoopCounterCopiesCountOnlyWhenAskedFor) {
  EXPECT_EQ(Cli({"check", Fixture("loop_dus_donated"), "--fail-on-copies-in-loops"}).code, 0);
  EXPECT_EQ(Cli({"check", Fixture("loop_dus_donated"), "--max-copies-in-loops", "0"}).code, 0);
  EXPECT_EQ(
      Cli({"check", Fixture("loop_dus_donated"), "--fail-on-copies-in-loops", "--count-scalar-copies"}).code,
      0);
  CliRun scalars = Cli(
      {"check", Fixture("loop_dus_donated"), "--fail-on", "small-copies-in-loops", "--count-scalar-copies"});
  EXPECT_EQ(scalars.code, 1);
  EXPECT_NE(scalars.err.find("copy.3 s32[] inside while.3 moves 4 B × 100 = 400 B per call"),
            std::string::npos)
      << scalars.err;
}

TEST(CliTest, EveryAnalysisCommandFindsTheBufferAssignmentBesideTheDump) {
  for (const char* cmd : {"check", "fusions", "annotate", "explain"}) {
    CliRun r = Cli({cmd, Fixture("loop_dus_not_donated"), "--format", "json"});
    ASSERT_EQ(r.code, 0) << cmd << r.err;
    std::string s = r.out;
    if (std::string(cmd) == "check") {
      nlohmann::json j = nlohmann::json::parse(s);
      EXPECT_FALSE(j["modules"][0]["buffer_assignment"].is_null());
      EXPECT_EQ(j["modules"][0]["updates"][0]["confirmed"], true);
    }
  }
  CliRun off = Cli({"check", Fixture("loop_dus_not_donated"), "--format", "json", "--no-buffer-assignment"});
  nlohmann::json j = nlohmann::json::parse(off.out);
  EXPECT_TRUE(j["modules"][0]["buffer_assignment"].is_null());
  EXPECT_TRUE(j["modules"][0]["updates"][0]["confirmed"].is_null());
}

TEST(CliTest, ExplainReportsAmbiguousNames) {
  fs::path p = TempFile("ambiguous.hlo", R"(HloModule m
%body (t: (s32[])) -> (s32[]) {
  %t = (s32[]) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  ROOT %r = (s32[]) tuple(%i)
}
%cond (t: (s32[])) -> pred[] {
  %t = (s32[]) parameter(0)
  ROOT %p = pred[] constant(false)
}
ENTRY %main (x: s32[]) -> (s32[]) {
  %x = s32[] parameter(0)
  %init = (s32[]) tuple(%x)
  ROOT %w = (s32[]) while(%init), condition=%cond, body=%body
}
)");
  CliRun amb = Cli({"explain", p.string(), "t"});
  EXPECT_EQ(amb.code, 2);
  EXPECT_EQ(amb.err, "hloscope explain: 't' is ambiguous in m: body/t, cond/t (write COMPUTATION/NAME)\n");
  CliRun one = Cli({"explain", p.string(), "cond/t"});
  EXPECT_EQ(one.code, 0) << one.err;
  EXPECT_NE(one.out.find("computation cond (while condition)"), std::string::npos) << one.out;
  CliRun none = Cli({"explain", p.string(), "zz"});
  EXPECT_EQ(none.code, 2);
  EXPECT_EQ(none.err, "hloscope explain: no instruction or computation named 'zz' in " + p.string() + "\n");
  fs::remove(p);
}

TEST(CliTest, ABufferAssignmentIsAppliedOnlyToASingleModule) {
  std::ifstream in(Fixture("loop_dus_not_donated"));
  std::stringstream text;
  text << in.rdbuf();
  SessionRequest one;
  one.path = "one.hlo";
  one.text = text.str();
  one.buffer_assignment_path = (kFixtures / "loop_dus_not_donated" / "buffer-assignment.txt").string();
  auto s1 = Session::Open(one);
  ASSERT_TRUE(s1.ok()) << s1.error().Format();
  EXPECT_EQ((*s1)->buffer_assignment_path(), one.buffer_assignment_path);
  EXPECT_FALSE((*s1)->buffer_assignment_ignored());
  SessionRequest two = one;
  two.text = text.str() + "\n// -----\n" + text.str();
  auto s2 = Session::Open(two);
  ASSERT_TRUE(s2.ok()) << s2.error().Format();
  EXPECT_EQ((*s2)->module_count(), 2u);
  EXPECT_EQ((*s2)->buffer_assignment_path(), "");
  EXPECT_TRUE((*s2)->buffer_assignment_ignored());
  EXPECT_FALSE((*s2)->Checks()[0]->updates[0].confirmation.confirmed.has_value());
}

}  // namespace
}  // namespace hloscope

namespace hloscope {
namespace {

// A donated fori_loop that updates in place passes every gate at once.
TEST(CliTest, ADonatedInPlaceLoopPassesEveryGate) {
  CliRun r = Cli({"check", Fixture("loop_dus_donated"), "--fail-on-copies-in-loops", "--fail-on-out-of-place",
                  "--fail-on-contradiction", "--max-copy-bytes", "0", "--max-copies", "0",
                  "--max-copies-in-loops", "0", "--max-copy-bytes-in-loops", "0"});
  EXPECT_EQ(r.code, 0) << r.err;
}

// --min-bytes: copies moving fewer bytes per call do not count.
TEST(CliTest, MinBytesIgnoresSmallCopies) {
  // loop_read_after_write copies its 4 KiB buffer 100 times per call (400 KiB).
  EXPECT_EQ(Cli({"check", Fixture("loop_read_after_write"), "--fail-on-copies-in-loops"}).code, 1);
  EXPECT_EQ(
      Cli({"check", Fixture("loop_read_after_write"), "--fail-on-copies-in-loops", "--min-bytes", "409600"})
          .code,
      1);
  EXPECT_EQ(
      Cli({"check", Fixture("loop_read_after_write"), "--fail-on-copies-in-loops", "--min-bytes", "409601"})
          .code,
      0);
}

}  // namespace
}  // namespace hloscope

namespace hloscope {
namespace {

// explain takes a computation's name: its role, who calls it, what it does.
TEST(CliTest, ExplainAComputationSaysWhoCallsIt) {
  CliRun r = Cli({"explain", Fixture("loop_dus_donated"), "region_0.3.clone.clone.clone"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("computation region_0.3.clone.clone.clone (while body)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("calls it as its loop body"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("carry 1 (buf) f32[1024]{0}: from argument 0 (buf); updated by "
                       "select_dynamic-update-slice_fusion"),
            std::string::npos)
      << r.out;
  CliRun json =
      Cli({"explain", Fixture("loop_dus_donated"), "%region_0.3.clone.clone.clone", "--format", "json"});
  ASSERT_EQ(json.code, 0) << json.err;
  nlohmann::json doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["modules"][0]["explanation"]["computation"], "region_0.3.clone.clone.clone");
  EXPECT_TRUE(doc["modules"][0]["explanation"]["instruction"].is_null());
}

}  // namespace
}  // namespace hloscope
