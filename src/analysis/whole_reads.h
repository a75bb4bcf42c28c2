// Whole reads: the kernels of a while body that read a loop-carried array
// whole every iteration (not by slices, not as the array they update in
// place). Internal to the loop analysis (loops.cc), which keeps those that
// read the loop's buffer as `whole-read` scaling entries.
#ifndef HLOSCOPE_SRC_ANALYSIS_WHOLE_READS_H_
#define HLOSCOPE_SRC_ANALYSIS_WHOLE_READS_H_

#include <cstdint>
#include <vector>

#include "check_context.h"
#include "hloscope/analysis/served_op.h"
#include "hloscope/ir/computation.h"
#include "hloscope/ir/instruction.h"

namespace hloscope {

struct WholeRead {
  const HloInstruction* kernel = nullptr;  // a kernel of the body
  // The value of the carry it reads whole, or (slice) the dynamic-slice of
  // it the kernel reads, which spans a dimension the loop writes rows of.
  const HloInstruction* array = nullptr;
  bool slice = false;
  // When the kernel only lays the array out anew (a copy or transpose,
  // fused or not) or has no line of its own: the op downstream it serves
  // (the attention a cache is transposed for) and the instruction whose
  // line the read is reported at (analysis/served_op.h); empty otherwise.
  ServedOp served;
};

// The kernels of `body` that read carry `j` whole every iteration. The
// carry is followed through bitcasts and copies (a copy is a copy finding
// of its own) and through its in-place updates (`ctx`'s pairs: a
// dynamic-update-slice or scatter, alone or fused, a multi-output fusion's
// updated element included) — so a dot reading the updated KV cache counts.
// A kernel reads an operand whole unless every use takes slices of it
// (slice, dynamic-slice, gather) or updates it in place, behind bitcasts,
// reshapes, converts, copies and nested fusions inside a fusion. A convert
// of the carry reads it whole and is followed too. A dynamic-slice that
// spans in full a dimension the loop's in-place updates write rows of
// (`cache[l]` of a stacked cache written at row t) reads all those rows: a
// slice read. Kernels in nested computations run conditionally or belong
// to a nested loop, and are not listed; collectives are the loop's
// collective entries. Each kernel once.
std::vector<WholeRead> WholeReadsOfCarry(const CheckContext& ctx, const HloComputation* body, int64_t j);

}  // namespace hloscope

#endif  // HLOSCOPE_SRC_ANALYSIS_WHOLE_READS_H_
