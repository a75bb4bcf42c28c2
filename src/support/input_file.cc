#include "hloscope/support/input_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "hloscope/support/human_bytes.h"
#include "hloscope/support/mapped_file.h"

namespace hloscope {
namespace {

Diagnostic TooLarge(const std::string& path, uint64_t max_bytes) {
  return InputDiagnostic(path, fmt::format("input is larger than {} (--max-input-bytes {})",
                                           HumanBytes(static_cast<int64_t>(max_bytes)), max_bytes));
}

// Reads `fd` to its end, at most max_bytes, stopping after a chunk that
// holds a NUL byte. `size` is a regular file's size (0: unknown): the first
// read asks for one byte more, so that a small file takes what it needs and
// not a 1 MiB chunk each (a folder of 100,000 small modules).
Result<InputBytes> ReadStream(int fd, const std::string& shown, uint64_t max_bytes, uint64_t size = 0) {
  auto data = std::make_shared<std::string>();
  constexpr size_t kChunk = size_t{1} << 20;
  bool first = true;
  while (true) {
    size_t old = data->size();
    if (old >= max_bytes) {
      // Exactly at the limit is fine if nothing follows.
      char probe;
      ssize_t n = ::read(fd, &probe, 1);
      if (n == 0) break;
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return InputDiagnostic(shown, fmt::format("read error: {}", std::strerror(errno)));
      return TooLarge(shown, max_bytes);
    }
    if (!first && size > 0 && old >= size) {
      // A regular file read to its size: end of file, unless it grew (then
      // read on in chunks).
      char probe;
      ssize_t n = ::read(fd, &probe, 1);
      if (n == 0) break;
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return InputDiagnostic(shown, fmt::format("read error: {}", std::strerror(errno)));
      data->push_back(probe);
      size = 0;
      continue;
    }
    uint64_t chunk = first && size > 0 ? size + 1 : kChunk;
    first = false;
    size_t want = static_cast<size_t>(std::min<uint64_t>(chunk, max_bytes - old));
    data->resize(old + want);
    ssize_t n = ::read(fd, data->data() + old, want);
    if (n < 0) {
      data->resize(old);
      if (errno == EINTR) continue;
      return InputDiagnostic(shown, fmt::format("read error: {}", std::strerror(errno)));
    }
    data->resize(old + static_cast<size_t>(n));
    if (n == 0) break;
    if (std::memchr(data->data() + old, '\0', static_cast<size_t>(n))) break;  // binary input
  }
  std::string_view text(*data);
  return InputBytes{std::move(data), text};
}

}  // namespace

Diagnostic CannotOpenFile(const std::string& path, std::string_view reason) {
  return InputDiagnostic(path, fmt::format("cannot open file: {}", reason));
}

Result<InputBytes> ReadInput(const std::string& path, const InputOptions& options) {
  if (path == "-") return ReadStream(STDIN_FILENO, "<stdin>", options.max_bytes);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return CannotOpenFile(path, std::strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    return CannotOpenFile(path, std::strerror(e));
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return InputDiagnostic(
        path,
        "is a directory, not an HLO file (a dump folder holds module_*.txt files: `hloscope check "
        "DIR` checks each optimized one; `memory DIR` each one's memory; other commands take one of its "
        "*after_optimizations.txt files)");
  }
  if (!S_ISREG(st.st_mode)) {  // a pipe, a device, a socket
    Result<InputBytes> r = ReadStream(fd, path, options.max_bytes);
    ::close(fd);
    return r;
  }
  if (static_cast<uint64_t>(st.st_size) > options.max_bytes) {
    ::close(fd);
    return TooLarge(path, options.max_bytes);
  }
  if (options.map_regular_files && static_cast<uint64_t>(st.st_size) >= options.map_from_bytes) {
    std::string error;
    if (std::shared_ptr<const MappedFile> mapped = MappedFile::Map(fd, path, &error)) {
      ::close(fd);
      std::string_view text = mapped->text();
      return InputBytes{std::move(mapped), text};
    }
  }
  // Not mapped: read it (a regular file cannot grow past its size by much
  // while we read; the limit still holds).
  Result<InputBytes> r = ReadStream(fd, path, options.max_bytes, static_cast<uint64_t>(st.st_size));
  ::close(fd);
  return r;
}

}  // namespace hloscope
