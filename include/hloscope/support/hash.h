// Hashing of names from the input, seeded once per process.
//
// Every name table (the parser's NameTable, HloNameIndex, the source
// index) hashes text that whoever wrote the HLO chose. With a fixed hash —
// libstdc++'s std::hash is MurmurHash2 with a constant seed, for which
// seed-independent multicollisions are known — crafted names can all land
// in one bucket and turn each lookup linear (a parse of seconds into
// minutes). Here the hash state starts from a random 64-bit seed drawn at
// startup (std::random_device, i.e. getrandom), so which names collide
// differs from run to run and cannot be precomputed.
//
// Worst case, stated plainly: the hash is fast, not cryptographic. An
// adversary who could observe many timings of one process might still find
// colliding names; then a table of n names costs O(n^2) probes, as any
// hash table does. Without that, lookups are expected O(1) for any input.
#ifndef HLOSCOPE_SUPPORT_HASH_H_
#define HLOSCOPE_SUPPORT_HASH_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace hloscope {

// The process's seed (drawn once, before main).
extern const uint64_t kHashSeed;

// A fast hash of a byte string (whole 8-byte words, the tail read as one
// overlapping word; never reads outside the key), seeded with kHashSeed.
inline uint64_t HashBytes(const char* p, size_t n) {
  constexpr uint64_t kMul = 0x9E3779B97F4A7C15ull;
  auto load64 = [](const char* q) {
    uint64_t w;
    std::memcpy(&w, q, 8);
    return w;
  };
  auto load32 = [](const char* q) {
    uint32_t w;
    std::memcpy(&w, q, 4);
    return static_cast<uint64_t>(w);
  };
  auto mix = [](uint64_t h, uint64_t w) {
    h = (h ^ w) * kMul;
    return h ^ (h >> 29);
  };
  uint64_t h = mix(kHashSeed, n);
  if (n >= 8) {
    const char* end = p + n;
    for (; end - p > 8; p += 8) h = mix(h, load64(p));
    h = mix(h, load64(end - 8));
  } else if (n >= 4) {
    h = mix(h, load32(p) | (load32(p + n - 4) << 32));
  } else if (n > 0) {
    h = mix(h, static_cast<unsigned char>(p[0]) |
                   (static_cast<uint64_t>(static_cast<unsigned char>(p[n / 2])) << 8) |
                   (static_cast<uint64_t>(static_cast<unsigned char>(p[n - 1])) << 16));
  }
  h *= 0xBF58476D1CE4E5B9ull;
  return h ^ (h >> 32);
}

// For std::unordered_map<std::string_view or std::string, V, NameHash,
// std::equal_to<>>: heterogeneous lookups by string_view (a std::string
// key converts to one).
struct NameHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return HashBytes(s.data(), s.size()); }
};

}  // namespace hloscope

#endif  // HLOSCOPE_SUPPORT_HASH_H_
