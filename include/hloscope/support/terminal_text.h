// Text that cannot hurt a terminal.
//
// Strings from the input — op_name and source_file in metadata (after C
// unescaping), function names from stack-frame tables, lines of the user's
// source files, raw bytes inside quoted attribute values — reach the text
// output. A `\x1b]0;...\x07` in an op_name must not retitle the user's
// window, `\x1b[2J` must not clear it, and a `\n` must not forge a report
// line. EscapeForTerminal writes every control character (C0 but tab and
// newline when kept, DEL, the C1 range U+0080..U+009F, ESC) as `\xNN` /
// `\u00NN`, and every byte that is not valid UTF-8 as `\xNN`, so the result
// is valid UTF-8 with no control character but the kept ones.
#ifndef HLOSCOPE_SUPPORT_TERMINAL_TEXT_H_
#define HLOSCOPE_SUPPORT_TERMINAL_TEXT_H_

#include <streambuf>
#include <string>
#include <string_view>

namespace hloscope {

struct TerminalTextOptions {
  bool keep_newlines = false;  // whole reports: their own line breaks stay
  bool keep_tabs = true;
};

std::string EscapeForTerminal(std::string_view text, const TerminalTextOptions& options = {});

// True when `text` needs no escaping (the common case: no copy is made).
bool IsTerminalSafe(std::string_view text, const TerminalTextOptions& options = {});

// A stream buffer that escapes what is written through it, as
// EscapeForTerminal does, and passes it on to `destination` in chunks: a
// command's output (a 100 MB JSON report) is never held whole to be
// filtered. A UTF-8 sequence split between two writes is held back until
// it completes; Finish() (or the destructor) writes what is left. A
// failed write to the destination makes the writing stream fail.
class TerminalSafeStreambuf : public std::streambuf {
 public:
  explicit TerminalSafeStreambuf(std::streambuf* destination, TerminalTextOptions options = {});
  ~TerminalSafeStreambuf() override;
  TerminalSafeStreambuf(const TerminalSafeStreambuf&) = delete;
  TerminalSafeStreambuf& operator=(const TerminalSafeStreambuf&) = delete;

  // Writes everything held back; false when a write failed (now or before).
  bool Finish();

 protected:
  int_type overflow(int_type ch) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  bool Drain(bool all);

  std::streambuf* destination_;
  TerminalTextOptions options_;
  std::string pending_;
  bool failed_ = false;
};

}  // namespace hloscope

#endif  // HLOSCOPE_SUPPORT_TERMINAL_TEXT_H_
