// Element types: names, bit and byte widths (xla/primitive_util.h).
#include "hloscope/ir/primitive_type.h"

#include <gtest/gtest.h>

namespace hloscope {
namespace {

TEST(PrimitiveTypeTest, NamesRoundTrip) {
  for (int i = static_cast<int>(PrimitiveType::kPred); i <= static_cast<int>(PrimitiveType::kOpaque); ++i) {
    auto t = static_cast<PrimitiveType>(i);
    EXPECT_EQ(PrimitiveTypeFromName(PrimitiveTypeName(t)), t) << PrimitiveTypeName(t);
  }
  EXPECT_EQ(PrimitiveTypeFromName("f33"), PrimitiveType::kUnknown);
  EXPECT_EQ(PrimitiveTypeFromName(""), PrimitiveType::kUnknown);
  EXPECT_EQ(PrimitiveTypeFromName("F32"), PrimitiveType::kUnknown);  // lowercase only
  EXPECT_EQ(PrimitiveTypeName(PrimitiveType::kTuple), "tuple");
}

TEST(PrimitiveTypeTest, Widths) {
  EXPECT_EQ(BitWidth(PrimitiveType::kPred), 1);
  EXPECT_EQ(ByteWidth(PrimitiveType::kPred), 1);  // pred is not bit-packed
  EXPECT_EQ(BitWidth(PrimitiveType::kS4), 4);
  EXPECT_EQ(ByteWidth(PrimitiveType::kS4), 1);
  EXPECT_EQ(BitWidth(PrimitiveType::kU2), 2);
  EXPECT_EQ(BitWidth(PrimitiveType::kF6E3M2FN), 6);
  EXPECT_EQ(ByteWidth(PrimitiveType::kF4E2M1FN), 1);
  EXPECT_EQ(ByteWidth(PrimitiveType::kBF16), 2);
  EXPECT_EQ(ByteWidth(PrimitiveType::kC128), 16);
  EXPECT_EQ(BitWidth(PrimitiveType::kToken), std::nullopt);
  EXPECT_EQ(BitWidth(PrimitiveType::kOpaque), std::nullopt);
  EXPECT_EQ(BitWidth(PrimitiveType::kTuple), std::nullopt);
  EXPECT_EQ(BitWidth(PrimitiveType::kUnknown), std::nullopt);
}

TEST(PrimitiveTypeTest, GuessBitWidthFromName) {
  EXPECT_EQ(GuessBitWidthFromName("f8e4m3xyz"), 8);
  EXPECT_EQ(GuessBitWidthFromName("s12"), 12);
  EXPECT_EQ(GuessBitWidthFromName("u3"), 3);
  EXPECT_EQ(GuessBitWidthFromName("bf24"), 24);
  EXPECT_EQ(GuessBitWidthFromName("weird"), std::nullopt);
  EXPECT_EQ(GuessBitWidthFromName("abc12"), std::nullopt);  // > 2 letters
  EXPECT_EQ(GuessBitWidthFromName("f0"), std::nullopt);
  EXPECT_EQ(GuessBitWidthFromName("f99999"), std::nullopt);
  EXPECT_EQ(GuessBitWidthFromName(""), std::nullopt);
}

}  // namespace
}  // namespace hloscope
