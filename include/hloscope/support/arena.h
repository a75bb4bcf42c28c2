// A bump allocator for the IR's many small, trivially destructible objects
// (instructions, operand lists, attributes). One arena belongs to one
// HloModule; everything in it dies with the module. This is what keeps the
// IR of a 1 GB file at a small multiple of the input: no per-object malloc
// header, no per-instruction vectors.
#ifndef HLOSCOPE_SUPPORT_ARENA_H_
#define HLOSCOPE_SUPPORT_ARENA_H_

#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <memory>
#include <new>
#include <span>
#include <type_traits>
#include <vector>

namespace hloscope {

class Arena {
 public:
  Arena() = default;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  void* Allocate(size_t bytes, size_t align) {
    size_t p = (used_ + align - 1) & ~(align - 1);
    if (blocks_.empty() || p + bytes > block_size_) {
      // Blocks grow from 4 KiB to 1 MiB: small modules (many per input)
      // stay small, large ones pay few mallocs.
      size_t next = blocks_.empty() ? kFirstBlockSize : std::min(block_size_ * 2, kBlockSize);
      size_t size = bytes > next / 4 ? bytes + align : next;
      // Not make_unique: that would zero every block.
      blocks_.push_back(std::unique_ptr<std::byte[]>(new std::byte[size]));
      block_size_ = size;
      total_ += size;
      p = (reinterpret_cast<uintptr_t>(blocks_.back().get()) + align - 1) &
              ~(align - 1);
      p -= reinterpret_cast<uintptr_t>(blocks_.back().get());
    }
    used_ = p + bytes;
    return blocks_.back().get() + p;
  }

  template <typename T, typename... Args>
  T* New(Args&&... args) {
    static_assert(std::is_trivially_destructible_v<T>,
                  "arena objects are never destroyed");
    return new (Allocate(sizeof(T), alignof(T))) T(std::forward<Args>(args)...);
  }

  // Copies `items` into the arena and returns a span over the copy.
  template <typename T>
  std::span<T> CopyOf(std::span<const T> items) {
    static_assert(std::is_trivially_destructible_v<T>);
    if (items.empty()) return {};
    T* p = static_cast<T*>(Allocate(sizeof(T) * items.size(), alignof(T)));
    for (size_t i = 0; i < items.size(); ++i) new (p + i) T(items[i]);
    return {p, items.size()};
  }

  size_t bytes_reserved() const { return total_; }

 private:
  static constexpr size_t kFirstBlockSize = 4 << 10;
  static constexpr size_t kBlockSize = 1 << 20;
  std::vector<std::unique_ptr<std::byte[]>> blocks_;
  size_t block_size_ = 0;
  size_t used_ = 0;
  size_t total_ = 0;
};

}  // namespace hloscope

#endif  // HLOSCOPE_SUPPORT_ARENA_H_
