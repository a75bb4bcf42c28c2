// EscapeForTerminal: nothing from the input can drive the terminal.
#include "hloscope/support/terminal_text.h"

#include <gtest/gtest.h>

#include "hloscope/support/saturating.h"

namespace hloscope {
namespace {

TEST(TerminalTextTest, ControlCharactersAndBadUtf8AreEscaped) {
  EXPECT_EQ(EscapeForTerminal("plain text — ×100 ≤ ■"), "plain text — ×100 ≤ ■");
  EXPECT_TRUE(IsTerminalSafe("plain\ttext"));
  // OSC retitle, CSI clear screen, a forged newline, DEL, C1 CSI, bad UTF-8.
  EXPECT_EQ(EscapeForTerminal("\x1b]0;pwned\x07\x1b[2J\nFAKE\x7f\xc2\x9b\xff"),
            "\\x1b]0;pwned\\x07\\x1b[2J\\x0aFAKE\\x7f\\u009b\\xff");
  EXPECT_EQ(EscapeForTerminal("a\nb", {.keep_newlines = true}), "a\nb");
  EXPECT_EQ(EscapeForTerminal("a\tb", {.keep_tabs = false}), "a\\x09b");
  // Overlong forms, surrogates and truncated sequences are not UTF-8.
  EXPECT_EQ(EscapeForTerminal("\xc0\xaf"), "\\xc0\\xaf");
  EXPECT_EQ(EscapeForTerminal("\xed\xa0\x80"), "\\xed\\xa0\\x80");
  EXPECT_EQ(EscapeForTerminal("ok\xe2\x80"), "ok\\xe2\\x80");
  EXPECT_EQ(EscapeForTerminal(std::string("\0", 1)), "\\x00");
  for (int c = 0; c < 256; ++c) {
    std::string out = EscapeForTerminal(std::string(1, static_cast<char>(c)), {.keep_newlines = true});
    EXPECT_TRUE(IsTerminalSafe(out, {.keep_newlines = true})) << c;
  }
}

TEST(SaturatingTest, NeverWraps) {
  EXPECT_EQ(SatMul(int64_t{1} << 40, int64_t{1} << 40), kSaturated);
  EXPECT_EQ(SatAdd(kSaturated, 1), kSaturated);
  EXPECT_EQ(SatMul(3, 4), 12);
  EXPECT_EQ(SatAdd(-1, 4), kSaturated);  // negative sizes do not exist
  EXPECT_EQ(SatMul(std::optional<int64_t>(), std::optional<int64_t>(2)), std::nullopt);
}

}  // namespace
}  // namespace hloscope
