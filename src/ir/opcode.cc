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

// Sorted by text for binary search; the .def file is already sorted except
// for spellings that differ from their enum name, so sort once at startup.
std::array<Entry, kHloOpcodeCount> MakeSorted() {
  std::array<Entry, kHloOpcodeCount> entries{};
  for (int i = 0; i < kHloOpcodeCount; ++i)
    entries[i] = {kNames[i], static_cast<HloOpcode>(i)};
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.text < b.text; });
  return entries;
}

}  // namespace

std::string_view HloOpcodeString(HloOpcode opcode) {
  int i = static_cast<int>(opcode);
  if (i < 0 || i >= kHloOpcodeCount) return "unknown";
  return kNames[i];
}

HloOpcode StringToHloOpcode(std::string_view text) {
  static const std::array<Entry, kHloOpcodeCount> sorted = MakeSorted();
  auto it = std::lower_bound(
      sorted.begin(), sorted.end(), text,
      [](const Entry& e, std::string_view t) { return e.text < t; });
  if (it != sorted.end() && it->text == text) return it->opcode;
  return HloOpcode::kUnknown;
}

bool IsElementwiseOpcode(HloOpcode op) {
  switch (op) {
    case HloOpcode::kAbs: case HloOpcode::kAcos: case HloOpcode::kAcosh:
    case HloOpcode::kAdd: case HloOpcode::kAnd: case HloOpcode::kAsin:
    case HloOpcode::kAsinh: case HloOpcode::kAtan: case HloOpcode::kAtan2:
    case HloOpcode::kAtanh: case HloOpcode::kBitcastConvert:
    case HloOpcode::kCbrt: case HloOpcode::kCeil: case HloOpcode::kClamp:
    case HloOpcode::kClz: case HloOpcode::kCompare: case HloOpcode::kComplex:
    case HloOpcode::kConvert: case HloOpcode::kCopy: case HloOpcode::kCos:
    case HloOpcode::kCosh: case HloOpcode::kDivide: case HloOpcode::kErf:
    case HloOpcode::kExp: case HloOpcode::kExpm1: case HloOpcode::kFloor:
    case HloOpcode::kImag: case HloOpcode::kIsFinite: case HloOpcode::kLog:
    case HloOpcode::kLog1p: case HloOpcode::kLogistic:
    case HloOpcode::kMaximum: case HloOpcode::kMinimum:
    case HloOpcode::kMultiply: case HloOpcode::kNegate: case HloOpcode::kNot:
    case HloOpcode::kOr: case HloOpcode::kPopulationCount:
    case HloOpcode::kPower: case HloOpcode::kReal:
    case HloOpcode::kReducePrecision: case HloOpcode::kRemainder:
    case HloOpcode::kRoundNearestAfz: case HloOpcode::kRoundNearestEven:
    case HloOpcode::kRsqrt: case HloOpcode::kSelect:
    case HloOpcode::kShiftLeft: case HloOpcode::kShiftRightArithmetic:
    case HloOpcode::kShiftRightLogical: case HloOpcode::kSign:
    case HloOpcode::kSin: case HloOpcode::kSinh: case HloOpcode::kSqrt:
    case HloOpcode::kStochasticConvert: case HloOpcode::kSubtract:
    case HloOpcode::kTan: case HloOpcode::kTanh: case HloOpcode::kXor:
      return true;
    default:
      return false;
  }
}

}  // namespace hloscope
