#include "hloscope/support/hash.h"

#include <random>

namespace hloscope {
namespace {

uint64_t DrawSeed() {
  std::random_device device;  // getrandom(2) on Linux
  uint64_t seed = (static_cast<uint64_t>(device()) << 32) ^ device();
  // Never 0: keeps the mixing of the first word non-trivial.
  return seed | 1;
}

}  // namespace

const uint64_t kHashSeed = DrawSeed();

}  // namespace hloscope
