// MappedFile: a regular file mapped read-only into memory, followed by a
// '\0' byte (the parser's scanning loops stop at it instead of checking
// bounds, as they do at the end of a std::string).
//
// Why not read() into a string: a 100 MB dump is usually in the page cache
// already (XLA just wrote it); mapping shares those pages, where reading
// copies them into 100 MB of fresh memory that the kernel must first zero,
// which on this project's VMs costs as much as parsing (docs/performance.md).
//
// A file that shrinks while mapped makes the OS fault (SIGBUS) on the lost
// pages. A process that maps files calls InstallMappedFileGuard() once (the
// CLI's main does): a fault inside a mapping then ends the process with a
// message naming the file and exit code 2, not a signal. Code that runs in
// someone else's process (the Python extension) reads files instead.
#ifndef HLOSCOPE_SUPPORT_MAPPED_FILE_H_
#define HLOSCOPE_SUPPORT_MAPPED_FILE_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace hloscope {

class MappedFile {
 public:
  // nullptr when `path` is not a regular file or cannot be mapped (then read
  // it instead); `*error` gets errno's text when it cannot even be opened.
  static std::shared_ptr<const MappedFile> Open(const std::string& path, std::string* error);
  // Maps the regular file open on `fd` (the caller keeps and closes fd);
  // `path` names it in the SIGBUS guard's message.
  static std::shared_ptr<const MappedFile> Map(int fd, const std::string& path, std::string* error);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  // The file's bytes; text().data()[text().size()] is '\0'.
  std::string_view text() const { return {data_, size_}; }

 private:
  MappedFile(const char* data, size_t size, size_t mapped, int slot)
      : data_(data), size_(size), mapped_(mapped), slot_(slot) {}
  const char* data_;
  size_t size_;
  size_t mapped_;  // bytes of address space to unmap (0: nothing mapped)
  int slot_;       // registration with the SIGBUS guard; -1 if none
};

// Installs the SIGBUS handler described above (idempotent).
void InstallMappedFileGuard();

}  // namespace hloscope

#endif  // HLOSCOPE_SUPPORT_MAPPED_FILE_H_
