// The loop picture's graph on real programs: the ring buffer's copied
// carry is marked on its row with the copies that copy it, the fixed
// program marks no carry as growing, nested loops hang under their outer
// loop with how often they run per outer iteration.
#include "hloscope/report/loop_graph.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "hloscope/app/session.h"
#include "hloscope/support/graphviz.h"

namespace hloscope {
namespace {

namespace fs = std::filesystem;
const fs::path kFixtures = fs::path(HLOSCOPE_SOURCE_DIR) / "tests" / "fixtures";

std::string AfterOptimizations(const fs::path& dir) {
  for (const auto& e : fs::directory_iterator(dir)) {
    std::string f = e.path().filename().string();
    if (f.ends_with("after_optimizations.txt")) return e.path().string();
  }
  return "";
}

std::unique_ptr<Session> Open(const std::string& path) {
  SessionRequest r;
  r.path = path;
  auto s = Session::Open(r);
  EXPECT_TRUE(s.ok()) << path;
  return s.ok() ? std::move(*s) : nullptr;
}

TEST(LoopGraph, TheRingBuffersCopiedCarryIsMarkedOnItsRow) {
  auto s = Open(AfterOptimizations(kFixtures / "diff" / "slow_1024"));
  ASSERT_TRUE(s);
  const ModuleCheck& m = s->Analysis(0).check;
  std::string dot = LoopGraphDot(m, {});
  // Carry 1 (the ring, argument 0) is copied twice per iteration and grows.
  EXPECT_NE(dot.find("copied by copy.7 (256.0 KiB)"), std::string::npos) << dot;
  EXPECT_NE(dot.find("grows with the buffer"), std::string::npos);
  EXPECT_NE(dot.find("grows with buffer size"), std::string::npos);
  EXPECT_NE(dot.find("50 iterations"), std::string::npos);
  EXPECT_NE(dot.find("entry -> loop0 [label=\" 1× per call\"]"), std::string::npos);
  EXPECT_NE(dot.find("href=\"#m0-copy-0\""), std::string::npos);
  SvgResult svg = RenderDotToSvg(dot);
  ASSERT_TRUE(svg.ok()) << svg.error;
  EXPECT_NE(svg.svg.find("copied by copy.7"), std::string::npos);
}

TEST(LoopGraph, TheFixedRingBufferGrowsNothing) {
  auto s = Open(AfterOptimizations(kFixtures / "diff" / "fixed_1024"));
  ASSERT_TRUE(s);
  std::string dot = LoopGraphDot(s->Analysis(0).check, {});
  EXPECT_EQ(dot.find("grows with"), std::string::npos) << dot;
  // Its 256 B carried row is still a copy, marked on its carry.
  EXPECT_NE(dot.find("copied by copy"), std::string::npos) << dot;
}

TEST(LoopGraph, NestedLoopsHangUnderTheirOuterLoop) {
  auto s = Open((kFixtures / "jax" / "nested_fori" / "module.hlo.txt").string());
  ASSERT_TRUE(s);
  const ModuleCheck& m = s->Analysis(0).check;
  ASSERT_GE(m.loops.size(), 2u);
  std::string dot = LoopGraphDot(m, {});
  EXPECT_NE(dot.find("× per iteration\"]"), std::string::npos) << dot;
  EXPECT_TRUE(RenderDotToSvg(dot).ok());
}

TEST(LoopGraph, ManyCarriesAreCounted) {
  auto s = Open(AfterOptimizations(kFixtures / "diff" / "slow_1024"));
  ASSERT_TRUE(s);
  LoopGraphOptions options;
  options.max_carries = 1;
  std::string dot = LoopGraphDot(s->Analysis(0).check, options);
  EXPECT_NE(dot.find("more carries, nothing copied or rewritten"), std::string::npos) << dot;
}

}  // namespace
}  // namespace hloscope
