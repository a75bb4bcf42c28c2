// PackedSpan / PackedStr: a pointer and a 32-bit length in 12 bytes.
//
// HloInstruction holds eight of these; std::span / std::string_view would
// take 16 bytes each. On a 100 MB module (770k instructions) that is 25 MB
// of IR, the difference between staying under 3x the input size and not.
// Both convert to and from the std types, so code reads as if they were.
#ifndef HLOSCOPE_IR_PACKED_H_
#define HLOSCOPE_IR_PACKED_H_

#include <cassert>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>

namespace hloscope {

template <typename T>
struct [[gnu::packed]] PackedSpan {
  T* ptr = nullptr;
  uint32_t len = 0;

  PackedSpan() = default;
  // From any span whose elements convert (span<X*> -> span<X* const>).
  template <typename U>
  requires std::is_convertible_v<U (*)[], T (*)[]> PackedSpan(std::span<U> s)  // NOLINT: implicit by design
      : ptr(s.data()), len(static_cast<uint32_t>(s.size())) {
    assert(s.size() <= UINT32_MAX);
  }
  operator std::span<T>() const { return {ptr, len}; }  // NOLINT
  T* begin() const { return ptr; }
  T* end() const { return ptr + len; }
  T* data() const { return ptr; }
  size_t size() const { return len; }
  bool empty() const { return len == 0; }
  T& operator[](size_t i) const { return ptr[i]; }
  T& back() const { return ptr[len - 1]; }
};

struct [[gnu::packed]] PackedStr {
  const char* ptr = nullptr;
  uint32_t len = 0;

  PackedStr() = default;
  PackedStr(std::string_view s)  // NOLINT: implicit by design
      : ptr(s.data()), len(static_cast<uint32_t>(s.size())) {
    assert(s.size() <= UINT32_MAX);
  }
  operator std::string_view() const { return {ptr, len}; }  // NOLINT
  std::string_view view() const { return {ptr, len}; }
  size_t size() const { return len; }
  bool empty() const { return len == 0; }
  friend bool operator==(PackedStr a, std::string_view b) { return a.view() == b; }
};

}  // namespace hloscope

#endif  // HLOSCOPE_IR_PACKED_H_
