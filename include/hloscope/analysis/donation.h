// Donation: whether the caller gave an entry argument's buffer to XLA
// (jax.jit(..., donate_argnums=...)). The one definition every finding,
// gate and renderer uses.
//
// JAX writes a donated argument into the module header as
// `input_output_alias` (XLA matched it with an output: the result is written
// into the argument's buffer) or `buffer_donor` (no matching output: XLA may
// reuse the buffer for temporaries). Copy insertion treats only aliased
// values as writable (copy_insertion.cc IsReadonlyEntryParameterValue ->
// ParameterHasAlias): a buffer_donor-only argument is still read-only, so
// updating it still costs a copy. Both count as "donated"; the kind says
// which, per parameter number and shape index.
#ifndef HLOSCOPE_ANALYSIS_DONATION_H_
#define HLOSCOPE_ANALYSIS_DONATION_H_

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "hloscope/ir/module.h"

namespace hloscope {

enum class DonationKind : uint8_t {
  kNotDonated,
  kInputOutputAlias,  // aliased with an output: XLA may write it in place
  kBufferDonor,       // donated, but aliased with no output: still read-only to copy insertion
};

// The donation of entry parameter `number` at `index` (the leaf of a tuple
// parameter; {} for an array parameter).
DonationKind DonationOf(const HloModule& module, int64_t number, const ShapeIndex& index);

// The donation of any leaf of entry parameter `number` (an alias wins over
// a donor).
DonationKind ParameterDonation(const HloModule& module, int64_t number);

// The module's donations by parameter number, read in one pass over its
// aliases and donors: for callers that ask about every argument (a train
// step donates thousands; a scan of the aliases per argument is quadratic).
// Answers as DonationOf and ParameterDonation.
class DonationTable {
 public:
  explicit DonationTable(const HloModule& module);
  DonationKind Of(int64_t number, const ShapeIndex& index) const;
  DonationKind OfParameter(int64_t number) const;
  // The entry outputs aliased with parameter `number`, in the module's order.
  std::vector<ShapeIndex> AliasedOutputs(int64_t number) const;

 private:
  struct Entry {
    ShapeIndex parameter_index;
    DonationKind kind;
    ShapeIndex output_index;  // aliases only
  };
  std::unordered_map<int64_t, std::vector<Entry>> by_number_;  // aliases before donors
};

// The array leaves of the entry's result, in order: what a donated buffer
// can be reused for (XLA aliases a donation only with an output of the same
// per-device shape and element type). Bounded for hostile tuples.
std::vector<const Shape*> EntryOutputLeaves(const HloModule& module);

// True when copy insertion may write into the argument's buffer.
inline bool IsWritableDonation(DonationKind kind) { return kind == DonationKind::kInputOutputAlias; }

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_DONATION_H_
