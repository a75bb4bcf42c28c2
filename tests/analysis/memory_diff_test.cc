// The memory part of `diff`: buffers matched across two compilations by
// what they are and where they come from, the peak's exponent in the size,
// lists cut short, and the more-peak-bytes gate. The agreement with real
// compiles at two sizes is tests/python/test_memory_growth.py.
#include "hloscope/analysis/memory_diff.h"

#include <gtest/gtest.h>

#include "hloscope/analysis/check_diff.h"
#include "hloscope/analysis/policy.h"

namespace hloscope {
namespace {

DocMemoryBuffer Buffer(std::string role, std::string shape, int64_t bytes, std::string line = "",
                       std::optional<int64_t> parameter = std::nullopt) {
  DocMemoryBuffer b;
  b.role = std::move(role);
  b.shape = std::move(shape);
  b.bytes = bytes;
  b.parameter_number = parameter;
  if (!line.empty())
    b.source = DocSource{line, "rnn.py", 0, "rnn", "jit(rnn)/while/body/dynamic_update_slice"};
  return b;
}

// An RNN at n: its input xs (n×64 f32), its stacked output, a 256 B carry.
DocMemory Rnn(int64_t n, std::string output_instruction) {
  DocMemory m;
  int64_t xs = n * 64 * 4;
  m.argument_bytes = xs + 256;
  m.output_bytes = xs + 256;
  m.alias_bytes = 0;
  m.temp_bytes = 132;
  m.peak_bytes = *m.argument_bytes + *m.output_bytes + *m.temp_bytes;
  m.allocations = {Buffer("output", "f32[" + std::to_string(n) + ",64]{1,0}", xs, "rnn.py:6"),
                   Buffer("argument", "f32[" + std::to_string(n) + ",64]{1,0}", xs, "", 1),
                   Buffer("argument", "f32[64]{0}", 256, "", 0),
                   Buffer("output", "f32[64]{0}", 256, "rnn.py:3")};
  m.allocations[0].instruction = std::move(output_instruction);
  m.allocation_count = 4;
  m.live = {Buffer("loop-carry", "s32[]", 4)};
  m.live_count = 1;
  return m;
}

TEST(MemoryDiffTest, ThePeakAndTheBuffersThatGrowWithTheSize) {
  std::optional<MemoryDiff> d = DiffMemory(Rnn(256, "fusion.3"), Rnn(512, "fusion.7"), 2.0);
  ASSERT_TRUE(d && d->known());
  EXPECT_EQ(*d->a_peak, 2 * (65536 + 256) + 132);
  EXPECT_NEAR(*d->ratio, 2.0, 0.01);
  EXPECT_NEAR(*d->exponent, 1.0, 0.01);
  // The stacked output (matched by its line, though its instruction was
  // renamed) and the argument grew; the carry, h0 and the small output did not.
  ASSERT_EQ(d->buffers.size(), 2u);
  EXPECT_EQ(d->unchanged, 3);
  const MemoryBufferChange* output = nullptr;
  for (const MemoryBufferChange& b : d->buffers)
    if (b.role == "output") output = &b;
  ASSERT_NE(output, nullptr);
  EXPECT_EQ(output->a_shape, "f32[256,64]");
  EXPECT_EQ(output->b_shape, "f32[512,64]");
  EXPECT_EQ(output->instruction, "fusion.7");
  EXPECT_EQ(output->added(), 65536);
  EXPECT_NEAR(*output->exponent, 1.0, 1e-9);
  EXPECT_TRUE(output->grows);
}

TEST(MemoryDiffTest, ABufferOnlyInBIsNewUnlessAsListWasCut) {
  DocMemory a = Rnn(256, "fusion.3");
  DocMemory b = Rnn(256, "fusion.3");
  b.allocations.push_back(Buffer("output", "f32[1024,64]{1,0}", 262144, "rnn.py:9"));
  b.peak_bytes = *b.peak_bytes + 262144;
  std::optional<MemoryDiff> d = DiffMemory(a, b, std::nullopt);
  ASSERT_EQ(d->buffers.size(), 1u);
  EXPECT_FALSE(d->buffers[0].a_bytes.has_value());
  EXPECT_FALSE(d->buffers[0].a_cut);
  EXPECT_FALSE(d->exponent.has_value());  // no size changed: no exponent
  EXPECT_FALSE(d->buffers[0].grows);

  a.allocation_count = 60;  // A listed 4 of 60: the new one may be below them
  d = DiffMemory(a, b, std::nullopt);
  EXPECT_TRUE(d->buffers[0].a_cut);
}

TEST(MemoryDiffTest, OneSideWithoutItsBufferAssignment) {
  EXPECT_FALSE(DiffMemory(std::nullopt, std::nullopt, 2.0).has_value());
  std::optional<MemoryDiff> d = DiffMemory(Rnn(256, "f"), std::nullopt, 2.0);
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(d->a_peak.has_value());
  EXPECT_FALSE(d->b_peak.has_value());
  EXPECT_FALSE(d->known());
}

std::vector<Violation> PeakGate(std::optional<DocMemory> a, std::optional<DocMemory> b) {
  static DiffResult result;
  result = {};
  ModuleDiff m;
  m.b_name = "jit_rnn";
  m.memory = DiffMemory(a, b, std::nullopt);
  result.modules.push_back(std::move(m));
  GateOptions o;
  o.gates.Add(Gate::kMorePeakBytes);
  return EvaluateDiffGates(result, o, FindingFilter{});
}

TEST(MemoryDiffTest, TheMorePeakBytesGate) {
  DocMemory a = Rnn(256, "f");
  DocMemory same = a;
  *same.peak_bytes += *a.peak_bytes / 200;  // 0.5 % more: within the 1 % tolerance
  EXPECT_TRUE(PeakGate(a, same).empty());
  std::vector<Violation> v = PeakGate(a, Rnn(512, "f"));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, Violation::Kind::kMorePeakBytes);
  EXPECT_EQ(v[0].limit, *a.peak_bytes);
  EXPECT_EQ(v[0].amount, *Rnn(512, "f").peak_bytes);
  // B's peak unknown fails (as a budget does); A's unknown has nothing to regress from.
  v = PeakGate(a, std::nullopt);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_TRUE(v[0].amount_unknown);
  EXPECT_TRUE(PeakGate(std::nullopt, Rnn(512, "f")).empty());
  // Not in the regressions preset: at a larger size the peak grows by design.
  EXPECT_FALSE(GatesNamed("regressions")->Has(Gate::kMorePeakBytes));
}

}  // namespace
}  // namespace hloscope
