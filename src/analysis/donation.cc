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

}  // namespace hloscope
