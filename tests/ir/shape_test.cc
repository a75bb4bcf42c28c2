// Shape helpers on hand-built shapes: ToString, ShapeIndex, element counts,
// byte sizes and the two shape comparisons.
#include "hloscope/ir/shape.h"

#include <gtest/gtest.h>

namespace hloscope {
namespace {

Shape Array(PrimitiveType t, std::vector<int64_t> dims, std::string layout = "") {
  Shape s;
  s.element_type = t;
  s.type_name = std::string(PrimitiveTypeName(t));
  s.dimensions = std::move(dims);
  if (!layout.empty()) {
    Layout l;
    l.raw = layout;
    for (char c : layout)
      if (c >= '0' && c <= '9') l.minor_to_major.push_back(c - '0');
    s.layout = l;
  }
  return s;
}

Shape Tuple(std::vector<const Shape*> elements) {
  Shape s;
  s.element_type = PrimitiveType::kTuple;
  s.tuple_shapes = std::move(elements);
  return s;
}

TEST(IrShapeTest, ShapeIndexToString) {
  EXPECT_EQ(ShapeIndexToString({}), "{}");
  EXPECT_EQ(ShapeIndexToString({1, 0}), "{1,0}");
}

TEST(IrShapeTest, ToStringAndSizes) {
  Shape a = Array(PrimitiveType::kF32, {2, 3}, "1,0");
  Shape b = Array(PrimitiveType::kPred, {});
  Shape t = Tuple({&a, &b});
  EXPECT_EQ(a.ToString(), "f32[2,3]{1,0}");
  EXPECT_EQ(t.ToString(), "(f32[2,3]{1,0}, pred[])");
  EXPECT_EQ(t.ToString(false), "(f32[2,3], pred[])");
  EXPECT_EQ(ByteSizeOf(t), 16);
  EXPECT_EQ(ByteSizeOf(t, {.pointer_size = 4}), 8);
  EXPECT_EQ(TotalByteSizeOf(t), 16 + 24 + 1);
  EXPECT_EQ(t.LeafCount(), 2);
  EXPECT_EQ(b.ElementCount(), 1);
  Shape zero = Array(PrimitiveType::kF32, {0, 5});
  EXPECT_EQ(zero.ElementCount(), 0);
  EXPECT_EQ(ByteSizeOf(zero), 0);
}

TEST(IrShapeTest, TotalByteSizeOverflowIsNoSize) {
  Shape big = Array(PrimitiveType::kF32, {INT64_MAX / 8});
  Shape t = Tuple({&big, &big, &big});
  EXPECT_TRUE(ByteSizeOf(big).has_value());
  EXPECT_EQ(TotalByteSizeOf(t), std::nullopt);
}

TEST(IrShapeTest, BufferWithoutInnerShapeHasNoSize) {
  Shape b;
  b.is_buffer = true;
  EXPECT_EQ(ByteSizeOf(b), std::nullopt);
  EXPECT_EQ(b.ToString(), "b()");
}

TEST(IrShapeTest, CompatibleIgnoresLayoutEqualDoesNot) {
  Shape rm = Array(PrimitiveType::kF32, {2, 3}, "1,0");
  Shape cm = Array(PrimitiveType::kF32, {2, 3}, "0,1");
  Shape none = Array(PrimitiveType::kF32, {2, 3});
  Shape other = Array(PrimitiveType::kS32, {2, 3}, "1,0");
  EXPECT_TRUE(ShapesCompatible(rm, cm));
  EXPECT_FALSE(ShapesEqualWithLayout(rm, cm));
  EXPECT_TRUE(ShapesEqualWithLayout(rm, none));  // missing = default layout
  EXPECT_FALSE(ShapesEqualWithLayout(cm, none));
  EXPECT_FALSE(ShapesCompatible(rm, other));
  Shape s1 = rm;
  s1.layout->memory_space = 1;
  EXPECT_FALSE(ShapesEqualWithLayout(rm, s1));
  Shape t1 = Tuple({&rm});
  Shape t2 = Tuple({&cm});
  EXPECT_TRUE(ShapesCompatible(t1, t2));
  EXPECT_FALSE(ShapesEqualWithLayout(t1, t2));
  EXPECT_FALSE(ShapesCompatible(t1, rm));
}

}  // namespace
}  // namespace hloscope
