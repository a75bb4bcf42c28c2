// Reading an input (an HLO dump, a buffer-assignment dump, stdin) without
// trusting what it is.
//
// * A regular file is mapped (MappedFile; see there why) when it is large,
//   else read, and must be at most `max_bytes` long.
// * A directory is an error that says so (not a bad_alloc from reading it).
// * Stdin ("-"), pipes and devices are read in chunks up to `max_bytes`;
//   HLO text never holds a NUL byte, so reading stops after the chunk that
//   has one (/dev/zero, /dev/urandom) and the parser reports it with a caret.
//
// The bytes are followed by a '\0' (the parser's sentinel).
#ifndef HLOSCOPE_SUPPORT_INPUT_FILE_H_
#define HLOSCOPE_SUPPORT_INPUT_FILE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "hloscope/support/diagnostic.h"
#include "hloscope/support/result.h"

namespace hloscope {

// 2 GiB: a dump that large takes about 6 GiB to analyse.
inline constexpr uint64_t kDefaultMaxInputBytes = uint64_t{2} << 30;

struct InputOptions {
  uint64_t max_bytes = kDefaultMaxInputBytes;
  // Map regular files (the CLI, with its SIGBUS guard) or read them into
  // memory (a library in someone else's process: a file that shrinks
  // while mapped would kill it).
  bool map_regular_files = true;
  // Smaller regular files are read, not mapped: each map is a kernel
  // mapping of its own, and `check DIR` on a folder of 100,000 small
  // modules held open at once would run into the kernel's limit
  // (vm.max_map_count, 65,530 by default) for no gain.
  uint64_t map_from_bytes = uint64_t{1} << 20;
};

struct InputBytes {
  std::shared_ptr<const void> owner;  // keeps `text` alive
  std::string_view text;              // text.data()[text.size()] == '\0'
};

// `path` as given is used in diagnostics ("<stdin>" for "-").
Result<InputBytes> ReadInput(const std::string& path, const InputOptions& options = {});

// The diagnostic for a file that cannot be opened ("PATH: error: cannot
// open file: REASON").
Diagnostic CannotOpenFile(const std::string& path, std::string_view reason);

}  // namespace hloscope

#endif  // HLOSCOPE_SUPPORT_INPUT_FILE_H_
