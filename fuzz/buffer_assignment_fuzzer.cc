// libFuzzer target for the buffer-assignment parser: any byte string must
// parse to a BufferAssignment or to a Diagnostic that formats, without
// crashing, hanging, leaking or tripping a sanitizer, in time linear in
// its size (libFuzzer's -timeout catches a quadratic path on large inputs).
//
// Build and run: fuzz/run_fuzz.sh [SECONDS] buffer_assignment_fuzzer
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "hloscope/parser/buffer_assignment.h"
#include "hloscope/support/terminal_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = hloscope::ParseBufferAssignment(text, "<fuzz>");
  if (!parsed.ok()) {
    std::string message = parsed.error().Format();
    if (message.empty() || !hloscope::IsTerminalSafe(hloscope::EscapeForTerminal(message))) std::abort();
  }
  return 0;
}
