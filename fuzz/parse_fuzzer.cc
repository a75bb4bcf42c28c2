// libFuzzer target: any byte string must parse to modules or to a
// Diagnostic, without crashing, hanging, leaking or tripping a sanitizer.
// When it parses, printing it back must parse too (the round trip the
// corpus test checks on real input).
//
// Build and run: fuzz/run_fuzz.sh [SECONDS]
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "hloscope/ir/printer.h"
#include "hloscope/parser/parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  hloscope::ParseOptions options;
  options.path = "<fuzz>";
  auto parsed = hloscope::ParseHloText(std::move(text), options);
  if (!parsed.ok()) {
    // Formatting must work on every diagnostic (binary bytes, long lines).
    std::string message = parsed.error().Format();
    if (message.empty()) std::abort();
    return 0;
  }
  for (const auto& module : parsed->modules) {
    // Touch what analyses touch.
    for (const auto* comp : module->computations())
      for (const auto* instr : comp->instructions()) {
        (void)hloscope::TotalByteSizeOf(instr->shape());
        if (const auto* md = instr->metadata(); md && md->stack_frame_id)
          (void)module->stack_frames().Frame(md->stack_frame_id);
      }
    std::string printed = hloscope::PrintModule(*module);
    auto reparsed = hloscope::ParseHloText(printed, options);
    if (!reparsed.ok()) {
      // The printer wrote something the parser rejects: a bug in one of them.
      fprintf(stderr, "printed module does not parse:\n%s\n%s", reparsed.error().Format().c_str(),
              printed.c_str());
      std::abort();
    }
  }
  return 0;
}
