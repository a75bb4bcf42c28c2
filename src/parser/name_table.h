// NameTable: an open-addressing hash map from names (views into the input)
// to values. The parser looks every operand, every metadata text and every
// shape text up in one of these, so it is built for that job: power-of-two
// capacity, linear probing, no erase, and a hash that eats eight bytes per
// step (metadata texts are ~80 bytes; a byte-at-a-time hash spent a
// multiply per byte on them), seeded per process against crafted
// collisions (support/hash.h).
//
// Each slot keeps 32 bits of the hash next to the key, so a probe that hits
// another key is rejected without reading that key's text, which lies
// somewhere else in a 100 MB input and is rarely in cache; growing the table
// reuses them instead of rehashing (re-reading) every key.
#ifndef HLOSCOPE_PARSER_NAME_TABLE_H_
#define HLOSCOPE_PARSER_NAME_TABLE_H_

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "hloscope/support/hash.h"

namespace hloscope {

template <typename V>
class NameTable {
 public:
  // With `refresh`, see FindOrInsert.
  V* Find(std::string_view key, bool refresh = false) {
    if (size_ == 0) return nullptr;
    if (!key.data()) key = std::string_view("", 0);  // as stored by FindOrInsert
    uint32_t tag = Tag(key);
    size_t mask = slots_.size() - 1;
    for (size_t i = tag & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (!s.ptr) return nullptr;
      if (s.tag == tag && s.Matches(key)) {
        if (refresh) s.ptr = key.data();
        return &s.value;
      }
    }
  }

  // The value for `key`, inserting a value-initialized one when absent
  // (`*inserted` says which). The pointer is valid until the next insert.
  // With `refresh`, a hit re-points the stored key at this occurrence of the
  // (identical) text: the next comparison then reads text that was just
  // scanned and is in cache, not the first occurrence megabytes back.
  V* FindOrInsert(std::string_view key, bool* inserted, bool refresh = false) {
    if ((size_ + 1) * 4 > slots_.size() * 3) Grow();
    if (!key.data()) key = std::string_view("", 0);  // a null ptr marks empty slots
    uint32_t tag = Tag(key);
    size_t mask = slots_.size() - 1;
    for (size_t i = tag & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (!s.ptr) {
        s.ptr = key.data();
        s.len = static_cast<uint32_t>(key.size());
        s.tag = tag;
        s.value = V{};
        ++size_;
        used_.push_back(static_cast<uint32_t>(i));
        *inserted = true;
        return &s.value;
      }
      if (s.tag == tag && s.Matches(key)) {
        if (refresh) s.ptr = key.data();
        *inserted = false;
        return &s.value;
      }
    }
  }

  // Inserts or overwrites.
  void Insert(std::string_view key, V value) {
    bool inserted;
    *FindOrInsert(key, &inserted) = value;
  }

  // Forgets all entries but keeps the capacity for reuse. Only the used
  // slots are visited: a table grown by one large computation is cleared
  // after each of the thousands of small ones that follow it.
  void Clear() {
    if (size_ == 0) return;
    if (slots_.size() > (size_t{1} << 16) && slots_.size() > 16 * size_) {
      // Give back the memory of a table grown for a huge computation.
      slots_.assign(kInitialSlots, Slot{});
    } else {
      for (uint32_t i : used_) slots_[i].ptr = nullptr;
    }
    used_.clear();
    size_ = 0;
  }
  size_t size() const { return size_; }

 private:
  static constexpr size_t kInitialSlots = 64;
  struct Slot {
    const char* ptr = nullptr;  // nullptr: empty
    uint32_t len = 0;
    uint32_t tag = 0;  // the hash's low 32 bits: picks the slot, filters
    V value{};
    bool Matches(std::string_view key) const {
      return len == key.size() && std::memcmp(ptr, key.data(), len) == 0;
    }
  };
  static uint32_t Tag(std::string_view key) {
    return static_cast<uint32_t>(HashBytes(key.data(), key.size()));
  }

  void Grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? kInitialSlots : old.size() * 2, Slot{});
    size_t mask = slots_.size() - 1;
    used_.clear();
    for (const Slot& s : old) {
      if (!s.ptr) continue;
      size_t i = s.tag & mask;
      while (slots_[i].ptr) i = (i + 1) & mask;
      slots_[i] = s;
      used_.push_back(static_cast<uint32_t>(i));
    }
  }
  std::vector<Slot> slots_;
  std::vector<uint32_t> used_;  // indices of the used slots, for Clear()
  size_t size_ = 0;
};

}  // namespace hloscope

#endif  // HLOSCOPE_PARSER_NAME_TABLE_H_
