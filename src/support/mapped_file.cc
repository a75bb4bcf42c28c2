#include "hloscope/support/mapped_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>

namespace hloscope {
namespace {

// The mappings the SIGBUS guard knows, with the message to print for each.
// Fixed-size and lock-free: the handler may only read plain memory.
constexpr int kSlots = 256;
struct Slot {
  std::atomic<uintptr_t> begin{0};
  std::atomic<uintptr_t> end{0};
  char message[640];
  size_t length = 0;
};
Slot g_slots[kSlots];

int Register(const char* data, size_t size, const std::string& path) {
  for (int i = 0; i < kSlots; ++i) {
    uintptr_t expected = 0;
    // Claim with a placeholder, fill the message, then publish the range.
    if (!g_slots[i].begin.compare_exchange_strong(expected, 1)) continue;
    Slot& s = g_slots[i];
    std::string msg = "hloscope: error: " + path +
                      " changed while it was being read (it is shorter than when it was opened); run again "
                      "once the file is complete\n";
    s.length = std::min(msg.size(), sizeof(s.message));
    std::memcpy(s.message, msg.data(), s.length);
    s.end.store(reinterpret_cast<uintptr_t>(data) + size);
    s.begin.store(reinterpret_cast<uintptr_t>(data));
    return i;
  }
  return -1;  // too many mappings at once: unguarded, as before
}

void OnSigbus(int sig, siginfo_t* info, void*) {
  uintptr_t addr = reinterpret_cast<uintptr_t>(info->si_addr);
  for (Slot& s : g_slots) {
    uintptr_t b = s.begin.load(), e = s.end.load();
    if (b > 1 && addr >= b && addr < e) {
      ssize_t ignored = ::write(STDERR_FILENO, s.message, s.length);
      (void)ignored;
      _exit(2);
    }
  }
  // Not ours: the default action.
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

void InstallMappedFileGuard() {
  static std::atomic<bool> installed{false};
  if (installed.exchange(true)) return;
  struct sigaction sa;
  std::memset(&sa, 0, sizeof(sa));
  sa.sa_sigaction = &OnSigbus;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGBUS, &sa, nullptr);
}

std::shared_ptr<const MappedFile> MappedFile::Open(const std::string& path, std::string* error) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = std::strerror(errno);
    return nullptr;
  }
  std::shared_ptr<const MappedFile> f = Map(fd, path, error);
  ::close(fd);
  return f;
}

std::shared_ptr<const MappedFile> MappedFile::Map(int fd, const std::string& path, std::string* error) {
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return nullptr;  // a pipe, a device: the caller reads it
  size_t size = static_cast<size_t>(st.st_size);
  if (size == 0) return std::shared_ptr<const MappedFile>(new MappedFile("", 0, 0, -1));
  // Reserve the file's pages plus at least one byte of zeroed anonymous
  // memory, then map the file over the front: the byte after the file is
  // '\0' whether or not the size is a multiple of the page size (bytes past
  // the end of a file's last page read as zero).
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t reserve = (size + 1 + page - 1) / page * page;
  void* base = mmap(nullptr, reserve, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) return nullptr;
  // Not MAP_POPULATE: measured slower than faulting pages in as the parser
  // reaches them (the kernel maps 16 cached pages per fault).
  void* file = mmap(base, size, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0);
  if (file == MAP_FAILED) {
    munmap(base, reserve);
    return nullptr;
  }
  const char* data = static_cast<const char*>(base);
  int slot = Register(data, reserve, path);
  return std::shared_ptr<const MappedFile>(new MappedFile(data, size, reserve, slot));
}

MappedFile::~MappedFile() {
  if (slot_ >= 0) {
    g_slots[slot_].begin.store(1);  // unpublish the range first
    g_slots[slot_].end.store(0);
    g_slots[slot_].begin.store(0);
  }
  if (mapped_) munmap(const_cast<char*>(data_), mapped_);
}

}  // namespace hloscope
