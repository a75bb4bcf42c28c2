// Diagnostic formatting: clang-style "path:line:col: error: msg", the source
// line and a caret; long lines are windowed, control bytes masked.
#include "hloscope/support/diagnostic.h"

#include <gtest/gtest.h>

#include "hloscope/support/result.h"

namespace hloscope {
namespace {

TEST(DiagnosticTest, LineColumnAndCaret) {
  Diagnostic d = MakeDiagnostic("f.hlo", "first\nsecond line\nthird", 13, "bad");
  EXPECT_EQ(d.line, 2);
  EXPECT_EQ(d.column, 8);
  EXPECT_EQ(d.Format(), "f.hlo:2:8: error: bad\nsecond line\n       ^\n");
}

TEST(DiagnosticTest, OffsetAtEndAndPastEnd) {
  EXPECT_EQ(MakeDiagnostic("f", "ab\n", 3, "x").Format(), "f:2:1: error: x\n\n^\n");
  EXPECT_EQ(MakeDiagnostic("f", "ab", 99, "x").Format(), "f:1:3: error: x\nab\n  ^\n");
  EXPECT_EQ(MakeDiagnostic("f", "", 0, "x").Format(), "f:1:1: error: x\n\n^\n");
}

TEST(DiagnosticTest, CrlfAndTabs) {
  Diagnostic d = MakeDiagnostic("f", "a\r\n\tb = c\r\n", 6, "x");
  EXPECT_EQ(d.line, 2);
  EXPECT_EQ(d.line_text, "\tb = c");
  // The caret line keeps the tab so it lines up.
  EXPECT_EQ(d.Format(), "f:2:4: error: x\n\tb = c\n\t  ^\n");
}

TEST(DiagnosticTest, NoPosition) {
  Diagnostic d;
  d.path = "x.hlo";
  d.message = "cannot open file";
  EXPECT_EQ(d.Format(), "x.hlo: error: cannot open file\n");
}

TEST(DiagnosticTest, LongLinesAreWindowedAroundTheColumn) {
  std::string line(100000, 'a');
  line[50000] = 'X';
  Diagnostic d = MakeDiagnostic("f", line, 50000, "here");
  EXPECT_EQ(d.column, 50001);
  EXPECT_LE(d.line_text.size(), 240u);
  ASSERT_GE(d.caret, 1);
  EXPECT_EQ(d.line_text[d.caret - 1], 'X');
}

TEST(DiagnosticTest, ControlBytesAreEscapedWithTheCaretInPlace) {
  // The raw line is kept; what is printed escapes it, and the caret still
  // points at the column (here the DEL after the escape sequence).
  std::string line("a\x01\x1b[31mx\x7f\xc2\x9b\xff", 12);
  Diagnostic d = MakeDiagnostic("f", line, 8, "bad \x1b]0;title\x07 name");
  EXPECT_EQ(d.line_text, line);
  EXPECT_EQ(d.Format(),
            "f:1:9: error: bad \\x1b]0;title\\x07 name\n"
            "a\\x01\\x1b[31mx\\x7f\\u009b\\xff\n"
            "              ^\n");
}

TEST(ResultTest, ValueOrDiagnostic) {
  Result<int> ok = 3;
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(*ok, 3);
  Result<int> bad = MakeDiagnostic("f", "x", 0, "nope");
  EXPECT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "nope");
}

}  // namespace
}  // namespace hloscope
