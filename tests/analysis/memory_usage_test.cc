// The memory analysis on hand-written modules with their buffer
// assignments: the parts as XLA sums them, the roles of allocations and
// arguments, and the temp heap's fullest moment in the schedule. The
// agreement with compiled.memory_analysis() on real compiles is
// tests/python/test_memory.py.
#include "hloscope/analysis/memory_usage.h"

#include <gtest/gtest.h>

#include "check_test_util.h"
#include "hloscope/parser/buffer_assignment.h"

namespace hloscope::testing {
namespace {

// x is donated (aliased with the output); y is not, and a copy of it is
// updated in place. Two temporaries: %big lives while %small is made, and
// dies before %late; %late is as big as %big (they share offset 0).
constexpr char kModule[] = R"(
HloModule m, is_scheduled=true, input_output_alias={ {0}: (0, {}, may-alias) }
ENTRY %main (x: f32[256], y: f32[64]) -> (f32[256], f32[64]) {
  %x = f32[256]{0} parameter(0)
  %y = f32[64]{0} parameter(1)
  %big = f32[256]{0} negate(%x)
  %small = f32[16]{0} slice(%big), slice={[0:16]}
  %late = f32[256]{0} exponential(%x)
  %sum = f32[256]{0} add(%late, %x)
  %cy = f32[64]{0} copy(%y)
  %i = s32[] constant(3)
  %v = f32[1]{0} slice(%small), slice={[0:1]}
  %dus = f32[64]{0} dynamic-update-slice(%cy, %v, %i)
  ROOT %t = (f32[256]{0}, f32[64]{0}) tuple(%sum, %dus)
}
)";

constexpr char kAssignment[] = R"(BufferAssignment:
allocation 0: size 1024, parameter 0, shape |f32[256]| at ShapeIndex {}, output shape is |f32[256]|, maybe-live-out:
 value: <0 x @0> (size=1024,offset=0): f32[256]{0}
 value: <5 sum @0> (size=1024,offset=0): f32[256]{0}
allocation 1: size 256, parameter 1, shape |f32[64]| at ShapeIndex {}:
 value: <1 y @0> (size=256,offset=0): f32[64]{0}
allocation 2: size 256, maybe-live-out:
 value: <6 cy @0> (size=256,offset=0): f32[64]{0}
 value: <9 dus @0> (size=256,offset=0): f32[64]{0}
allocation 3: size 16, maybe-live-out:
 value: <10 t{} @0> (size=16,offset=0): (f32[256]{0}, f32[64]{0})
allocation 4: size 4, constant:
 value: <7 i @0> (size=4,offset=0): s32[]
allocation 5: size 1088, preallocated-temp:
 value: <2 big @0> (size=1024,offset=0): f32[256]{0}
 value: <3 small @0> (size=64,offset=1024): f32[16]{0}
 value: <4 late @0> (size=1024,offset=0): f32[256]{0}
 value: <8 v @0> (size=4,offset=1024): f32[1]{0}
)";

struct Analyzed {
  std::unique_ptr<HloModule> module;
  BufferAssignment ba;
  ModuleCheck check;
};

Analyzed Analyze() {
  Analyzed a;
  a.module = ParseOne(kModule);
  Result<BufferAssignment> ba = ParseBufferAssignment(kAssignment, "ba.txt");
  EXPECT_TRUE(ba.ok()) << (ba.ok() ? "" : ba.error().Format());
  a.ba = std::move(ba).value();
  CheckOptions options;
  options.buffer_assignment = &a.ba;
  a.check = Check(*a.module, options);
  return a;
}

TEST(MemoryUsage, PartsAreSummedAsXlaSumsThem) {
  Analyzed a = Analyze();
  ASSERT_TRUE(a.check.memory);
  const MemorySpaceUsage* s = a.check.memory->Space(0);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->argument_bytes, 1024 + 256);
  EXPECT_EQ(s->output_bytes, 1024 + 256 + 16);  // the donated parameter counts as an output too
  EXPECT_EQ(s->alias_bytes, 1024);
  EXPECT_EQ(s->temp_bytes, 1088);
  EXPECT_EQ(s->constant_bytes, 4);
  EXPECT_EQ(s->peak_bytes, 1280 + 1296 - 1024 + 1088);
  EXPECT_EQ(a.check.memory->device_peak_bytes(), s->peak_bytes);
}

TEST(MemoryUsage, ArgumentsSayWhatBecomesOfTheirBuffers) {
  Analyzed a = Analyze();
  std::map<int64_t, const AllocationUsage*> args;
  for (const AllocationUsage& u : a.check.memory->allocations)
    if (u.parameter_number) args[*u.parameter_number] = &u;
  ASSERT_EQ(args.size(), 2u);
  EXPECT_EQ(args[0]->role, AllocationRole::kDonatedArgument);
  EXPECT_EQ(args[0]->argument, ArgumentMemory::kDonatedReused);
  EXPECT_EQ(args[1]->role, AllocationRole::kArgument);
  EXPECT_EQ(args[1]->argument, ArgumentMemory::kKeptAndCopied);  // %cy copies it for the update
  EXPECT_EQ(args[1]->value.instruction->name(), "y");
}

TEST(MemoryUsage, OutputsNameTheValueThatMadeThem) {
  Analyzed a = Analyze();
  const AllocationUsage* out = nullptr;
  for (const AllocationUsage& u : a.check.memory->allocations)
    if (u.allocation->index == 2) out = &u;
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out->role, AllocationRole::kOutput);
  ASSERT_NE(out->value.instruction, nullptr);
  EXPECT_TRUE(out->value.instruction->name() == "cy" || out->value.instruction->name() == "dus");
  // Constants are kept apart, not listed.
  for (const AllocationUsage& u : a.check.memory->allocations) EXPECT_NE(u.role, AllocationRole::kConstant);
}

TEST(MemoryUsage, TheTempHeapPeaksWhileTheBigValueAndItsSliceAreLive) {
  Analyzed a = Analyze();
  const std::optional<TempPeak>& p = a.check.memory->temp_peak;
  ASSERT_TRUE(p);
  // %big (1024) and %small (64) are both live at %small; %late and %v never
  // meet a value as large.
  EXPECT_EQ(p->live_bytes, 1088);
  EXPECT_EQ(p->heap_bytes, 1088);
  ASSERT_NE(p->instruction, nullptr);
  EXPECT_EQ(p->instruction->name(), "small");
  ASSERT_EQ(p->live.size(), 2u);
  EXPECT_EQ(p->live[0].value.instruction->name(), "big");
  EXPECT_EQ(p->live[0].kind, LiveValueKind::kTemporary);
  EXPECT_EQ(p->live[1].value.instruction->name(), "small");
  EXPECT_EQ(p->schedule_length, 11);
}

TEST(MemoryUsage, NoBufferAssignmentNoMemory) {
  std::unique_ptr<HloModule> m = ParseOne(kModule);
  ModuleCheck check = Check(*m);
  EXPECT_FALSE(check.memory);
}

TEST(MemoryUsage, ValuesOfAnotherModuleAreNotTimed) {
  // A heap whose values name no instruction of the module has no moment.
  std::unique_ptr<HloModule> m = ParseOne(kModule);
  Result<BufferAssignment> ba = ParseBufferAssignment(R"(BufferAssignment:
allocation 0: size 64, preallocated-temp:
 value: <0 elsewhere @0> (size=64,offset=0): f32[16]{0}
)",
                                                      "ba.txt");
  ASSERT_TRUE(ba.ok());
  ModuleCheck check = Check(*m);
  MemoryUsage u = AnalyzeMemory(*m, *ba, check);
  EXPECT_EQ(u.Space(0)->temp_bytes, 64);
  EXPECT_FALSE(u.temp_peak);
  ASSERT_EQ(u.allocations.size(), 1u);
  EXPECT_EQ(u.allocations[0].value.instruction, nullptr);
}

}  // namespace
}  // namespace hloscope::testing
