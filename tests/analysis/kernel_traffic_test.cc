// What a kernel moves per run: in-place updates write their update, slices
// read what they select, everything else its whole operands and output.
#include "hloscope/analysis/kernel_traffic.h"

#include <gtest/gtest.h>

#include "check_test_util.h"
#include "hloscope/ir/computation.h"

namespace hloscope::testing {
namespace {

// A row of 512 B written into a 2 MiB buffer: in place, the kernel reads
// the row and the index and writes the row.
TEST(KernelTraffic, InPlaceDynamicUpdateSliceWritesItsUpdateOnly) {
  auto m = ParseOne(R"(HloModule m
%fused (p0: f32[4096,128], p1: f32[1,128], p2: s32[]) -> f32[4096,128] {
  %p0 = f32[4096,128]{1,0} parameter(0)
  %p1 = f32[1,128]{1,0} parameter(1)
  %p2 = s32[] parameter(2)
  %z = s32[] constant(0)
  ROOT %dus = f32[4096,128]{1,0} dynamic-update-slice(%p0, %p1, %p2, %z)
}
ENTRY %main (b: f32[4096,128], r: f32[1,128], i: s32[]) -> f32[4096,128] {
  %b = f32[4096,128]{1,0} parameter(0)
  %r = f32[1,128]{1,0} parameter(1)
  %i = s32[] parameter(2)
  ROOT %f = f32[4096,128]{1,0} fusion(%b, %r, %i), kind=kLoop, calls=%fused
}
)");
  ASSERT_TRUE(m);
  KernelTraffic t = TrafficOf(*InstructionNamed(*m, "f"));
  EXPECT_EQ(t.bytes_read, 512 + 4);
  EXPECT_EQ(t.bytes_written, 512);
}

// The same update after a negate of the whole buffer: no in-place pair
// (the DUS's operand is not a parameter), so the kernel rewrites it all.
TEST(KernelTraffic, FullRewriteReadsAndWritesEverything) {
  auto m = ParseOne(R"(HloModule m
%fused (p0: f32[1024], p1: f32[1], p2: s32[]) -> f32[1024] {
  %p0 = f32[1024]{0} parameter(0)
  %n = f32[1024]{0} negate(%p0)
  %p1 = f32[1]{0} parameter(1)
  %p2 = s32[] parameter(2)
  ROOT %dus = f32[1024]{0} dynamic-update-slice(%n, %p1, %p2)
}
ENTRY %main (b: f32[1024], r: f32[1], i: s32[]) -> f32[1024] {
  %b = f32[1024]{0} parameter(0)
  %r = f32[1]{0} parameter(1)
  %i = s32[] parameter(2)
  ROOT %f = f32[1024]{0} fusion(%b, %r, %i), kind=kLoop, calls=%fused
}
)");
  ASSERT_TRUE(m);
  KernelTraffic t = TrafficOf(*InstructionNamed(*m, "f"));
  EXPECT_EQ(t.bytes_read, 4096 + 4 + 4);
  EXPECT_EQ(t.bytes_written, 4096);
}

// A gather of 8 rows and a dynamic-slice of one read what they select; an
// element-wise read of another operand reads all of it.
TEST(KernelTraffic, SlicesAndGathersReadWhatTheySelect) {
  auto m = ParseOne(R"(HloModule m
%fused (p0: f32[1000,64], p1: s32[8,1], p2: f32[8,64]) -> f32[8,64] {
  %p0 = f32[1000,64]{1,0} parameter(0)
  %p1 = s32[8,1]{1,0} parameter(1)
  %g = f32[8,64]{1,0} gather(%p0, %p1), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,64}
  %p2 = f32[8,64]{1,0} parameter(2)
  ROOT %a = f32[8,64]{1,0} add(%g, %p2)
}
%fused.2 (q0: f32[1000,64], q1: s32[]) -> f32[1,64] {
  %q0 = f32[1000,64]{1,0} parameter(0)
  %q1 = s32[] parameter(1)
  %z = s32[] constant(0)
  ROOT %ds = f32[1,64]{1,0} dynamic-slice(%q0, %q1, %z), dynamic_slice_sizes={1,64}
}
ENTRY %main (t: f32[1000,64], idx: s32[8,1], x: f32[8,64], i: s32[]) -> (f32[8,64], f32[1,64]) {
  %t = f32[1000,64]{1,0} parameter(0)
  %idx = s32[8,1]{1,0} parameter(1)
  %x = f32[8,64]{1,0} parameter(2)
  %i = s32[] parameter(3)
  %gf = f32[8,64]{1,0} fusion(%t, %idx, %x), kind=kLoop, calls=%fused
  %dsf = f32[1,64]{1,0} fusion(%t, %i), kind=kLoop, calls=%fused.2
  ROOT %r = (f32[8,64]{1,0}, f32[1,64]{1,0}) tuple(%gf, %dsf)
}
)");
  ASSERT_TRUE(m);
  KernelTraffic g = TrafficOf(*InstructionNamed(*m, "gf"));
  EXPECT_EQ(g.bytes_read, 8 * 64 * 4 + 8 * 4 + 8 * 64 * 4);
  EXPECT_EQ(g.bytes_written, 8 * 64 * 4);
  KernelTraffic d = TrafficOf(*InstructionNamed(*m, "dsf"));
  EXPECT_EQ(d.bytes_read, 64 * 4 + 4);
  EXPECT_EQ(d.bytes_written, 64 * 4);
}

// A scatter-add in place reads the rows it combines and writes them.
TEST(KernelTraffic, InPlaceScatterReadsAndWritesItsUpdates) {
  auto m = ParseOne(R"(HloModule m
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
%fused (p0: f32[1000,64], p1: s32[8,1], p2: f32[8,64]) -> f32[1000,64] {
  %p0 = f32[1000,64]{1,0} parameter(0)
  %p1 = s32[8,1]{1,0} parameter(1)
  %p2 = f32[8,64]{1,0} parameter(2)
  ROOT %sc = f32[1000,64]{1,0} scatter(%p0, %p1, %p2), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=%add
}
ENTRY %main (t: f32[1000,64], idx: s32[8,1], u: f32[8,64]) -> f32[1000,64] {
  %t = f32[1000,64]{1,0} parameter(0)
  %idx = s32[8,1]{1,0} parameter(1)
  %u = f32[8,64]{1,0} parameter(2)
  ROOT %f = f32[1000,64]{1,0} fusion(%t, %idx, %u), kind=kInput, calls=%fused
}
)");
  ASSERT_TRUE(m);
  KernelTraffic t = TrafficOf(*InstructionNamed(*m, "f"));
  EXPECT_EQ(t.bytes_read, 2048 + 32 + 2048);
  EXPECT_EQ(t.bytes_written, 2048);
}

}  // namespace
}  // namespace hloscope::testing
