// A bump allocator for the IR's many small, trivially destructible objects
// (instructions, operand lists, attributes). One arena belongs to one
// HloModule; everything in it dies with the module. This is what keeps the
// IR of a 1 GB file at a small multiple of the input: no per-object malloc
// header, no per-instruction vectors.
#ifndef HLOSCOPE_SUPPORT_ARENA_H_
#define HLOSCOPE_SUPPORT_ARENA_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
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
  ~Arena();

  void* Allocate(size_t bytes, size_t align) {
    size_t p = (used_ + align - 1) & ~(align - 1);
    if (p + bytes > block_size_) return AllocateSlow(bytes, align);
    used_ = p + bytes;
    return current_ + p;
  }

  template <typename T, typename... Args>
  T* New(Args&&... args) {
    static_assert(std::is_trivially_destructible_v<T>, "arena objects are never destroyed");
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
  struct Block {
    std::byte* data;
    size_t size;
    bool mapped;  // from mmap (large blocks), else from operator new
  };
  void* AllocateSlow(size_t bytes, size_t align);

  std::vector<Block> blocks_;
  std::byte* current_ = nullptr;
  size_t block_size_ = 0;
  size_t used_ = 0;
  size_t total_ = 0;
};

}  // namespace hloscope

#endif  // HLOSCOPE_SUPPORT_ARENA_H_
