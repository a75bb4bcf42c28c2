// Where a module copies data: every `copy` and `copy-start` in a
// sequential computation, and every copy fusion (a fusion whose root, or a
// root tuple element, is copy(parameter): GPU's CopyFusion and horizontal
// `copy_` fusions, CPU's `wrapped_copy`). DCE runs after copy insertion, so
// each of them moves data.
#ifndef HLOSCOPE_ANALYSIS_COPY_SITES_H_
#define HLOSCOPE_ANALYSIS_COPY_SITES_H_

#include <vector>

#include "hloscope/analysis/dataflow.h"
#include "hloscope/analysis/findings.h"
#include "hloscope/ir/module.h"

namespace hloscope {

struct CopySite {
  HloPosition copy;                        // the instruction and the output index of the copy
  const HloInstruction* source = nullptr;  // the operand that is copied
  ShapeIndex source_index;                 // within that operand
  const Shape* dest_shape = nullptr;
  const Shape* src_shape = nullptr;
  CopyKind kind = CopyKind::kCopy;
};

// Every copy of the module, in text order.
std::vector<CopySite> FindCopySites(const HloModule& module);

// Whether `instr` is one of those copies (a copy finding of its own).
bool IsCopySite(const HloInstruction& instr);

// memory-space-move if the S(n) memory spaces differ, layout-change if the
// physical layouts differ, protective otherwise.
CopyClass ClassifyCopy(const Shape& src, const Shape& dst);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_COPY_SITES_H_
