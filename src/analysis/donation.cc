#include "hloscope/analysis/donation.h"

namespace hloscope {

DonationKind DonationOf(const HloModule& module, int64_t number, const ShapeIndex& index) {
  for (const InputOutputAlias& a : module.input_output_aliases())
    if (a.parameter_number == number && a.parameter_index == index) return DonationKind::kInputOutputAlias;
  for (const BufferDonor& d : module.buffer_donors())
    if (d.parameter_number == number && d.parameter_index == index) return DonationKind::kBufferDonor;
  return DonationKind::kNotDonated;
}

DonationKind ParameterDonation(const HloModule& module, int64_t number) {
  for (const InputOutputAlias& a : module.input_output_aliases())
    if (a.parameter_number == number) return DonationKind::kInputOutputAlias;
  for (const BufferDonor& d : module.buffer_donors())
    if (d.parameter_number == number) return DonationKind::kBufferDonor;
  return DonationKind::kNotDonated;
}

std::vector<const Shape*> EntryOutputLeaves(const HloModule& module) {
  std::vector<const Shape*> leaves;
  const HloComputation* entry = module.entry_computation();
  if (!entry || !entry->root_instruction()) return leaves;
  std::vector<const Shape*> work = {&entry->root_instruction()->shape()};
  for (size_t i = 0; i < work.size() && i < 4096; ++i) {
    if (work[i]->IsTuple()) {
      for (const Shape* e : work[i]->tuple_shapes) work.push_back(e);
    } else {
      leaves.push_back(work[i]);
    }
  }
  return leaves;
}

}  // namespace hloscope
