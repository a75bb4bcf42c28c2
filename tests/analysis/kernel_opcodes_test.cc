// Which instructions of a module are kernels: the work `hloscope cost` and
// `fusions` list. Control flow, tuples, parameters and the -done halves of
// async pairs are not (their work is elsewhere, or none).
#include "hloscope/analysis/kernel_opcodes.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "check_test_util.h"
#include "hloscope/ir/computation.h"

namespace hloscope::testing {
namespace {

TEST(KernelOpcodes, OnlyInstructionsThatDoWorkAreKernels) {
  auto m = ParseOne(R"(HloModule m

body {
  p = (s32[], f32[8]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[8] get-tuple-element(p), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  y = f32[8] sine(x)
  ROOT t = (s32[], f32[8]) tuple(next, y)
}

cond {
  p = (s32[], f32[8]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}

ENTRY e {
  a = f32[8] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[8]) tuple(zero, a)
  w = (s32[], f32[8]) while(init), condition=cond, body=body
  r = f32[8] get-tuple-element(w), index=1
  s = f32[8] sort(r), dimensions={0}, to_apply=lt_f32
  ars = f32[8] all-reduce-start(s), to_apply=add_f32
  ard = f32[8] all-reduce-done(ars)
  ROOT c = f32[8] copy(ard)
}

lt_f32 {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT lt = pred[] compare(x, y), direction=LT
}

add_f32 {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
)");
  ASSERT_TRUE(m);
  std::set<std::string> kernels;
  for (const HloInstruction* i : m->entry_computation()->instructions())
    if (IsKernel(*i)) kernels.insert(std::string(i->name()));
  EXPECT_EQ(kernels, (std::set<std::string>{"s", "ars", "c"}));
  EXPECT_TRUE(IsControlFlow(HloOpcode::kWhile));
  EXPECT_TRUE(IsControlFlow(HloOpcode::kConditional));
  EXPECT_FALSE(IsControlFlow(HloOpcode::kFusion));
  EXPECT_TRUE(IsAsyncFollower(HloOpcode::kAllReduceDone));
  EXPECT_FALSE(IsAsyncFollower(HloOpcode::kAllReduceStart));
}

}  // namespace
}  // namespace hloscope::testing
