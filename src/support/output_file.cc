#include "hloscope/support/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace hloscope {
namespace {

std::string Errno() { return std::strerror(errno); }

// All of `content` to `fd`; false with errno set on failure.
bool WriteAll(int fd, std::string_view content) {
  while (!content.empty()) {
    ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    content.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// A device, FIFO or socket: written into as it is (opening a FIFO waits for
// its reader, as a shell redirection does).
std::string WriteThrough(const std::string& path, std::string_view content) {
  int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return Errno();
  bool ok = WriteAll(fd, content);
  std::string why = ok ? "" : Errno();
  if (::close(fd) != 0 && ok) why = Errno();
  return why;
}

// A regular file or a new one: a temporary beside it (mkstemp: created
// exclusively, never through a link), renamed over it. `mode`: the
// replaced file's, else what the umask allows a new file.
std::string Replace(const std::string& path, std::string_view content, mode_t mode) {
  std::string tmpl = path + ".XXXXXX";
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0) return Errno();
  bool ok = ::fchmod(fd, mode) == 0 && WriteAll(fd, content);
  std::string why = ok ? "" : Errno();
  if (::close(fd) != 0 && ok) {
    ok = false;
    why = Errno();
  }
  if (ok && ::rename(tmpl.c_str(), path.c_str()) != 0) {
    ok = false;
    why = Errno();
  }
  if (!ok) ::unlink(tmpl.c_str());
  return why;
}

mode_t NewFileMode() {
  mode_t mask = ::umask(0);
  ::umask(mask);
  return 0666 & ~mask;
}

}  // namespace

std::string WriteOutputFile(const std::string& path, std::string_view content) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) return Errno();
    return Replace(path, content, NewFileMode());
  }
  if (S_ISLNK(st.st_mode)) {
    // The link stays; what it points to is written (a dangling link or a
    // loop is an error, not a new file somewhere the link names).
    std::error_code ec;
    std::filesystem::path target = std::filesystem::canonical(path, ec);
    if (ec) return ec.message();
    if (::stat(target.c_str(), &st) != 0) return Errno();
    if (S_ISLNK(st.st_mode)) return "too many levels of symbolic links";
    return S_ISDIR(st.st_mode)   ? std::strerror(EISDIR)
           : S_ISREG(st.st_mode) ? Replace(target.string(), content, st.st_mode & 07777)
                                 : WriteThrough(target.string(), content);
  }
  if (S_ISDIR(st.st_mode)) return std::strerror(EISDIR);
  if (S_ISREG(st.st_mode)) return Replace(path, content, st.st_mode & 07777);
  return WriteThrough(path, content);
}

}  // namespace hloscope
