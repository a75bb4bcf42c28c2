#include "hloscope/support/graphviz.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <memory>
#include <mutex>

namespace hloscope {
namespace {

// Graphviz reports errors through a process-wide callback; the last one is
// kept here for the SvgResult. Rendering is serialized: libgvc's error
// state and its plugin registry are global.
std::mutex g_graphviz_mutex;
std::string* g_errors = nullptr;

int CollectError(char* message) {
  if (g_errors != nullptr && message != nullptr && g_errors->size() < 4096) g_errors->append(message);
  return 0;
}

// gvRenderData's length is `unsigned int*` in Graphviz 2.x and `size_t*`
// in newer releases; deduce it from the declaration.
template <typename Length>
int RenderData(int (*render)(GVC_t*, graph_t*, const char*, char**, Length*), GVC_t* gvc, graph_t* g,
               std::string* out) {
  char* data = nullptr;
  Length length = 0;
  int rc = render(gvc, g, "svg", &data, &length);
  if (rc == 0 && data != nullptr) out->assign(data, static_cast<size_t>(length));
  if (data != nullptr) gvFreeRenderData(data);
  return rc;
}

// One context for the process, never freed: Graphviz's pango text-layout
// plugin caches font names across contexts, and a context freed and made
// again reads a freed name (a use-after-free under ASan, Graphviz 2.42).
GVC_t* Context() {
  static GVC_t* gvc = gvContext();
  return gvc;
}

}  // namespace

SvgResult RenderDotToSvg(std::string_view dot) {
  std::lock_guard<std::mutex> lock(g_graphviz_mutex);
  SvgResult result;
  std::string errors;
  g_errors = &errors;
  agseterr(AGERR);
  agusererrf previous = agseterrf(CollectError);
  std::string text(dot);
  GVC_t* gvc = Context();
  graph_t* g = gvc != nullptr ? agmemread(text.c_str()) : nullptr;
  std::string svg;
  if (g == nullptr) {
    result.error = "Graphviz could not read the graph";
  } else if (gvLayout(gvc, g, "dot") != 0) {
    // A wheel carries Graphviz's libraries but not its plugins, which
    // Graphviz loads at run time from its own folder (or $GVBINDIR).
    result.error =
        "Graphviz's dot layout plugin was not found: install Graphviz (apt-get install graphviz, dnf install "
        "graphviz, brew install graphviz) for the loop picture";
  } else {
    if (RenderData(&gvRenderData, gvc, g, &svg) != 0 || svg.empty())
      result.error =
          "Graphviz's SVG plugin (core) was not found: install Graphviz (apt-get install graphviz) for the "
          "loop "
          "picture";
    gvFreeLayout(gvc, g);
  }
  if (g != nullptr) agclose(g);
  agseterrf(previous);
  g_errors = nullptr;
  if (!result.ok()) {
    if (!errors.empty()) result.error += ": " + errors.substr(0, errors.find('\n'));
    return result;
  }
  // The XML declaration and DOCTYPE do not belong inside an HTML page.
  size_t start = svg.find("<svg");
  result.svg = start == std::string::npos ? svg : svg.substr(start);
  return result;
}

}  // namespace hloscope
