#include "hloscope/ir/primitive_type.h"

#include <array>
#include <cctype>
#include <charconv>

namespace hloscope {
namespace {

struct TypeInfo {
  PrimitiveType type;
  std::string_view name;
  int bits;  // 0: no width
};

constexpr std::array kTypes = {
    TypeInfo{PrimitiveType::kPred, "pred", 1},
    TypeInfo{PrimitiveType::kS1, "s1", 1},
    TypeInfo{PrimitiveType::kS2, "s2", 2},
    TypeInfo{PrimitiveType::kS4, "s4", 4},
    TypeInfo{PrimitiveType::kS8, "s8", 8},
    TypeInfo{PrimitiveType::kS16, "s16", 16},
    TypeInfo{PrimitiveType::kS32, "s32", 32},
    TypeInfo{PrimitiveType::kS64, "s64", 64},
    TypeInfo{PrimitiveType::kU1, "u1", 1},
    TypeInfo{PrimitiveType::kU2, "u2", 2},
    TypeInfo{PrimitiveType::kU4, "u4", 4},
    TypeInfo{PrimitiveType::kU8, "u8", 8},
    TypeInfo{PrimitiveType::kU16, "u16", 16},
    TypeInfo{PrimitiveType::kU32, "u32", 32},
    TypeInfo{PrimitiveType::kU64, "u64", 64},
    TypeInfo{PrimitiveType::kF16, "f16", 16},
    TypeInfo{PrimitiveType::kBF16, "bf16", 16},
    TypeInfo{PrimitiveType::kF32, "f32", 32},
    TypeInfo{PrimitiveType::kF64, "f64", 64},
    TypeInfo{PrimitiveType::kF8E5M2, "f8e5m2", 8},
    TypeInfo{PrimitiveType::kF8E4M3, "f8e4m3", 8},
    TypeInfo{PrimitiveType::kF8E4M3FN, "f8e4m3fn", 8},
    TypeInfo{PrimitiveType::kF8E4M3B11FNUZ, "f8e4m3b11fnuz", 8},
    TypeInfo{PrimitiveType::kF8E5M2FNUZ, "f8e5m2fnuz", 8},
    TypeInfo{PrimitiveType::kF8E4M3FNUZ, "f8e4m3fnuz", 8},
    TypeInfo{PrimitiveType::kF8E3M4, "f8e3m4", 8},
    TypeInfo{PrimitiveType::kF8E8M0FNU, "f8e8m0fnu", 8},
    TypeInfo{PrimitiveType::kF4E2M1FN, "f4e2m1fn", 4},
    TypeInfo{PrimitiveType::kF6E2M3FN, "f6e2m3fn", 6},
    TypeInfo{PrimitiveType::kF6E3M2FN, "f6e3m2fn", 6},
    TypeInfo{PrimitiveType::kC64, "c64", 64},
    TypeInfo{PrimitiveType::kC128, "c128", 128},
    TypeInfo{PrimitiveType::kToken, "token", 0},
    TypeInfo{PrimitiveType::kOpaque, "opaque", 0},
};

// Bits by type, indexed by the enum's value: sizing a shape asks for the
// width of its type, and a scan of kTypes per shape was a tenth of the cost
// analysis of a large module.
constexpr size_t kTypeCount = static_cast<size_t>(PrimitiveType::kUnknown) + 1;
constexpr std::array<int, kTypeCount> kBitsByType = [] {
  std::array<int, kTypeCount> bits{};
  for (const TypeInfo& t : kTypes) bits[static_cast<size_t>(t.type)] = t.bits;
  return bits;
}();

}  // namespace

PrimitiveType PrimitiveTypeFromName(std::string_view name) {
  // The common cases first: this runs once per distinct shape text.
  if (name == "f32") return PrimitiveType::kF32;
  if (name == "s32") return PrimitiveType::kS32;
  for (const TypeInfo& t : kTypes)
    if (t.name == name) return t.type;
  return PrimitiveType::kUnknown;
}

std::string_view PrimitiveTypeName(PrimitiveType type) {
  for (const TypeInfo& t : kTypes)
    if (t.type == type) return t.name;
  if (type == PrimitiveType::kTuple) return "tuple";
  return "unknown";
}

std::optional<int> BitWidth(PrimitiveType type) {
  const auto index = static_cast<size_t>(type);
  const int bits = index < kTypeCount ? kBitsByType[index] : 0;
  return bits == 0 ? std::nullopt : std::optional(bits);
}

std::optional<int> ByteWidth(PrimitiveType type) {
  std::optional<int> bits = BitWidth(type);
  if (!bits) return std::nullopt;
  return (*bits + 7) / 8;
}

std::optional<int> GuessBitWidthFromName(std::string_view name) {
  // f8e4m3xyz -> 8; s12 -> 12; c256 -> 256. The digits right after the
  // leading letter(s) give the width in every XLA type name so far.
  size_t i = 0;
  while (i < name.size() && std::isalpha(static_cast<unsigned char>(name[i]))) ++i;
  if (i == 0 || i > 2 || i == name.size()) return std::nullopt;
  int bits = 0;
  auto [p, ec] = std::from_chars(name.data() + i, name.data() + name.size(), bits);
  if (ec != std::errc() || bits <= 0 || bits > 1024) return std::nullopt;
  return bits;
}

}  // namespace hloscope
