#include "hloscope/support/human_bytes.h"

#include <fmt/format.h>

#include "hloscope/support/saturating.h"

namespace hloscope {

std::string HumanBytes(int64_t bytes) {
  // A sum or product that did not fit (support/saturating.h); no size is
  // negative, so a negative one is a bug shown the same way, not a number.
  if (IsSaturated(bytes) || bytes < 0) return "overflow";
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return fmt::format("{} B", bytes);
  double v = static_cast<double>(bytes);
  int unit = 0;
  while (v >= 1024 && unit < 6) {
    v /= 1024;
    ++unit;
  }
  return fmt::format("{:.1f} {}", v, kUnits[unit]);
}

std::string HumanBytes(std::optional<int64_t> bytes) { return bytes ? HumanBytes(*bytes) : std::string("?"); }

}  // namespace hloscope
