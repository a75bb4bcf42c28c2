// The report page's memory picture: the temporaries' live bytes across the
// flattened schedule as an inline SVG (no external assets: the page's
// Content-Security-Policy allows none), the fullest moment marked, and the
// largest values live there as bands over their live ranges, each linked
// to its source line.
#ifndef HLOSCOPE_REPORT_MEMORY_SVG_H_
#define HLOSCOPE_REPORT_MEMORY_SVG_H_

#include <functional>
#include <optional>
#include <string>

#include "hloscope/analysis/memory_usage.h"

namespace hloscope {

struct MemorySvgOptions {
  int width = 720;
  int bands = 6;  // the largest live values drawn as bands
  // "#m0-src-12" for a line on the page, "" when it has no anchor.
  std::function<std::string(const std::optional<SourceLocation>&)> anchor_of;
};

// "" when the peak has no timeline.
std::string MemoryTimelineSvg(const TempPeak& peak, const MemorySvgOptions& options);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_MEMORY_SVG_H_
