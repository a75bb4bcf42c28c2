// KernelTraffic: the bytes one run of a kernel (a fusion) reads and writes
// in memory — not the sizes of its operands and output.
//
// An in-place update writes only its update (a dynamic-update-slice of 8
// rows into a 2 MiB buffer writes 8 rows, and does not read the buffer);
// a dynamic-slice, slice or gather reads only what it selects. Summing
// operand sizes instead put figures up to 10^4 too high on exactly the
// kernels users look at, and ranked them above the ones that move data.
#ifndef HLOSCOPE_ANALYSIS_KERNEL_TRAFFIC_H_
#define HLOSCOPE_ANALYSIS_KERNEL_TRAFFIC_H_

#include <cstdint>
#include <optional>

#include "hloscope/ir/module.h"

namespace hloscope {

struct KernelTraffic {
  std::optional<int64_t> bytes_read;     // per run; nullopt if a size is unknowable
  std::optional<int64_t> bytes_written;  // per run
};

// Per run of `fusion`. The rules, operand by operand (fused parameter by
// fused parameter, looking through bitcasts):
//  * the buffer of an in-place pair whose update the emitter writes in
//    place: not read by the update itself (a dynamic-update-slice) or read
//    where it is updated (a scatter combines the rows it updates);
//    element-wise reads and same-slice dynamic-slices of it cost the
//    update's size;
//  * a parameter read only by dynamic-slice, slice or gather (as the sliced
//    operand): the bytes those select;
//  * anything else: the whole operand.
// Writes: an in-place output the update's bytes; every other output leaf its
// size. A fusion the emitter rewrites in full (FusionRewritesInFull) reads
// and writes everything, as before. An unfused kernel (a dot, a sort, a
// collective, ...): its operands and output, except that an update writes
// (and reads) only its update and a gather or slice reads what it selects.
KernelTraffic TrafficOf(const HloInstruction& fusion);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_KERNEL_TRAFFIC_H_
