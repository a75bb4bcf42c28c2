#include "hloscope/support/human_bytes.h"

#include <fmt/format.h>

namespace hloscope {

std::string HumanBytes(int64_t bytes) {
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
