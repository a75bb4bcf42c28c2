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

// n temporaries packed into one tuple and read back by n
// get-tuple-elements (tools/gen_hostile_bounds.py tuple-fanout): each
// temporary's walk meets only its own reader, so walking all of them meets
// O(n) users, not n^2 (the memory analysis walks every temporary).
TEST(OperandNumbersTest, TupleFanOutIsLinear) {
  constexpr int kN = 2000;
  std::string text = "HloModule m\nENTRY %main (p: f32[]) -> f32[] {\n  %p = f32[] parameter(0)\n";
  std::string shape = "(", operands;
  for (int i = 0; i < kN; ++i) {
    text += "  %t." + std::to_string(i) + " = f32[] negate(%p)\n";
    shape += std::string(i ? ", " : "") + "f32[]";
    operands += std::string(i ? ", " : "") + "%t." + std::to_string(i);
  }
  text += "  %tup = " + shape + ") tuple(" + operands + ")\n";
  for (int i = 0; i < kN; ++i)
    text +=
        "  %g." + std::to_string(i) + " = f32[] get-tuple-element(%tup), index=" + std::to_string(i) + "\n";
  text += "  %x = f32[] custom-call(%tup), custom_call_target=\"whole\"\n";
  text += "  ROOT %r = f32[] add(%g.0, %x)\n}\n";
  std::unique_ptr<HloModule> m = ParseOne(text);
  const HloNameIndex& names = m->names();
  OperandNumbers numbers;
  int64_t uses = 0;
  for (int i = 0; i < kN; ++i) {
    const HloInstruction* t = names.UniqueInstructionNamed("t." + std::to_string(i));
    std::vector<HloUse> with = UsesOf({t, {}}, &numbers);
    // The same uses as the plain scan: its get-tuple-element's reader (none
    // but for g.0) and the custom-call that reads the whole tuple.
    if (i % 97 == 0 || i == kN - 1) {
      ASSERT_EQ(Describe(with), Describe(UsesOf({t, {}}))) << i;
    }
    uses += static_cast<int64_t>(with.size());
  }
  EXPECT_EQ(uses, kN + 1);  // the custom-call per temporary, and r for t.0
  // Per temporary: the tuple, its own get-tuple-element, the custom-call and
  // the get-tuple-element's readers. The scan met n + 1 users at the tuple.
  EXPECT_LE(numbers.users_met(), 4 * kN);
  EXPECT_GE(numbers.users_met(), 3 * kN);
}

TEST(OperandNumbersTest, UsesAreTheScansOnEveryFixture) {
  namespace fs = std::filesystem;
  int modules = 0, wide = 0, tuples = 0;
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
          // Elements of tuples too: there a wide tuple's readers are
          // indexed by element.
          if (instr->shape().IsTuple()) {
            tuples += instr->users().size() > 16;
            for (int64_t i = 0; i < static_cast<int64_t>(instr->shape().tuple_shapes.size()); ++i)
              ASSERT_EQ(Describe(UsesOf({instr, {i}}, &numbers)), Describe(UsesOf({instr, {i}})))
                  << e.path().string() << " " << instr->name() << "{" << i << "}";
          }
        }
  }
  EXPECT_GE(modules, 300);
  EXPECT_GT(wide, 0);    // sharded train steps' fusions read 17 operands
  EXPECT_GT(tuples, 0);  // loop states read by many get-tuple-elements
}

}  // namespace
}  // namespace hloscope::testing
