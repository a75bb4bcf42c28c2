// StackFrameIndex::Frame on hand-built tables (ids 1-based, parents already
// converted: 0 = root).
#include "hloscope/ir/stack_frames.h"

#include <gtest/gtest.h>

namespace hloscope {
namespace {

TEST(IrStackFramesTest, ResolvesAndGuardsIds) {
  StackFrameIndex f;
  EXPECT_TRUE(f.empty());
  f.file_names = {"a.py"};
  f.function_names = {"outer", "inner"};
  f.file_locations = {{1, 1, 10, 10, 2, 8}, {1, 2, 20, 21, 4, 6}};
  f.stack_frames = {{1, 0}, {2, 1}, {2, 3}};
  EXPECT_FALSE(f.empty());
  auto inner = f.Frame(2);
  ASSERT_TRUE(inner);
  EXPECT_EQ(inner->function, "inner");
  EXPECT_EQ(inner->line, 20);
  EXPECT_EQ(inner->end_line, 21);
  EXPECT_EQ(inner->parent_id, 1);
  EXPECT_EQ(f.Frame(1)->parent_id, 0);
  EXPECT_EQ(f.Frame(3)->parent_id, 0);  // forward parent: cut, no loop
  EXPECT_FALSE(f.Frame(4));
}

TEST(IrStackFramesTest, AnyTableMakesItNonEmpty) {
  StackFrameIndex f;
  f.function_names = {"f"};
  EXPECT_FALSE(f.empty());
  StackFrameIndex g;
  g.file_locations = {{}};
  EXPECT_FALSE(g.empty());
}

}  // namespace
}  // namespace hloscope
