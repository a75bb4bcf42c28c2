// Parameters: each entry argument's size, its donation, and the copies
// made of it (through loop state and chains of copies).
#include "check_context.h"

namespace hloscope {

std::vector<ParameterFinding> FindParameters(const CheckContext& ctx) {
  std::vector<ParameterFinding> out;
  const HloModule& module = ctx.module();
  for (const HloInstruction* p : module.entry_computation()->parameters()) {
    if (!p) continue;
    ParameterFinding pf;
    pf.parameter = p;
    pf.number = p->parameter_number();
    pf.bytes = p->shape().IsTuple() ? TotalByteSizeOf(p->shape()) : ByteSizeOf(p->shape());
    pf.donation = ParameterDonation(module, pf.number);
    for (const CopySite& s : ctx.sites()) {
      std::optional<HloPosition> origin = ctx.ParameterOrigin({s.source, s.source_index});
      if (origin && origin->instruction->parameter_number() == pf.number) pf.copies.push_back(s.copy);
    }
    out.push_back(std::move(pf));
  }
  return out;
}

}  // namespace hloscope
