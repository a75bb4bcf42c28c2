// Shapes as the parser reads them: element types, dimensions (static, <=N,
// ?), tuples with /*index=N*/ comments, b(...), token/opaque, layouts with
// every sub-attribute, and the byte sizes of xla-reference §5.
#include <gtest/gtest.h>

#include <string>

#include "parse_helpers.h"

namespace hloscope {
namespace {

using testing::ParseErrorLine;
using testing::ParseOne;

// Parses `ENTRY e { ROOT p = <shape> parameter(0) }` and keeps the module
// alive for the returned shape.
class ShapeTest : public ::testing::Test {
 protected:
  const Shape& Parse(const std::string& shape) {
    module_ = ParseOne("ENTRY e {\n  ROOT p = " + shape + " parameter(0)\n}\n");
    if (!module_) {
      static const Shape empty;
      return empty;
    }
    return module_->entry_computation()->root_instruction()->shape();
  }
  std::unique_ptr<HloModule> module_;
};

TEST_F(ShapeTest, ArrayWithLayout) {
  const Shape& s = Parse("f32[8,128]{1,0}");
  EXPECT_EQ(s.element_type, PrimitiveType::kF32);
  EXPECT_EQ(s.type_name, "f32");
  EXPECT_EQ(s.dimensions, (std::vector<int64_t>{8, 128}));
  EXPECT_TRUE(s.dimension_kinds.empty());
  EXPECT_FALSE(s.IsDynamic());
  ASSERT_TRUE(s.layout.has_value());
  EXPECT_EQ(s.layout->minor_to_major, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(s.layout->raw, "1,0");
  EXPECT_TRUE(s.IsArray());
  EXPECT_EQ(s.ToString(), "f32[8,128]{1,0}");
  EXPECT_EQ(s.ToString(/*print_layout=*/false), "f32[8,128]");
  EXPECT_EQ(ByteSizeOf(s), 8 * 128 * 4);
}

TEST_F(ShapeTest, ScalarHasNoLayout) {
  const Shape& s = Parse("s32[]");
  EXPECT_EQ(s.rank(), 0);
  EXPECT_FALSE(s.layout.has_value());
  EXPECT_EQ(s.ElementCount(), 1);
  EXPECT_EQ(ByteSizeOf(s), 4);
  EXPECT_EQ(s.ToString(), "s32[]");
}

// TPU layouts store whole tiles; the sizes below are the ones XLA:TPU's
// buffer assignment lists for these shapes (tests/fixtures/jax-tpu-v5e).
TEST_F(ShapeTest, TiledLayoutsCountPaddedTiles) {
  EXPECT_EQ(ByteSizeOf(Parse("s32[2]{0:T(128)S(1)}")), 512);
  EXPECT_EQ(ByteSizeOf(Parse("f32[100]{0:T(128)}")), 512);
  EXPECT_EQ(ByteSizeOf(Parse("f32[1024]{0:T(1024)}")), 4096);
  EXPECT_EQ(ByteSizeOf(Parse("f32[]{:T(128)}")), 512);  // a TPU scalar: one tile
  EXPECT_EQ(ByteSizeOf(Parse("pred[]{:T(512)S(6)}")), 512);
  // (8,128) tiles the two most-minor physical dimensions: {0,1} puts 256 last.
  EXPECT_EQ(ByteSizeOf(Parse("bf16[256,64]{0,1:T(8,128)(2,1)}")), 256 * 64 * 2);
  EXPECT_EQ(ByteSizeOf(Parse("f32[8,64]{1,0:T(8,128)}")), 8 * 128 * 4);
  EXPECT_EQ(ByteSizeOf(Parse("f32[3,5]{1,0:T(8,128)}")), 8 * 128 * 4);
  // Sub-byte: the padded elements, packed.
  EXPECT_EQ(ByteSizeOf(Parse("s4[1000]{0:T(1024)(128)(8,1)E(4)}")), 512);
  // A combined dimension (`*`) pads nothing we can know: the plain size.
  EXPECT_EQ(ByteSizeOf(Parse("f32[3]{0:T(*,128)}")), 12);
  // Untiled layouts are unchanged.
  EXPECT_EQ(ByteSizeOf(Parse("f32[100]{0}")), 400);
}

TEST_F(ShapeTest, SpacesInsideDimensionsAndLayout) {
  const Shape& s = Parse("f32[ 2, 3 ]{ 1, 0 }");
  EXPECT_EQ(s.dimensions, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(s.layout->minor_to_major, (std::vector<int64_t>{1, 0}));
}

struct TypeCase {
  const char* name;
  PrimitiveType type;
  int64_t bytes_of_three;  // ByteSizeOf(<name>[3]) without E(n)
};

class ElementTypeTest : public ShapeTest, public ::testing::WithParamInterface<TypeCase> {};

TEST_P(ElementTypeTest, NameTypeAndByteWidth) {
  const TypeCase& c = GetParam();
  const Shape& s = Parse(std::string(c.name) + "[3]{0}");
  EXPECT_EQ(s.element_type, c.type);
  EXPECT_EQ(s.type_name, c.name);
  EXPECT_EQ(PrimitiveTypeName(c.type), c.name);
  EXPECT_EQ(ByteSizeOf(s), c.bytes_of_three);
  EXPECT_EQ(s.ToString(), std::string(c.name) + "[3]{0}");
}

// xla primitive_util ByteWidth: ceil(bits / 8); pred is a whole byte.
INSTANTIATE_TEST_SUITE_P(
    AllTypes, ElementTypeTest,
    ::testing::Values(
        TypeCase{"pred", PrimitiveType::kPred, 3}, TypeCase{"s1", PrimitiveType::kS1, 3},
        TypeCase{"s2", PrimitiveType::kS2, 3}, TypeCase{"s4", PrimitiveType::kS4, 3},
        TypeCase{"s8", PrimitiveType::kS8, 3}, TypeCase{"s16", PrimitiveType::kS16, 6},
        TypeCase{"s32", PrimitiveType::kS32, 12}, TypeCase{"s64", PrimitiveType::kS64, 24},
        TypeCase{"u1", PrimitiveType::kU1, 3}, TypeCase{"u2", PrimitiveType::kU2, 3},
        TypeCase{"u4", PrimitiveType::kU4, 3}, TypeCase{"u8", PrimitiveType::kU8, 3},
        TypeCase{"u16", PrimitiveType::kU16, 6}, TypeCase{"u32", PrimitiveType::kU32, 12},
        TypeCase{"u64", PrimitiveType::kU64, 24}, TypeCase{"f16", PrimitiveType::kF16, 6},
        TypeCase{"bf16", PrimitiveType::kBF16, 6}, TypeCase{"f32", PrimitiveType::kF32, 12},
        TypeCase{"f64", PrimitiveType::kF64, 24}, TypeCase{"f8e5m2", PrimitiveType::kF8E5M2, 3},
        TypeCase{"f8e4m3", PrimitiveType::kF8E4M3, 3}, TypeCase{"f8e4m3fn", PrimitiveType::kF8E4M3FN, 3},
        TypeCase{"f8e4m3b11fnuz", PrimitiveType::kF8E4M3B11FNUZ, 3},
        TypeCase{"f8e5m2fnuz", PrimitiveType::kF8E5M2FNUZ, 3},
        TypeCase{"f8e4m3fnuz", PrimitiveType::kF8E4M3FNUZ, 3}, TypeCase{"f8e3m4", PrimitiveType::kF8E3M4, 3},
        TypeCase{"f8e8m0fnu", PrimitiveType::kF8E8M0FNU, 3},
        TypeCase{"f4e2m1fn", PrimitiveType::kF4E2M1FN, 3}, TypeCase{"f6e2m3fn", PrimitiveType::kF6E2M3FN, 3},
        TypeCase{"f6e3m2fn", PrimitiveType::kF6E3M2FN, 3}, TypeCase{"c64", PrimitiveType::kC64, 24},
        TypeCase{"c128", PrimitiveType::kC128, 48}),
    [](const ::testing::TestParamInfo<TypeCase>& info) { return std::string(info.param.name); });

TEST_F(ShapeTest, UnknownElementTypeIsKeptAndSizedFromItsName) {
  const Shape& s = Parse("f9e4m4fn[4]{0}");
  EXPECT_EQ(s.element_type, PrimitiveType::kUnknown);
  EXPECT_EQ(s.type_name, "f9e4m4fn");
  EXPECT_EQ(s.ToString(), "f9e4m4fn[4]{0}");
  EXPECT_EQ(ByteSizeOf(s), 4 * 2);  // 9 bits -> 2 bytes each
  EXPECT_EQ(ByteSizeOf(Parse("weird[4]")), std::nullopt);
}

TEST_F(ShapeTest, PackedSubByteElements) {
  // E(n): ceil(elements * n / 8).
  EXPECT_EQ(ByteSizeOf(Parse("s4[3]{0:E(4)}")), 2);
  EXPECT_EQ(ByteSizeOf(Parse("u4[8]{0:E(4)}")), 4);
  EXPECT_EQ(ByteSizeOf(Parse("u2[5]{0:E(2)}")), 2);
  EXPECT_EQ(ByteSizeOf(Parse("s1[9]{0:E(1)}")), 2);
  EXPECT_EQ(ByteSizeOf(Parse("pred[16]{0:E(1)}")), 2);
  EXPECT_EQ(ByteSizeOf(Parse("f4e2m1fn[2,3]{1,0:E(4)}")), 3);
  // Without E(n) sub-byte types take a byte each, pred included.
  EXPECT_EQ(ByteSizeOf(Parse("s4[3]{0}")), 3);
  EXPECT_EQ(ByteSizeOf(Parse("pred[16]{0}")), 16);
}

TEST_F(ShapeTest, AbsurdElementSizeGivesNoSizeInsteadOfOverflowing) {
  EXPECT_EQ(ByteSizeOf(Parse("s4[1000000,1000000]{1,0:E(9223372036854775807)}")), std::nullopt);
  EXPECT_EQ(ByteSizeOf(Parse("f32[4294967296,4294967296]")), std::nullopt);
}

TEST_F(ShapeTest, TokenAndOpaque) {
  const Shape& t = Parse("token[]");
  EXPECT_EQ(t.element_type, PrimitiveType::kToken);
  EXPECT_FALSE(t.IsArray());
  EXPECT_EQ(ByteSizeOf(t), 0);
  EXPECT_EQ(t.ToString(), "token[]");
  const Shape& o = Parse("opaque[]");
  EXPECT_EQ(o.element_type, PrimitiveType::kOpaque);
  EXPECT_EQ(ByteSizeOf(o), 8);
  EXPECT_EQ(ByteSizeOf(o, {.pointer_size = 4}), 4);
}

TEST_F(ShapeTest, TupleIsItsIndexTable) {
  const Shape& s = Parse("(f32[2]{0}, s32[], (pred[], token[]))");
  ASSERT_TRUE(s.IsTuple());
  ASSERT_EQ(s.tuple_shapes.size(), 3u);
  EXPECT_EQ(s.tuple_shapes[0]->ToString(), "f32[2]{0}");
  EXPECT_TRUE(s.tuple_shapes[2]->IsTuple());
  EXPECT_EQ(s.LeafCount(), 4);
  // ByteSizeOf(tuple) = pointer_size x elements; the elements are buffers of
  // their own.
  EXPECT_EQ(ByteSizeOf(s), 3 * 8);
  EXPECT_EQ(TotalByteSizeOf(s), 3 * 8 + 8 + 4 + (2 * 8 + 1 + 0));
  EXPECT_EQ(s.Subshape({2, 0})->element_type, PrimitiveType::kPred);
  EXPECT_EQ(s.Subshape({0, 0}), nullptr);
  EXPECT_EQ(s.Subshape({3}), nullptr);
  EXPECT_EQ(s.ToString(), "(f32[2]{0}, s32[], (pred[], token[]))");
}

TEST_F(ShapeTest, EmptyTuple) {
  const Shape& s = Parse("()");
  EXPECT_TRUE(s.IsTuple());
  EXPECT_TRUE(s.tuple_shapes.empty());
  EXPECT_EQ(ByteSizeOf(s), 0);
}

TEST_F(ShapeTest, TupleWithIndexComments) {
  // ShapeUtil prints /*index=N*/ before every 5th element.
  const Shape& s = Parse(
      "(f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[], f32[], (s32[], s32[], "
      "s32[], s32[], s32[], /*index=5*/u8[7]{0}))");
  ASSERT_EQ(s.tuple_shapes.size(), 8u);
  ASSERT_EQ(s.tuple_shapes[7]->tuple_shapes.size(), 6u);
  EXPECT_EQ(s.tuple_shapes[7]->tuple_shapes[5]->ToString(), "u8[7]{0}");
  EXPECT_EQ(ByteSizeOf(s), 64);
  EXPECT_EQ(s.ToString(),
            "(f32[], f32[], f32[], f32[], f32[], f32[], f32[], (s32[], s32[], s32[], "
            "s32[], s32[], u8[7]{0}))");
}

TEST_F(ShapeTest, BoundedDynamicDimensionsUseTheBound) {
  const Shape& s = Parse("f32[<=10,3]{1,0}");
  EXPECT_EQ(s.dimensions, (std::vector<int64_t>{10, 3}));
  EXPECT_EQ(s.dimension_kinds, (std::vector<DimensionKind>{DimensionKind::kBounded, DimensionKind::kStatic}));
  EXPECT_TRUE(s.IsDynamic());
  EXPECT_EQ(s.ElementCount(), 30);
  EXPECT_EQ(ByteSizeOf(s), 120);
  EXPECT_EQ(s.ToString(), "f32[<=10,3]{1,0}");
}

TEST_F(ShapeTest, UnboundedDimensionHasNoSize) {
  const Shape& s = Parse("f32[2,?]");
  EXPECT_EQ(s.dimension_kinds,
            (std::vector<DimensionKind>{DimensionKind::kStatic, DimensionKind::kUnbounded}));
  EXPECT_EQ(s.ElementCount(), std::nullopt);
  EXPECT_EQ(ByteSizeOf(s), std::nullopt);
  EXPECT_EQ(s.ToString(), "f32[2,?]");
}

// Regression: a dynamic *first* dimension lost its kind (f32[?] printed as
// f32[-1], which does not parse back). Found by the fuzzer's round trip.
TEST_F(ShapeTest, DynamicFirstDimensionKeepsItsKind) {
  const Shape& u = Parse("f32[?]");
  EXPECT_EQ(u.dimension_kinds, (std::vector<DimensionKind>{DimensionKind::kUnbounded}));
  EXPECT_EQ(u.ToString(), "f32[?]");
  const Shape& b = Parse("s32[<=4,2]");
  EXPECT_EQ(b.dimension_kinds, (std::vector<DimensionKind>{DimensionKind::kBounded, DimensionKind::kStatic}));
  EXPECT_EQ(b.ToString(), "s32[<=4,2]");
  EXPECT_EQ(ByteSizeOf(b), 32);
  const Shape& both = Parse("f32[?,<=3]");
  EXPECT_EQ(both.ToString(), "f32[?,<=3]");
}

TEST_F(ShapeTest, BufferShape) {
  const Shape& s = Parse("b(f32[4,16]{1,0})");
  EXPECT_TRUE(s.is_buffer);
  EXPECT_FALSE(s.IsArray());
  EXPECT_FALSE(s.IsTuple());
  ASSERT_EQ(s.tuple_shapes.size(), 1u);
  EXPECT_EQ(s.tuple_shapes[0]->ToString(), "f32[4,16]{1,0}");
  EXPECT_EQ(ByteSizeOf(s), 256);
  EXPECT_EQ(s.ToString(), "b(f32[4,16]{1,0})");
}

TEST_F(ShapeTest, TiledLayout) {
  const Shape& s = Parse("f32[8,256]{1,0:T(8,128)(2,1)}");
  EXPECT_EQ(s.layout->minor_to_major, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(s.layout->tiles, "(8,128)(2,1)");
  EXPECT_EQ(s.layout->raw, "1,0:T(8,128)(2,1)");
  EXPECT_EQ(s.ToString(), "f32[8,256]{1,0:T(8,128)(2,1)}");
}

TEST_F(ShapeTest, ElementSizeAndMemorySpace) {
  const Shape& s = Parse("s4[8]{0:T(1024)(128)(2,1)E(4)S(1)}");
  EXPECT_EQ(s.layout->element_size_in_bits, 4);
  EXPECT_EQ(s.layout->memory_space, 1);
  EXPECT_EQ(s.layout->tiles, "(1024)(128)(2,1)");
  EXPECT_EQ(ByteSizeOf(s), 512);  // one whole (1024) tile of 4-bit elements
  EXPECT_EQ(Parse("f32[2]{0:S(5)}").layout->memory_space, 5);
}

TEST_F(ShapeTest, EveryLayoutSubAttributeIsKeptVerbatim) {
  // D (dim level types), T with '*' (combined dimension), L (tail padding),
  // # (index type), * (pointer type), E, S, SC (split configs), P (physical
  // shape, with its own braces), M (dynamic metadata prefix).
  const std::string text =
      "f32[8,128]{1,0:D(D,C)T(8,128)(2,*)L(4)#(s32)*(s64)E(32)S(2)SC(0:1,2)(1:3)"
      "P(s32[16]{0})M(8)}";
  const Shape& s = Parse(text);
  ASSERT_TRUE(s.layout.has_value());
  EXPECT_EQ(s.layout->minor_to_major, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(s.layout->tiles, "(8,128)(2,*)");
  EXPECT_EQ(s.layout->element_size_in_bits, 32);
  EXPECT_EQ(s.layout->memory_space, 2);
  EXPECT_EQ(s.ToString(), text);
}

TEST_F(ShapeTest, ScalarWithTpuLayout) {
  const Shape& s = Parse("f32[]{:T(128)}");
  ASSERT_TRUE(s.layout.has_value());
  EXPECT_TRUE(s.layout->minor_to_major.empty());
  EXPECT_EQ(s.layout->tiles, "(128)");
  EXPECT_EQ(s.ToString(), "f32[]{:T(128)}");
  EXPECT_EQ(Parse("s32[]{:T(128)S(6)}").layout->memory_space, 6);
}

TEST_F(ShapeTest, ShapesAreInternedPerModule) {
  auto m = ParseOne(R"(
ENTRY e {
  a = f32[4]{0} parameter(0)
  b = f32[4]{0} parameter(1)
  ROOT t = (f32[4]{0}, f32[4]{0}) tuple(a, b)
})");
  const HloComputation* e = m->entry_computation();
  const Shape& a = e->GetInstruction("a")->shape();
  const Shape& b = e->GetInstruction("b")->shape();
  EXPECT_EQ(&a, &b);
  EXPECT_EQ(e->root_instruction()->shape().tuple_shapes[0], &a);
}

TEST_F(ShapeTest, SignatureShapeIsFollowedByTheBodyNotALayout) {
  // `-> f32[2] {` : the brace opens the body (a layout brace is never
  // preceded by a space).
  auto m = ParseOne(R"(
ENTRY %e (p: f32[2]) -> f32[2] {
  ROOT %p = f32[2]{0} parameter(0)
})");
  EXPECT_EQ(m->entry_computation()->signature(), "(p: f32[2]) -> f32[2]");
}

TEST_F(ShapeTest, ShapeErrors) {
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n  ROOT p = f32[-1] parameter(0)\n}\n"),
            "2:16: error: negative dimension size");
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n  ROOT p = f32[2,x] parameter(0)\n}\n"),
            "2:18: error: expected an integer, found 'x'");
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n  ROOT p = f32[2]{1,x} parameter(0)\n}\n"),
            "2:21: error: expected an integer in the layout");
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n  ROOT p = f32[2]{0:E(x)} parameter(0)\n}\n"),
            "2:23: error: expected a non-negative integer in E(...)");
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n  ROOT p = (f32[], $) parameter(0)\n}\n"),
            "2:20: error: unexpected '$' in tuple shape");
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n  ROOT p = (f32[], 7) parameter(0)\n}\n"),
            "2:20: error: expected a shape in the tuple, found '7'");
}

}  // namespace
}  // namespace hloscope
