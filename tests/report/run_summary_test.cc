// The `hloscope run` summary from real compilations: the ring buffer that
// copies every step is the first row with its line and bytes, the fixed
// one breaks no gate, functions with nothing to report share one line,
// and the filter's threshold decides what --warn and --fail count.
#include "hloscope/report/run_summary.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "hloscope/app/session.h"

namespace hloscope {
namespace {

namespace fs = std::filesystem;
const fs::path kDiff = fs::path(HLOSCOPE_SOURCE_DIR) / "tests" / "fixtures" / "diff";

RunRecord Summarize(const std::string& dir, int64_t min_bytes, GateSet gate_set = DefaultGates()) {
  std::string path;
  for (const auto& e : fs::directory_iterator(kDiff / dir))
    if (e.path().filename().string().ends_with("after_optimizations.txt")) path = e.path().string();
  SessionRequest r;
  r.path = path;
  auto s = Session::Open(r);
  EXPECT_TRUE(s.ok()) << path;
  GateOptions gates;
  gates.gates = gate_set;
  FindingFilter filter;
  filter.min_bytes = min_bytes;
  return SummarizeRun((*s)->Analysis(0).check, fs::path(path).filename().string(), gates, filter);
}

TEST(RunSummary, TheCopyingRingBufferBreaksTheBudgetOnItsLine) {
  RunRecord slow = Summarize("slow_1024", 1 << 20);
  EXPECT_EQ(slow.function, "rollout_slow");
  EXPECT_EQ(slow.where, "fixture_programs/ring_buffer.py:19");
  EXPECT_EQ(slow.bytes_per_call, 2 * 50 * 1024 * 64 * 4);
  EXPECT_EQ(slow.growing_loops, 1);
  ASSERT_EQ(slow.problems.size(), 2u);
  EXPECT_EQ(slow.problems[0].rfind(
                "copy in a loop: copy.7 f32[1024,64]{1,0} 256.0 KiB × 50 = 12.5 MiB per call", 0),
            0u)
      << slow.problems[0];
  EXPECT_TRUE(slow.buffer_assignment);
  EXPECT_NE(slow.report.find("cause: read-after-update"), std::string::npos);
  EXPECT_EQ(
      RunWarning(slow).rfind("hloscope: warning: rollout_slow at fixture_programs/ring_buffer.py:19 (", 0),
      0u);
}

TEST(RunSummary, TheFixedRingBufferBreaksNoBudgetAboveItsCarriedRow) {
  // Its 256 B carried row is still copied every step: 12.5 KiB per call —
  // loop state under 4 KiB that does not grow with the buffer, which only
  // the strict preset fails on (small-copies-in-loops).
  EXPECT_TRUE(Summarize("fixed_1024", 1 << 20).problems.empty());
  EXPECT_TRUE(Summarize("fixed_1024", 1).problems.empty());
  RunRecord strict = Summarize("fixed_1024", 1, *GatesNamed("strict"));
  ASSERT_EQ(strict.problems.size(), 2u) << testing::PrintToString(strict.problems);  // lines 41 and 42
  for (const std::string& p : strict.problems) {
    EXPECT_EQ(p.rfind("copy in a loop: ", 0), 0u) << p;
    EXPECT_NE(p.find("f32[64]{0} 256 B × 50 = 12.5 KiB per call — loop-carried-live"), std::string::npos)
        << p;
  }
}

TEST(RunSummary, TheWorstFunctionComesFirstAndQuietOnesShareALine) {
  std::vector<RunRecord> records = {Summarize("fixed_1024", 1 << 20), Summarize("slow_1024", 1 << 20),
                                    Summarize("slow_2048", 1 << 20)};
  RunRecord quiet;
  quiet.module = quiet.function = "jit_clean";
  quiet.function = "clean";
  quiet.signature = "(f32[4]) -> f32[4]";
  records.push_back(quiet);
  std::ostringstream out;
  RenderRunSummary(records, {}, out);
  std::string text = out.str();
  EXPECT_NE(text.find("hloscope run: 4 compilations of 3 functions checked"), std::string::npos) << text;
  size_t slow = text.find("  rollout_slow ");
  size_t fixed = text.find("  rollout_fixed ");
  ASSERT_NE(slow, std::string::npos);
  EXPECT_LT(slow, fixed);
  // Two compilations of rollout_slow: the larger one's bytes, both signatures.
  EXPECT_NE(text.find("25.0 MiB"), std::string::npos);
  EXPECT_NE(text.find("(f32[1024,64], f32[50,64]) -> (f32[1024,64], f32[50]); (f32[2048,64]"),
            std::string::npos);
  EXPECT_NE(text.find("+ 1 function with no array copy and every update in place: clean"), std::string::npos);
  Json doc = RunJson(records, {"python", "train.py"}, 0);
  EXPECT_EQ(doc["functions"][0]["function"], "rollout_slow");
  EXPECT_EQ(doc["functions"][0]["compilations"], 2);
  EXPECT_EQ(doc["compilations"].size(), 4u);
}

}  // namespace
}  // namespace hloscope
