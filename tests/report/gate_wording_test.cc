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

// The loop's buffer is an argument the caller did not donate: XLA copies it.
const std::string kNotDonated = testing::DusLoopModule(
    {.header = "",
     .init = "  %cp = f32[1024]{0} copy(%buf)\n  %init = (s32[], f32[1024]{0}) tuple(%zero, %cp)"});

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
                "non-donated-parameter: argument 0 (buf) is updated in place (dus in upd at train.py:41) but "
                "not donated"),
      std::string::npos)
      << text;
  EXPECT_NE(
      text.find("hint: donate the argument holding HLO parameter 0 (buf): jax.jit(f, donate_argnums=<its "
                "position>)"),
      std::string::npos)
      << text;
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
