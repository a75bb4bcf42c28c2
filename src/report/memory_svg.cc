#include "hloscope/report/memory_svg.h"

#include <fmt/format.h>

#include <algorithm>

#include "hloscope/report/enum_names.h"
#include "hloscope/report/html_text.h"
#include "hloscope/report/wording.h"
#include "hloscope/support/human_bytes.h"

namespace hloscope {

std::string MemoryTimelineSvg(const TempPeak& peak, const MemorySvgOptions& options) {
  if (peak.timeline.empty() || peak.schedule_length <= 0) return "";
  const int kLeft = 70, kChart = 120, kBand = 16, kTop = 10;
  const int width = std::max(options.width, kLeft + 100);
  const int plot = width - kLeft - 10;
  size_t bands = std::min<size_t>(peak.live.size(), static_cast<size_t>(std::max(options.bands, 0)));
  const int height = kTop + kChart + 24 + static_cast<int>(bands) * (kBand + 4);
  int64_t top = std::max<int64_t>(1, *std::max_element(peak.timeline.begin(), peak.timeline.end()));
  const double n = static_cast<double>(peak.timeline.size());
  auto x_of_bucket = [&](double b) { return kLeft + plot * b / n; };
  auto x_of_time = [&](int64_t t) {
    return kLeft + plot * static_cast<double>(t) / static_cast<double>(peak.schedule_length);
  };
  auto y_of = [&](int64_t bytes) {
    return kTop + kChart - kChart * static_cast<double>(bytes) / static_cast<double>(top);
  };

  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"memory-timeline\" width=\"{}\" height=\"{}\" "
      "viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"temporaries live across the schedule\">\n",
      width, height, width, height);
  // The area: a step line over the buckets.
  std::string points = fmt::format("{:.1f},{:.1f}", x_of_bucket(0), y_of(0));
  for (size_t b = 0; b < peak.timeline.size(); ++b) {
    double y = y_of(peak.timeline[b]);
    points += fmt::format(" {:.1f},{:.1f} {:.1f},{:.1f}", x_of_bucket(static_cast<double>(b)), y,
                          x_of_bucket(static_cast<double>(b + 1)), y);
  }
  points += fmt::format(" {:.1f},{:.1f}", x_of_bucket(n), y_of(0));
  svg += fmt::format("<polygon points=\"{}\" fill=\"#9ecae1\" stroke=\"#3182bd\" stroke-width=\"1\"/>\n",
                     points);
  // Axes and their words.
  svg += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#888\"/>\n", kLeft,
                     kTop + kChart, kLeft + plot, kTop + kChart);
  svg += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"end\">{}</text>\n", kLeft - 4,
                     kTop + 10, HtmlEscape(HumanBytes(top)));
  svg += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"end\">0</text>\n", kLeft - 4,
                     kTop + kChart);
  svg += fmt::format(
      "<text x=\"{}\" y=\"{}\" font-size=\"11\">schedule: {} instructions, loop bodies flattened "
      "before their loop</text>\n",
      kLeft, kTop + kChart + 14, peak.schedule_length);
  // The fullest moment.
  double px = x_of_time(peak.time);
  svg += fmt::format(
      "<line x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" stroke=\"#d62728\" "
      "stroke-width=\"1.5\"><title>{}"
      "</title></line>\n",
      px, kTop, px, height - 2,
      HtmlShown(fmt::format("fullest at {}: {} live", peak.instruction ? peak.instruction->name() : "?",
                            HumanBytes(peak.live_bytes))));
  svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\" font-size=\"11\" fill=\"#d62728\"{}>peak {}</text>\n",
                     px + (px > kLeft + plot * 0.8 ? -4 : 4), kTop + 10,
                     px > kLeft + plot * 0.8 ? " text-anchor=\"end\"" : "",
                     HtmlEscape(HumanBytes(peak.live_bytes)));
  // The largest values live there, each over its live range.
  for (size_t i = 0; i < bands; ++i) {
    const LiveValue& v = peak.live[i];
    int y = kTop + kChart + 24 + static_cast<int>(i) * (kBand + 4);
    double x0 = x_of_time(v.start), x1 = std::max(x_of_time(v.end + 1), x0 + 2);
    std::string title =
        fmt::format("{} {} ({}){}", PositionText(v.value), HumanBytes(v.bytes), LiveValueKindName(v.kind),
                    SourceText(v.source).empty() ? "" : " at " + SourceText(v.source));
    std::string band = fmt::format(
        "<rect x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\"><title>{}</title></rect>"
        "<text x=\"{}\" y=\"{}\" font-size=\"10\" text-anchor=\"end\">{}</text>",
        x0, y, x1 - x0, kBand, v.kind == LiveValueKind::kCopy ? "#fd8d3c" : "#74c476", HtmlShown(title),
        kLeft - 4, y + 12, HtmlEscape(HumanBytes(v.bytes)));
    std::string anchor = options.anchor_of ? options.anchor_of(v.source) : "";
    svg += anchor.empty() ? band + "\n" : fmt::format("<a href=\"#{}\">{}</a>\n", anchor, band);
  }
  svg += "</svg>";
  return svg;
}

}  // namespace hloscope
