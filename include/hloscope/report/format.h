// Output formats shared by the renderers.
#ifndef HLOSCOPE_REPORT_FORMAT_H_
#define HLOSCOPE_REPORT_FORMAT_H_

#include "hloscope/support/human_bytes.h"

namespace hloscope {

enum class OutputFormat { kText, kJson };

// The version of every JSON document hloscope writes (docs/json-format.md).
inline constexpr int kJsonSchemaVersion = 1;

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_FORMAT_H_
