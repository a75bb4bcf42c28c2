// Source locations: the FileNames / FunctionNames / FileLocations /
// StackFrames tables (1-based ids; text parent_frame_id = proto parent + 1),
// frame resolution, and inline metadata source_file/source_line.
#include <gtest/gtest.h>

#include "parse_helpers.h"

namespace hloscope {
namespace {

using testing::ParseErrorLine;
using testing::ParseOne;

// As printed by HloModule::PrintStackFrameIndex: frame 1 is a root frame
// (parent 1 = none); frame 2's caller is frame 1 (parent 2 = frame 1);
// frame 3's caller is frame 2.
constexpr const char* kTables = R"(HloModule jit_f, entry_computation_layout={(f32[4]{0})->f32[4]{0}}

FileNames
1 "/home/u/main.py"
2 "/home/u/lib.py"

FunctionNames
1 "main"
2 "helper"
3 "<lambda>"

FileLocations
1 {file_name_id=1 function_name_id=1 line=30 end_line=30 column=4 end_column=20}
2 {file_name_id=2 function_name_id=2 line=12 end_line=13 column=8 end_column=2}
3 {file_name_id=2 function_name_id=3 line=5 end_line=5 column=1 end_column=9}

StackFrames
1 {file_location_id=1 parent_frame_id=1}
2 {file_location_id=2 parent_frame_id=2}
3 {file_location_id=3 parent_frame_id=3}

ENTRY %main.3 (Arg_0.1: f32[4]) -> f32[4] {
  %Arg_0.1 = f32[4]{0} parameter(0), metadata={op_name="x"}
  ROOT %sin.2 = f32[4]{0} sine(%Arg_0.1), metadata={op_type="sin" op_name="jit(f)/jit(main)/sin" stack_frame_id=3}
}
)";

TEST(StackFramesTest, TablesAreReadWithOneBasedIdsAndShiftedParents) {
  auto m = ParseOne(kTables);
  ASSERT_NE(m, nullptr);
  const StackFrameIndex& f = m->stack_frames();
  EXPECT_FALSE(f.empty());
  EXPECT_EQ(f.file_names, (std::vector<std::string_view>{"/home/u/main.py", "/home/u/lib.py"}));
  EXPECT_EQ(f.function_names.size(), 3u);
  ASSERT_EQ(f.file_locations.size(), 3u);
  EXPECT_EQ(f.file_locations[1].line, 12);
  EXPECT_EQ(f.file_locations[1].end_line, 13);
  EXPECT_EQ(f.file_locations[1].column, 8);
  EXPECT_EQ(f.file_locations[1].end_column, 2);
  ASSERT_EQ(f.stack_frames.size(), 3u);
  // Converted: 0 = root, k = frame k.
  EXPECT_EQ(f.stack_frames[0].parent_frame_id, 0);
  EXPECT_EQ(f.stack_frames[1].parent_frame_id, 1);
  EXPECT_EQ(f.stack_frames[2].parent_frame_id, 2);
}

TEST(StackFramesTest, FrameResolvesThroughTheTablesAndWalksToTheCaller) {
  auto m = ParseOne(kTables);
  ASSERT_NE(m, nullptr);
  const HloInstruction* sin = m->entry_computation()->root_instruction();
  ASSERT_NE(sin->metadata(), nullptr);
  EXPECT_EQ(sin->metadata()->stack_frame_id, 3);
  EXPECT_EQ(sin->metadata()->op_type, "sin");
  EXPECT_EQ(sin->metadata()->op_name, "jit(f)/jit(main)/sin");

  const StackFrameIndex& f = m->stack_frames();
  std::optional<SourceFrame> innermost = f.Frame(3);
  ASSERT_TRUE(innermost.has_value());
  EXPECT_EQ(innermost->file, "/home/u/lib.py");
  EXPECT_EQ(innermost->function, "<lambda>");
  EXPECT_EQ(innermost->line, 5);
  EXPECT_EQ(innermost->column, 1);
  EXPECT_EQ(innermost->parent_id, 2);
  std::optional<SourceFrame> caller = f.Frame(innermost->parent_id);
  ASSERT_TRUE(caller.has_value());
  EXPECT_EQ(caller->function, "helper");
  EXPECT_EQ(caller->line, 12);
  EXPECT_EQ(caller->parent_id, 1);
  std::optional<SourceFrame> outermost = f.Frame(caller->parent_id);
  ASSERT_TRUE(outermost.has_value());
  EXPECT_EQ(outermost->file, "/home/u/main.py");
  EXPECT_EQ(outermost->function, "main");
  EXPECT_EQ(outermost->line, 30);
  EXPECT_EQ(outermost->end_column, 20);
  EXPECT_EQ(outermost->parent_id, 0);  // root

  EXPECT_FALSE(f.Frame(0).has_value());
  EXPECT_FALSE(f.Frame(4).has_value());
  EXPECT_FALSE(f.Frame(-1).has_value());
}

TEST(StackFramesTest, UnshiftedParentsAreTakenAsTheyAre) {
  // A printer without the +1 shift writes 0 for "no parent".
  auto m = ParseOne(R"(HloModule m
FileNames
1 "a.py"
FunctionNames
1 "f"
FileLocations
1 {file_name_id=1 function_name_id=1 line=1 end_line=1 column=0 end_column=0}
2 {file_name_id=1 function_name_id=1 line=2 end_line=2 column=0 end_column=0}
StackFrames
1 {file_location_id=1 parent_frame_id=0}
2 {file_location_id=2 parent_frame_id=1}
ENTRY e {
  ROOT p = f32[] parameter(0), metadata={stack_frame_id=2}
})");
  const StackFrameIndex& f = m->stack_frames();
  EXPECT_EQ(f.stack_frames[0].parent_frame_id, 0);
  EXPECT_EQ(f.stack_frames[1].parent_frame_id, 1);
  EXPECT_EQ(f.Frame(2)->parent_id, 1);
  EXPECT_EQ(f.Frame(2)->line, 2);
}

TEST(StackFramesTest, RowNumbersArePositionalAndOptional) {
  auto m = ParseOne(R"(HloModule m
FileNames
7 "a.py"
"b.py"
FunctionNames
"f"
FileLocations
{file_name_id=2 function_name_id=1 line=9}
StackFrames
9 {file_location_id=1, parent_frame_id=1}
ENTRY e {
  ROOT p = f32[] parameter(0)
})");
  const StackFrameIndex& f = m->stack_frames();
  EXPECT_EQ(f.file_names.size(), 2u);
  std::optional<SourceFrame> frame = f.Frame(1);
  ASSERT_TRUE(frame.has_value());
  EXPECT_EQ(frame->file, "b.py");
  EXPECT_EQ(frame->line, 9);
  EXPECT_EQ(frame->column, 0);  // optional keys default to 0
}

TEST(StackFramesTest, OutOfRangeIdsResolveToNothingOrEmptyNames) {
  auto m = ParseOne(R"(HloModule m
FileLocations
1 {file_name_id=5 function_name_id=6 line=1}
StackFrames
1 {file_location_id=1 parent_frame_id=1}
2 {file_location_id=9 parent_frame_id=1}
3 {file_location_id=1 parent_frame_id=9}
ENTRY e {
  ROOT p = f32[] parameter(0)
})");
  const StackFrameIndex& f = m->stack_frames();
  ASSERT_TRUE(f.Frame(1).has_value());
  EXPECT_EQ(f.Frame(1)->file, "");
  EXPECT_EQ(f.Frame(1)->function, "");
  EXPECT_FALSE(f.Frame(2).has_value());
  // A parent at or after the frame itself would loop: treated as root.
  EXPECT_EQ(f.Frame(3)->parent_id, 0);
}

TEST(StackFramesTest, TablesMissingRequiredKeysAreErrors) {
  EXPECT_EQ(ParseErrorLine("HloModule m\nFileLocations\n1 {file_name_id=1 line=3}\n"),
            "3:1: error: FileLocations row lacks 'function_name_id'");
  EXPECT_EQ(ParseErrorLine("HloModule m\nStackFrames\n1 {file_location_id=1}\n"),
            "3:1: error: StackFrames row lacks 'parent_frame_id'");
  EXPECT_EQ(ParseErrorLine("HloModule m\nFileNames\n1 a.py\n"),
            "3:3: error: expected a quoted name, found 'a'");
  EXPECT_EQ(ParseErrorLine("HloModule m\nStackFrames\n1 {file_location_id=1 parent_frame_id=-2}\n"),
            "3:1: error: StackFrames row has a negative parent_frame_id -2");
}

TEST(StackFramesTest, InlineSourceFileAndLine) {
  // Older JAX/XLA: source position directly in the metadata.
  auto m = ParseOne(R"(
ENTRY e {
  p = f32[4]{0} parameter(0)
  ROOT d = f32[4]{0} negate(p), metadata={op_type="neg" op_name="jit(f)/neg" source_file="/tmp/x.py" source_line=12 source_end_line=13 source_column=4 source_end_column=9}
})");
  const OpMetadata* md = m->entry_computation()->root_instruction()->metadata();
  ASSERT_NE(md, nullptr);
  EXPECT_EQ(md->source_file, "/tmp/x.py");
  EXPECT_EQ(md->source_line, 12);
  EXPECT_EQ(md->source_end_line, 13);
  EXPECT_EQ(md->source_column, 4);
  EXPECT_EQ(md->source_end_column, 9);
  EXPECT_EQ(md->stack_frame_id, 0);
  EXPECT_TRUE(m->stack_frames().empty());
}

TEST(StackFramesTest, MetadataKeepsEscapesAndToleratesOtherFields) {
  auto m = ParseOne(R"(
ENTRY e {
  ROOT p = f32[4]{0} parameter(0), metadata={op_type="x", op_name="a\"b\\c" profile_type={1,2} preserve_layout=true deduplicated_name="fusion.1" scheduling_name="s" source_line=-1}
})");
  const OpMetadata* md = m->entry_computation()->root_instruction()->metadata();
  ASSERT_NE(md, nullptr);
  EXPECT_EQ(md->op_type, "x");
  EXPECT_EQ(md->op_name, R"(a\"b\\c)");  // C-escaped, as printed
  EXPECT_EQ(md->source_line, -1);
  EXPECT_EQ(md->raw.substr(0, 11), "op_type=\"x\"");
}

TEST(StackFramesTest, EmptyMetadata) {
  auto m = ParseOne("ENTRY e {\n  ROOT p = f32[] parameter(0), metadata={}\n}\n");
  const OpMetadata* md = m->entry_computation()->root_instruction()->metadata();
  ASSERT_NE(md, nullptr);
  EXPECT_EQ(md->op_name, "");
  EXPECT_EQ(md->raw, "");
}

}  // namespace
}  // namespace hloscope
