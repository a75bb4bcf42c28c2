// The gate policy (analysis/policy.h) on small modules shaped like XLA's
// output: the classification of each finding into a gate, what counts under
// the filter, budgets, selections. Typed assertions only; the sentences are
// tests/report/gate_wording_test.cc's.
#include "hloscope/analysis/policy.h"

#include <gtest/gtest.h>

#include "check_test_util.h"

namespace hloscope {
namespace {

using testing::Check;
using testing::ParseOne;

// A fori_loop writing one element per iteration; `header` donates or not.
// XLA copies the loop counter (a scalar) in every iteration either way.
std::string Loop(const std::string& header, const std::string& init) {
  return testing::DusLoopModule({header, init, "  %ic = s32[] copy(%i)\n"});
}

std::vector<Violation> Gates(const ModuleCheck& c, const GateOptions& o, const FindingFilter& f = {}) {
  return EvaluateGates({&c}, o, f);
}

GateOptions Preset(std::string_view name) {
  GateOptions o;
  o.gates = *GatesNamed(name);
  return o;
}

TEST(PolicyTest, PresetsAndNames) {
  EXPECT_EQ(DefaultGates(),
            (GateSet{Gate::kCopiesInLoops, Gate::kNotInPlace, Gate::kFullRewrites, Gate::kReshardsInLoops}));
  EXPECT_EQ(*GatesNamed("default"), DefaultGates());
  EXPECT_TRUE(GatesNamed("strict")->Has(Gate::kUndonated));
  EXPECT_TRUE(GatesNamed("strict")->Has(Gate::kContradictions));
  EXPECT_EQ(*GatesNamed("copies_in_loops"), GateSet{Gate::kCopiesInLoops});  // Python's spelling
  EXPECT_EQ(GatesNamed("copies"), std::nullopt);
  for (const GateEntry& g : GateCatalog()) EXPECT_EQ(*GatesNamed(g.name), GateSet{g.gate});
}

TEST(PolicyTest, ADonatedLoopPassesEveryGateDespiteItsScalarCopy) {
  auto m = ParseOne(Loop(", input_output_alias={ {}: (0, {}, may-alias) }",
                         "  %init = (s32[], f32[1024]{0}) tuple(%zero, %buf)"));
  ModuleCheck c = Check(*m);
  ASSERT_EQ(c.copies.size(), 1u);
  EXPECT_TRUE(c.copies[0].scalar);
  GateOptions o = Preset("strict");
  o.budgets = {0, 0, 0, 0, std::nullopt};  // the copy budgets; the peak is not asked for
  EXPECT_TRUE(Gates(c, o).empty());
  FindingFilter minor;
  minor.include_minor = true;
  std::vector<Violation> v = Gates(c, o, minor);
  ASSERT_EQ(v.size(), 5u);  // the copy in the loop, then four budgets
  EXPECT_EQ(v[0].kind, Violation::Kind::kCopyInLoop);
  // A 4-byte counter: small, and it does not grow with the buffer.
  EXPECT_EQ(v[0].gate, Gate::kSmallCopiesInLoops);
  o.gates = DefaultGates();
  v = Gates(c, o, minor);
  ASSERT_EQ(v.size(), 4u);  // the default gates pass it: only the budgets
  EXPECT_EQ(v[0].kind, Violation::Kind::kCopyBytes);
  EXPECT_EQ(v[0].amount, 400);
}

TEST(PolicyTest, AnUndonatedArgumentsCopyIsAdviceUnlessAskedFor) {
  auto m = ParseOne(Loop("",
                         "  %cp = f32[1024]{0} copy(%buf)\n"
                         "  %init = (s32[], f32[1024]{0}) tuple(%zero, %cp)"));
  ModuleCheck c = Check(*m);
  const CopyFinding* cp = testing::FindCopy(c, "cp");
  ASSERT_TRUE(cp);
  EXPECT_EQ(GateOf(*cp), Gate::kUndonated);
  ASSERT_EQ(c.updates.size(), 1u);
  EXPECT_EQ(c.updates[0].verdict, UpdateVerdict::kInPlaceOnCopy);
  EXPECT_EQ(GateOf(c.updates[0], c), Gate::kUndonated);
  // The copy runs once, before the loop: the default gates pass ...
  EXPECT_TRUE(Gates(c, Preset("default")).empty());
  // ... `undonated` fails once, on the copy, with the update that runs on it.
  std::vector<Violation> v = Gates(c, Preset("undonated"));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, Violation::Kind::kUndonatedCopy);
  EXPECT_EQ(v[0].copy, cp);
  ASSERT_EQ(v[0].updates.size(), 1u);
  EXPECT_EQ(v[0].updates[0], &c.updates[0]);
}

// A donated buffer copied because the program reads its old contents after
// the loop updates it: the update is in place on a copy made for a read,
// which the default gates fail, showing the copy with the update once.
const std::string kReadAfterTheLoop = testing::DusLoopModule(
    {", input_output_alias={ {0}: (0, {}, may-alias) }",
     "  %cp = f32[1024]{0} copy(%buf)\n  %init = (s32[], f32[1024]{0}) tuple(%zero, %cp)", "",
     "(f32[1024], f32[1024])",
     "  %out = f32[1024]{0} get-tuple-element(%w), index=1\n"
     "  %old = f32[1024]{0} negate(%buf), metadata={op_name=\"jit(f)/neg\" source_file=\"train.py\" "
     "source_line=44}\n"
     "  ROOT %r = (f32[1024]{0}, f32[1024]{0}) tuple(%out, %old)\n"});

TEST(PolicyTest, AnUpdateOnACopyMadeForAReadIsNotInPlaceAndShowsItsCopyOnce) {
  auto m = ParseOne(kReadAfterTheLoop);
  ModuleCheck c = Check(*m);
  const CopyFinding* cp = testing::FindCopy(c, "cp");
  ASSERT_TRUE(cp);
  EXPECT_EQ(cp->cause.cause, CopyCause::kReadAfterUpdate);
  EXPECT_EQ(GateOf(*cp), std::nullopt);  // outside loops, not an undonated argument's
  std::vector<Violation> v = Gates(c, Preset("default"));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, Violation::Kind::kUpdateNotInPlace);
  EXPECT_EQ(v[0].copy, cp);
}

TEST(PolicyTest, SelectionsAndNothingSelected) {
  auto m = ParseOne(kReadAfterTheLoop);
  ModuleCheck c = Check(*m);
  GateOptions o = Preset("default");
  o.update_names = {"upd"};  // a fusion's name selects the updates in it
  EXPECT_EQ(Gates(c, o).size(), 1u);
  o.update_names = {};
  o.lines = {*ParseLineSpec("train.py:41")};
  EXPECT_EQ(Gates(c, o).size(), 1u);
  o.lines = {*ParseLineSpec("train.py:40")};
  std::vector<Violation> none = Gates(c, o);
  ASSERT_EQ(none.size(), 1u);
  EXPECT_EQ(none[0].kind, Violation::Kind::kNothingSelected);
  EXPECT_EQ(none[0].selected_lines, std::vector<std::string>{"train.py:40"});
}

TEST(PolicyTest, AContradictedInPlaceVerdictIsNotInPlace) {
  auto m = ParseOne(Loop(", input_output_alias={ {}: (0, {}, may-alias) }",
                         "  %init = (s32[], f32[1024]{0}) tuple(%zero, %buf)"));
  ModuleCheck c = Check(*m);
  ASSERT_EQ(c.updates.size(), 1u);
  EXPECT_TRUE(IsInPlace(c.updates[0]));
  c.updates[0].confirmation.confirmed = false;
  EXPECT_FALSE(IsInPlace(c.updates[0]));
  std::vector<Violation> v = Gates(c, Preset("contradictions"));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, Violation::Kind::kContradiction);
  v = Gates(c, Preset("default"));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, Violation::Kind::kUpdateNotInPlace);
  // Both asked for: reported once, as not in place.
  EXPECT_EQ(Gates(c, Preset("strict")).size(), 1u);
}

TEST(PolicyTest, TheFilterDecidesWhatCounts) {
  auto m = ParseOne(Loop(", input_output_alias={ {}: (0, {}, may-alias) }",
                         "  %init = (s32[], f32[1024]{0}) tuple(%zero, %buf)"));
  ModuleCheck c = Check(*m);
  ASSERT_EQ(c.updates.size(), 1u);
  c.updates[0].verdict = UpdateVerdict::kOutOfPlace;  // 4 B × 100 per call
  EXPECT_EQ(Gates(c, Preset("default")).size(), 1u);
  FindingFilter big;
  big.min_bytes = 401;
  EXPECT_TRUE(Gates(c, Preset("default"), big).empty());
  big.min_bytes = 400;
  EXPECT_EQ(Gates(c, Preset("default"), big).size(), 1u);
  c.updates[0].executions.reset();  // unknown: always counts
  big.min_bytes = INT64_MAX;
  EXPECT_EQ(Gates(c, Preset("default"), big).size(), 1u);
}

TEST(PolicyTest, UnknownBytesBreakEveryByteBudget) {
  auto m = ParseOne(testing::kUnknownTripCountLoop);
  ModuleCheck c = Check(*m);
  GateOptions o;
  o.budgets.max_copy_bytes = 1'000'000;
  std::vector<Violation> v = Gates(c, o);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_TRUE(v[0].amount_unknown);
  EXPECT_EQ(v[0].kind, Violation::Kind::kCopyBytes);
}

}  // namespace
}  // namespace hloscope
