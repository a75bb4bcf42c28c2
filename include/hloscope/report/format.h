// Formatting helpers shared by the renderers.
#ifndef HLOSCOPE_REPORT_FORMAT_H_
#define HLOSCOPE_REPORT_FORMAT_H_

#include <cstdint>
#include <optional>
#include <string>

namespace hloscope {

// 1536 -> "1.5 KiB", 8388608 -> "8.0 MiB", 12 -> "12 B".
std::string HumanBytes(int64_t bytes);
std::string HumanBytes(std::optional<int64_t> bytes);  // "?" when unknown

enum class OutputFormat { kText, kJson };

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_FORMAT_H_
