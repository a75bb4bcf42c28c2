// Whole reads: a loop whose kernels read its buffer whole every iteration
// grows with the buffer although nothing is copied or rewritten (a decode
// step attending over its whole KV cache); reading a window of it, a static
// slice of it, or a small fixed table beside it does not.
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

// A decode loop of 32 steps: `update` writes row i of the cache (carry 1)
// into %updated (in place), `ops` read it, and `next_q` is the new query
// (carry 2). Carry 3 is a fixed 8x8 table. `fused` adds computations.
std::string Decode(const std::string& update, const std::string& ops, const std::string& next_q,
                   const std::string& fused = "") {
  return R"(
HloModule decode, input_output_alias={ {1}: (0, {}, may-alias) }
)" + fused +
         R"(
%body (t: (s32[], f32[1024,8], f32[8], f32[8,8])) -> (s32[], f32[1024,8], f32[8], f32[8,8]) {
  %t = (s32[], f32[1024,8]{1,0}, f32[8]{0}, f32[8,8]{1,0}) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %cache = f32[1024,8]{1,0} get-tuple-element(%t), index=1
  %q = f32[8]{0} get-tuple-element(%t), index=2
  %table = f32[8,8]{1,0} get-tuple-element(%t), index=3
  %zero = s32[] constant(0)
  %row = f32[1,8]{1,0} reshape(%q)
)" + update +
         "\n" + ops + R"(
  %one = s32[] constant(1)
  %next = s32[] add(%i, %one)
  ROOT %r = (s32[], f32[1024,8]{1,0}, f32[8]{0}, f32[8,8]{1,0}) tuple(%next, %updated, )" +
         next_q + R"(, %table)
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

constexpr char kUpdate[] = "  %updated = f32[1024,8]{1,0} dynamic-update-slice(%cache, %row, %i, %zero)";
// The query mixed by the fixed table: a full rewrite of the 32 B carry 2,
// fixed-size, not growing.
constexpr char kMixed[] =
    "  %mixed = f32[8]{0} dot(%table, %q), lhs_contracting_dims={1}, rhs_contracting_dims={0}";

// The names of the loop's whole-read kernels.
std::vector<std::string> WholeReads(const ModuleCheck& c) {
  std::vector<std::string> out;
  for (const LoopFinding& l : c.loops)
    for (const LoopScaling& s : l.scaling)
      if (s.kind == LoopScaling::Kind::kWholeRead) out.emplace_back(s.kernel->name());
  return out;
}

// The loop's first whole-read entry; nullptr if none.
const LoopScaling* FirstWholeRead(const LoopFinding& l) {
  for (const LoopScaling& e : l.scaling)
    if (e.kind == LoopScaling::Kind::kWholeRead) return &e;
  return nullptr;
}

TEST(WholeRead, AKernelReadingTheUpdatedCacheWholeGrowsWithIt) {
  auto m = ParseOne(
      Decode(kUpdate,
             std::string(kMixed) +
                 "\n  %scores = f32[1024]{0} dot(%updated, %q), lhs_contracting_dims={1}, "
                 "rhs_contracting_dims={0}\n  %out = f32[8]{0} dot(%scores, %updated), "
                 "lhs_contracting_dims={0}, rhs_contracting_dims={0}\n  %next_q = f32[8]{0} add(%out, "
                 "%mixed)",
             "%next_q"));
  ASSERT_TRUE(m);
  ModuleCheck c = Check(*m);
  ASSERT_EQ(c.loops.size(), 1u);
  const LoopFinding& l = c.loops.front();
  EXPECT_TRUE(l.scales_with_buffer);
  // Both dots read the cache whole; the fixed table's dot is not one.
  EXPECT_EQ(WholeReads(c), (std::vector<std::string>{"scores", "out"}));
  const LoopScaling* s = FirstWholeRead(l);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->carry, 1);
  EXPECT_EQ(s->bytes, 1024 * 8 * 4);
  EXPECT_TRUE(s->grows_with_buffer);
  EXPECT_EQ(ScalingText(*s, l),
            "scores reads carry 1 (cache, f32[1024,8]{1,0}, 32.0 KiB) whole every iteration");
  EXPECT_EQ(
      GrowthLine(c),
      "scores reads carry 1 (cache, f32[1024,8]{1,0}, 32.0 KiB) whole every iteration (and 1 more growing "
      "with it), in w, 2.0 MiB per call together — the op reads the whole buffer every iteration (attention "
      "over a whole cache, a reduction or sort over all of it): inherent to the op as written; reading only "
      "the filled part or a fixed window bounds it");
}

// A kernel that reads the cache whole and makes the next (small) query is a
// whole read: its rewrite of the query is fixed-size, the read is not.
TEST(WholeRead, AKernelRewritingASmallCarryStillReadsTheCacheWhole) {
  auto m = ParseOne(Decode(kUpdate,
                           "  %scores = f32[1024]{0} dot(%updated, %q), lhs_contracting_dims={1}, "
                           "rhs_contracting_dims={0}\n  %next_q = f32[8]{0} dot(%scores, %updated), "
                           "lhs_contracting_dims={0}, rhs_contracting_dims={0}",
                           "%next_q"));
  ASSERT_TRUE(m);
  EXPECT_EQ(WholeReads(Check(*m)), (std::vector<std::string>{"scores", "next_q"}));
}

TEST(WholeRead, AWindowOrAStaticSliceOfTheCacheIsNotAWholeRead) {
  for (const char* take :
       {"  %part = f32[64,8]{1,0} dynamic-slice(%updated, %i, %zero), dynamic_slice_sizes={64,8}",
        "  %part = f32[64,8]{1,0} slice(%updated), slice={[0:64], [0:8]}"}) {
    auto m = ParseOne(Decode(kUpdate,
                             std::string(take) + "\n" + kMixed +
                                 "\n  %scores = f32[64]{0} dot(%part, %q), lhs_contracting_dims={1}, "
                                 "rhs_contracting_dims={0}",
                             "%mixed"));
    ASSERT_TRUE(m);
    ModuleCheck c = Check(*m);
    ASSERT_EQ(c.loops.size(), 1u);
    EXPECT_FALSE(c.loops.front().scales_with_buffer) << take;
    EXPECT_TRUE(WholeReads(c).empty()) << take;
    EXPECT_EQ(GrowthLine(c), "") << take;
  }
}

// XLA:CPU lays the cache out anew for the dot (a transpose, or a fusion of
// copies and bitcasts) and gives that kernel the update's metadata: the read
// is reported at the line of the op it serves, the first one downstream
// with a line of its own.
TEST(WholeRead, ARelayoutIsReportedAtTheLineOfTheOpItServes) {
  auto m = ParseOne(
      Decode(kUpdate,
             std::string(kMixed) +
                 "\n  %tr = f32[8,1024]{1,0} transpose(%updated), dimensions={1,0}, "
                 "metadata={op_name=\"dynamic_update_slice\" source_file=\"dec.py\" source_line=3}\n"
                 "  %scores = f32[1024]{0} dot(%tr, %q), lhs_contracting_dims={0}, rhs_contracting_dims={0}\n"
                 "  %best = f32[] reduce(%scores, %zf), dimensions={0}, to_apply=%max, "
                 "metadata={op_name=\"reduce_max\" source_file=\"dec.py\" source_line=9}\n"
                 "  %zf = f32[] constant(0)",
             "%mixed",
             "%max (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n"
             "  ROOT %m = f32[] maximum(%a, %b)\n}\n"));
  ASSERT_TRUE(m);
  ModuleCheck c = Check(*m);
  ASSERT_EQ(c.loops.size(), 1u);
  const LoopFinding& l = c.loops.front();
  EXPECT_EQ(WholeReads(c), (std::vector<std::string>{"tr"}));
  const LoopScaling* s = FirstWholeRead(l);
  ASSERT_TRUE(s);
  // The dot has no line: the op it feeds, the reduce at dec.py:9, is the one served.
  ASSERT_TRUE(s->for_op);
  EXPECT_EQ(s->for_op->name(), "best");
  EXPECT_EQ(
      ScalingText(*s, l),
      "tr reads carry 1 (cache, f32[1024,8]{1,0}, 32.0 KiB) whole every iteration, for best at dec.py:9");
}

// A dynamic slice that spans every row the loop writes (one head's columns
// of the cache, a layer of a stacked cache) reads all of them every
// iteration: a whole read of that slice.
constexpr char kHeadColumns[] =
    "  %head = f32[1024,4]{1,0} dynamic-slice(%updated, %zero, %i), dynamic_slice_sizes={1024,4}\n"
    "  %scores = f32[1024]{0} dot(%head, %q4), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
    "  %q4 = f32[4]{0} slice(%q), slice={[0:4]}";

TEST(WholeRead, ASliceSpanningEveryRowTheLoopWritesIsAWholeRead) {
  auto m = ParseOne(Decode(kUpdate, std::string(kHeadColumns) + "\n" + kMixed, "%mixed"));
  ASSERT_TRUE(m);
  ModuleCheck c = Check(*m);
  ASSERT_EQ(c.loops.size(), 1u);
  const LoopFinding& l = c.loops.front();
  EXPECT_TRUE(l.scales_with_buffer);
  // The slice itself is the kernel: it is what reads the rows.
  EXPECT_EQ(WholeReads(c), (std::vector<std::string>{"head"}));
  const LoopScaling* s = FirstWholeRead(l);
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->slice);
  EXPECT_EQ(s->bytes, 1024 * 4 * 4);
  EXPECT_EQ(ScalingText(*s, l),
            "head reads f32[1024,4]{1,0} (16.0 KiB) of carry 1 (cache, f32[1024,8]{1,0}) — all the rows the "
            "loop writes — every iteration");
  EXPECT_EQ(GrowthLine(c),
            "head reads f32[1024,4]{1,0} (16.0 KiB) of carry 1 (cache, f32[1024,8]{1,0}) — all the rows the "
            "loop writes — every iteration, in w, 512.0 KiB per call — the op reads every row the loop "
            "writes, written or not yet, every iteration (attention over a whole layer of a stacked cache): "
            "inherent to the op as written; reading only the filled rows or a fixed window bounds it");
}

// Rows are what the loop writes at run-time positions: an update at a
// fixed position writes no row that a slice could span.
TEST(WholeRead, ASpanningSliceNeedsRowsWrittenAtRunTimePositions) {
  auto m = ParseOne(Decode("  %updated = f32[1024,8]{1,0} dynamic-update-slice(%cache, %row, %zero, %zero)",
                           std::string(kHeadColumns) + "\n" + kMixed, "%mixed"));
  ASSERT_TRUE(m);
  ModuleCheck c = Check(*m);
  EXPECT_TRUE(WholeReads(c).empty());
  EXPECT_EQ(GrowthLine(c), "");
}

// TPU fuses the update with other work into a multi-output fusion: the
// updated cache is an element of its tuple, and a dot reading that element
// reads the cache whole.
TEST(WholeRead, TheUpdatedElementOfAMultiOutputFusionIsFollowed) {
  const char* fused = R"(
%fused_update (p0: f32[1024,8], p1: f32[1,8], p2: s32[]) -> (f32[1024,8], f32[1,8]) {
  %p0 = f32[1024,8]{1,0} parameter(0)
  %p1 = f32[1,8]{1,0} parameter(1)
  %p2 = s32[] parameter(2)
  %z = s32[] constant(0)
  %dus = f32[1024,8]{1,0} dynamic-update-slice(%p0, %p1, %p2, %z)
  %neg = f32[1,8]{1,0} negate(%p1)
  ROOT %tuple = (f32[1024,8]{1,0}, f32[1,8]{1,0}) tuple(%dus, %neg)
}
)";
  auto m = ParseOne(Decode(
      "  %both = (f32[1024,8]{1,0}, f32[1,8]{1,0}) fusion(%cache, %row, %i), kind=kLoop, "
      "calls=%fused_update\n"
      "  %updated = f32[1024,8]{1,0} get-tuple-element(%both), index=0",
      std::string(kMixed) +
          "\n  %scores = f32[1024]{0} dot(%updated, %q), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
      "%mixed", fused));
  ASSERT_TRUE(m);
  EXPECT_EQ(WholeReads(Check(*m)), (std::vector<std::string>{"scores"}));
}

}  // namespace
}  // namespace hloscope
