// Whole reads: a loop whose kernels read its buffer whole every iteration
// grows with the buffer although nothing is copied or rewritten (a decode
// step attending over its whole KV cache); reading a window of it, or a
// small fixed table beside it, does not.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "check_test_util.h"
#include "hloscope/report/growth_words.h"
#include "hloscope/report/wording.h"

namespace hloscope {
namespace {

using testing::Check;
using testing::ParseOne;

// A decode loop: writes row i of the cache (carry 1) in place, then a dot
// reads `READ` and a second dot the cache again. `READ` is the updated
// cache itself, or a 64-row window of it.
std::string Decode(const std::string& read, const std::string& window) {
  return R"(
HloModule decode, input_output_alias={ {1}: (0, {}, may-alias) }
%body (t: (s32[], f32[1024,8], f32[8], f32[8,8])) -> (s32[], f32[1024,8], f32[8], f32[8,8]) {
  %t = (s32[], f32[1024,8]{1,0}, f32[8]{0}, f32[8,8]{1,0}) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %cache = f32[1024,8]{1,0} get-tuple-element(%t), index=1
  %q = f32[8]{0} get-tuple-element(%t), index=2
  %table = f32[8,8]{1,0} get-tuple-element(%t), index=3
  %zero = s32[] constant(0)
  %row = f32[1,8]{1,0} reshape(%q)
  %updated = f32[1024,8]{1,0} dynamic-update-slice(%cache, %row, %i, %zero)
)" + window +
         R"(
  %scores = f32[)" +
         (window.empty() ? "1024" : "64") + R"(]{0} dot()" + read +
         R"(, %q), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %mixed = f32[8]{0} dot(%table, %q), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %one = s32[] constant(1)
  %next = s32[] add(%i, %one)
  ROOT %r = (s32[], f32[1024,8]{1,0}, f32[8]{0}, f32[8,8]{1,0}) tuple(%next, %updated, %mixed, %table)
}
%cond (t: (s32[], f32[1024,8], f32[8], f32[8,8])) -> pred[] {
  %t = (s32[], f32[1024,8]{1,0}, f32[8]{0}, f32[8,8]{1,0}) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %n = s32[] constant(32)
  ROOT %lt = pred[] compare(%i, %n), direction=LT
}
ENTRY %main (cache: f32[1024,8], q: f32[8], table: f32[8,8]) -> (s32[], f32[1024,8], f32[8], f32[8,8]) {
  %i = s32[] constant(0)
  %cache = f32[1024,8]{1,0} parameter(0)
  %q = f32[8]{0} parameter(1)
  %table = f32[8,8]{1,0} parameter(2)
  %init = (s32[], f32[1024,8]{1,0}, f32[8]{0}, f32[8,8]{1,0}) tuple(%i, %cache, %q, %table)
  ROOT %w = (s32[], f32[1024,8]{1,0}, f32[8]{0}, f32[8,8]{1,0}) while(%init), condition=%cond, body=%body
}
)";
}

const LoopFinding& TheLoop(const ModuleCheck& c) {
  EXPECT_EQ(c.loops.size(), 1u);
  return c.loops.front();
}

// The loop's whole-read entries (the q carry's rewrite by the table's dot
// is an entry of its own, fixed-size: not growing).
std::vector<const LoopScaling*> WholeReads(const LoopFinding& l) {
  std::vector<const LoopScaling*> out;
  for (const LoopScaling& s : l.scaling)
    if (s.kind == LoopScaling::Kind::kWholeRead) out.push_back(&s);
  return out;
}

TEST(WholeRead, AKernelReadingTheUpdatedCacheWholeGrowsWithIt) {
  auto m = ParseOne(Decode("%updated", ""));
  ASSERT_TRUE(m);
  ModuleCheck c = Check(*m);
  const LoopFinding& l = TheLoop(c);
  EXPECT_TRUE(l.scales_with_buffer);
  ASSERT_EQ(WholeReads(l).size(), 1u);  // the fixed table's dot is not one
  const LoopScaling& s = *WholeReads(l).front();
  EXPECT_EQ(s.kernel->name(), "scores");
  EXPECT_EQ(s.carry, 1);
  EXPECT_EQ(s.bytes, 1024 * 8 * 4);
  EXPECT_TRUE(s.grows_with_buffer);
  EXPECT_EQ(ScalingText(s, l),
            "scores reads carry 1 (cache, f32[1024,8]{1,0}, 32.0 KiB) whole every iteration");
  EXPECT_EQ(
      GrowthLine(c),
      "scores reads carry 1 (cache, f32[1024,8]{1,0}, 32.0 KiB) whole every iteration, in w, 1.0 MiB per "
      "call — the op reads the whole buffer every iteration (attention over a whole cache, a reduction or "
      "sort over all of it): inherent to the op as written; reading only the filled part or a fixed window "
      "bounds it");
}

TEST(WholeRead, AWindowOfTheCacheIsNotAWholeRead) {
  auto m = ParseOne(Decode("%window",
                           "  %window = f32[64,8]{1,0} dynamic-slice(%updated, %i, %zero), "
                           "dynamic_slice_sizes={64,8}"));
  ASSERT_TRUE(m);
  ModuleCheck c = Check(*m);
  const LoopFinding& l = TheLoop(c);
  EXPECT_FALSE(l.scales_with_buffer);
  EXPECT_TRUE(WholeReads(l).empty());
  EXPECT_EQ(GrowthLine(c), "");
}

}  // namespace
}  // namespace hloscope
