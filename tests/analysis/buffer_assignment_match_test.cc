// A buffer-assignment dump of another module is not applied: every fixture
// accepts its own dump, and for every pair of CPU fixtures another's dump is
// either refused, with the reason, or gives exactly the confirmations the
// module's own dump gives (tiny programs that differ only in donation have
// dumps that cannot be told apart, and need not be).
#include "hloscope/analysis/buffer_assignment_match.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "check_test_util.h"
#include "hloscope/analysis/check.h"
#include "hloscope/parser/parser.h"
#include "hloscope/report/wording.h"

namespace hloscope {
namespace {

namespace fs = std::filesystem;

struct Fixture {
  std::string name;
  HloModuleGroup group;
  BufferAssignment ba;
};

std::vector<Fixture> Load(const std::string& set) {
  std::vector<Fixture> out;
  fs::path root = fs::path(HLOSCOPE_SOURCE_DIR) / "tests/fixtures" / set;
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(root))
    if (fs::exists(e.path() / "buffer-assignment.txt")) dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  for (const fs::path& d : dirs) {
    auto group = ParseHloFile((d / "module.hlo.txt").string());
    auto ba = ReadBufferAssignmentFile((d / "buffer-assignment.txt").string());
    if (!group.ok() || !ba.ok()) continue;
    out.push_back({d.filename().string(), std::move(group).value(), std::move(ba).value()});
  }
  return out;
}

std::vector<std::optional<bool>> Confirmations(const HloModule& m, const BufferAssignment& ba) {
  CheckOptions options;
  options.buffer_assignment = &ba;
  ModuleCheck c = testing::Check(m, options);
  std::vector<std::optional<bool>> out;
  for (const UpdateFinding& u : c.updates)
    out.push_back(c.buffer_assignment_applied ? u.confirmation.confirmed : std::nullopt);
  return out;
}

TEST(BufferAssignmentMatchTest, EveryFixtureAcceptsItsOwnDump) {
  for (const char* set : {"jax", "jax-gpu-h100", "jax-tpu-v5e", "jax-cpu.jax0.12.0.1",
                          "jax-gpu-h100.jax0.12.0.1", "jax-tpu-v5e.jax0.12.0.1"}) {
    std::vector<Fixture> fixtures = Load(set);
    EXPECT_GE(fixtures.size(), 50u) << set;
    for (const Fixture& f : fixtures)
      EXPECT_EQ(ForeignBufferAssignment(f.ba, *f.group.modules[0]), std::nullopt) << set << "/" << f.name;
  }
}

TEST(BufferAssignmentMatchTest, AnotherModulesDumpIsRefusedOrHarmless) {
  std::vector<Fixture> fixtures = Load("jax");
  int refused = 0, accepted = 0;
  for (const Fixture& a : fixtures) {
    const HloModule& m = *a.group.modules[0];
    std::vector<std::optional<bool>> own = Confirmations(m, a.ba);
    for (const Fixture& b : fixtures) {
      if (&a == &b) continue;
      if (ForeignBufferAssignment(b.ba, m)) {
        ++refused;
        continue;
      }
      ++accepted;
      // Where it lists what a verdict compares, the same answer as the own dump.
      std::vector<std::optional<bool>> theirs = Confirmations(m, b.ba);
      ASSERT_EQ(theirs.size(), own.size());
      for (size_t i = 0; i < own.size(); ++i)
        if (theirs[i].has_value()) {
          EXPECT_EQ(theirs[i], own[i]) << a.name << " checked with " << b.name << "'s dump";
        }
    }
  }
  RecordProperty("refused", refused);
  RecordProperty("accepted", accepted);
  EXPECT_GT(refused, 20 * accepted);  // measured: 3,071 of the 3,080 pairs refused, 9 accepted
}

TEST(BufferAssignmentMatchTest, TheReasonNamesWhatDiffers) {
  std::vector<Fixture> fixtures = Load("jax");
  auto find = [&](std::string_view name) -> const Fixture& {
    for (const Fixture& f : fixtures)
      if (f.name == name) return f;
    ADD_FAILURE() << name;
    return fixtures.front();
  };
  const Fixture& loop = find("loop_dus_donated");
  EXPECT_EQ(ForeignBufferAssignment(find("loop_read_after_write").ba, *loop.group.modules[0]),
            "it lists copy, which this module does not have");
  CheckOptions options;
  options.buffer_assignment = &find("loop_read_after_write").ba;
  options.buffer_assignment_path = "other-buffer-assignment.txt";
  ModuleCheck c = testing::Check(*loop.group.modules[0], options);
  EXPECT_FALSE(c.buffer_assignment_applied);
  ASSERT_TRUE(c.buffer_assignment_mismatch.has_value());
  for (const UpdateFinding& u : c.updates) EXPECT_EQ(u.confirmation.confirmed, std::nullopt);
}

}  // namespace
}  // namespace hloscope
