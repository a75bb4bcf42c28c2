// Arena block management.
//
// Blocks double from 512 bytes (a module of a few instructions stays
// small; an input may hold hundreds of thousands of them, and a 4 KiB first
// block made 60 MB of tiny modules cost a gigabyte) up to 32 MiB. Blocks of 2 MiB and more
// come from mmap, aligned to 2 MiB and marked MADV_HUGEPAGE: on the
// virtual machines this project runs on, a 4 KiB page fault costs several
// microseconds, and a 100 MB module's IR touched 50,000 fresh pages, a
// quarter of the parse time. Transparent huge pages make that ~100 faults.
// Untouched parts of a block cost address space, not memory.
#include "hloscope/support/arena.h"

#include <sys/mman.h>

namespace hloscope {

namespace {
constexpr size_t kFirstBlockSize = 512;
constexpr size_t kMaxBlockSize = 32 << 20;
constexpr size_t kHugePage = 2 << 20;

std::byte* MapHugeBlock(size_t size) {
  // Over-allocate by one huge page to align, then trim both ends.
  size_t len = size + kHugePage;
  void* raw = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  uintptr_t start = reinterpret_cast<uintptr_t>(raw);
  uintptr_t aligned = (start + kHugePage - 1) & ~(kHugePage - 1);
  if (aligned > start) munmap(raw, aligned - start);
  uintptr_t tail = aligned + size;
  uintptr_t end = start + len;
  if (end > tail) munmap(reinterpret_cast<void*>(tail), end - tail);
#ifdef MADV_HUGEPAGE
  // Advice only: without THP the block simply uses 4 KiB pages.
  madvise(reinterpret_cast<void*>(aligned), size, MADV_HUGEPAGE);
#endif
  return reinterpret_cast<std::byte*>(aligned);
}
}  // namespace

Arena::~Arena() {
  for (const Block& b : blocks_) {
    if (b.mapped)
      munmap(b.data, b.size);
    else
      ::operator delete[](b.data);
  }
}

void* Arena::AllocateSlow(size_t bytes, size_t align) {
  size_t next = blocks_.empty() ? kFirstBlockSize : std::min(block_size_ * 2, kMaxBlockSize);
  // An object larger than a quarter of the next block gets a block of its own.
  size_t size = bytes + align > next / 4 ? bytes + align : next;
  Block block{nullptr, size, size >= kHugePage};
  if (block.mapped) {
    size = block.size = (size + kHugePage - 1) & ~(kHugePage - 1);
    block.data = MapHugeBlock(size);
  } else {
    // Not value-initialized: that would zero every block.
    block.data = static_cast<std::byte*>(::operator new[](size));
  }
  blocks_.push_back(block);
  total_ += size;
  current_ = block.data;
  block_size_ = size;
  size_t p = (reinterpret_cast<uintptr_t>(current_) + align - 1) & ~(align - 1);
  p -= reinterpret_cast<uintptr_t>(current_);
  used_ = p + bytes;
  return current_ + p;
}

}  // namespace hloscope
