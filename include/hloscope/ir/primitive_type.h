// Element types of HLO arrays (xla_data.proto PrimitiveType), with their
// spelling and bit width as xla/primitive_util.h defines them.
#ifndef HLOSCOPE_IR_PRIMITIVE_TYPE_H_
#define HLOSCOPE_IR_PRIMITIVE_TYPE_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace hloscope {

enum class PrimitiveType : uint8_t {
  kInvalid,
  kPred,
  kS1,
  kS2,
  kS4,
  kS8,
  kS16,
  kS32,
  kS64,
  kU1,
  kU2,
  kU4,
  kU8,
  kU16,
  kU32,
  kU64,
  kF16,
  kBF16,
  kF32,
  kF64,
  kF8E5M2,
  kF8E4M3,
  kF8E4M3FN,
  kF8E4M3B11FNUZ,
  kF8E5M2FNUZ,
  kF8E4M3FNUZ,
  kF8E3M4,
  kF8E8M0FNU,
  kF4E2M1FN,
  kF6E2M3FN,
  kF6E3M2FN,
  kC64,
  kC128,
  kToken,
  kOpaque,
  kTuple,
  // A type name this version does not know (newer XLA). Its spelling is kept
  // on the Shape; the bit width is guessed from the name where it says it
  // (f8…, s12, u3), else the size is unknown.
  kUnknown,
};

// "f32" -> kF32; names this version does not know -> kUnknown.
PrimitiveType PrimitiveTypeFromName(std::string_view name);
std::string_view PrimitiveTypeName(PrimitiveType type);

// Bit width as primitive_util::BitWidth: pred is 1 bit wide but takes a whole
// byte in memory (see ByteWidth). nullopt for token/opaque/tuple/unknown.
std::optional<int> BitWidth(PrimitiveType type);
// Bytes per element in an unpacked array: ceil(BitWidth / 8).
std::optional<int> ByteWidth(PrimitiveType type);
// Best-effort width for a type name this version does not know.
std::optional<int> GuessBitWidthFromName(std::string_view name);

}  // namespace hloscope

#endif  // HLOSCOPE_IR_PRIMITIVE_TYPE_H_
