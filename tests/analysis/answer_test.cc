// The answer (analysis/answer.h): findings of every kind headed once and
// ranked by one measure. Typed facts only; the words are tested in
// tests/report/answer_words_test.cc and on real programs in
// tests/python/test_answer.py.
#include "hloscope/analysis/answer.h"

#include <gtest/gtest.h>

#include <string>

#include "check_test_util.h"

namespace hloscope {
namespace {

using testing::Check;
using testing::ParseOne;

// A function whose result is only a constant: nothing it computes is
// returned (JAX drops an .at[].set() whose result is not used).
constexpr char kNoOutputs[] = R"(
HloModule jit_ghost, is_scheduled=true
ENTRY %main (x: f32[1024]) -> () {
  %x = f32[1024]{0} parameter(0)
  ROOT %t = () tuple()
}
)";

TEST(AnswerTest, AFunctionThatReturnsNothingLeads) {
  auto module = ParseOne(kNoOutputs);
  ModuleCheck m = Check(*module);
  ASSERT_FALSE(m.answer.ranked.empty());
  EXPECT_EQ(m.answer.ranked.front().kind, FindingKind::kNoOutputs);
  EXPECT_TRUE(m.answer.stands_out());
}

// A function that returns its argument: XLA's handling of that buffer is
// the finding, not "computes nothing".
constexpr char kIdentity[] = R"(
HloModule jit_id, is_scheduled=true
ENTRY %main (x: f32[1024]) -> f32[1024] {
  ROOT %x = f32[1024]{0} parameter(0)
}
)";

TEST(AnswerTest, ReturningAnArgumentIsNotComputingNothing) {
  auto module = ParseOne(kIdentity);
  ModuleCheck m = Check(*module);
  for (const FindingHeader& h : m.answer.ranked) EXPECT_NE(h.kind, FindingKind::kNoOutputs);
}

// A copy every iteration of a loop of 100: the copy is the answer, one
// header for it, at its share of the estimated time.
constexpr char kCopyInLoop[] = R"(
HloModule jit_loop, is_scheduled=true
%body (t: (s32[], f32[65536])) -> (s32[], f32[65536]) {
  %t = (s32[], f32[65536]{0}) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %b = f32[65536]{0} get-tuple-element(%t), index=1
  %c = f32[65536]{0} copy(%b)
  %one = s32[] constant(1)
  %next = s32[] add(%i, %one)
  ROOT %r = (s32[], f32[65536]{0}) tuple(%next, %c)
}
%cond (t: (s32[], f32[65536])) -> pred[] {
  %t = (s32[], f32[65536]{0}) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %n = s32[] constant(100)
  ROOT %lt = pred[] compare(%i, %n), direction=LT
}
ENTRY %main (b: f32[65536]) -> (s32[], f32[65536]) {
  %b = f32[65536]{0} parameter(0)
  %z = s32[] constant(0)
  %init = (s32[], f32[65536]{0}) tuple(%z, %b)
  ROOT %w = (s32[], f32[65536]{0}) while(%init), condition=%cond, body=%body, backend_config={"known_trip_count":{"n":"100"}}
}
)";

TEST(AnswerTest, ACopyEveryIterationLeadsWithItsShare) {
  auto module = ParseOne(kCopyInLoop);
  ModuleCheck m = Check(*module);
  ASSERT_TRUE(m.answer.stands_out());
  const FindingHeader& top = m.answer.ranked.front();
  ASSERT_EQ(top.kind, FindingKind::kCopy);
  EXPECT_EQ(top.count, 1);
  ASSERT_EQ(top.copies.size(), 1u);
  EXPECT_EQ(top.instruction->name(), "c");
  EXPECT_EQ(top.executions, 100);
  EXPECT_EQ(top.bytes_per_call, int64_t{65536} * 4 * 100);
  EXPECT_EQ(top.impact.measure, ImpactMeasure::kTime);
  EXPECT_GT(top.impact.share, 0.5);
  EXPECT_LE(top.impact.share, 1.0);
  ASSERT_EQ(top.enclosing_loops.size(), 1u);
  EXPECT_EQ(top.enclosing_loops.front()->name(), "w");
}

TEST(AnswerTest, StandingFindingsComeFirstByShare) {
  auto module = ParseOne(kCopyInLoop);
  ModuleCheck m = Check(*module);
  bool standing = true;
  double last = 2;
  for (const FindingHeader& h : m.answer.ranked) {
    if (!h.stands_out) standing = false;
    EXPECT_TRUE(h.stands_out || !standing);
    if (h.stands_out && h.kind != FindingKind::kNoOutputs) {
      EXPECT_LE(h.impact.share, last);
      last = h.impact.share;
    }
  }
}

// Three f32[512,512] arguments not donated while the function returns new
// arrays of their shape (a train step's state): one header for all of
// them, at their bytes of the peak floor (no buffer assignment given).
constexpr char kUndonated[] = R"(
HloModule jit_step, is_scheduled=true
ENTRY %main (a: f32[512,512], b: f32[512,512], c: f32[512,512]) -> (f32[512,512], f32[512,512], f32[512,512]) {
  %a = f32[512,512]{1,0} parameter(0)
  %b = f32[512,512]{1,0} parameter(1)
  %c = f32[512,512]{1,0} parameter(2)
  %a2 = f32[512,512]{1,0} add(%a, %a)
  %b2 = f32[512,512]{1,0} add(%b, %b)
  %c2 = f32[512,512]{1,0} add(%c, %c)
  ROOT %t = (f32[512,512]{1,0}, f32[512,512]{1,0}, f32[512,512]{1,0}) tuple(%a2, %b2, %c2)
}
)";

TEST(AnswerTest, UndonatedStateIsOneHeaderAtItsShareOfThePeak) {
  auto module = ParseOne(kUndonated);
  ModuleCheck m = Check(*module);
  const FindingHeader* undonated = nullptr;
  for (const FindingHeader& h : m.answer.ranked)
    if (h.kind == FindingKind::kUndonated) undonated = &h;
  ASSERT_NE(undonated, nullptr);
  EXPECT_EQ(undonated->count, 3);
  EXPECT_EQ(undonated->parameters.size(), 3u);
  EXPECT_EQ(undonated->impact.bytes, 3 * 512 * 512 * 4);
  EXPECT_EQ(undonated->impact.measure, ImpactMeasure::kMemory);
  // The floor of the peak: arguments and outputs; half of it is the arguments.
  EXPECT_FALSE(m.answer.basis.peak_from_buffer_assignment);
  EXPECT_EQ(m.answer.basis.peak_bytes, 6 * 512 * 512 * 4);
  EXPECT_DOUBLE_EQ(undonated->impact.share, 0.5);
  EXPECT_TRUE(undonated->stands_out);
  // Without the buffer assignment no peak is promised.
  EXPECT_FALSE(undonated->peak_after.has_value());
}

// A small undonated argument is no advice (below kMemoryFloorBytes).
constexpr char kSmall[] = R"(
HloModule jit_twice, is_scheduled=true
ENTRY %main (x: f32[1024]) -> f32[1024] {
  %x = f32[1024]{0} parameter(0)
  ROOT %y = f32[1024]{0} add(%x, %x)
}
)";

TEST(AnswerTest, SmallMemoryFindingsDoNotStandOut) {
  auto module = ParseOne(kSmall);
  ModuleCheck m = Check(*module);
  EXPECT_FALSE(m.answer.stands_out());
  EXPECT_EQ(m.answer.basis.arguments, 1);
  EXPECT_EQ(m.answer.basis.copies, 0);
}

// A while named after a scatter, not JAX's `while`: XLA expanded the
// scatter into a serial loop of 100 iterations. A JAX loop of the same
// shape (op_name ".../while") is not one.
constexpr char kSerialLoop[] = R"(
HloModule jit_vdus, is_scheduled=true
%body (t: (s32[], f32[100,64])) -> (s32[], f32[100,64]) {
  %t = (s32[], f32[100,64]{1,0}) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %b = f32[100,64]{1,0} get-tuple-element(%t), index=1
  %row = f32[1,64]{1,0} broadcast(%one.f), dimensions={}
  %one.f = f32[] constant(1)
  %z = s32[] constant(0)
  %b2 = f32[100,64]{1,0} dynamic-update-slice(%b, %row, %i, %z)
  %one = s32[] constant(1)
  %next = s32[] add(%i, %one)
  ROOT %r = (s32[], f32[100,64]{1,0}) tuple(%next, %b2)
}
%cond (t: (s32[], f32[100,64])) -> pred[] {
  %t = (s32[], f32[100,64]{1,0}) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %n = s32[] constant(100)
  ROOT %lt = pred[] compare(%i, %n), direction=LT
}
ENTRY %main (b: f32[100,64]) -> (s32[], f32[100,64]) {
  %b = f32[100,64]{1,0} parameter(0)
  %z = s32[] constant(0)
  %init = (s32[], f32[100,64]{1,0}) tuple(%z, %b)
  ROOT %w = (s32[], f32[100,64]{1,0}) while(%init), condition=%cond, body=%body, metadata={op_name="jit(f)/vmap(vmap())/OPNAME" source_file="f.py" source_line=3}
}
)";

std::string WithOpName(std::string text, const std::string& op) {
  text.replace(text.find("OPNAME"), 6, op);
  return text;
}

TEST(AnswerTest, ALoopNamedAfterAScatterIsASerialLoopXlaMade) {
  auto module = ParseOne(WithOpName(kSerialLoop, "scatter"));
  ModuleCheck m = Check(*module);
  const FindingHeader* serial = nullptr;
  for (const FindingHeader& h : m.answer.ranked)
    if (h.kind == FindingKind::kSerialLoop) serial = &h;
  ASSERT_NE(serial, nullptr);
  EXPECT_EQ(serial->instruction->name(), "w");
  ASSERT_TRUE(serial->source.has_value());
  EXPECT_EQ(serial->source->line, 3);
  EXPECT_TRUE(serial->stands_out);
}

TEST(AnswerTest, AJaxLoopIsNoSerialLoop) {
  auto module = ParseOne(WithOpName(kSerialLoop, "while"));
  ModuleCheck m = Check(*module);
  for (const FindingHeader& h : m.answer.ranked) EXPECT_NE(h.kind, FindingKind::kSerialLoop);
}

}  // namespace
}  // namespace hloscope
