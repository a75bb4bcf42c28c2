// libFuzzer target for the parsers of XLA's dumps beside the HLO (the
// buffer assignment, XLA:GPU's thunk_metadata.txt): any byte string must
// parse to a result or to a Diagnostic that formats, without
// crashing, hanging, leaking or tripping a sanitizer, in time linear in
// its size (libFuzzer's -timeout catches a quadratic path on large inputs).
//
// Build and run: fuzz/run_fuzz.sh [SECONDS] buffer_assignment_fuzzer
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "hloscope/parser/buffer_assignment.h"
#include "hloscope/parser/thunk_metadata.h"
#include "hloscope/support/terminal_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto safe = [](const hloscope::Diagnostic& d) {
    std::string message = d.Format();
    if (message.empty() || !hloscope::IsTerminalSafe(hloscope::EscapeForTerminal(message))) std::abort();
  };
  auto parsed = hloscope::ParseBufferAssignment(text, "<fuzz>");
  if (!parsed.ok()) safe(parsed.error());
  auto thunks = hloscope::ParseThunkMetadata(text, "<fuzz>");
  if (!thunks.ok()) safe(thunks.error());
  return 0;
}
