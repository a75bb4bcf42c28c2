// A dump's values resolved to their instructions once: the one named,
// none when the name is ambiguous (hand-written HLO), the first name the
// module lacks, and no answer for a value that is not the dump's own.
#include "hloscope/analysis/buffer_value_instructions.h"

#include <gtest/gtest.h>

#include "check_test_util.h"
#include "hloscope/analysis/buffer_assignment_match.h"
#include "hloscope/parser/buffer_assignment.h"

namespace hloscope::testing {
namespace {

// %t names both the body's and the condition's parameter.
constexpr char kModule[] = R"(
HloModule m
%body (t: (s32[], f32[8])) -> (s32[], f32[8]) {
  %t = (s32[], f32[8]{0}) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %x = f32[8]{0} get-tuple-element(%t), index=1
  %n = f32[8]{0} negate(%x)
  ROOT %r = (s32[], f32[8]{0}) tuple(%i, %n)
}
%cond (t: (s32[], f32[8])) -> pred[] {
  %t = (s32[], f32[8]{0}) parameter(0)
  ROOT %p = pred[] constant(false)
}
ENTRY %main (x: f32[8]) -> f32[8] {
  %x0 = f32[8]{0} parameter(0)
  %z = s32[] constant(0)
  %init = (s32[], f32[8]{0}) tuple(%z, %x0)
  %w = (s32[], f32[8]{0}) while(%init), condition=%cond, body=%body
  ROOT %out = f32[8]{0} get-tuple-element(%w), index=1
}
)";

Result<BufferAssignment> Dump(const std::string& extra) {
  return ParseBufferAssignment(R"(BufferAssignment:
allocation 0: size 32, parameter 0, shape |f32[8]| at ShapeIndex {}:
 value: <0 x0 @0> (size=32,offset=0): f32[8]{0}
allocation 1: size 32, maybe-live-out:
 value: <1 n @0> (size=32,offset=0): f32[8]{0}
 value: <2 t{1} @0> (size=32,offset=0): f32[8]{0}
 value: <3 w{1} @0> (size=32,offset=0): f32[8]{0}
)" + extra,
                               "ba.txt");
}

TEST(BufferValueInstructionsTest, ResolvesEachValueOnce) {
  std::unique_ptr<HloModule> m = ParseOne(kModule);
  Result<BufferAssignment> ba = Dump("");
  ASSERT_TRUE(ba.ok()) << ba.error().Format();
  BufferValueInstructions instructions(*ba, *m);
  const BufferAllocation& param = ba->allocations()[0];
  const BufferAllocation& out = ba->allocations()[1];
  ASSERT_NE(instructions.Of(param, param.values[0]), nullptr);
  EXPECT_EQ(instructions.Of(param, param.values[0])->name(), "x0");
  EXPECT_EQ(instructions.Of(out, out.values[0])->name(), "n");
  // Two instructions are named t: neither is picked.
  EXPECT_EQ(instructions.Of(out, out.values[1]), nullptr);
  EXPECT_EQ(instructions.first_missing(), "");
  // A value of another allocation, or a copy, is not this dump's there.
  EXPECT_EQ(instructions.Of(param, out.values[0]), nullptr);
  BufferValue copy = out.values[0];
  EXPECT_EQ(instructions.Of(out, copy), nullptr);
  EXPECT_EQ(ForeignBufferAssignment(*ba, *m, instructions), std::nullopt);
}

TEST(BufferValueInstructionsTest, NamesTheFirstValueTheModuleLacks) {
  std::unique_ptr<HloModule> m = ParseOne(kModule);
  Result<BufferAssignment> ba = Dump(R"(allocation 2: size 64, preallocated-temp:
 value: <4 fusion.7 @0> (size=32,offset=0): f32[8]{0}
 value: <5 copy.2 @0> (size=32,offset=32): f32[8]{0}
)");
  ASSERT_TRUE(ba.ok()) << ba.error().Format();
  BufferValueInstructions instructions(*ba, *m);
  EXPECT_EQ(instructions.first_missing(), "fusion.7");
  EXPECT_EQ(ForeignBufferAssignment(*ba, *m, instructions),
            "it lists fusion.7, which this module does not have");
}

}  // namespace
}  // namespace hloscope::testing
