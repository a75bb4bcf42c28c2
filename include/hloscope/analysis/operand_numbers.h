// Where an instruction sits among its users' operands. A forward walk
// (UsesOf) meets each user of a value and needs the operand numbers at
// which that user reads it; scanning the user's operands costs the user's
// width, and a walk over every value of a module then costs the square of
// it: a train step's global-norm clipping fusion reads one operand per
// parameter (436 at 48 layers, ~4,000 at 462), and every one of those
// values meets it. OperandNumbers indexes each wide user once, so that
// walk stays linear in the module.
#ifndef HLOSCOPE_ANALYSIS_OPERAND_NUMBERS_H_
#define HLOSCOPE_ANALYSIS_OPERAND_NUMBERS_H_

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "hloscope/ir/module.h"

namespace hloscope {

class OperandNumbers {
 public:
  // Calls f(k) for each operand number k, ascending, with
  // user->operand(k) == operand. A wide user is indexed when first met
  // (most of a module is never met by a walk): one OperandNumbers per
  // thread.
  template <typename F>
  void ForEach(const HloInstruction* user, const HloInstruction* operand, F&& f) {
    if (user->operand_count() > kWide) {
      for (auto [i, end] = Range(Index(user), operand); i < end; ++i) f(entries_[i].second);
      return;
    }
    for (int64_t k = 0; k < user->operand_count(); ++k)
      if (user->operand(k) == operand) f(k);
  }

 private:
  // Users up to this width are scanned (cheaper than a lookup).
  static constexpr int64_t kWide = 16;
  using Entry = std::pair<const HloInstruction*, int64_t>;  // (operand, k)
  // [begin, end) of `user`'s entries, indexed on the first call.
  std::pair<size_t, size_t> Index(const HloInstruction* user);
  // The entries of `operand` within a user's [begin, end).
  std::pair<size_t, size_t> Range(std::pair<size_t, size_t> user, const HloInstruction* operand) const;

  std::vector<Entry> entries_;                                    // per wide user, sorted by operand then k
  std::unordered_map<uint32_t, std::pair<size_t, size_t>> wide_;  // user id -> [begin, end)
};

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_OPERAND_NUMBERS_H_
