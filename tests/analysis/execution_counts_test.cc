// Trip counts and executions per call: known_trip_count, the induction-
// variable pattern, nesting, conditionals (at most), unknown loops.
#include "hloscope/analysis/execution_counts.h"

#include <gtest/gtest.h>

#include "check_test_util.h"

namespace hloscope {
namespace {

using testing::ParseOne;

constexpr char kNested[] = R"(
HloModule m
%inner_body (t: (s32[], f32[4])) -> (s32[], f32[4]) {
  %t = (s32[], f32[4]{0}) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %x = f32[4]{0} get-tuple-element(%t), index=1
  %one = s32[] constant(2)
  %n = s32[] add(%i, %one)
  %y = f32[4]{0} negate(%x)
  ROOT %r = (s32[], f32[4]{0}) tuple(%n, %y)
}
%inner_cond (t: (s32[], f32[4])) -> pred[] {
  %t = (s32[], f32[4]{0}) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %lim = s32[] constant(9)
  ROOT %lt = pred[] compare(%i, %lim), direction=LT
}
%outer_body (t: (s32[], f32[4])) -> (s32[], f32[4]) {
  %t = (s32[], f32[4]{0}) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %x = f32[4]{0} get-tuple-element(%t), index=1
  %z = s32[] constant(0)
  %it = (s32[], f32[4]{0}) tuple(%z, %x)
  %w_in = (s32[], f32[4]{0}) while(%it), condition=%inner_cond, body=%inner_body
  %y = f32[4]{0} get-tuple-element(%w_in), index=1
  %one = s32[] constant(1)
  %n = s32[] add(%one, %i)
  ROOT %r = (s32[], f32[4]{0}) tuple(%n, %y)
}
%outer_cond (t: (s32[], f32[4])) -> pred[] {
  %t = (s32[], f32[4]{0}) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %lim = s32[] constant(10)
  ROOT %le = pred[] compare(%i, %lim), direction=LE
}
ENTRY %main (x: f32[4]) -> (s32[], f32[4]) {
  %x = f32[4]{0} parameter(0)
  %z = s32[] constant(1)
  %init = (s32[], f32[4]{0}) tuple(%z, %x)
  ROOT %w_out = (s32[], f32[4]{0}) while(%init), condition=%outer_cond, body=%outer_body
}
)";

TEST(ExecutionCountsTest, NestedInductionVariableLoops) {
  auto m = ParseOne(kNested);
  ExecutionCounts counts = ExecutionCounts::Run(*m);
  const HloInstruction* outer = m->entry_computation()->root_instruction();
  // i = 1; i <= 10; i += 1  -> 10 trips.
  EXPECT_EQ(counts.TripCountOf(outer).count, 10);
  EXPECT_EQ(counts.TripCountOf(outer).source, TripCountSource::kInductionVariable);
  const HloInstruction* inner = m->GetComputation("outer_body")->GetInstruction("w_in");
  // i = 0; i < 9; i += 2 -> 0,2,4,6,8: 5 trips.
  EXPECT_EQ(counts.TripCountOf(inner).count, 5);
  EXPECT_EQ(counts.Of(m->GetComputation("outer_body")), 10);
  EXPECT_EQ(counts.Of(m->GetComputation("outer_cond")), 11);
  EXPECT_EQ(counts.Of(m->GetComputation("inner_body")), 50);
  EXPECT_EQ(counts.Of(m->GetComputation("inner_cond")), 60);
  auto loops = counts.EnclosingLoops(m->GetComputation("inner_body"));
  ASSERT_EQ(loops.size(), 2u);
  EXPECT_EQ(loops[0]->name(), "w_in");
  EXPECT_EQ(loops[1]->name(), "w_out");
}

TEST(ExecutionCountsTest, KnownTripCountWinsAndQuotedConfigIsRead) {
  auto m = ParseOne(R"(
HloModule m
%b (t: (s32[])) -> (s32[]) {
  ROOT %t = (s32[]) parameter(0)
}
%c (t: (s32[])) -> pred[] {
  %t = (s32[]) parameter(0)
  ROOT %p = pred[] constant(true)
}
ENTRY %main (x: s32[]) -> (s32[]) {
  %x = s32[] parameter(0)
  %i = (s32[]) tuple(%x)
  ROOT %w = (s32[]) while(%i), condition=%c, body=%b, backend_config="{\"known_trip_count\":{\"n\":\"12\"}}"
}
)");
  ExecutionCounts counts = ExecutionCounts::Run(*m);
  const HloInstruction* w = m->entry_computation()->root_instruction();
  EXPECT_EQ(counts.TripCountOf(w).count, 12);
  EXPECT_EQ(counts.TripCountOf(w).source, TripCountSource::kKnownTripCount);
  EXPECT_EQ(counts.Of(m->GetComputation("b")), 12);
}

TEST(ExecutionCountsTest, ConditionalBranchesAreAtMostOnce) {
  auto m = ParseOne(R"(
HloModule m
%t (x: f32[4]) -> f32[4] {
  %x = f32[4]{0} parameter(0)
  ROOT %n = f32[4]{0} negate(%x)
}
%f (x: f32[4]) -> f32[4] {
  ROOT %x = f32[4]{0} parameter(0)
}
ENTRY %main (p: pred[], x: f32[4]) -> f32[4] {
  %p = pred[] parameter(0)
  %x = f32[4]{0} parameter(1)
  ROOT %c = f32[4]{0} conditional(%p, %x, %x), true_computation=%t, false_computation=%f
}
)");
  ExecutionCounts counts = ExecutionCounts::Run(*m);
  EXPECT_EQ(counts.Of(m->GetComputation("t")), 1);
  EXPECT_TRUE(counts.IsUpperBound(m->GetComputation("t")));
  EXPECT_FALSE(counts.IsUpperBound(m->entry_computation()));
}

}  // namespace
}  // namespace hloscope
