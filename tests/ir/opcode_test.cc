// Opcode spellings (opcode_list.def) and the element-wise classification.
#include "hloscope/ir/opcode.h"

#include <gtest/gtest.h>

namespace hloscope {
namespace {

TEST(OpcodeTest, EverySpellingRoundTrips) {
  for (int i = 0; i < kHloOpcodeCount; ++i) {
    auto op = static_cast<HloOpcode>(i);
    EXPECT_EQ(StringToHloOpcode(HloOpcodeString(op)), op) << HloOpcodeString(op);
  }
}

TEST(OpcodeTest, KnownAndUnknownSpellings) {
  EXPECT_EQ(StringToHloOpcode("dynamic-update-slice"), HloOpcode::kDynamicUpdateSlice);
  EXPECT_EQ(StringToHloOpcode("get-tuple-element"), HloOpcode::kGetTupleElement);
  EXPECT_EQ(StringToHloOpcode("all-reduce-start"), HloOpcode::kAllReduceStart);
  EXPECT_EQ(StringToHloOpcode("Add"), HloOpcode::kUnknown);
  EXPECT_EQ(StringToHloOpcode("frobnicate"), HloOpcode::kUnknown);
  EXPECT_EQ(StringToHloOpcode(""), HloOpcode::kUnknown);
  EXPECT_EQ(HloOpcodeString(HloOpcode::kUnknown), "unknown");
}

TEST(OpcodeTest, Elementwise) {
  EXPECT_TRUE(IsElementwiseOpcode(HloOpcode::kAdd));
  EXPECT_TRUE(IsElementwiseOpcode(HloOpcode::kCopy));
  EXPECT_TRUE(IsElementwiseOpcode(HloOpcode::kSelect));
  EXPECT_FALSE(IsElementwiseOpcode(HloOpcode::kDynamicUpdateSlice));
  EXPECT_FALSE(IsElementwiseOpcode(HloOpcode::kFusion));
  EXPECT_FALSE(IsElementwiseOpcode(HloOpcode::kUnknown));
}

}  // namespace
}  // namespace hloscope
