#include "hloscope/parser/input_kind.h"

#include <fmt/format.h>

namespace hloscope {

InputKind SniffInputKind(std::string_view line) {
  size_t b = line.find_first_not_of(" \t\r");
  line = b == std::string_view::npos ? std::string_view() : line.substr(b);
  auto starts = [&](std::string_view p) { return line.substr(0, p.size()) == p; };
  if (starts("module @") || starts("module {") || starts("module attributes") || starts("func.func") ||
      starts("#loc") || starts("\"builtin.module\""))
    return InputKind::kStableHlo;
  if (starts("{ lambda") || starts("{lambda")) return InputKind::kJaxpr;
  if (starts("BufferAssignment:")) return InputKind::kBufferAssignment;
  if (starts("{\"") || starts("{ \"") || line == "{") return InputKind::kJson;
  return InputKind::kHlo;
}

std::optional<std::string> ForeignInputHint(InputKind kind) {
  switch (kind) {
    case InputKind::kStableHlo:
      return std::string(
          "this is StableHLO (MLIR) text, not HLO: hloscope reads the HLO XLA compiled — pass "
          "compiled.as_text() (jax.jit(f).lower(...).compile()) or an xla_dump_to dump's "
          "*after_optimizations.txt");
    case InputKind::kJaxpr:
      return std::string(
          "this is a jaxpr, not HLO: copies are decided by XLA after it — pass compiled.as_text() or an "
          "xla_dump_to dump's *after_optimizations.txt");
    case InputKind::kBufferAssignment:
      return std::string(
          "this is XLA's buffer-assignment dump, not HLO: pass the module (the *after_optimizations.txt "
          "beside "
          "it), and this file with --buffer-assignment if it is not found by itself");
    case InputKind::kJson:
      return std::string(
          "this is a JSON document, not HLO (a saved `hloscope check --format json` is compared with "
          "`hloscope diff BASELINE.json FILE`)");
    case InputKind::kHlo:
      return std::nullopt;
  }
  return std::nullopt;
}

bool IsOptimizedModule(const HloModule& module) { return module.is_scheduled(); }

std::string UnoptimizedInputMessage(const HloModule& module) {
  return fmt::format(
      "module {} is HLO before optimization (no is_scheduled=true: a before_optimizations dump or "
      "lowered.as_text(dialect=\"hlo\")); XLA has not yet decided its copies — pass the "
      "*after_optimizations.txt "
      "dump or compiled.as_text() (--allow-unoptimized reads it anyway)",
      module.name());
}

}  // namespace hloscope
