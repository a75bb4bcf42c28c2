// The op a kernel serves (analysis/served_op.h): a relayout in front of a
// dot is reported at the op it feeds, and a dot without metadata at the
// line of its other operand when everything downstream of it is the loop's
// bookkeeping (a scan stacking its output at the `lax.scan` call's line).
#include "hloscope/analysis/served_op.h"

#include <gtest/gtest.h>

#include <string>

#include "check_test_util.h"
#include "hloscope/ir/computation.h"

namespace hloscope {
namespace {

using testing::ParseOne;

// One decode step over a cache v (carry 1): %vt lays it out for `p @ v`
// with the cache update's line (dec.py:3), %pv has no metadata, and its
// result is stacked into carry 2 at the scan's line (dec.py:20, the
// while's own). The probabilities %p come from dec.py:7.
constexpr char kAttention[] = R"(
HloModule m
%body (t: (s32[], f32[64,8], f32[16,8])) -> (s32[], f32[64,8], f32[16,8]) {
  %t = (s32[], f32[64,8]{1,0}, f32[16,8]{1,0}) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %v = f32[64,8]{1,0} get-tuple-element(%t), index=1
  %ys = f32[16,8]{1,0} get-tuple-element(%t), index=2
  %vt = f32[8,64]{1,0} transpose(%v), dimensions={1,0}, metadata={op_name="dynamic_update_slice" source_file="dec.py" source_line=3}
  %s = f32[64]{0} reduce(%v, %zf), dimensions={1}, to_apply=%add
  %p = f32[64]{0} exponential(%s), metadata={op_name="softmax" source_file="dec.py" source_line=7}
  %zf = f32[] constant(0)
  %pv = f32[8]{0} dot(%vt, %p), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %row = f32[1,8]{1,0} bitcast(%pv)
  %z = s32[] constant(0)
  %ys2 = f32[16,8]{1,0} dynamic-update-slice(%ys, %row, %i, %z), metadata={op_name="scan" source_file="dec.py" source_line=20}
  %one = s32[] constant(1)
  %next = s32[] add(%i, %one)
  ROOT %r = (s32[], f32[64,8]{1,0}, f32[16,8]{1,0}) tuple(%next, %v, %ys2)
}
%cond (t: (s32[], f32[64,8], f32[16,8])) -> pred[] {
  %t = (s32[], f32[64,8]{1,0}, f32[16,8]{1,0}) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %n = s32[] constant(16)
  ROOT %lt = pred[] compare(%i, %n), direction=LT
}
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
ENTRY %main (v: f32[64,8], ys: f32[16,8]) -> (s32[], f32[64,8], f32[16,8]) {
  %v = f32[64,8]{1,0} parameter(0)
  %ys = f32[16,8]{1,0} parameter(1)
  %i0 = s32[] constant(0)
  %init = (s32[], f32[64,8]{1,0}, f32[16,8]{1,0}) tuple(%i0, %v, %ys)
  ROOT %w = (s32[], f32[64,8]{1,0}, f32[16,8]{1,0}) while(%init), condition=%cond, body=%body, metadata={op_name="scan" source_file="dec.py" source_line=20}
}
)";

struct Served {
  std::string op, line_of;
};

Served Of(const HloModule& m, const std::string& kernel) {
  const HloInstruction* k = nullptr;
  for (const HloComputation* c : m.computations())
    if (const HloInstruction* i = c->GetInstruction(kernel)) k = i;
  EXPECT_TRUE(k) << kernel;
  if (!k) return {};
  ServedOp s = ServedOpOf(*k, [&m](const HloInstruction& i) { return ResolveSource(m, i, {}); });
  return {s.op ? std::string(s.op->name()) : "", s.line_of ? std::string(s.line_of->name()) : ""};
}

TEST(ServedOp, ADotWithoutALineIsReportedAtItsOtherOperandsLine) {
  auto m = ParseOne(kAttention);
  ASSERT_TRUE(m);
  // Downstream of %vt only the scan's stacking has a line, and it is the
  // loop's own: the dot is served, at the probabilities' line.
  Served s = Of(*m, "vt");
  EXPECT_EQ(s.op, "pv");
  EXPECT_EQ(s.line_of, "p");
  // A kernel with its own line that is no relayout serves nothing.
  s = Of(*m, "p");
  EXPECT_EQ(s.op, "");
}

TEST(ServedOp, ARelayoutIsServingTheFirstOpDownstreamWithALine) {
  std::string text = kAttention;
  // The dot's result goes through a scaling with a line before it is stacked.
  std::string from = "%row = f32[1,8]{1,0} bitcast(%pv)";
  text.replace(text.find(from), from.size(),
               "%sc = f32[8]{0} multiply(%pv, %pv), metadata={op_name=\"mul\" source_file=\"dec.py\" "
               "source_line=9}\n  %row = f32[1,8]{1,0} bitcast(%sc)");
  auto m = ParseOne(text);
  ASSERT_TRUE(m);
  Served s = Of(*m, "vt");
  EXPECT_EQ(s.op, "sc");
  EXPECT_EQ(s.line_of, "sc");
  // Without a line anywhere near it, nothing is named.
  std::string plain = kAttention;
  for (const char* meta : {", metadata={op_name=\"softmax\" source_file=\"dec.py\" source_line=7}"}) {
    size_t at = plain.find(meta);
    ASSERT_NE(at, std::string::npos);
    plain.erase(at, std::string(meta).size());
  }
  m = ParseOne(plain);
  ASSERT_TRUE(m);
  s = Of(*m, "vt");
  EXPECT_EQ(s.op, "");
  EXPECT_EQ(s.line_of, "");
}

// The scores of `q @ k.T / sqrt(d)` masked with `where`: XLA fuses the
// scaling (dec.py:5) into the mask's fusion, whose own line is the mask's
// (dec.py:6, its root). The relayout of k is reported at the scaling: the
// code that reads the dot's result.
TEST(ServedOp, AFusionIsReportedAtItsFirstFusedOpThatReadsThePath) {
  auto m = ParseOne(R"(
HloModule m
%mask (s: f32[64], lim: s32[]) -> f32[64] {
  %s = f32[64]{0} parameter(0)
  %c = f32[] constant(0.25)
  %cb = f32[64]{0} broadcast(%c), dimensions={}
  %scaled = f32[64]{0} multiply(%s, %cb), metadata={op_name="div" source_file="dec.py" source_line=5}
  %lim = s32[] parameter(1)
  %io = s32[64]{0} iota(), iota_dimension=0
  %lb = s32[64]{0} broadcast(%lim), dimensions={}
  %le = pred[64]{0} compare(%io, %lb), direction=LE
  %neg = f32[] constant(-1e9)
  %nb = f32[64]{0} broadcast(%neg), dimensions={}
  ROOT %w = f32[64]{0} select(%le, %scaled, %nb), metadata={op_name="select_n" source_file="dec.py" source_line=6}
}
%tr (p: f32[64,8]) -> f32[8,64] {
  %p = f32[64,8]{1,0} parameter(0)
  ROOT %t = f32[8,64]{1,0} transpose(%p), dimensions={1,0}
}
ENTRY %main (k: f32[64,8], q: f32[8], t: s32[]) -> f32[64] {
  %k = f32[64,8]{1,0} parameter(0)
  %q = f32[8]{0} parameter(1)
  %t = s32[] parameter(2)
  %kt = f32[8,64]{1,0} fusion(%k), kind=kLoop, calls=%tr, metadata={op_name="dynamic_update_slice" source_file="dec.py" source_line=3}
  %sc = f32[64]{0} dot(%q, %kt), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  ROOT %masked = f32[64]{0} fusion(%sc, %t), kind=kLoop, calls=%mask, metadata={op_name="select_n" source_file="dec.py" source_line=6}
}
)");
  ASSERT_TRUE(m);
  Served s = Of(*m, "kt");
  EXPECT_EQ(s.op, "masked");
  EXPECT_EQ(s.line_of, "scaled");
}

// A copy fusion (XLA:GPU's protective copies) is a copy finding, reported
// where `check` reports it: it serves nothing, though it only moves data.
TEST(ServedOp, ACopyFusionIsACopyFindingNotARelayout) {
  auto m = ParseOne(R"(
HloModule m
%cp (p: f32[64,8]) -> f32[64,8] {
  %p = f32[64,8]{1,0} parameter(0)
  ROOT %c = f32[64,8]{1,0} copy(%p)
}
ENTRY %main (v: f32[64,8]) -> f32[64,8] {
  %v = f32[64,8]{1,0} parameter(0)
  %copy_fusion = f32[64,8]{1,0} fusion(%v), kind=kLoop, calls=%cp
  ROOT %n = f32[64,8]{1,0} negate(%copy_fusion), metadata={op_name="neg" source_file="dec.py" source_line=9}
}
)");
  ASSERT_TRUE(m);
  Served s = Of(*m, "copy_fusion");
  EXPECT_EQ(s.op, "");
  EXPECT_EQ(s.line_of, "");
}

}  // namespace
}  // namespace hloscope
