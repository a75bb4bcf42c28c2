// ProfileTrace: measured time per HLO instruction, from the trace a profiler
// wrote — the Chrome trace-event JSON that `jax.profiler.trace(DIR)` leaves
// at DIR/plugins/profile/<run>/<host>.trace.json.gz (gzip or plain; the
// Perfetto `perfetto_trace.json.gz` is the same format).
//
// XLA names what it runs: on CPU every thunk's event carries the
// instruction (`args.hlo_op`) and its module (`args.hlo_module`)
// (xla/backends/cpu/runtime/thunk.cc, TraceMeEncode); the GPU tracer puts
// the same keys on kernel events. Events without them (Python frames, the
// runtime's own) are counted, not used.
#ifndef HLOSCOPE_PARSER_PROFILE_TRACE_H_
#define HLOSCOPE_PARSER_PROFILE_TRACE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hloscope/support/input_file.h"
#include "hloscope/support/result.h"

namespace hloscope {

// Every event of one instruction, summed.
struct TracedOp {
  std::string module;  // hlo_module ("jit_step")
  std::string op;      // hlo_op ("fusion.3")
  int64_t events = 0;
  double total_seconds = 0;
};

struct ProfileTrace {
  std::string path;
  std::vector<TracedOp> ops;  // sorted by (module, op)
  int64_t events = 0;         // complete events read ("ph": "X")
  int64_t events_without_op = 0;

  // The op of `module` named `op`, or nullptr.
  const TracedOp* Find(std::string_view module, std::string_view op) const;
  // True when some event names `module`.
  bool HasModule(std::string_view module) const;
};

// Parses trace JSON text (already decompressed).
Result<ProfileTrace> ParseProfileTrace(std::string_view json, std::string_view path);
// Reads PATH (gzip when it starts with gzip's magic bytes): at most
// options.max_bytes read and, decompressed, at most that many bytes again.
Result<ProfileTrace> ReadProfileTrace(const std::string& path, const InputOptions& options = {});

}  // namespace hloscope

#endif  // HLOSCOPE_PARSER_PROFILE_TRACE_H_
