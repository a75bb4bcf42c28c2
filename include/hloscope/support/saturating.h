// Arithmetic on sizes and counts that cannot wrap: a product or sum that
// does not fit in int64 saturates at kSaturated, which renderers show as
// "overflow" and every budget treats as over the limit. Inputs are
// non-negative (sizes, counts); a negative input saturates too.
#ifndef HLOSCOPE_SUPPORT_SATURATING_H_
#define HLOSCOPE_SUPPORT_SATURATING_H_

#include <cstdint>
#include <limits>
#include <optional>

namespace hloscope {

inline constexpr int64_t kSaturated = std::numeric_limits<int64_t>::max();

inline int64_t SatAdd(int64_t a, int64_t b) {
  int64_t r;
  if (a < 0 || b < 0 || __builtin_add_overflow(a, b, &r)) return kSaturated;
  return r;
}

inline int64_t SatMul(int64_t a, int64_t b) {
  int64_t r;
  if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &r)) return kSaturated;
  return r;
}

// Unknown (nullopt) stays unknown.
inline std::optional<int64_t> SatMul(std::optional<int64_t> a, std::optional<int64_t> b) {
  if (!a || !b) return std::nullopt;
  return SatMul(*a, *b);
}
inline std::optional<int64_t> SatAdd(std::optional<int64_t> a, std::optional<int64_t> b) {
  if (!a || !b) return std::nullopt;
  return SatAdd(*a, *b);
}

inline bool IsSaturated(int64_t v) { return v == kSaturated; }
inline bool IsSaturated(std::optional<int64_t> v) { return v && *v == kSaturated; }

// Adds `v` to a running total that becomes unknown once any part is
// unknown (and stays so).
inline void SatAccumulate(std::optional<int64_t>* total, std::optional<int64_t> v) {
  if (!*total) return;
  if (!v)
    total->reset();
  else
    **total = SatAdd(**total, *v);
}

}  // namespace hloscope

#endif  // HLOSCOPE_SUPPORT_SATURATING_H_
