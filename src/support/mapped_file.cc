#include "hloscope/support/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace hloscope {

std::shared_ptr<const MappedFile> MappedFile::Open(const std::string& path, std::string* error) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = std::strerror(errno);
    return nullptr;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return nullptr;  // a pipe, a device, ...: the caller reads it
  }
  size_t size = static_cast<size_t>(st.st_size);
  if (size == 0) {
    ::close(fd);
    return std::shared_ptr<const MappedFile>(new MappedFile("", 0, 0));
  }
  // Reserve the file's pages plus at least one byte of zeroed anonymous
  // memory, then map the file over the front: the byte after the file is
  // '\0' whether or not the size is a multiple of the page size (bytes past
  // the end of a file's last page read as zero).
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t reserve = (size + 1 + page - 1) / page * page;
  void* base = mmap(nullptr, reserve, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) {
    ::close(fd);
    return nullptr;
  }
  // Not MAP_POPULATE: measured slower than faulting pages in as the parser
  // reaches them (the kernel maps 16 cached pages per fault).
  void* file = mmap(base, size, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0);
  ::close(fd);
  if (file == MAP_FAILED) {
    munmap(base, reserve);
    return nullptr;
  }
  return std::shared_ptr<const MappedFile>(new MappedFile(static_cast<const char*>(base), size, reserve));
}

MappedFile::~MappedFile() {
  if (mapped_) munmap(const_cast<char*>(data_), mapped_);
}

}  // namespace hloscope
