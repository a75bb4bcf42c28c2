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

DonationTable::DonationTable(const HloModule& module) {
  for (const InputOutputAlias& a : module.input_output_aliases())
    by_number_[a.parameter_number].push_back(
        {a.parameter_index, DonationKind::kInputOutputAlias, a.output_index});
  for (const BufferDonor& d : module.buffer_donors())
    by_number_[d.parameter_number].push_back({d.parameter_index, DonationKind::kBufferDonor, {}});
}

DonationKind DonationTable::Of(int64_t number, const ShapeIndex& index) const {
  auto it = by_number_.find(number);
  if (it == by_number_.end()) return DonationKind::kNotDonated;
  for (const Entry& e : it->second)
    if (e.parameter_index == index) return e.kind;
  return DonationKind::kNotDonated;
}

DonationKind DonationTable::OfParameter(int64_t number) const {
  auto it = by_number_.find(number);
  // Aliases were added first: the first entry is an alias when there is one.
  return it == by_number_.end() || it->second.empty() ? DonationKind::kNotDonated : it->second.front().kind;
}

std::vector<ShapeIndex> DonationTable::AliasedOutputs(int64_t number) const {
  std::vector<ShapeIndex> out;
  auto it = by_number_.find(number);
  if (it != by_number_.end())
    for (const Entry& e : it->second)
      if (e.kind == DonationKind::kInputOutputAlias) out.push_back(e.output_index);
  return out;
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
