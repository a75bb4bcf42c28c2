// Graphviz, in process: a DOT graph laid out by `dot` and rendered as SVG
// (libgvc), for the pictures of the HTML report. In process rather than by
// running the `dot` program, so that a report never depends on PATH and a
// hostile label cannot reach a shell.
#ifndef HLOSCOPE_SUPPORT_GRAPHVIZ_H_
#define HLOSCOPE_SUPPORT_GRAPHVIZ_H_

#include <string>
#include <string_view>

namespace hloscope {

struct SvgResult {
  std::string svg;    // the <svg> element alone (no XML declaration, no DOCTYPE)
  std::string error;  // why there is no picture; empty on success
  bool ok() const { return error.empty(); }
};

// Lays out `dot` with the dot engine and renders it as SVG.
SvgResult RenderDotToSvg(std::string_view dot);

}  // namespace hloscope

#endif  // HLOSCOPE_SUPPORT_GRAPHVIZ_H_
