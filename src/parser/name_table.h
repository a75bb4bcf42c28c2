// NameTable: an open-addressing hash map from names (views into the input)
// to values. The parser looks every operand up here, so it is kept simple and
// fast: power-of-two capacity, linear probing, FNV-1a hashing, no erase.
#ifndef HLOSCOPE_PARSER_NAME_TABLE_H_
#define HLOSCOPE_PARSER_NAME_TABLE_H_

#include <cstdint>
#include <string_view>
#include <vector>

namespace hloscope {

template <typename V>
class NameTable {
 public:
  V* Find(std::string_view key) {
    if (size_ == 0) return nullptr;
    size_t mask = slots_.size() - 1;
    for (size_t i = Hash(key) & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (!s.used) return nullptr;
      if (s.key == key) return &s.value;
    }
  }
  // Inserts or overwrites.
  void Insert(std::string_view key, V value) {
    if ((size_ + 1) * 4 > slots_.size() * 3) Grow();
    size_t mask = slots_.size() - 1;
    for (size_t i = Hash(key) & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (!s.used) {
        s = {key, value, true};
        ++size_;
        return;
      }
      if (s.key == key) {
        s.value = value;
        return;
      }
    }
  }
  // Forgets all entries but keeps the capacity for reuse.
  void Clear() {
    if (size_ == 0) return;
    // After one huge computation, don't memset its table for every small
    // one that follows.
    if (slots_.size() > 1024 && slots_.size() > 16 * size_) {
      slots_.assign(64, Slot{});
      size_ = 0;
      return;
    }
    for (Slot& s : slots_) s.used = false;
    size_ = 0;
  }
  size_t size() const { return size_; }

 private:
  struct Slot {
    std::string_view key;
    V value{};
    bool used = false;
  };
  static size_t Hash(std::string_view key) {
    uint64_t h = 14695981039346656037ull;
    for (char c : key) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    return static_cast<size_t>(h ^ (h >> 29));
  }
  void Grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 64 : old.size() * 2, Slot{});
    size_ = 0;
    for (Slot& s : old)
      if (s.used) Insert(s.key, s.value);
  }
  std::vector<Slot> slots_;
  size_t size_ = 0;
};

}  // namespace hloscope

#endif  // HLOSCOPE_PARSER_NAME_TABLE_H_
