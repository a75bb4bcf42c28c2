// Tests for the buffer-assignment dump parser: inline dumps in each format
// XLA has written, the real JAX fixtures, the corpus documentation example,
// malformed input and the dump-file lookup.
#include "hloscope/parser/buffer_assignment.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace hloscope {
namespace {

namespace fs = std::filesystem;

const std::string kFixtures = HLOSCOPE_SOURCE_DIR "/tests/fixtures/jax/";

BufferAssignment ParseOk(std::string_view text) {
  auto r = ParseBufferAssignment(text, "ba.txt");
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().Format());
  return r.ok() ? std::move(r).value() : BufferAssignment();
}

BufferAssignment ReadFixture(const std::string& name) {
  auto r = ReadBufferAssignmentFile(kFixtures + name + "/buffer-assignment.txt");
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().Format());
  return r.ok() ? std::move(r).value() : BufferAssignment();
}

// "path:line:col: error: message" of a failed parse, or "" if it parsed.
std::string ErrorOf(std::string_view text) {
  auto r = ParseBufferAssignment(text, "ba.txt");
  if (r.ok()) return "";
  const Diagnostic& d = r.error();
  return d.path + ":" + std::to_string(d.line) + ":" + std::to_string(d.column) + ": " + d.message;
}

// ---------------------------------------------------------------- newest
// format

constexpr std::string_view kNewest =
    "BufferAssignment:\n"
    "allocation 0: size 64, color 1, page 2, parameter 0, shape |(f32[4], "
    "s32[2,2])| "
    "at ShapeIndex {1,0}, output shape is |(f32[4], s32[2,2])|, "
    "maybe-live-out, "
    "some-future-flag:\n"
    " value: <5 p.1{1,0} @1> (size=16,offset=0): s32[2,2]{1,0}\n"
    " value: <9 while.2{1} (phi) @1> (size=16,offset=16): s32[2,2]{1,0}\n"
    "allocation 1: size 48, preallocated-temp:\n"
    " value: <3 fusion.3-x @0> (size=16,offset=0): f32[4]{0}\n"
    " value: <7 tuple.1{} @0> (size=16,offset=32): (f32[4]{0}, s32[])\n"
    " value: <8 copy.1 @0> (size=16,offset=16): f32[4]{0}\n"
    " reused by buffers of a different color:\n"
    "  value: <9 while.2{1} (phi) @1> (color=1)\n"
    "allocation 2: size 4, constant:\n"
    " value: <1 constant.7 @0> (size=4,offset=0): s32[]\n"
    "allocation 3: size 4, thread-local, tuple:\n"
    " value: <0 add.1> (size=4,offset=0): f32[]\n";

TEST(BufferAssignmentTest, NewestFormatAllocations) {
  BufferAssignment ba = ParseOk(kNewest);
  ASSERT_EQ(ba.allocations().size(), 4u);
  EXPECT_EQ(ba.total_bytes(), 64 + 48 + 4 + 4);

  const BufferAllocation& a0 = ba.allocations()[0];
  EXPECT_EQ(a0.index, 0);
  EXPECT_EQ(a0.size, 64);
  EXPECT_EQ(a0.color, 1);
  EXPECT_EQ(a0.page, 2);
  EXPECT_EQ(a0.parameter_number, 0);
  EXPECT_TRUE(a0.is_entry_computation_parameter);
  EXPECT_EQ(a0.parameter_shape, "(f32[4], s32[2,2])");
  EXPECT_EQ(a0.parameter_index, (ShapeIndex{1, 0}));
  EXPECT_EQ(a0.output_shape, "(f32[4], s32[2,2])");
  EXPECT_TRUE(a0.maybe_live_out);
  EXPECT_FALSE(a0.is_constant);
  EXPECT_FALSE(a0.is_preallocated_temp);
  EXPECT_EQ(a0.unknown_flags, std::vector<std::string>{"some-future-flag"});
  EXPECT_EQ(a0.line, 2);
  EXPECT_TRUE(a0.header.starts_with("allocation 0: size 64, color 1, page 2,"));
  EXPECT_TRUE(a0.header.ends_with("some-future-flag:"));

  ASSERT_EQ(a0.values.size(), 2u);
  const BufferValue& p = a0.values[0];
  EXPECT_EQ(p.id, 5);
  EXPECT_EQ(p.instruction, "p.1");
  EXPECT_EQ(p.index, (ShapeIndex{1, 0}));
  EXPECT_FALSE(p.phi);
  EXPECT_EQ(p.color, 1);
  EXPECT_EQ(p.size, 16);
  EXPECT_EQ(p.offset, 0);
  EXPECT_EQ(p.shape, "s32[2,2]{1,0}");
  EXPECT_TRUE(a0.values[1].phi);

  const BufferAllocation& a1 = ba.allocations()[1];
  EXPECT_TRUE(a1.is_preallocated_temp);
  EXPECT_FALSE(a1.parameter_number.has_value());
  EXPECT_EQ(a1.values.size(), 3u);
  ASSERT_EQ(a1.cross_color_values.size(), 1u);
  EXPECT_EQ(a1.cross_color_values[0].instruction, "while.2");
  EXPECT_EQ(a1.cross_color_values[0].color, 1);
  EXPECT_EQ(a1.cross_color_values[0].size, -1);
  EXPECT_EQ(ba.allocations()[1].values[1].shape, "(f32[4]{0}, s32[])");

  EXPECT_TRUE(ba.allocations()[2].is_constant);
  EXPECT_TRUE(ba.allocations()[3].is_thread_local);
  EXPECT_TRUE(ba.allocations()[3].is_tuple);
  EXPECT_EQ(ba.allocations()[3].values[0].color, 0);  // no " @C" printed
}

TEST(BufferAssignmentTest, NewestFormatSlices) {
  BufferAssignment ba = ParseOk(kNewest);
  EXPECT_EQ(ba.SliceOf("p.1", {1, 0}), (Slice{0, 0, 16}));
  EXPECT_EQ(ba.SliceOf("p.1"), std::nullopt);
  EXPECT_EQ(ba.SliceOf("p.1", {1}), std::nullopt);
  // The cross-color list of allocation 1 must not override allocation 0.
  EXPECT_EQ(ba.SliceOf("while.2", {1}), (Slice{0, 16, 16}));
  EXPECT_EQ(ba.SliceOf("fusion.3-x"), (Slice{1, 0, 16}));
  // `tuple.1{}` is the value at the empty index.
  EXPECT_EQ(ba.SliceOf("tuple.1", {}), (Slice{1, 32, 16}));
  EXPECT_EQ(ba.SliceOf("nope"), std::nullopt);
  ASSERT_NE(ba.FindValue("copy.1"), nullptr);
  EXPECT_EQ(ba.FindValue("copy.1")->id, 8);
  ASSERT_NE(ba.FindAllocation(2), nullptr);
  EXPECT_TRUE(ba.FindAllocation(2)->is_constant);
  EXPECT_EQ(ba.FindAllocation(9), nullptr);

  EXPECT_EQ(ba.SameSlice("fusion.3-x", {}, "copy.1", {}), false);
  EXPECT_EQ(ba.SameSlice("fusion.3-x", {}, "fusion.3-x", {}), true);
  EXPECT_EQ(ba.SameSlice("fusion.3-x", {}, "missing", {}), std::nullopt);
}

// ----------------------------------------------------------------- older
// format

TEST(BufferAssignmentTest, OlderFormatIgnoresTrailingSections) {
  constexpr std::string_view kOld =
      "BufferAssignment:\n"
      "allocation 0: size 16, parameter 0, shape |f32[4]| at ShapeIndex {}:\n"
      " value: <0 p0 @0> (size=16,offset=0): f32[4]{0}\n"
      "allocation 1: size 16, output shape is |f32[4]|, maybe-live-out:\n"
      " value: <1 negate.1 @0> (size=16,offset=0): f32[4]{0}\n"
      "\n"
      "Total bytes used: 32 (32B)\n"
      "\n"
      "Used values:\n"
      "<0 p0 @0>\n"
      " positions:\n"
      "  p0\n"
      " uses:\n"
      "  negate.1, operand 0\n"
      " from instruction: %p0 = f32[4]{0} parameter(0)\n"
      "<1 negate.1 @0>\n"
      " positions:\n"
      "  negate.1\n"
      " uses:\n"
      " from instruction: %negate.1 = f32[4]{0} negate(f32[4]{0} %p0)\n"
      "\n"
      "\n"
      "HloLiveRange (max 2):\n"
      "  InstructionSequence:\n"
      "    0:p0\n"
      "    1:negate.1\n"
      "  BufferLiveRange:\n"
      "    p0{}:0-2\n"
      " value: <junk that is not parsed\n";
  BufferAssignment ba = ParseOk(kOld);
  ASSERT_EQ(ba.allocations().size(), 2u);
  EXPECT_EQ(ba.allocations()[0].values.size(), 1u);
  EXPECT_EQ(ba.allocations()[1].values.size(), 1u);
  EXPECT_EQ(ba.total_bytes(), 32);
  EXPECT_EQ(ba.SliceOf("negate.1"), (Slice{1, 0, 16}));
}

TEST(BufferAssignmentTest, OlderFormatWithoutBlankLineOrTitle) {
  // No "BufferAssignment:" title, CRLF line ends, totals right after a value.
  BufferAssignment ba = ParseOk(
      "allocation 0: size 4, constant:\r\n"
      " value: <0 c @0> (size=4,offset=0): f32[]\r\n"
      "Total bytes used: 4 (4B)\r\n");
  ASSERT_EQ(ba.allocations().size(), 1u);
  EXPECT_EQ(ba.allocations()[0].values[0].shape, "f32[]");
  EXPECT_EQ(ba.allocations()[0].header, "allocation 0: size 4, constant:");
}

TEST(BufferAssignmentTest, BlankLineBetweenAllocationsIsTolerated) {
  BufferAssignment ba = ParseOk(
      "BufferAssignment:\n"
      "allocation 0: size 4, constant:\n"
      " value: <0 c @0> (size=4,offset=0): f32[]\n"
      "\n"
      "allocation 1: size 8, maybe-live-out:\n"
      " value: <1 d @0> (size=8,offset=0): f64[]\n");
  EXPECT_EQ(ba.allocations().size(), 2u);
}

TEST(BufferAssignmentTest, EmptyAssignment) {
  BufferAssignment ba = ParseOk("BufferAssignment:\n");
  EXPECT_TRUE(ba.allocations().empty());
  EXPECT_EQ(ba.total_bytes(), 0);
}

// ------------------------------------------------------------- wrapped headers

TEST(BufferAssignmentTest, WrappedHeadersAreJoined) {
  BufferAssignment ba = ParseOk(
      "BufferAssignment:\n"
      "allocation 0: size 32768, parameter 0, shape f32[256,32] at\n"
      "ShapeIndex {}:\n"
      " value: <3 parameter @0> (size=32768,offset=0): f32[256,32]{1,0}\n"
      "allocation 1:\n"
      "  size 128, output shape is f32[32],\n"
      "maybe-live-out:\n"
      " value: <5 reduce @0> (size=128,offset=0):\n"
      "   f32[32]{0}\n");
  ASSERT_EQ(ba.allocations().size(), 2u);
  const BufferAllocation& a0 = ba.allocations()[0];
  EXPECT_EQ(a0.header,
            "allocation 0: size 32768, parameter 0, shape f32[256,32] at "
            "ShapeIndex {}:");
  EXPECT_EQ(a0.parameter_shape, "f32[256,32]");
  EXPECT_EQ(a0.parameter_index, ShapeIndex{});
  const BufferAllocation& a1 = ba.allocations()[1];
  EXPECT_EQ(a1.line, 5);
  EXPECT_EQ(a1.size, 128);
  EXPECT_EQ(a1.output_shape, "f32[32]");
  EXPECT_TRUE(a1.maybe_live_out);
  EXPECT_EQ(a1.values[0].shape, "f32[32]{0}");
}

// Dumps that made the parser quadratic (bench/parse_bench.cc measures the
// speed; these pin the behaviour, and ctest's time limit the hang).
TEST(BufferAssignmentTest, OneValueWrappedOverManyLinesIsOneError) {
  std::string text = "BufferAssignment:\nallocation 0: size 4096, preallocated-temp:\n value: <0 x @0>\n";
  for (int i = 0; i < 200000; ++i) text += "  (\n";
  auto ba = ParseBufferAssignment(text, "ba.txt");
  ASSERT_FALSE(ba.ok());
  EXPECT_EQ(ba.error().message, "expected '(size=' after the value");
  EXPECT_EQ(ba.error().line, 4);
}

TEST(BufferAssignmentTest, OneInstructionWithManyIndicesKeepsTheFirstOfEach) {
  std::string text = "BufferAssignment:\nallocation 0: size 4096, preallocated-temp:\n";
  const int n = 100000;
  for (int i = 0; i < n; ++i)
    text += " value: <" + std::to_string(i) + " t{" + std::to_string(i % (n / 2)) +
            "} @0> (size=4,offset=" + std::to_string(4 * i) + "): f32[]\n";
  auto ba = ParseBufferAssignment(text, "ba.txt");
  ASSERT_TRUE(ba.ok()) << ba.error().Format();
  // Index 7 is listed twice (offsets 28 and 4*(7+n/2)): the first wins.
  auto slice = ba->SliceOf("t", {7});
  ASSERT_TRUE(slice.has_value());
  EXPECT_EQ(slice->offset, 28);
  EXPECT_EQ(ba->SliceOf("t", {n / 2 - 1})->offset, 4 * (n / 2 - 1));
}

TEST(BufferAssignmentTest, ManyAllocationsAndADuplicate) {
  std::string text = "BufferAssignment:\n";
  for (int i = 0; i < 100000; ++i)
    text += "allocation " + std::to_string(i) + ": size 4, preallocated-temp:\n";
  text += "allocation 5: size 4, preallocated-temp:\n";
  auto ba = ParseBufferAssignment(text, "ba.txt");
  ASSERT_FALSE(ba.ok());
  EXPECT_EQ(ba.error().message, "duplicate allocation 5 (first at line 7)");
}

TEST(BufferAssignmentTest, CorpusDocumentationExample) {
  const std::string path = HLOSCOPE_CORPUS_DIR
      "/buffer_assignment/"
      "openxla_xla__xla__tools__driver.cc__comment_example.buffer-assignment."
      "txt";
  if (!fs::exists(path)) GTEST_SKIP() << "corpus not present: " << path;
  auto r = ReadBufferAssignmentFile(path);
  ASSERT_TRUE(r.ok()) << r.error().Format();
  const BufferAssignment& ba = *r;
  ASSERT_EQ(ba.allocations().size(), 6u);
  EXPECT_EQ(ba.total_bytes(), 32768 + 128 + 4 * 4);
  const BufferAllocation& a0 = ba.allocations()[0];
  EXPECT_EQ(a0.parameter_number, 0);
  EXPECT_EQ(a0.parameter_shape, "f32[256,32]");
  EXPECT_EQ(a0.parameter_index, ShapeIndex{});
  EXPECT_EQ(a0.line, 2);
  const BufferAllocation& a1 = ba.allocations()[1];
  EXPECT_TRUE(a1.maybe_live_out);
  EXPECT_EQ(a1.output_shape, "f32[32]");
  EXPECT_EQ(a1.line, 5);
  EXPECT_TRUE(ba.allocations()[2].is_constant);
  EXPECT_TRUE(ba.allocations()[5].is_thread_local);
  EXPECT_EQ(ba.allocations()[5].output_shape, "f32[]");
  for (const BufferAllocation& a : ba.allocations()) {
    EXPECT_TRUE(a.unknown_flags.empty()) << a.header;
  }
  EXPECT_EQ(ba.SliceOf("parameter"), (Slice{0, 0, 32768}));
  EXPECT_EQ(ba.SliceOf("reduce"), (Slice{1, 0, 128}));
  EXPECT_EQ(ba.SliceOf("x.1"), (Slice{3, 0, 4}));
}

// ----------------------------------------------------------------- JAX
// fixtures

TEST(BufferAssignmentFixtureTest, LoopDusDonated) {
  BufferAssignment ba = ReadFixture("loop_dus_donated");
  ASSERT_EQ(ba.allocations().size(), 5u);
  EXPECT_EQ(ba.total_bytes(), 4096 + 4 + 4 + 4 + 132);

  const BufferAllocation& a0 = ba.allocations()[0];
  EXPECT_EQ(a0.size, 4096);
  EXPECT_EQ(a0.parameter_number, 0);
  EXPECT_EQ(a0.parameter_shape, "f32[1024]");
  EXPECT_EQ(a0.output_shape, "f32[1024]");
  EXPECT_TRUE(a0.maybe_live_out);
  EXPECT_EQ(a0.values.size(), 5u);
  for (int i = 1; i <= 3; ++i) EXPECT_TRUE(ba.allocations()[i].is_constant);
  const BufferAllocation& temp = ba.allocations()[4];
  EXPECT_EQ(temp.size, 132);
  EXPECT_TRUE(temp.is_preallocated_temp);
  EXPECT_FALSE(temp.maybe_live_out);
  EXPECT_EQ(temp.values.size(), 12u);

  // Entry parameter, while phi of the loop buffer, and the DUS fusion in
  // the body: one slice, i.e. the update happens in the donated buffer.
  EXPECT_EQ(ba.SliceOf("buf.1"), (Slice{0, 0, 4096}));
  EXPECT_EQ(ba.SliceOf("while.3", {1}), (Slice{0, 0, 4096}));
  EXPECT_TRUE(ba.FindValue("while.3", {1})->phi);
  EXPECT_EQ(ba.SliceOf("select_dynamic-update-slice_fusion"), (Slice{0, 0, 4096}));
  EXPECT_EQ(ba.SameSlice("select_dynamic-update-slice_fusion", {}, "arg_tuple.6", {1}), true);
  EXPECT_EQ(ba.SameSlice("select_dynamic-update-slice_fusion", {}, "buf.1", {}), true);
  // The counter shares the temp allocation but not the offset.
  EXPECT_EQ(ba.SliceOf("while.3", {0}), (Slice{4, 128, 4}));
  EXPECT_EQ(ba.SameSlice("while.3", {0}, "while.3", {1}), false);
  // Tuple index table printed as `tuple.18{}`.
  EXPECT_EQ(ba.SliceOf("tuple.18"), (Slice{4, 0, 16}));
  // Fused intermediates are never listed.
  EXPECT_EQ(ba.SliceOf("dynamic-update-slice.2"), std::nullopt);
  EXPECT_EQ(ba.SameSlice("dynamic-update-slice.2", {}, "buf.1", {}), std::nullopt);
}

TEST(BufferAssignmentFixtureTest, AtSetDonatedVersusNotDonated) {
  // module.hlo.txt: ROOT dynamic-update-slice.5 = dynamic-update-slice(x.1,
  // ...)
  BufferAssignment donated = ReadFixture("at_set_donated");
  ASSERT_EQ(donated.allocations().size(), 3u);
  EXPECT_EQ(donated.SameSlice("dynamic-update-slice.5", {}, "x.1", {}), true);
  EXPECT_EQ(donated.SliceOf("constant.22..sunk.2"), (Slice{1, 0, 4}));

  // Without donation XLA copies x.1 into the output and updates the copy.
  BufferAssignment copied = ReadFixture("at_set_not_donated");
  ASSERT_EQ(copied.allocations().size(), 4u);
  EXPECT_EQ(copied.SameSlice("dynamic-update-slice.5", {}, "x.1", {}), false);
  EXPECT_EQ(copied.SameSlice("dynamic-update-slice.5", {}, "copy.1", {}), true);
  EXPECT_FALSE(copied.allocations()[0].parameter_number.has_value());
  EXPECT_EQ(copied.allocations()[1].parameter_number, 0);
  EXPECT_FALSE(copied.allocations()[1].maybe_live_out);
}

TEST(BufferAssignmentFixtureTest, LoopScatterAddThreadLocal) {
  BufferAssignment ba = ReadFixture("loop_scatter_add");
  ASSERT_GE(ba.allocations().size(), 10u);
  EXPECT_EQ(ba.allocations()[1].parameter_number, 1);
  EXPECT_EQ(ba.allocations()[1].parameter_shape, "s32[100,4]");
  EXPECT_TRUE(ba.allocations()[2].is_thread_local);
  EXPECT_EQ(ba.SliceOf("idx.1"), (Slice{1, 0, 1600}));
  EXPECT_EQ(ba.SameSlice("wrapped_scatter", {}, "while.1", {1}), true);
  EXPECT_EQ(ba.SliceOf("tuple.14"), (Slice{9, 256, 24}));
  EXPECT_EQ(ba.FindValue("tuple.14")->shape, "(s32[], f32[1024]{0}, s32[100,4]{1,0})");
}

// Every fixture parses, lists each value inside its allocation and knows
// every value it lists.
TEST(BufferAssignmentFixtureTest, AllFixturesParse) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator(kFixtures)) {
    fs::path path = entry.path() / "buffer-assignment.txt";
    if (!fs::exists(path)) continue;
    ++count;
    auto r = ReadBufferAssignmentFile(path.string());
    ASSERT_TRUE(r.ok()) << r.error().Format();
    const BufferAssignment& ba = *r;
    EXPECT_FALSE(ba.allocations().empty()) << path;
    for (size_t i = 0; i < ba.allocations().size(); ++i) {
      const BufferAllocation& a = ba.allocations()[i];
      EXPECT_EQ(a.index, static_cast<int64_t>(i)) << path;
      EXPECT_TRUE(a.unknown_flags.empty()) << path << ": " << a.header;
      for (const BufferValue& v : a.values) {
        EXPECT_LE(v.offset + v.size, a.size) << path << ": " << v.instruction;
        EXPECT_EQ(ba.SliceOf(v.instruction, v.index), (Slice{a.index, v.offset, v.size}))
            << path << ": " << v.instruction;
      }
    }
  }
  EXPECT_GE(count, 40);
}

// ---------------------------------------------------------------- malformed

TEST(BufferAssignmentErrorTest, ExactDiagnostics) {
  EXPECT_EQ(ErrorOf(""),
            "ba.txt:1:1: empty buffer-assignment dump: expected "
            "'BufferAssignment:'");
  EXPECT_EQ(ErrorOf("HloModule m\n\nENTRY e {\n}\n"),
            "ba.txt:1:1: not a buffer-assignment dump: expected "
            "'BufferAssignment:' or 'allocation N: size S, ...:'");
  EXPECT_EQ(ErrorOf("BufferAssignment:\n value: <1 a @0> (size=4,offset=0): f32[]\n"),
            "ba.txt:2:2: 'value:' line before any 'allocation' header");
  EXPECT_EQ(ErrorOf("BufferAssignment:\nallocation x: size 4:\n"),
            "ba.txt:2:12: expected an allocation index");
  EXPECT_EQ(ErrorOf("BufferAssignment:\nallocation 0: sise 4:\n"),
            "ba.txt:2:15: expected 'size' after 'allocation N:'");
  EXPECT_EQ(ErrorOf("BufferAssignment:\nallocation 0: size 4x, constant:\n"),
            "ba.txt:2:21: expected ',' or ':' after the allocation size");
  EXPECT_EQ(ErrorOf("BufferAssignment:\n"
                    "allocation 0: size 99999999999999999999:\n"),
            "ba.txt:2:20: the allocation size in bytes is out of range");
  EXPECT_EQ(ErrorOf("BufferAssignment:\nallocation 0: size 4, constant\n"
                    " value: <1 a @0> (size=4,offset=0): f32[]\n"),
            "ba.txt:2:31: expected ':' at the end of the allocation header");
  EXPECT_EQ(ErrorOf("BufferAssignment:\nallocation 0: size 4, parameter x:\n"),
            "ba.txt:2:33: expected a parameter number");
  EXPECT_EQ(ErrorOf("BufferAssignment:\n"
                    "allocation 0: size 4, parameter 0, shape |f32[]|:\n"),
            "ba.txt:2:49: expected 'at ShapeIndex {...}' after the parameter "
            "shape");
  EXPECT_EQ(ErrorOf("BufferAssignment:\nallocation 0: size 4, , constant:\n"),
            "ba.txt:2:23: empty item in allocation header");
  EXPECT_EQ(ErrorOf("BufferAssignment:\nallocation 0: size 4, constant:\n"
                    "allocation 0: size 4, constant:\n"),
            "ba.txt:3:1: duplicate allocation 0 (first at line 2)");
  EXPECT_EQ(ErrorOf("BufferAssignment:\nallocation 0: size 4, constant:\n"
                    " value: 1 a @0> (size=4,offset=0): f32[]\n"),
            "ba.txt:3:9: expected '<' to start the value");
  EXPECT_EQ(ErrorOf("BufferAssignment:\nallocation 0: size 4, constant:\n"
                    " value: <1 a @0> (size=4,offset=x): f32[]\n"),
            "ba.txt:3:33: expected the value offset");
  EXPECT_EQ(ErrorOf("BufferAssignment:\nallocation 0: size 4, constant:\n"
                    " value: <1 a{1,x} @0> (size=4,offset=0): f32[]\n"),
            "ba.txt:3:16: expected a shape index element");
  EXPECT_EQ(ErrorOf("BufferAssignment:\nallocation 0: size 4, constant:\n"
                    " value: <1 a (phi?) @0> (size=4,offset=0): f32[]\n"),
            "ba.txt:3:13: expected '>' to close the value (after the name, "
            "'{index}', ' (phi)' or ' @color')");
  EXPECT_EQ(ErrorOf("BufferAssignment:\nallocation 0: size 4, constant:\n"
                    " value: <1 a @0> (size=4,offset=0): \n"),
            "ba.txt:3:36: expected the value's shape");
  EXPECT_EQ(ErrorOf("BufferAssignment:\nallocation 0: size 4, constant:\n"
                    " reused by buffers of a different color:\n"
                    "  value: <1 a @1> (size=4,offset=0): f32[]\n"),
            "ba.txt:4:19: expected '(color=' after the value");
  EXPECT_EQ(ErrorOf("BufferAssignment:\nallocation 0: size 4, constant:\n"
                    " value: <1 a @0> (size=4,offset=0): f32[]\n"
                    "garbage here\n"),
            "ba.txt:4:1: unexpected line in the allocation list; expected "
            "'allocation', 'value:' or a blank line");
}

TEST(BufferAssignmentErrorTest, ErrorInWrappedHeaderPointsAtItsLine) {
  // The bad item sits on the continuation line.
  auto r = ParseBufferAssignment(
      "BufferAssignment:\n"
      "allocation 0: size 4, parameter 0,\n"
      "   color z:\n",
      "w.txt");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().line, 3);
  EXPECT_EQ(r.error().column, 10);
  EXPECT_EQ(r.error().message, "expected a color number");
  EXPECT_EQ(r.error().line_text, "   color z:");
  EXPECT_EQ(r.error().Format(),
            "w.txt:3:10: error: expected a color number\n"
            "   color z:\n"
            "         ^\n");
}

TEST(BufferAssignmentErrorTest, NoPrefixCrashes) {
  // Every truncation of a valid dump either parses or gives a positioned
  // diagnostic; none crashes or reads out of bounds (run under ASan).
  const std::string text(kNewest);
  for (size_t n = 0; n <= text.size(); ++n) {
    auto r = ParseBufferAssignment(std::string_view(text).substr(0, n), "t");
    if (!r.ok()) {
      EXPECT_GE(r.error().line, 1) << n;
      EXPECT_FALSE(r.error().message.empty()) << n;
    }
  }
}

TEST(BufferAssignmentErrorTest, MissingFile) {
  auto r = ReadBufferAssignmentFile("/nonexistent/buffer-assignment.txt");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().line, 0);
  EXPECT_EQ(r.error().path, "/nonexistent/buffer-assignment.txt");
  EXPECT_TRUE(r.error().message.starts_with("cannot open file")) << r.error().message;
}

// ------------------------------------------------------------------ lookup

TEST(FindBufferAssignmentBesideTest, XlaDumpNaming) {
  fs::path dir = fs::path(testing::TempDir()) / "hloscope_ba_beside";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string hlo = (dir / "module_0001.jit_f.cpu_after_optimizations.txt").string();
  std::ofstream(hlo) << "HloModule jit_f\n";
  EXPECT_EQ(FindBufferAssignmentBeside(hlo), std::nullopt);

  const std::string ba = (dir / "module_0001.jit_f.cpu_after_optimizations-buffer-assignment.txt").string();
  std::ofstream(ba) << "BufferAssignment:\n";
  EXPECT_EQ(FindBufferAssignmentBeside(hlo), ba);
  // Another module in the same folder has no dump of its own.
  EXPECT_EQ(FindBufferAssignmentBeside((dir / "module_0002.jit_g.cpu_after_optimizations.txt").string()),
            std::nullopt);
  fs::remove_all(dir);
}

TEST(FindBufferAssignmentBesideTest, FixtureLayout) {
  const std::string dir = kFixtures + "loop_dus_donated/";
  EXPECT_EQ(FindBufferAssignmentBeside(dir + "module.hlo.txt"), dir + "buffer-assignment.txt");
  EXPECT_EQ(FindBufferAssignmentBeside(dir + "as_text.hlo.txt"), dir + "buffer-assignment.txt");
  EXPECT_EQ(FindBufferAssignmentBeside(dir + "meta.json"), std::nullopt);
  EXPECT_EQ(FindBufferAssignmentBeside(kFixtures + "no_such_case/module.hlo.txt"), std::nullopt);
}

}  // namespace
}  // namespace hloscope
