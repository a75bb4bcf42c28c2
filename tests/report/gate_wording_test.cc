// The sentences of broken gates (report/gate_wording.cc): what the CLI
// prints on stderr and Python raises in AssertionError.
#include <gtest/gtest.h>

#include "../analysis/check_test_util.h"
#include "hloscope/analysis/policy.h"
#include "hloscope/report/wording.h"

namespace hloscope {
namespace {

using testing::Check;
using testing::ParseOne;

constexpr char kNotDonated[] = R"(
HloModule m
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
  %cp = f32[1024]{0} copy(%buf)
  %init = (s32[], f32[1024]{0}) tuple(%zero, %cp)
  %w = (s32[], f32[1024]{0}) while(%init), condition=%cond, body=%body
  ROOT %out = f32[1024]{0} get-tuple-element(%w), index=1
}
)";

std::vector<Violation> Gates(const ModuleCheck& c, std::string_view names, const GateOptions& base = {}) {
  GateOptions o = base;
  o.gates = *GatesNamed(names);
  return EvaluateGates({&c}, o, {});
}

TEST(GateWordingTest, AnUndonatedCopyNamesTheUpdatesOnIt) {
  auto m = ParseOne(kNotDonated);
  ModuleCheck c = Check(*m);
  std::vector<Violation> v = Gates(c, "undonated");
  ASSERT_EQ(v.size(), 1u);
  std::string text = ViolationText(v[0]);
  EXPECT_NE(
      text.find("cp f32[1024]{0} outside any loop moves 4.0 KiB × 1 = 4.0 KiB per call at train.py:41 — "
                "non-donated-parameter: argument 0 (buf) is updated in place (dus in upd) but not donated"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("hint: donate argument 0: jax.jit(f, donate_argnums=0)"), std::string::npos) << text;
  EXPECT_NE(text.find("dus in upd at train.py:41 runs on this copy"), std::string::npos) << text;
  EXPECT_EQ(ViolationLine(v[0]).rfind("copy of an argument that is not donated: cp f32[1024]{0}", 0), 0u)
      << ViolationLine(v[0]);
}

TEST(GateWordingTest, NothingSelectedListsTheUpdatesThereAre) {
  auto m = ParseOne(kNotDonated);
  ModuleCheck c = Check(*m);
  GateOptions o;
  o.lines = {*ParseLineSpec("train.py:40")};
  std::vector<Violation> none = Gates(c, "default", o);
  ASSERT_EQ(none.size(), 1u);
  EXPECT_EQ(ViolationText(none[0]), "no update matches lines train.py:40");
  std::string msg = GateFailureMessage("hloscope.assert_inplace", none, {&c});
  EXPECT_NE(msg.find("updates in the program: dus in upd at train.py:41"), std::string::npos) << msg;
}

TEST(GateWordingTest, GateSetsAreNamed) {
  EXPECT_EQ(GateSetText(DefaultGates()), "copies-in-loops, not-in-place, full-rewrites, reshards-in-loops");
  EXPECT_EQ(GateSetText({}), "(none)");
}

}  // namespace
}  // namespace hloscope
