// HloNameIndex: computation-qualified lookups, ambiguity reported, not
// resolved to the first match.
#include "hloscope/ir/name_index.h"

#include <gtest/gtest.h>

#include "hloscope/parser/parser.h"

namespace hloscope {
namespace {

// `%t`, `%i` and `%n` are used by both the loop body and its condition.
constexpr char kLoop[] = R"(
HloModule m
%body (t: (s32[])) -> (s32[]) {
  %t = (s32[]) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %one = s32[] constant(1)
  %n = s32[] add(%i, %one)
  ROOT %r = (s32[]) tuple(%n)
}
%cond (t: (s32[])) -> pred[] {
  %t = (s32[]) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %n = s32[] constant(10)
  ROOT %lt = pred[] compare(%i, %n), direction=LT
}
ENTRY %main (x: s32[]) -> (s32[]) {
  %x = s32[] parameter(0)
  %init = (s32[]) tuple(%x)
  ROOT %w = (s32[]) while(%init), condition=%cond, body=%body
}
)";

TEST(NameIndexTest, QualifiedLookupsAndAmbiguity) {
  auto group = ParseHloText(kLoop);
  ASSERT_TRUE(group.ok()) << group.error().Format();
  const HloModule& m = *group->modules[0];
  const HloNameIndex& names = m.names();
  EXPECT_EQ(&names, &m.names());  // built once
  const HloComputation* body = names.FindComputation("body");
  const HloComputation* cond = names.FindComputation("cond");
  ASSERT_TRUE(body && cond);
  EXPECT_EQ(names.FindComputation("nope"), nullptr);
  const HloInstruction* body_n = names.FindInstruction(*body, "n");
  const HloInstruction* cond_n = names.FindInstruction(*cond, "n");
  ASSERT_TRUE(body_n && cond_n);
  EXPECT_EQ(body_n->opcode(), HloOpcode::kAdd);
  EXPECT_EQ(cond_n->opcode(), HloOpcode::kConstant);
  EXPECT_EQ(body->GetInstruction("n"), body_n);
  EXPECT_EQ(m.GetComputation("cond"), cond);

  HloNameIndex::Lookup n = names.Resolve("n");
  EXPECT_EQ(n.instruction, nullptr);  // ambiguous: two matches, no pick
  ASSERT_EQ(n.matches.size(), 2u);
  EXPECT_EQ(n.matches[0], body_n);  // text order
  EXPECT_EQ(n.matches[1], cond_n);
  EXPECT_EQ(names.Resolve("cond/n").instruction, cond_n);
  EXPECT_EQ(names.Resolve("%body/%n").instruction, body_n);
  EXPECT_EQ(names.Resolve("%w").instruction, names.FindInstruction(*m.entry_computation(), "w"));
  EXPECT_TRUE(names.Resolve("zzz").matches.empty());
  EXPECT_TRUE(names.Resolve("main/n").matches.empty());
}

}  // namespace
}  // namespace hloscope
