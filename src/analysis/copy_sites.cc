#include "hloscope/analysis/copy_sites.h"

#include "hloscope/analysis/call_graph.h"

namespace hloscope {
namespace {

// GPU dumps show protective copies as fusions whose root (or root tuple
// element) is `copy(parameter)` (CopyFusion, horizontal "copy_" fusion); CPU
// wraps layout-changing copies the same way (`wrapped_copy`).
void CopyFusionSites(const HloInstruction* fusion, std::vector<CopySite>* out) {
  const HloComputation* fused = fusion->fused_computation();
  if (!fused) return;
  const HloInstruction* root = fused->root_instruction();
  auto try_one = [&](const HloInstruction* node, ShapeIndex index) {
    if (node->opcode() != HloOpcode::kCopy || node->operand_count() != 1) return;
    const HloInstruction* p = node->operand(0);
    if (p->opcode() != HloOpcode::kParameter || p->parameter_number() >= fusion->operand_count()) return;
    CopySite site;
    site.copy = {fusion, std::move(index)};
    site.source = fusion->operand(p->parameter_number());
    site.dest_shape = &node->shape();
    site.src_shape = &p->shape();
    site.kind = CopyKind::kCopyFusion;
    out->push_back(site);
  };
  if (root->opcode() == HloOpcode::kTuple) {
    for (int64_t i = 0; i < root->operand_count(); ++i) try_one(root->operand(i), {i});
  } else {
    try_one(root, {});
  }
}

}  // namespace

std::vector<CopySite> FindCopySites(const HloModule& module) {
  std::vector<CopySite> sites;
  for (const HloComputation* comp : module.computations()) {
    if (!IsSequentialRole(RoleOf(*comp))) continue;
    for (const HloInstruction* instr : comp->instructions()) {
      if (instr->opcode() == HloOpcode::kCopy && instr->operand_count() == 1) {
        CopySite s;
        s.copy = {instr, {}};
        s.source = instr->operand(0);
        s.dest_shape = &instr->shape();
        s.src_shape = &instr->operand(0)->shape();
        s.kind = CopyKind::kCopy;
        sites.push_back(s);
      } else if (instr->opcode() == HloOpcode::kCopyStart && instr->operand_count() >= 1) {
        // (dest, src, context) = copy-start(src)
        CopySite s;
        s.copy = {instr, {0}};
        s.source = instr->operand(0);
        s.dest_shape = instr->shape().IsTuple() && !instr->shape().tuple_shapes.empty()
                           ? instr->shape().tuple_shapes[0]
                           : &instr->shape();
        s.src_shape = &instr->operand(0)->shape();
        s.kind = CopyKind::kCopyStart;
        sites.push_back(s);
      } else if (instr->opcode() == HloOpcode::kFusion) {
        CopyFusionSites(instr, &sites);
      }
    }
  }
  return sites;
}

bool IsCopySite(const HloInstruction& instr) {
  if (instr.opcode() == HloOpcode::kCopy || instr.opcode() == HloOpcode::kCopyStart) return true;
  if (instr.opcode() != HloOpcode::kFusion) return false;
  std::vector<CopySite> sites;
  CopyFusionSites(&instr, &sites);
  return !sites.empty();
}

CopyClass ClassifyCopy(const Shape& src, const Shape& dst) {
  int64_t ms_src = src.layout ? src.layout->memory_space : 0;
  int64_t ms_dst = dst.layout ? dst.layout->memory_space : 0;
  if (ms_src != ms_dst) return CopyClass::kMemorySpaceMove;
  if (!ShapesEqualWithLayout(src, dst)) return CopyClass::kLayoutChange;
  return CopyClass::kProtective;
}

}  // namespace hloscope
