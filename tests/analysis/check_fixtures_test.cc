// Every JAX fixture (tests/fixtures/jax and the GPU/TPU tests/fixtures/jax-*,
// compiled by tools/gen_fixtures.py):
// each update verdict is confirmed by XLA's buffer assignment, every copy
// has bytes and a cause, and executions are known wherever the loops'
// trip counts are. tests/python/test_check_vs_oracle.py additionally
// compares against an independent oracle.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>

#include "check_test_util.h"
#include "hloscope/analysis/check.h"
#include "hloscope/parser/buffer_assignment.h"
#include "hloscope/parser/parser.h"
#include "hloscope/report/enum_names.h"
#include "hloscope/report/wording.h"

namespace hloscope {
namespace {

namespace fs = std::filesystem;

// "jax/NAME" for the CPU fixtures, "jax-tpu-v5e/NAME", "jax-gpu-h100/NAME"…
// for the compile-only GPU and TPU ones (tools/gen_fixtures.py --target).
std::vector<std::string> FixtureNames() {
  std::vector<std::string> names;
  fs::path root = fs::path(HLOSCOPE_SOURCE_DIR) / "tests/fixtures";
  std::error_code ec;
  for (const auto& set : fs::directory_iterator(root, ec)) {
    std::string set_name = set.path().filename();
    if (set_name != "jax" && set_name.rfind("jax-", 0) != 0) continue;
    for (const auto& e : fs::directory_iterator(set.path(), ec))
      if (fs::exists(e.path() / "buffer-assignment.txt"))
        names.push_back(set_name + "/" + e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

class FixtureTest : public ::testing::TestWithParam<std::string> {};

TEST_P(FixtureTest, VerdictsConfirmedByBufferAssignment) {
  fs::path dir = fs::path(HLOSCOPE_SOURCE_DIR) / "tests/fixtures" / GetParam();
  auto group = ParseHloFile((dir / "module.hlo.txt").string());
  ASSERT_TRUE(group.ok()) << group.error().Format();
  auto ba = ReadBufferAssignmentFile((dir / "buffer-assignment.txt").string());
  ASSERT_TRUE(ba.ok()) << ba.error().Format();
  CheckOptions options;
  options.buffer_assignment = &ba.value();
  ModuleCheck check = testing::Check(*group->modules[0], options);
  EXPECT_TRUE(check.buffer_assignment_applied) << check.buffer_assignment_mismatch.value_or("");
  for (const UpdateFinding& u : check.updates) {
    EXPECT_EQ(u.confirmation.confirmed, std::optional<bool>(true))
        << UpdateLabel(u.site) << " " << UpdateVerdictName(u.verdict) << ": " << ConfirmationText(u);
  }
  for (const CopyFinding& c : check.copies) {
    EXPECT_TRUE(c.bytes.has_value()) << c.instruction()->name();
    EXPECT_NE(c.cause.cause, CopyCause::kUnknown) << c.instruction()->name() << ": " << CauseDetail(c);
    bool loops_known = true;
    for (const LoopFinding& l : check.loops)
      if (std::find(c.enclosing_loops.begin(), c.enclosing_loops.end(), l.loop) != c.enclosing_loops.end() &&
          !l.trip_count)
        loops_known = false;
    if (loops_known) {
      EXPECT_TRUE(c.executions.has_value()) << c.instruction()->name();
    }
  }
  // Every "carry rewritten in full" claim: XLA keeps the rewriting value
  // in the carry's own slice.
  for (const LoopFinding& l : check.loops)
    for (const LoopScaling& sc : l.scaling)
      if (sc.kind == LoopScaling::Kind::kCarryRewritten) {
        EXPECT_EQ(sc.confirmation.confirmed, std::optional<bool>(true))
            << l.loop->name() << " carry " << sc.carry << " rewritten by " << PositionText(sc.rewritten_by);
      }
  for (const LoopFinding& l : check.loops) {
    if (l.trip_count && l.enclosing_loops.empty()) {
      EXPECT_TRUE(l.executions.has_value()) << l.loop->name();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Jax, FixtureTest, ::testing::ValuesIn(FixtureNames()), [](const auto& info) {
  std::string name = info.param;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
});

}  // namespace
}  // namespace hloscope
