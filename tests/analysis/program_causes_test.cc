// Causes real programs need, on inline HLO shaped like what XLA emits for
// them: a donated weight whose backward-pass reader its own update does not
// wait for (a train step), and one value that starts several loop carries
// (identical jnp.zeros merged by CSE, or one key for two jax.random loops).
// The compiled programs, and the fixes the hints name, are in
// tests/python/test_hint_fixes.py.
#include <gtest/gtest.h>

#include "check_test_util.h"
#include "hloscope/report/wording.h"

namespace hloscope {
namespace {

using testing::Check;
using testing::FindCopy;
using testing::Name;
using testing::ParseOne;

// w is donated (aliased with output {0}); XLA keeps its old value in %cw.
// %back (the backward pass of an earlier layer) reads it, and the update
// %new does not depend on %back; %g does feed %new.
constexpr char kTrainStep[] = R"(
HloModule m, input_output_alias={ {0}: (0, {}, may-alias) }
ENTRY %main (w: f32[8], x: f32[8]) -> (f32[8], f32[8]) {
  %w = f32[8]{0} parameter(0), metadata={op_name="params[\'w\']"}
  %x = f32[8]{0} parameter(1), metadata={op_name="x"}
  %cw = f32[8]{0} copy(%w)
  %g = f32[8]{0} multiply(%cw, %x), metadata={op_name="jit(step)/transpose(jvp())/mul" source_file="train.py" source_line=11}
  %back = f32[8]{0} add(%cw, %x), metadata={op_name="jit(step)/transpose(jvp())/dot_general" source_file="train.py" source_line=12}
  %new = f32[8]{0} subtract(%cw, %g), metadata={op_name="jit(step)/sub" source_file="train.py" source_line=14}
  ROOT %t = (f32[8]{0}, f32[8]{0}) tuple(%new, %back)
}
)";

TEST(ProgramCausesTest, DonatedWeightReadByAnUnorderedBackwardPass) {
  auto m = ParseOne(kTrainStep);
  ASSERT_TRUE(m);
  ModuleCheck check = Check(*m);
  const CopyFinding* c = FindCopy(check, "cw");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->cause.rule, CauseRule::kDonatedParameterRewritten);
  EXPECT_EQ(c->cause.cause, CopyCause::kReadAfterUpdate);
  const ParameterFacts* f = c->cause.As<ParameterFacts>();
  ASSERT_TRUE(f);
  EXPECT_EQ(Name(f->writer.instruction), "new");
  ASSERT_EQ(f->unordered_readers.size(), 1u);
  EXPECT_EQ(Name(f->unordered_readers[0]), "back");  // %g feeds %new: ordered, not a culprit
  ASSERT_FALSE(c->cause.readers.empty());
  EXPECT_EQ(Name(c->cause.readers[0].instruction), "back");
  EXPECT_EQ(CauseDetail(*c),
            "argument 0 (params['w']) is donated and its buffer receives the new value (new (train.py:14), "
            "output {0}) while back (train.py:12) and 1 more still read the old one, and the new value does "
            "not depend on it: XLA orders kernels by data dependence, not by source order, so it keeps the "
            "old value in this copy");
  EXPECT_NE(CauseHint(*c).find("make the new value depend on every read of the old one"), std::string::npos);
}

// The same value at carries 1 and 2 of one loop: one carry gets a copy.
constexpr char kSharedInit[] = R"(
HloModule m
%body (t: (s32[], f32[64], f32[64])) -> (s32[], f32[64], f32[64]) {
  %t = (s32[], f32[64]{0}, f32[64]{0}) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %a = f32[64]{0} get-tuple-element(%t), index=1
  %b = f32[64]{0} get-tuple-element(%t), index=2
  %one = f32[1]{0} constant({1})
  %ua = f32[64]{0} dynamic-update-slice(%a, %one, %i)
  %ub = f32[64]{0} dynamic-update-slice(%b, %one, %i)
  %k = s32[] constant(1)
  %n = s32[] add(%i, %k)
  ROOT %r = (s32[], f32[64]{0}, f32[64]{0}) tuple(%n, %ua, %ub)
}
%cond (t: (s32[], f32[64], f32[64])) -> pred[] {
  %t = (s32[], f32[64]{0}, f32[64]{0}) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %lim = s32[] constant(10)
  ROOT %lt = pred[] compare(%i, %lim), direction=LT
}
ENTRY %main () -> (f32[64], f32[64]) {
  %zero = f32[] constant(0)
  %z = f32[64]{0} broadcast(%zero), dimensions={}, metadata={op_name="jit(f)/broadcast_in_dim" source_file="f.py" source_line=3}
  %cz = f32[64]{0} copy(%z)
  %i0 = s32[] constant(0)
  %init = (s32[], f32[64]{0}, f32[64]{0}) tuple(%i0, %z, %cz)
  %w = (s32[], f32[64]{0}, f32[64]{0}) while(%init), condition=%cond, body=%body
  %ra = f32[64]{0} get-tuple-element(%w), index=1
  %rb = f32[64]{0} get-tuple-element(%w), index=2
  ROOT %out = (f32[64]{0}, f32[64]{0}) tuple(%ra, %rb)
}
)";

TEST(ProgramCausesTest, OneValueStartsSeveralCarries) {
  auto m = ParseOne(kSharedInit);
  ASSERT_TRUE(m);
  ModuleCheck check = Check(*m);
  const CopyFinding* c = FindCopy(check, "cz");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->cause.rule, CauseRule::kSharedByCarries);
  EXPECT_EQ(c->cause.cause, CopyCause::kSharedValue);
  const SharedValueFacts* f = c->cause.As<SharedValueFacts>();
  ASSERT_TRUE(f);
  ASSERT_EQ(f->starts.size(), 2u);
  EXPECT_EQ(f->starts[0].carry, 1);
  EXPECT_EQ(f->starts[1].carry, 2);
  EXPECT_TRUE(f->merged_initial_value);
  EXPECT_EQ(
      CauseDetail(*c),
      "z starts carries 1, 2 of w: each carry needs a buffer of its own (XLA merges identical initial "
      "values such as jnp.zeros of one shape), so it copies the value for carry 2 of w, once per run of "
      "the loop");
  EXPECT_NE(CauseHint(*c).find("pass the initial arrays in as donated arguments"), std::string::npos);

  // The carries, by what starts and updates them.
  ASSERT_EQ(check.loops.size(), 1u);
  const LoopFinding& l = check.loops[0];
  ASSERT_EQ(l.carries.size(), 3u);
  EXPECT_EQ(CarryOriginText(l.carries[1]), "made by z (f.py:3); updated by ua");
  EXPECT_EQ(CarryOriginText(l.carries[2]), "made by z (f.py:3) via cz; updated by ub");
  EXPECT_EQ(l.carries[2].init_copy, c->instruction());
}

// The same, when the program itself hands one computed array to both
// carries: no merging to blame and no tested fix, so no hint.
TEST(ProgramCausesTest, OneComputedValueStartsSeveralCarries) {
  std::string text = kSharedInit;
  text.replace(text.find("%z = f32[64]{0} broadcast(%zero), dimensions={}"), 47,
               "%z = f32[64]{0} iota(), iota_dimension=0");
  auto m = ParseOne(text);
  ASSERT_TRUE(m);
  ModuleCheck check = Check(*m);
  const CopyFinding* c = FindCopy(check, "cz");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->cause.rule, CauseRule::kSharedByCarries);
  // An iota is still one XLA may have merged (jnp.arange twice).
  EXPECT_NE(CauseDetail(*c).find("XLA merges identical initial values"), std::string::npos);

  text.replace(text.find("%z = f32[64]{0} iota(), iota_dimension=0"), 40, "%z = f32[64]{0} exponential(%pz)");
  text.replace(text.find("ENTRY %main () -> (f32[64], f32[64]) {"), 38,
               "ENTRY %main (pz: f32[64]) -> (f32[64], f32[64]) {\n  %pz = f32[64]{0} parameter(0)");
  m = ParseOne(text);
  ASSERT_TRUE(m);
  check = Check(*m);
  c = FindCopy(check, "cz");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->cause.rule, CauseRule::kSharedByCarries);
  EXPECT_NE(CauseDetail(*c).find("the program starts them from the same array"), std::string::npos)
      << CauseDetail(*c);
  EXPECT_EQ(CauseHint(*c), "");
}

// A carry named after the argument it starts from (its op_name, unescaped).
TEST(ProgramCausesTest, CarriesAreNamedAfterTheArgumentTheyStartFrom) {
  auto m = ParseOne(R"(
HloModule m, input_output_alias={ {}: (0, {}, may-alias) }
%body (t: (s32[], f32[64])) -> (s32[], f32[64]) {
  %t = (s32[], f32[64]{0}) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %a = f32[64]{0} get-tuple-element(%t), index=1
  %one = f32[1]{0} constant({1})
  %ua = f32[64]{0} dynamic-update-slice(%a, %one, %i), metadata={source_file="t.py" source_line=7}
  %k = s32[] constant(1)
  %n = s32[] add(%i, %k)
  ROOT %r = (s32[], f32[64]{0}) tuple(%n, %ua)
}
%cond (t: (s32[], f32[64])) -> pred[] {
  %t = (s32[], f32[64]{0}) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %lim = s32[] constant(10)
  ROOT %lt = pred[] compare(%i, %lim), direction=LT
}
ENTRY %main (buf: f32[64]) -> f32[64] {
  %buf = f32[64]{0} parameter(0), metadata={op_name="state.buf[\'x\']"}
  %i0 = s32[] constant(0)
  %init = (s32[], f32[64]{0}) tuple(%i0, %buf)
  %w = (s32[], f32[64]{0}) while(%init), condition=%cond, body=%body
  ROOT %out = f32[64]{0} get-tuple-element(%w), index=1
}
)");
  ASSERT_TRUE(m);
  ModuleCheck check = Check(*m);
  ASSERT_EQ(check.loops.size(), 1u);
  const LoopCarry& c = check.loops[0].carries[1];
  EXPECT_EQ(CarryName(c), "state.buf['x']");
  EXPECT_EQ(CarryLabel(c), "carry 1 (state.buf['x'])");
  EXPECT_EQ(CarryOriginText(c), "from argument 0 (state.buf['x']); updated by ua (t.py:7)");
  EXPECT_EQ(CarryName(check.loops[0].carries[0]), "");  // the counter starts from a constant
}

// One broadcast (two jnp.zeros merged by CSE) copied apart for two
// scatters that each write in place: shared-by-updates, with the update's
// line; a plain reader of the zeros as well makes it a read instead.
constexpr char kMergedZeros[] = R"(
HloModule m
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
ENTRY %main (idx: s32[4,1], v: f32[4]) -> (f32[64], f32[64]) {
  %idx = s32[4,1]{1,0} parameter(0)
  %v = f32[4]{0} parameter(1)
  %zero = f32[] constant(0)
  %z = f32[64]{0} broadcast(%zero), dimensions={}
  %ca = f32[64]{0} copy(%z)
  %cb = f32[64]{0} copy(%z)
  %sa = f32[64]{0} scatter(%ca, %idx, %v), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=%add, metadata={op_name="jit(f)/scatter-add" source_file="f.py" source_line=3}
  %sb = f32[64]{0} scatter(%cb, %idx, %v), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=%add, metadata={op_name="jit(f)/scatter-add" source_file="f.py" source_line=4}
  ROOT %r = (f32[64]{0}, f32[64]{0}) tuple(%sa, %sb)
}
)";

TEST(ProgramCausesTest, MergedZerosCopiedApartForSeveralUpdates) {
  auto m = ParseOne(kMergedZeros);
  ASSERT_TRUE(m);
  ModuleCheck check = Check(*m);
  for (const char* name : {"ca", "cb"}) {
    const CopyFinding* c = FindCopy(check, name);
    ASSERT_TRUE(c) << name;
    EXPECT_EQ(c->cause.cause, CopyCause::kSharedValue) << name;
    EXPECT_EQ(c->cause.rule, CauseRule::kSharedByUpdates) << name;
    const auto* f = c->cause.As<SharedValueFacts>();
    ASSERT_TRUE(f);
    EXPECT_EQ(f->loop, nullptr);
    ASSERT_EQ(f->updates.size(), 2u);
    EXPECT_TRUE(f->merged_initial_value);
    EXPECT_EQ(CauseHint(*c).rfind("nothing to do: this is one buffer per update", 0), 0u) << CauseHint(*c);
  }
  EXPECT_EQ(CauseDetail(*FindCopy(check, "cb")),
            "z starts 2 arrays that are each updated in place (sa, sb): each needs a buffer of its own (XLA "
            "merges identical initial values such as jnp.zeros of one shape), so it copies the value for sb "
            "at f.py:4");

  // A reader of the old zeros besides the updates: the copy protects a read.
  std::string text = kMergedZeros;
  text.replace(
      text.find("ROOT %r = (f32[64]{0}, f32[64]{0}) tuple(%sa, %sb)"), 50,
      "%neg = f32[64]{0} negate(%z)\n  ROOT %r = (f32[64]{0}, f32[64]{0}, f32[64]{0}) tuple(%sa, %sb, "
      "%neg)");
  text.replace(text.find("-> (f32[64], f32[64]) {"), 24, "-> (f32[64], f32[64], f32[64]) {");
  m = ParseOne(text);
  ASSERT_TRUE(m);
  check = Check(*m);
  const CopyFinding* c = FindCopy(check, "cb");
  ASSERT_TRUE(c);
  EXPECT_NE(c->cause.rule, CauseRule::kSharedByUpdates);
}

// A layer of a stacked cache, sliced, written at row i and attended over:
// XLA:CPU fuses the write with the squeeze the dot needs, so the update's
// kernel returns f32[8,16] for an f32[1,8,16] operand, and copy insertion
// adds the copy back (shapes must be equal for a result to take its
// operand's buffer) though nothing else reads the slice.
constexpr char kReshapedUpdate[] = R"(
HloModule m, input_output_alias={ {1}: (0, {}, may-alias) }
%ds_comp (p0: f32[4,8,16], p1: s32[]) -> f32[1,8,16] {
  %p0 = f32[4,8,16]{2,1,0} parameter(0)
  %p1 = s32[] parameter(1)
  %z = s32[] constant(0)
  ROOT %ds = f32[1,8,16]{2,1,0} dynamic-slice(%p0, %p1, %z, %z), dynamic_slice_sizes={1,8,16}
}
%dus_comp (q0: f32[1,8,16], q1: f32[1,16], q2: s32[]) -> f32[8,16] {
  %q0 = f32[1,8,16]{2,1,0} parameter(0)
  %b = f32[8,16]{1,0} bitcast(%q0)
  %q1 = f32[1,16]{1,0} parameter(1)
  %q2 = s32[] parameter(2)
  %z = s32[] constant(0)
  ROOT %u = f32[8,16]{1,0} dynamic-update-slice(%b, %q1, %q2, %z), metadata={op_name="jit(f)/dynamic_update_slice" source_file="decode.py" source_line=7}
}
%body (t: (s32[], f32[4,8,16])) -> (s32[], f32[4,8,16]) {
  %t = (s32[], f32[4,8,16]{2,1,0}) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %c = f32[4,8,16]{2,1,0} get-tuple-element(%t), index=1
  %slice = f32[1,8,16]{2,1,0} fusion(%c, %i), kind=kLoop, calls=%ds_comp
  %cp = f32[1,8,16]{2,1,0} copy(%slice)
  %zero = f32[] constant(0)
  %row = f32[1,16]{1,0} broadcast(%zero), dimensions={}
  %upd = f32[8,16]{1,0} fusion(%cp, %row, %i), kind=kLoop, calls=%dus_comp
  %back = f32[1,8,16]{2,1,0} bitcast(%upd)
  %z = s32[] constant(0)
  %c2 = f32[4,8,16]{2,1,0} dynamic-update-slice(%c, %back, %i, %z, %z)
  %one = s32[] constant(1)
  %i2 = s32[] add(%i, %one)
  ROOT %r = (s32[], f32[4,8,16]{2,1,0}) tuple(%i2, %c2)
}
%cond (t: (s32[], f32[4,8,16])) -> pred[] {
  %t = (s32[], f32[4,8,16]{2,1,0}) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %n = s32[] constant(4)
  ROOT %lt = pred[] compare(%i, %n), direction=LT
}
ENTRY %main (cache: f32[4,8,16]) -> (s32[], f32[4,8,16]) {
  %cache = f32[4,8,16]{2,1,0} parameter(0), metadata={op_name="cache"}
  %i0 = s32[] constant(0)
  %init = (s32[], f32[4,8,16]{2,1,0}) tuple(%i0, %cache)
  ROOT %w = (s32[], f32[4,8,16]{2,1,0}) while(%init), condition=%cond, body=%body
}
)";

TEST(ProgramCausesTest, UpdateThatReturnsAnotherShapeGetsItsOperandCopied) {
  auto m = ParseOne(kReshapedUpdate);
  ASSERT_TRUE(m);
  ModuleCheck check = Check(*m);
  const CopyFinding* c = FindCopy(check, "cp");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->cause.cause, CopyCause::kUpdateReshaped);
  EXPECT_EQ(c->cause.rule, CauseRule::kUpdateReshaped);
  const auto* f = c->cause.As<ReshapedUpdateFacts>();
  ASSERT_TRUE(f && f->operand && f->result);
  EXPECT_EQ(f->operand->ToString(), "f32[1,8,16]{2,1,0}");
  EXPECT_EQ(f->result->ToString(), "f32[8,16]{1,0}");
  EXPECT_EQ(Name(f->sliced_from.instruction), "t");
  EXPECT_EQ(f->sliced_from.index, ShapeIndex{1});
  EXPECT_EQ(CauseDetail(*c),
            "u in upd at decode.py:7 updates slice (f32[1,8,16]{2,1,0}) in place, but its kernel returns "
            "f32[8,16]{1,0}: XLA fused the reshape that follows the update into it, and a kernel's result "
            "takes its operand's buffer only when the two have the same shape and layout, so XLA copies the "
            "array for it, every iteration");
  EXPECT_EQ(CauseHint(*c).rfind("write into carry 1 of w (cache) itself and slice the result", 0), 0u)
      << CauseHint(*c);

  // The same update returning its operand's shape: no reason to copy for it.
  std::string text = kReshapedUpdate;
  auto swap = [&text](std::string_view from, std::string_view to) {
    size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
  };
  swap("q2: s32[]) -> f32[8,16] {", "q2: s32[]) -> f32[1,8,16] {");
  swap("%b = f32[8,16]{1,0} bitcast(%q0)", "%r1 = f32[1,1,16]{2,1,0} bitcast(%q1)");
  swap("ROOT %u = f32[8,16]{1,0} dynamic-update-slice(%b, %q1, %q2, %z)",
       "ROOT %u = f32[1,8,16]{2,1,0} dynamic-update-slice(%q0, %r1, %z, %q2, %z)");
  swap("%upd = f32[8,16]{1,0} fusion", "%upd = f32[1,8,16]{2,1,0} fusion");
  swap("%back = f32[1,8,16]{2,1,0} bitcast(%upd)", "%back = f32[1,8,16]{2,1,0} negate(%upd)");
  m = ParseOne(text);
  ASSERT_TRUE(m) << text;
  check = Check(*m);
  c = FindCopy(check, "cp");
  ASSERT_TRUE(c);
  EXPECT_NE(c->cause.rule, CauseRule::kUpdateReshaped);
}

}  // namespace
}  // namespace hloscope
