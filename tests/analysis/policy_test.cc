// The gate policy (analysis/policy.h) on small modules shaped like XLA's
// output: what counts, what is in place, budgets, selections.
#include "hloscope/analysis/policy.h"

#include <gtest/gtest.h>

#include "check_test_util.h"
#include "hloscope/report/wording.h"

namespace hloscope {
namespace {

using testing::Check;
using testing::ParseOne;

// A fori_loop writing one element per iteration; `%HEADER%` donates or not.
// XLA copies the loop counter (a scalar) in every iteration either way.
constexpr char kLoop[] = R"(
HloModule m%HEADER%
%fused (p0: f32[1024], p1: s32[]) -> f32[1024] {
  %p0 = f32[1024]{0} parameter(0)
  %p1 = s32[] parameter(1)
  %c = f32[1]{0} constant({1})
  ROOT %dus = f32[1024]{0} dynamic-update-slice(%p0, %c, %p1), metadata={op_name="jit(f)/scatter" source_file="train.py" source_line=41}
}
%body (t: (s32[], f32[1024])) -> (s32[], f32[1024]) {
  %t = (s32[], f32[1024]{0}) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %b = f32[1024]{0} get-tuple-element(%t), index=1
  %one = s32[] constant(1)
  %upd = f32[1024]{0} fusion(%b, %i), kind=kLoop, calls=%fused
  %next = s32[] add(%i, %one)
  %ic = s32[] copy(%i)
  ROOT %r = (s32[], f32[1024]{0}) tuple(%next, %upd)
}
%cond (t: (s32[], f32[1024])) -> pred[] {
  %t = (s32[], f32[1024]{0}) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %n = s32[] constant(100)
  ROOT %lt = pred[] compare(%i, %n), direction=LT
}
ENTRY %main (buf: f32[1024]) -> f32[1024] {
  %buf = f32[1024]{0} parameter(0)
  %zero = s32[] constant(0)
%INIT%
  %w = (s32[], f32[1024]{0}) while(%init), condition=%cond, body=%body
  ROOT %out = f32[1024]{0} get-tuple-element(%w), index=1
}
)";

std::string Loop(const std::string& header, const std::string& init) {
  std::string s = kLoop;
  s.replace(s.find("%HEADER%"), 8, header);
  s.replace(s.find("%INIT%"), 6, init);
  return s;
}

std::vector<Violation> Gates(const ModuleCheck& c, const GateOptions& o) { return EvaluateGates({&c}, o); }

GateOptions InPlace() {
  GateOptions o;
  o.fail_on_out_of_place = true;
  o.fail_on_copies_in_loops = true;
  return o;
}

TEST(PolicyTest, ADonatedLoopPassesEveryGateDespiteItsScalarCopy) {
  auto m = ParseOne(Loop(", input_output_alias={ {}: (0, {}, may-alias) }",
                         "  %init = (s32[], f32[1024]{0}) tuple(%zero, %buf)"));
  ModuleCheck c = Check(*m);
  ASSERT_EQ(c.copies.size(), 1u);
  EXPECT_TRUE(c.copies[0].scalar);
  GateOptions o = InPlace();
  o.max_copies = 0;
  o.max_copy_bytes = 0;
  o.max_copies_in_loops = 0;
  o.max_copy_bytes_in_loops = 0;
  EXPECT_TRUE(Gates(c, o).empty());
  o.count_scalar_copies = true;
  std::vector<Violation> v = Gates(c, o);
  ASSERT_EQ(v.size(), 5u);  // the copy in the loop, then four budgets
  EXPECT_EQ(v[0].kind, Violation::Kind::kCopyInLoop);
  EXPECT_EQ(v[1].kind, Violation::Kind::kCopyBytes);
  EXPECT_EQ(v[1].amount, 400);
}

TEST(PolicyTest, AnUpdateOnACopyShowsItsCopyOnce) {
  auto m = ParseOne(Loop("",
                         "  %cp = f32[1024]{0} copy(%buf)\n"
                         "  %init = (s32[], f32[1024]{0}) tuple(%zero, %cp)"));
  ModuleCheck c = Check(*m);
  std::vector<Violation> v = Gates(c, InPlace());
  // The copy runs once, before the loop: only the update fails.
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, Violation::Kind::kUpdateNotInPlace);
  ASSERT_TRUE(v[0].copy);
  EXPECT_EQ(v[0].copy->instruction()->name(), "cp");
  EXPECT_NE(ViolationText(v[0]).find("dus in upd at train.py:41 is in-place-on-copy (on cp)"),
            std::string::npos)
      << ViolationText(v[0]);
}

TEST(PolicyTest, SelectionsAndNothingSelected) {
  auto m = ParseOne(Loop("",
                         "  %cp = f32[1024]{0} copy(%buf)\n"
                         "  %init = (s32[], f32[1024]{0}) tuple(%zero, %cp)"));
  ModuleCheck c = Check(*m);
  GateOptions o = InPlace();
  o.update_names = {"upd"};  // a fusion's name selects the updates in it
  EXPECT_EQ(Gates(c, o).size(), 1u);
  o.update_names = {};
  o.lines = {*ParseLineSpec("train.py:41")};
  EXPECT_EQ(Gates(c, o).size(), 1u);
  o.lines = {*ParseLineSpec("train.py:40")};
  std::vector<Violation> none = Gates(c, o);
  ASSERT_EQ(none.size(), 1u);
  EXPECT_EQ(none[0].kind, Violation::Kind::kNothingSelected);
  EXPECT_EQ(ViolationText(none[0]), "no update matches lines train.py:40");
  std::string msg = GateFailureMessage("hloscope.assert_inplace", none, {&c});
  EXPECT_NE(msg.find("updates in the program: dus in upd at train.py:41"), std::string::npos) << msg;
}

TEST(PolicyTest, AContradictedInPlaceVerdictIsNotInPlace) {
  auto m = ParseOne(Loop(", input_output_alias={ {}: (0, {}, may-alias) }",
                         "  %init = (s32[], f32[1024]{0}) tuple(%zero, %buf)"));
  ModuleCheck c = Check(*m);
  ASSERT_EQ(c.updates.size(), 1u);
  EXPECT_TRUE(IsInPlace(c.updates[0]));
  c.updates[0].confirmation.confirmed = false;
  EXPECT_FALSE(IsInPlace(c.updates[0]));
  GateOptions o;
  o.fail_on_contradiction = true;
  ASSERT_EQ(Gates(c, o).size(), 1u);
  EXPECT_EQ(Gates(c, o)[0].kind, Violation::Kind::kContradiction);
  o = InPlace();
  ASSERT_EQ(Gates(c, o).size(), 1u);
  EXPECT_EQ(Gates(c, o)[0].kind, Violation::Kind::kUpdateNotInPlace);
}

TEST(PolicyTest, UnknownBytesBreakEveryByteBudget) {
  auto m = ParseOne(testing::kUnknownTripCountLoop);
  ModuleCheck c = Check(*m);
  GateOptions o;
  o.max_copy_bytes = 1'000'000;
  std::vector<Violation> v = Gates(c, o);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_TRUE(v[0].amount_unknown);
  EXPECT_NE(ViolationText(v[0]).find("plus an unknown amount"), std::string::npos);
}

}  // namespace
}  // namespace hloscope
