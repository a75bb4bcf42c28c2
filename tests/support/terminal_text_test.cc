// EscapeForTerminal: nothing from the input can drive the terminal.
#include "hloscope/support/terminal_text.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

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

// What a command writes through the CLI's filter, in pieces.
std::string Filtered(const std::vector<std::string>& pieces, bool* ok = nullptr) {
  std::ostringstream out;
  TerminalSafeStreambuf buf(out.rdbuf(), {.keep_newlines = true});
  std::ostream os(&buf);
  for (const std::string& p : pieces) os << p;
  bool finished = buf.Finish();
  if (ok) *ok = finished;
  return out.str();
}

TEST(TerminalSafeStreambufTest, EscapesLikeEscapeForTerminalWhateverTheChunks) {
  const std::string text = "op \"\x1b[2J\" — ×2\n\xff ok ■\n";
  // Every split into two writes, including inside the 2- and 3-byte
  // characters: a split UTF-8 sequence is held back, not escaped.
  for (size_t cut = 0; cut <= text.size(); ++cut)
    EXPECT_EQ(Filtered({text.substr(0, cut), text.substr(cut)}),
              EscapeForTerminal(text, {.keep_newlines = true}))
        << cut;
  // A truncated sequence at the end is escaped when the stream finishes.
  EXPECT_EQ(Filtered({"ab\xe2\x80"}), "ab\\xe2\\x80");
  // Large output passes through in chunks, unchanged.
  std::string big(1 << 20, 'x');
  EXPECT_EQ(Filtered({big}), big);
}

// A destination that refuses every write: a full disk.
class FullDisk : public std::streambuf {
 protected:
  int_type overflow(int_type) override { return traits_type::eof(); }
  std::streamsize xsputn(const char*, std::streamsize) override { return 0; }
};

TEST(TerminalSafeStreambufTest, AFailedWriteIsReported) {
  FullDisk full;
  TerminalSafeStreambuf buf(&full);
  std::ostream os(&buf);
  os << std::string(100000, 'x');
  EXPECT_FALSE(buf.Finish());
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
