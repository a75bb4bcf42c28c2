// Byte counts for people: 1536 -> "1.5 KiB", 8388608 -> "8.0 MiB".
#ifndef HLOSCOPE_SUPPORT_HUMAN_BYTES_H_
#define HLOSCOPE_SUPPORT_HUMAN_BYTES_H_

#include <cstdint>
#include <optional>
#include <string>

namespace hloscope {

std::string HumanBytes(int64_t bytes);
std::string HumanBytes(std::optional<int64_t> bytes);  // "?" when unknown

}  // namespace hloscope

#endif  // HLOSCOPE_SUPPORT_HUMAN_BYTES_H_
