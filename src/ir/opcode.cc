#include "hloscope/ir/opcode.h"

#include <algorithm>
#include <array>

namespace hloscope {
namespace {

struct Entry {
  std::string_view text;
  HloOpcode opcode;
};

constexpr std::array<std::string_view, kHloOpcodeCount> kNames = {
#define V(enum_name, text) text,
#include "hloscope/ir/opcode_list.def"
#undef V
};

}  // namespace

std::string_view HloOpcodeString(HloOpcode opcode) {
  int i = static_cast<int>(opcode);
  if (i < 0 || i >= kHloOpcodeCount) return "unknown";
  return kNames[i];
}

namespace {

// Open-addressing table keyed by (length, first, last character) mixed:
// one probe and one compare for nearly every opcode in the parser's loop.
class OpcodeTable {
 public:
  OpcodeTable() {
    for (int i = 0; i < kHloOpcodeCount; ++i) {
      size_t h = Hash(kNames[i]) & kMask;
      while (slots_[h].text.size() != 0) h = (h + 1) & kMask;
      slots_[h] = {kNames[i], static_cast<HloOpcode>(i)};
    }
  }
  HloOpcode Find(std::string_view text) const {
    if (text.empty()) return HloOpcode::kUnknown;
    for (size_t h = Hash(text) & kMask;; h = (h + 1) & kMask) {
      const Entry& e = slots_[h];
      if (e.text.size() == 0) return HloOpcode::kUnknown;
      if (e.text == text) return e.opcode;
    }
  }

 private:
  static constexpr size_t kSize = 512, kMask = kSize - 1;
  static size_t Hash(std::string_view t) {
    size_t n = t.size();
    size_t h = n * 0x9E3779B1u;
    h ^= static_cast<unsigned char>(t[0]) * 0x85EBCA6Bu;
    h ^= static_cast<unsigned char>(t[n - 1]) * 0xC2B2AE35u;
    h ^= static_cast<unsigned char>(t[n / 2]) * 0x27D4EB2Fu;
    return h ^ (h >> 15);
  }
  std::array<Entry, kSize> slots_{};
};

}  // namespace

HloOpcode StringToHloOpcode(std::string_view text) {
  static const OpcodeTable table;
  return table.Find(text);
}

bool IsElementwiseOpcode(HloOpcode op) {
  switch (op) {
    case HloOpcode::kAbs:
    case HloOpcode::kAcos:
    case HloOpcode::kAcosh:
    case HloOpcode::kAdd:
    case HloOpcode::kAnd:
    case HloOpcode::kAsin:
    case HloOpcode::kAsinh:
    case HloOpcode::kAtan:
    case HloOpcode::kAtan2:
    case HloOpcode::kAtanh:
    case HloOpcode::kBitcastConvert:
    case HloOpcode::kCbrt:
    case HloOpcode::kCeil:
    case HloOpcode::kClamp:
    case HloOpcode::kClz:
    case HloOpcode::kCompare:
    case HloOpcode::kComplex:
    case HloOpcode::kConvert:
    case HloOpcode::kCopy:
    case HloOpcode::kCos:
    case HloOpcode::kCosh:
    case HloOpcode::kDivide:
    case HloOpcode::kErf:
    case HloOpcode::kExp:
    case HloOpcode::kExpm1:
    case HloOpcode::kFloor:
    case HloOpcode::kImag:
    case HloOpcode::kIsFinite:
    case HloOpcode::kLog:
    case HloOpcode::kLog1p:
    case HloOpcode::kLogistic:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
    case HloOpcode::kMultiply:
    case HloOpcode::kNegate:
    case HloOpcode::kNot:
    case HloOpcode::kOr:
    case HloOpcode::kPopulationCount:
    case HloOpcode::kPower:
    case HloOpcode::kReal:
    case HloOpcode::kReducePrecision:
    case HloOpcode::kRemainder:
    case HloOpcode::kRoundNearestAfz:
    case HloOpcode::kRoundNearestEven:
    case HloOpcode::kRsqrt:
    case HloOpcode::kSelect:
    case HloOpcode::kShiftLeft:
    case HloOpcode::kShiftRightArithmetic:
    case HloOpcode::kShiftRightLogical:
    case HloOpcode::kSign:
    case HloOpcode::kSin:
    case HloOpcode::kSinh:
    case HloOpcode::kSqrt:
    case HloOpcode::kStochasticConvert:
    case HloOpcode::kSubtract:
    case HloOpcode::kTan:
    case HloOpcode::kTanh:
    case HloOpcode::kXor:
      return true;
    default:
      return false;
  }
}

}  // namespace hloscope
