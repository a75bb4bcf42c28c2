// FLOPs, transcendentals and bytes of one instruction by XLA's
// HloCostAnalysis rules, and the module's totals as cost_analysis() counts
// them (loop bodies once) against ours (as often as they run).
#include "hloscope/analysis/hlo_cost.h"

#include <gtest/gtest.h>

#include "check_test_util.h"
#include "hloscope/analysis/module_cost.h"
#include "hloscope/analysis/source_index.h"
#include "hloscope/ir/computation.h"
#include "hloscope/ir/window.h"

namespace hloscope::testing {
namespace {

TEST(Window, ParsesEveryField) {
  auto w = ParseWindow("{size=3x2 stride=2x1 pad=1_1x0_2 lhs_dilate=1x3 rhs_dilate=2x1}");
  ASSERT_TRUE(w);
  ASSERT_EQ(w->size(), 2u);
  EXPECT_EQ((*w)[0].size, 3);
  EXPECT_EQ((*w)[0].stride, 2);
  EXPECT_EQ((*w)[0].padding_low, 1);
  EXPECT_EQ((*w)[1].padding_high, 2);
  EXPECT_EQ((*w)[1].base_dilation, 3);
  EXPECT_EQ((*w)[0].window_dilation, 2);
  EXPECT_FALSE(ParseWindow("{size=3x3 pad=1x1}"));
  EXPECT_FALSE(ParseWindow("{size=3x3 stride=1}"));
  EXPECT_FALSE(ParseWindow("{size=3 stride=0}"));
}

TEST(Window, ParsesDimLabels) {
  auto d = ParseDimLabels("b01f_01io->b01f");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->input_batch, 0);
  EXPECT_EQ(d->input_feature, 3);
  EXPECT_EQ(d->input_spatial, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(d->kernel_input_feature, 2);
  EXPECT_EQ(d->kernel_output_feature, 3);
  auto nchw = ParseDimLabels("bf10_oi10->bf10");
  ASSERT_TRUE(nchw);
  EXPECT_EQ(nchw->input_spatial, (std::vector<int64_t>{3, 2}));
  EXPECT_FALSE(ParseDimLabels("b01f_01io"));
  EXPECT_FALSE(ParseDimLabels("b0xf_0io->b0f"));
}

// 2 × M × N × K for a matmul; one FLOP per element of an add; a tanh is a
// transcendental, not a FLOP.
TEST(HloCost, DotElementwiseAndTranscendental) {
  auto m = ParseOne(R"(HloModule m
ENTRY %main (a: f32[64,128], b: f32[128,32]) -> f32[64,32] {
  %a = f32[64,128]{1,0} parameter(0)
  %b = f32[128,32]{1,0} parameter(1)
  %d = f32[64,32]{1,0} dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %t = f32[64,32]{1,0} tanh(%d)
  ROOT %s = f32[64,32]{1,0} add(%t, %d)
}
)");
  ASSERT_TRUE(m);
  HloCost d = CostOf(*InstructionNamed(*m, "d"));
  EXPECT_EQ(d.flops, 2 * 64 * 32 * 128);
  EXPECT_EQ(d.bytes_accessed, (64 * 128 + 128 * 32 + 64 * 32) * 4);
  HloCost t = CostOf(*InstructionNamed(*m, "t"));
  EXPECT_EQ(t.flops, 0);
  EXPECT_EQ(t.transcendentals, 64 * 32);
  EXPECT_EQ(CostOf(*InstructionNamed(*m, "s")).flops, 64 * 32);
  HloCost total = XlaCostAnalysisOf(*m);
  EXPECT_EQ(total.flops, 2 * 64 * 32 * 128 + 64 * 32);
  EXPECT_FALSE(total.incomplete);
}

// A fusion's FLOPs are its operations'; its bytes what it reads and writes:
// the in-place update writes its update, a dynamic-slice reads what it selects.
TEST(HloCost, FusionBytesFollowXla) {
  auto m = ParseOne(R"(HloModule m
%fused (p0: f32[1024,64], p1: f32[8,64], p2: s32[]) -> f32[1024,64] {
  %p0 = f32[1024,64]{1,0} parameter(0)
  %p1 = f32[8,64]{1,0} parameter(1)
  %p2 = s32[] parameter(2)
  %z = s32[] constant(0)
  %e = f32[8,64]{1,0} exponential(%p1)
  ROOT %dus = f32[1024,64]{1,0} dynamic-update-slice(%p0, %e, %p2, %z)
}
ENTRY %main (b: f32[1024,64], u: f32[8,64], i: s32[]) -> f32[1024,64] {
  %b = f32[1024,64]{1,0} parameter(0)
  %u = f32[8,64]{1,0} parameter(1)
  %i = s32[] parameter(2)
  ROOT %f = f32[1024,64]{1,0} fusion(%b, %u, %i), kind=kLoop, calls=%fused
}
)");
  ASSERT_TRUE(m);
  HloCost f = CostOf(*InstructionNamed(*m, "f"));
  EXPECT_EQ(f.transcendentals, 8 * 64);
  // Writes the 2 KiB update; reads the update and the index, not the buffer.
  EXPECT_EQ(f.bytes_accessed, 8 * 64 * 4 + 8 * 64 * 4 + 4);
}

// A 3x3 convolution with SAME padding over 8x8: valid (kernel, output) pairs
// per spatial dimension are 8 + 7 + 7 = 22 (the border loses one).
TEST(HloCost, ConvolutionCountsValidPositions) {
  auto m = ParseOne(R"(HloModule m
ENTRY %main (x: f32[2,8,8,3], k: f32[3,3,3,16]) -> f32[2,8,8,16] {
  %x = f32[2,8,8,3]{3,2,1,0} parameter(0)
  %k = f32[3,3,3,16]{3,2,1,0} parameter(1)
  ROOT %c = f32[2,8,8,16]{3,2,1,0} convolution(%x, %k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
}
)");
  ASSERT_TRUE(m);
  EXPECT_EQ(CostOf(*InstructionNamed(*m, "c")).flops, 2 * 3 * 16 * 2 * 22 * 22);
}

// reduce: (inputs − outputs) applications of its reducer; sort: n ⌈log2 n⌉.
TEST(HloCost, ReduceAndSort) {
  auto m = ParseOne(R"(HloModule m
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
%lt (a: f32[], b: f32[]) -> pred[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %c = pred[] compare(%a, %b), direction=LT
}
ENTRY %main (x: f32[100,10]) -> (f32[100], f32[1000]) {
  %x = f32[100,10]{1,0} parameter(0)
  %zero = f32[] constant(0)
  %r = f32[100]{0} reduce(%x, %zero), dimensions={1}, to_apply=%add
  %flat = f32[1000]{0} bitcast(%x)
  %sorted = f32[1000]{0} sort(%flat), dimensions={0}, to_apply=%lt
  ROOT %t = (f32[100]{0}, f32[1000]{0}) tuple(%r, %sorted)
}
)");
  ASSERT_TRUE(m);
  EXPECT_EQ(CostOf(*InstructionNamed(*m, "r")).flops, 1000 - 100);
  EXPECT_EQ(CostOf(*InstructionNamed(*m, "sorted")).flops, 1000 * 10);
  EXPECT_EQ(CostOf(*InstructionNamed(*m, "flat")).bytes_accessed, 0);
  EXPECT_EQ(CostOf(*InstructionNamed(*m, "t")).bytes_accessed, 16);  // the index table
}

// A custom-call: XLA says -1; we say "unknown" and count its bytes.
TEST(HloCost, CustomCallIsUnknownNotMinusOne) {
  auto m = ParseOne(R"(HloModule m
ENTRY %main (x: f32[256]) -> f32[256] {
  %x = f32[256]{0} parameter(0)
  ROOT %c = f32[256]{0} custom-call(%x), custom_call_target="my_kernel"
}
)");
  ASSERT_TRUE(m);
  HloCost ours = CostOf(*InstructionNamed(*m, "c"));
  EXPECT_TRUE(ours.incomplete);
  EXPECT_EQ(ours.flops, 0);
  EXPECT_EQ(ours.bytes_accessed, 2048);
  HloCost xla = XlaCostAnalysisOf(*m);
  EXPECT_EQ(xla.flops, 0);
  EXPECT_EQ(xla.xla_unknown_calls, 1);  // XLA: flops -1, bytes -1
}

// cuBLAS GEMMs are dots by their config's dimensions (as GpuHloCostAnalysis
// counts them; XLA's base analysis, which JAX uses, says -1). The config
// is printed both ways: JSON, and a quoted string holding JSON (as in
// XLA's GPU tests of the corpus). cuBLASLt's output is (result, workspace).
TEST(HloCost, CublasGemmsAreDots) {
  auto m = ParseOne(R"(HloModule m
ENTRY %main (a: f32[4,64,32], b: f32[4,32,16], c: f32[5,7], d: f32[7,3]) -> (f32[4,64,16], f32[5,3]) {
  %a = f32[4,64,32]{2,1,0} parameter(0)
  %b = f32[4,32,16]{2,1,0} parameter(1)
  %c = f32[5,7]{1,0} parameter(2)
  %d = f32[7,3]{1,0} parameter(3)
  %g = f32[4,64,16]{2,1,0} custom-call(%a, %b), custom_call_target="__cublas$gemm", backend_config={"gemm_backend_config":{"alpha_real":1,"dot_dimension_numbers":{"lhs_contracting_dimensions":["2"],"rhs_contracting_dimensions":["1"],"lhs_batch_dimensions":["0"],"rhs_batch_dimensions":["0"]}}}
  %lt = (f32[5,3]{1,0}, s8[4194304]{0}) custom-call(%c, %d), custom_call_target="__cublas$lt$matmul", backend_config="{ \"gemm_backend_config\": {\"dot_dimension_numbers\":{\"lhs_contracting_dimensions\":[\"1\"],\"rhs_contracting_dimensions\":[\"0\"],\"lhs_batch_dimensions\":[],\"rhs_batch_dimensions\":[]}}}"
  %r = f32[5,3]{1,0} get-tuple-element(%lt), index=0
  %nocfg = f32[4,64,16]{2,1,0} custom-call(%a, %b), custom_call_target="__cublas$gemm"
  ROOT %t = (f32[4,64,16]{2,1,0}, f32[5,3]{1,0}) tuple(%g, %r)
}
)");
  ASSERT_TRUE(m);
  HloCost g = CostOf(*InstructionNamed(*m, "g"));
  EXPECT_FALSE(g.incomplete);
  EXPECT_EQ(g.flops, 2 * 4 * 64 * 16 * 32);
  HloCost lt = CostOf(*InstructionNamed(*m, "lt"));
  EXPECT_FALSE(lt.incomplete);
  EXPECT_EQ(lt.flops, 2 * 5 * 3 * 7);
  HloCost nocfg = CostOf(*InstructionNamed(*m, "nocfg"));
  EXPECT_TRUE(nocfg.incomplete);
  EXPECT_EQ(nocfg.flops, 0);
  // XLA's own total still counts each custom-call as -1 (cost_analysis()).
  EXPECT_EQ(XlaCostAnalysisOf(*m).xla_unknown_calls, 3);
  // The GEMMs' FLOPs are matrix FLOPs in the module's cost.
  ExecutionCounts counts = ExecutionCounts::Run(*m);
  ModuleCost cost = CostModule(*m, counts, nullptr);
  EXPECT_EQ(cost.matmul_flops_per_call, 2 * 4 * 64 * 16 * 32 + 2 * 5 * 3 * 7);
  EXPECT_EQ(cost.kernels_incomplete, 1);
}

// A loop of 10 iterations: cost_analysis counts the body's dot once; the
// call runs it 10 times, and the loop's per-iteration cost is one dot.
TEST(ModuleCost, LoopsCountAsOftenAsTheyRun) {
  auto m = ParseOne(R"(HloModule m
%body (t: (s32[], f32[16,16])) -> (s32[], f32[16,16]) {
  %t = (s32[], f32[16,16]{1,0}) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %x = f32[16,16]{1,0} get-tuple-element(%t), index=1
  %one = s32[] constant(1)
  %n = s32[] add(%i, %one)
  %d = f32[16,16]{1,0} dot(%x, %x), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT %r = (s32[], f32[16,16]{1,0}) tuple(%n, %d)
}
%cond (t: (s32[], f32[16,16])) -> pred[] {
  %t = (s32[], f32[16,16]{1,0}) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %lim = s32[] constant(10)
  ROOT %c = pred[] compare(%i, %lim), direction=LT
}
ENTRY %main (x: f32[16,16]) -> f32[16,16] {
  %x = f32[16,16]{1,0} parameter(0)
  %zero = s32[] constant(0)
  %init = (s32[], f32[16,16]{1,0}) tuple(%zero, %x)
  %w = (s32[], f32[16,16]{1,0}) while(%init), condition=%cond, body=%body
  ROOT %out = f32[16,16]{1,0} get-tuple-element(%w), index=1
}
)");
  ASSERT_TRUE(m);
  const int64_t dot = 2 * 16 * 16 * 16;
  HloCost xla = XlaCostAnalysisOf(*m);
  EXPECT_EQ(xla.flops, dot + 1 + 1);  // body (dot, add) and condition (compare) once
  ExecutionCounts counts = ExecutionCounts::Run(*m);
  SourceIndex index(*m);
  ModuleCost cost = CostModule(*m, counts, &index);
  EXPECT_EQ(cost.per_call.flops, 10 * (dot + 1) + 11);  // the condition runs 11 times
  ASSERT_FALSE(cost.kernels.empty());
  EXPECT_EQ(cost.kernels.front().kernel->name(), "d");
  EXPECT_EQ(cost.kernels.front().executions, 10);
  EXPECT_EQ(cost.kernels.front().matmul_flops_per_call, 10 * dot);
  ASSERT_EQ(cost.loops.size(), 1u);
  EXPECT_EQ(cost.loops[0].per_iteration.flops, dot + 1);
  EXPECT_EQ(cost.loops[0].trip_count.count, 10);
  // What check reports: the same totals, without lines.
  ModuleCost no_lines = CostModule(*m, counts, nullptr);
  EXPECT_TRUE(no_lines.lines.empty());
  CostSummary summary = SummarizeCost(no_lines);
  EXPECT_EQ(summary.per_call.flops, cost.per_call.flops);
  EXPECT_EQ(summary.top_kernels.front().instruction->name(), "d");
  ASSERT_EQ(summary.top_loops.size(), 1u);
  EXPECT_EQ(summary.top_loops[0].per_call.flops, 10 * (dot + 1));
}

// XLA:CPU's transpose of a cache for the attention's dot carries the cache
// update's line (dec.py:3) and the dot none: both count at the line of the
// op they serve, the probabilities' (dec.py:7), not at the update's.
TEST(ModuleCost, ARelayoutAndALinelessDotCountAtTheLineTheyServe) {
  auto m = ParseOne(R"(HloModule m
%tr (p: f32[64,8]) -> f32[8,64] {
  %p = f32[64,8]{1,0} parameter(0)
  ROOT %t = f32[8,64]{1,0} transpose(%p), dimensions={1,0}
}
ENTRY %main (v: f32[64,8], s: f32[64]) -> f32[8] {
  %v = f32[64,8]{1,0} parameter(0)
  %s = f32[64]{0} parameter(1)
  %vt = f32[8,64]{1,0} fusion(%v), kind=kLoop, calls=%tr, metadata={op_name="dynamic_update_slice" source_file="dec.py" source_line=3}
  %p = f32[64]{0} exponential(%s), metadata={op_name="softmax" source_file="dec.py" source_line=7}
  ROOT %pv = f32[8]{0} dot(%vt, %p), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)");
  ASSERT_TRUE(m);
  ExecutionCounts counts = ExecutionCounts::Run(*m);
  SourceIndex index(*m);
  ModuleCost cost = CostModule(*m, counts, &index);
  std::vector<int64_t> lines;
  for (const LineCost& l : cost.lines) lines.push_back(l.line);
  EXPECT_EQ(lines, std::vector<int64_t>{7});
  ASSERT_EQ(cost.lines.size(), 1u);
  EXPECT_EQ(cost.lines[0].per_call.flops, 2 * 8 * 64);  // the dot's
  EXPECT_EQ(cost.lines[0].matmul_flops_per_call, 2 * 8 * 64);
  EXPECT_EQ(cost.unattributed.bytes_accessed, 0);
  EXPECT_EQ(cost.unattributed.flops, 0);
}

}  // namespace
}  // namespace hloscope::testing
