// Diagnostics: one error report, printed like clang.
//
//   model.hlo:12:28: error: use of undefined instruction 'q' in computation 'e'
//     ROOT %n = f32[4]{0} negate(%q)
//                                ^
//
// Diagnostics are values. Library code returns them (see Result<T>); only the
// CLI and the Python binding decide how to show them.
#ifndef HLOSCOPE_SUPPORT_DIAGNOSTIC_H_
#define HLOSCOPE_SUPPORT_DIAGNOSTIC_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace hloscope {

struct Diagnostic {
  std::string path;       // as given by the user; "<stdin>" for standard input
  int64_t line = 0;       // 1-based; 0 when the error has no position (I/O)
  int64_t column = 0;     // 1-based, in bytes
  std::string message;    // without the "error: " prefix
  std::string line_text;  // the source line (or a window of it), no newline, raw bytes
  int64_t caret = 0;      // 1-based position of the caret within line_text; 0 with an
                          // empty line_text: the line is not shown

  // "path:line:col: error: message\n<line>\n<caret>\n" (or "path: error: ...").
  // Control characters and invalid UTF-8 from the input are escaped
  // (support/terminal_text.h); the caret still points at the column.
  std::string Format() const;
};

// A diagnostic about a whole input, without a position ("PATH: error: message").
Diagnostic InputDiagnostic(std::string path, std::string message);

// Computes line and column of `offset` in `text` and fills line_text. Lines
// longer than 240 bytes are cut around the column so a caret stays readable
// on a 1 GB single-line file.
Diagnostic MakeDiagnostic(std::string_view path, std::string_view text, size_t offset, std::string message);

}  // namespace hloscope

#endif  // HLOSCOPE_SUPPORT_DIAGNOSTIC_H_
