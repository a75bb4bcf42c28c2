// The op a kernel serves. XLA gives a kernel that only lays an array out
// anew (XLA:CPU's copy_bitcast_fusion or transpose_copy_fusion in front of
// a dot) the metadata of the array's producer — a KV cache's update line —
// or none at all, while the work exists for the op it feeds (the attention
// dot). Growth findings, whole reads and the diff's kernel items report
// such a kernel at the line of the op it serves.
#ifndef HLOSCOPE_ANALYSIS_SERVED_OP_H_
#define HLOSCOPE_ANALYSIS_SERVED_OP_H_

#include <functional>
#include <optional>

#include "hloscope/analysis/source_index.h"
#include "hloscope/analysis/source_map.h"
#include "hloscope/ir/instruction.h"

namespace hloscope {

// A kernel that only lays its operand out anew: a copy, transpose, bitcast
// or reshape, or a fusion of nothing else.
bool IsRelayout(const HloInstruction& kernel);

// An instruction's source by the caller's resolution (CheckContext::Source,
// SourceIndex::Of).
using SourceOfFn = std::function<std::optional<SourceLocation>(const HloInstruction&)>;
// A SourceIndex's file and line of each instruction (only those: no copy of
// the interned location's names and stack for each one visited).
SourceOfFn IndexLines(const SourceIndex& index);

// A line "of an op" is never the line of the loop whose body it is in: JAX
// gives the loop's bookkeeping inside the body (scan's stacking of its
// outputs, the counter) the `lax.scan`/`fori_loop` call's line.
struct ServedOp {
  // The first op downstream of the kernel in its computation (users first,
  // breadth-first, at most 64 visited; tuples and tuple elements skipped)
  // that is not a relayout and has a line; failing that, the first that is
  // not a relayout (XLA:CPU's rewritten dots keep no metadata), or the
  // kernel itself when it is none and nothing downstream is one.
  const HloInstruction* op = nullptr;
  // Where it is reported: for a fusion, its first fused instruction with a
  // line that reads what comes from the kernel (XLA keeps each fused op's
  // own metadata, while the fusion's is its root's), else `op` when it has
  // a line; else the nearest producer of op's other operands that has one
  // (behind relayouts: the attention's probabilities for `p @ v`).
  const HloInstruction* line_of = nullptr;
};

// The op a relayout, or a kernel without a line, serves; {nullptr, nullptr}
// when the kernel has its own line and is not a relayout, is a copy
// finding (copy_sites.h: reported at its own line), or no op and line are
// found for it.
ServedOp ServedOpOf(const HloInstruction& kernel, const SourceOfFn& source_of);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_SERVED_OP_H_
