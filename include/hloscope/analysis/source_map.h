// Mapping instructions back to the user's source lines.
//
// Metadata comes in two shapes: inline `source_file="f.py" source_line=12`
// (older JAX, or --xla_hlo_print_inline_stack_frames) and `stack_frame_id=N`
// into the module's FileNames/.../StackFrames tables (newer JAX). For stack
// frames we walk from the innermost frame outward and pick the first frame
// that belongs to the user: frames inside jax, jaxlib, site-packages and the
// standard library are skipped (configurable).
#ifndef HLOSCOPE_ANALYSIS_SOURCE_MAP_H_
#define HLOSCOPE_ANALYSIS_SOURCE_MAP_H_

#include <optional>
#include <string>
#include <vector>

#include "hloscope/ir/module.h"

namespace hloscope {

// How a finding's source location was found.
enum class SourceVia : uint8_t {
  kMetadata,     // the instruction's own metadata
  kUpdate,       // a copy, attributed to the update that needed it
  kCopiedValue,  // a copy, attributed to the producer of the value it copies
  kLoop,         // a copy, attributed to its loop
};

// One caller frame of a source location, unescaped.
struct CallerFrame {
  std::string file;
  int64_t line = 0;
  std::string function;
};

struct SourceLocation {
  std::string file;
  int64_t line = 0;
  int64_t column = 0;
  std::string function;
  std::string op_name;
  SourceVia via = SourceVia::kMetadata;
  // Frames outward from the chosen one (its callers).
  std::vector<CallerFrame> stack;

  bool has_line() const { return !file.empty() && line > 0; }
};

struct SourceOptions {
  // Path fragments of frames that are not the user's code.
  std::vector<std::string> library_path_fragments = {"/site-packages/", "/dist-packages/", "/jax/_src/",
                                                     "/jaxlib/",        "<frozen ",        "/lib/python3",
                                                     "<embedded module"};
  bool skip_library_frames = true;
};

// The user's source location of `instr` from its own metadata; nullopt when
// it has none (e.g. copies inserted by XLA).
std::optional<SourceLocation> ResolveSource(const HloModule& module, const HloInstruction& instr,
                                            const SourceOptions& options = {});

// Undoes the C escapes XLA's printer applies to strings (\" \\ \n \xHH, octal).
std::string CUnescape(std::string_view s);

// The last path component ('/' or '\\' separated).
std::string_view Basename(std::string_view path);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_SOURCE_MAP_H_
