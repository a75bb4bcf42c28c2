// What GPU and TPU compiles show that CPU ones do not: TPU's declared
// aliasing (backend_config aliasing_operands), copies made by moving a
// buffer into another memory space (copy-start to S(1)), and the small
// constant prefetches check summarises. Whole-program checks of the same
// are in check_fixtures_test (tests/fixtures/jax-tpu-v5e, jax-gpu-h100) and
// tests/python/test_backends.py.
#include <gtest/gtest.h>

#include "check_test_util.h"
#include "hloscope/analysis/in_place.h"
#include "hloscope/report/wording.h"

namespace hloscope {
namespace {

using testing::Check;
using testing::FindCopy;
using testing::ParseOne;

// TPU's backend_config aliasing: indices count the operands first, then the
// output's leaves.
TEST(BackendRulesTest, TpuAliasingOperandsAreInPlacePairs) {
  auto m = ParseOne(
      "HloModule m, is_scheduled=true\n"
      "%f (p0: f32[64], p1: f32[64]) -> (f32[64], f32[64]) {\n"
      "  %p0 = f32[64]{0} parameter(0)\n"
      "  %p1 = f32[64]{0} parameter(1)\n"
      "  %a = f32[64]{0} add(%p0, %p1)\n"
      "  ROOT %t = (f32[64]{0}, f32[64]{0}) tuple(%a, %a)\n"
      "}\n"
      "ENTRY %e (x: f32[64], y: f32[64], i: s32[]) -> ((f32[64], f32[64]), s32[]) {\n"
      "  %x = f32[64]{0} parameter(0)\n"
      "  %y = f32[64]{0} parameter(1)\n"
      "  %i = s32[] parameter(2)\n"
      "  %fu = (f32[64]{0}, f32[64]{0}) fusion(%x, %y), kind=kLoop, calls=%f, "
      "backend_config={\"aliasing_operands\":{\"lists\":[{\"indices\":[\"1\",\"3\"]}]}}\n"
      "  %inc = s32[] add(%i, %i), "
      "backend_config={\"aliasing_operands\":{\"lists\":[{\"indices\":[\"0\",\"2\"]}]}}\n"
      "  ROOT %r = ((f32[64]{0}, f32[64]{0}), s32[]) tuple(%fu, %inc)\n"
      "}\n");
  ASSERT_NE(m, nullptr);
  const HloInstruction* fu = m->entry_computation()->GetInstruction("fu");
  const HloInstruction* inc = m->entry_computation()->GetInstruction("inc");
  ASSERT_TRUE(fu && inc);
  std::vector<InPlacePair> declared = ParseAliasingOperands(*fu);
  ASSERT_EQ(declared.size(), 1u);
  EXPECT_EQ(declared[0].operand_number, 1);            // y
  EXPECT_EQ(declared[0].output_index, ShapeIndex{1});  // 3 = 2 operands + leaf 1
  EXPECT_TRUE(declared[0].annotated);
  std::vector<InPlacePair> pairs = GetInPlaceInputOutputPairs(*fu);
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(pairs[0].operand_number, 1);
  // Scalar bookkeeping (i + 1 into i's buffer) is declared but is no update.
  EXPECT_EQ(ParseAliasingOperands(*inc).size(), 1u);
  EXPECT_TRUE(GetInPlaceInputOutputPairs(*inc).empty());
}

// TPU copies a non-donated argument by moving it into another memory space
// and updating it there: the move has the protective copy's cause. A move
// that feeds nothing is a prefetch.
TEST(BackendRulesTest, MemorySpaceMoveThatIsUpdatedHasTheCopysCause) {
  auto m = ParseOne(
      "HloModule m, is_scheduled=true\n"
      "ENTRY %e (x: f32[1024], y: f32[1024], v: f32[1]) -> (f32[1024], f32[]) {\n"
      "  %x = f32[1024]{0} parameter(0)\n"
      "  %y = f32[1024]{0} parameter(1)\n"
      "  %v = f32[1]{0} parameter(2)\n"
      "  %zero = s32[] constant(0)\n"
      "  %cs = (f32[1024]{0:S(1)}, f32[1024]{0}, u32[]) copy-start(%x)\n"
      "  %cd = f32[1024]{0:S(1)} copy-done(%cs)\n"
      "  %dus = f32[1024]{0:S(1)} dynamic-update-slice(%cd, %v, %zero)\n"
      "  %back = f32[1024]{0} copy(%dus)\n"
      "  %ps = (f32[1024]{0:S(1)}, f32[1024]{0}, u32[]) copy-start(%y)\n"
      "  %pd = f32[1024]{0:S(1)} copy-done(%ps)\n"
      "  %c0 = f32[] constant(0)\n"
      "  %sum = f32[] reduce(%pd, %c0), dimensions={0}, to_apply=%add\n"
      "  ROOT %r = (f32[1024]{0}, f32[]) tuple(%back, %sum)\n"
      "}\n"
      "%add (a: f32[], b: f32[]) -> f32[] {\n"
      "  %a = f32[] parameter(0)\n"
      "  %b = f32[] parameter(1)\n"
      "  ROOT %s = f32[] add(%a, %b)\n"
      "}\n");
  ASSERT_NE(m, nullptr);
  ModuleCheck c = Check(*m);
  const CopyFinding* moved = FindCopy(c, "cs");
  ASSERT_NE(moved, nullptr);
  EXPECT_EQ(moved->copy_class, CopyClass::kMemorySpaceMove);
  EXPECT_EQ(moved->cause.cause, CopyCause::kNonDonatedParameter);
  EXPECT_NE(CauseDetail(*moved).find("moving the buffer from memory space 0 to 1"), std::string::npos)
      << CauseDetail(*moved);
  // No "donate" hint on a move into another memory space: XLA:TPU's
  // memory-space assignment may prefetch the array when it is donated too
  // (tests/python/test_hint_fixes.py compiled such programs both ways).
  EXPECT_EQ(CauseHint(*moved), "");
  EXPECT_NE(CauseDetail(*moved).find("donating it may not remove the copy"), std::string::npos);
  const CopyFinding* evicted = FindCopy(c, "back");
  ASSERT_NE(evicted, nullptr);
  EXPECT_EQ(evicted->cause.cause, CopyCause::kMemorySpaceMove);
  EXPECT_NE(CauseDetail(*evicted).find("from memory space 1 to 0 (an eviction"), std::string::npos);
  const CopyFinding* prefetch = FindCopy(c, "ps");
  ASSERT_NE(prefetch, nullptr);
  EXPECT_EQ(prefetch->cause.cause, CopyCause::kMemorySpaceMove);
  EXPECT_FALSE(prefetch->minor);  // an argument, not a small constant
}

// A small constant moved to another memory space is summarised with the
// scalar copies.
TEST(BackendRulesTest, SmallConstantPrefetchIsMinor) {
  auto m = ParseOne(
      "HloModule m, is_scheduled=true\n"
      "ENTRY %e (x: s32[2]) -> s32[2] {\n"
      "  %x = s32[2]{0} parameter(0)\n"
      "  %k = s32[2]{0} constant({1, 2})\n"
      "  %cs = (s32[2]{0:T(128)S(1)}, s32[2]{0}, u32[]) copy-start(%k)\n"
      "  %cd = s32[2]{0:T(128)S(1)} copy-done(%cs)\n"
      "  ROOT %a = s32[2]{0} add(%x, %cd)\n"
      "}\n");
  ASSERT_NE(m, nullptr);
  ModuleCheck c = Check(*m);
  const CopyFinding* cs = FindCopy(c, "cs");
  ASSERT_NE(cs, nullptr);
  EXPECT_FALSE(cs->scalar);
  EXPECT_TRUE(cs->minor);
  EXPECT_EQ(cs->bytes, 512);
  EXPECT_EQ(Headline(c), "m: no array copies (+1 constant prefetch); 0 updates in place or fused away.");
}

// A loop carry passed through lax.ppermute: the collective-permute receives
// into a buffer other than the one it sends from, and XLA copies the result
// back into the carry every iteration (CPU's sync form; TPU's and GPU's
// start/done form). tests/python/test_collectives.py compiles the program
// and its unroll=2 fix.
TEST(BackendRulesTest, CarryReceivedByACollectivePermuteIsDoubleBuffered) {
  for (bool async : {false, true}) {
    std::string permute =
        async
            ? "  %cps = (f32[256]{0}, f32[256]{0}, u32[], u32[]) collective-permute-start(%a), "
              "channel_id=1, source_target_pairs={{0,1},{1,0}}\n"
              "  %cp = f32[256]{0} collective-permute-done(%cps)\n"
            : "  %cp = f32[256]{0} collective-permute(%a), channel_id=1, source_target_pairs={{0,1},{1,0}}\n";
    auto m = ParseOne(
        "HloModule m, is_scheduled=true, input_output_alias={ {1}: (0, {}, may-alias) }\n"
        "%body (t: (s32[], f32[256])) -> (s32[], f32[256]) {\n"
        "  %t = (s32[], f32[256]{0}) parameter(0)\n"
        "  %i = s32[] get-tuple-element(%t), index=0\n"
        "  %a = f32[256]{0} get-tuple-element(%t), index=1\n" +
        permute +
        "  %copy.1 = f32[256]{0} copy(%cp)\n"
        "  %one = s32[] constant(1)\n"
        "  %n = s32[] add(%i, %one)\n"
        "  ROOT %r = (s32[], f32[256]{0}) tuple(%n, %copy.1)\n"
        "}\n"
        "%cond (t: (s32[], f32[256])) -> pred[] {\n"
        "  %t = (s32[], f32[256]{0}) parameter(0)\n"
        "  %i = s32[] get-tuple-element(%t), index=0\n"
        "  %k = s32[] constant(8)\n"
        "  ROOT %lt = pred[] compare(%i, %k), direction=LT\n"
        "}\n"
        "ENTRY %e (x: f32[256]) -> (s32[], f32[256]) {\n"
        "  %x = f32[256]{0} parameter(0)\n"
        "  %z = s32[] constant(0)\n"
        "  %init = (s32[], f32[256]{0}) tuple(%z, %x)\n"
        "  ROOT %w = (s32[], f32[256]{0}) while(%init), condition=%cond, body=%body, "
        "backend_config={\"known_trip_count\":{\"n\":\"8\"}}\n"
        "}\n");
    ASSERT_NE(m, nullptr);
    ModuleCheck c = Check(*m);
    const CopyFinding* copy = FindCopy(c, "copy.1");
    ASSERT_NE(copy, nullptr) << async;
    EXPECT_EQ(copy->cause.rule, CauseRule::kCarryPermuted) << async;
    EXPECT_EQ(copy->cause.cause, CopyCause::kLoopCarriedLive);
    EXPECT_EQ(copy->executions, 8);
    EXPECT_EQ(CauseDetail(*copy),
              "the new value of carry 1 is received by the collective-permute cp (lax.ppermute), which "
              "cannot receive into the buffer it sends from, so the carry lands in a second buffer and is "
              "copied back every iteration");
    EXPECT_NE(CauseHint(*copy).find("unroll=2"), std::string::npos) << CauseHint(*copy);
  }
}

}  // namespace
}  // namespace hloscope
