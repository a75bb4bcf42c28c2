#include "hloscope/analysis/operand_numbers.h"

#include <algorithm>
#include <functional>
#include <limits>

namespace hloscope {
namespace {

// By operand address (std::less: a total order on pointers), then k.
bool Before(const std::pair<const HloInstruction*, int64_t>& a,
            const std::pair<const HloInstruction*, int64_t>& b) {
  if (a.first != b.first) return std::less<const HloInstruction*>()(a.first, b.first);
  return a.second < b.second;
}

}  // namespace

std::pair<size_t, size_t> OperandNumbers::Index(const HloInstruction* user) {
  auto [it, added] = wide_.try_emplace(user->id());
  if (added) {
    size_t begin = entries_.size();
    for (int64_t k = 0; k < user->operand_count(); ++k) entries_.emplace_back(user->operand(k), k);
    std::sort(entries_.begin() + static_cast<std::ptrdiff_t>(begin), entries_.end(), Before);
    it->second = {begin, entries_.size()};
  }
  return it->second;
}

std::pair<size_t, size_t> OperandNumbers::Range(std::pair<size_t, size_t> user,
                                                const HloInstruction* operand) const {
  auto first = entries_.begin() + static_cast<std::ptrdiff_t>(user.first);
  auto last = entries_.begin() + static_cast<std::ptrdiff_t>(user.second);
  auto lo = std::lower_bound(first, last, Entry{operand, std::numeric_limits<int64_t>::min()}, Before);
  auto hi = std::upper_bound(lo, last, Entry{operand, std::numeric_limits<int64_t>::max()}, Before);
  return {static_cast<size_t>(lo - entries_.begin()), static_cast<size_t>(hi - entries_.begin())};
}

}  // namespace hloscope
