// Graphviz in process: a graph becomes an <svg> element fit for inlining
// into a page; text in labels comes out escaped; a broken graph is an
// error message, never a crash or output on stderr.
#include "hloscope/support/graphviz.h"

#include <gtest/gtest.h>

namespace hloscope {
namespace {

TEST(Graphviz, RendersAnSvgElementWithoutXmlPrologue) {
  SvgResult r = RenderDotToSvg("digraph g { a -> b; }");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.svg.rfind("<svg", 0), 0u);
  EXPECT_EQ(r.svg.find("<?xml"), std::string::npos);
  EXPECT_EQ(r.svg.find("<!DOCTYPE"), std::string::npos);
  EXPECT_NE(r.svg.find("class=\"node\""), std::string::npos);
  EXPECT_NE(r.svg.find("class=\"edge\""), std::string::npos);
}

TEST(Graphviz, EntitiesInHtmlLabelsStayEscapedInTheSvg) {
  SvgResult r =
      RenderDotToSvg("digraph g { a [shape=plain, label=<<b>&lt;img src=x onerror=alert(1)&gt;</b>>]; }");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_NE(r.svg.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
  EXPECT_EQ(r.svg.find("<img"), std::string::npos);
}

TEST(Graphviz, HrefsInCellsBecomeLinks) {
  SvgResult r = RenderDotToSvg(
      "digraph g { a [shape=plain, label=<<table><tr><td href=\"#m0-loop-0\">while.2</td></tr></table>>]; }");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_NE(r.svg.find("xlink:href=\"#m0-loop-0\""), std::string::npos);
}

TEST(Graphviz, ABrokenGraphIsAnError) {
  SvgResult r = RenderDotToSvg("digraph { a -> ");
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.error.rfind("Graphviz could not read the graph", 0), 0u) << r.error;
  EXPECT_TRUE(r.svg.empty());
  // And the next graph renders: no error state is left behind.
  EXPECT_TRUE(RenderDotToSvg("digraph { x; }").ok());
}

}  // namespace
}  // namespace hloscope
