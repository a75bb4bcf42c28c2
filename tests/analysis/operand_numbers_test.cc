// OperandNumbers finds where a value sits among a wide user's operands
// without scanning them; UsesOf with it must give exactly the uses the
// plain scan gives, on hand-written wide users and on every fixture.
#include "hloscope/analysis/operand_numbers.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "check_test_util.h"
#include "hloscope/analysis/dataflow.h"
#include "hloscope/ir/name_index.h"
#include "hloscope/parser/parser.h"

namespace hloscope::testing {
namespace {

// %a is operand 3 and 17 of a 20-wide tuple, and 0 of a narrow add.
constexpr char kWide[] = R"(
HloModule m
ENTRY %main (a: f32[4], b: f32[4]) -> ((f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4]), f32[4]) {
  %a = f32[4]{0} parameter(0)
  %b = f32[4]{0} parameter(1)
  %s = f32[4]{0} add(%a, %b)
  %w = (f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4]) tuple(%b, %b, %b, %a, %b, %b, %b, %b, %b, %b, %b, %b, %b, %b, %b, %b, %b, %a, %b, %s)
  ROOT %r = ((f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4]), f32[4]) tuple(%w, %s)
}
)";

std::vector<int64_t> NumbersOf(OperandNumbers& numbers, const HloInstruction* user,
                               const HloInstruction* operand) {
  std::vector<int64_t> out;
  numbers.ForEach(user, operand, [&](int64_t k) { out.push_back(k); });
  return out;
}

std::string Describe(const std::vector<HloUse>& uses) {
  std::string out;
  for (const HloUse& u : uses) {
    out += std::string(u.user->name()) + "#" + std::to_string(u.operand_number) + "{";
    for (int64_t i : u.operand_index) out += std::to_string(i) + ",";
    out += "} ";
  }
  return out;
}

TEST(OperandNumbersTest, FindsEveryPositionInWideAndNarrowUsers) {
  std::unique_ptr<HloModule> m = ParseOne(kWide);
  const HloNameIndex& names = m->names();
  const HloInstruction* a = names.UniqueInstructionNamed("a");
  const HloInstruction* b = names.UniqueInstructionNamed("b");
  const HloInstruction* s = names.UniqueInstructionNamed("s");
  const HloInstruction* w = names.UniqueInstructionNamed("w");
  OperandNumbers numbers;
  EXPECT_EQ(NumbersOf(numbers, w, a), (std::vector<int64_t>{3, 17}));
  EXPECT_EQ(NumbersOf(numbers, w, s), (std::vector<int64_t>{19}));
  EXPECT_EQ(NumbersOf(numbers, w, b).size(), 17u);
  EXPECT_EQ(NumbersOf(numbers, s, a), (std::vector<int64_t>{0}));
  EXPECT_EQ(NumbersOf(numbers, s, b), (std::vector<int64_t>{1}));
  EXPECT_TRUE(NumbersOf(numbers, w, w).empty());
  // Asked again (the index is built on the first call): the same answer.
  EXPECT_EQ(NumbersOf(numbers, w, a), (std::vector<int64_t>{3, 17}));
  // The uses through the wide tuple to the root are the same either way.
  EXPECT_EQ(Describe(UsesOf({a, {}}, &numbers)), Describe(UsesOf({a, {}})));
  EXPECT_NE(Describe(UsesOf({a, {}})), "");
}

TEST(OperandNumbersTest, UsesAreTheScansOnEveryFixture) {
  namespace fs = std::filesystem;
  int modules = 0, wide = 0;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(HLOSCOPE_SOURCE_DIR) / "tests/fixtures")) {
    if (e.path().filename() != "module.hlo.txt") continue;
    auto group = ParseHloFile(e.path().string());
    if (!group.ok()) continue;
    ++modules;
    OperandNumbers numbers;
    for (const auto& module : group->modules)
      for (const HloComputation* comp : module->computations())
        for (const HloInstruction* instr : comp->instructions()) {
          wide += instr->operand_count() > 16;
          ASSERT_EQ(Describe(UsesOf({instr, {}}, &numbers)), Describe(UsesOf({instr, {}})))
              << e.path().string() << " " << instr->name();
        }
  }
  EXPECT_GE(modules, 300);
  EXPECT_GT(wide, 0);  // sharded train steps' fusions read 17 operands
}

}  // namespace
}  // namespace hloscope::testing
