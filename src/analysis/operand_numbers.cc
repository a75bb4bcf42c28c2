#include "hloscope/analysis/operand_numbers.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <tuple>

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

std::pair<OperandNumbers::Run, OperandNumbers::Run> OperandNumbers::UserRanges(const HloInstruction* instr,
                                                                               int64_t element) {
  auto key = [](const UserEntry& e) { return std::tuple(e.reads_element, e.element, e.position); };
  auto [it, added] = by_element_.try_emplace(instr->id());
  if (added) {
    size_t begin = user_entries_.size();
    std::span<HloInstruction* const> users = instr->users();
    for (size_t p = 0; p < users.size(); ++p) {
      const HloInstruction* u = users[p];
      bool gte = u->opcode() == HloOpcode::kGetTupleElement;
      user_entries_.push_back({gte, gte ? u->tuple_index() : 0, static_cast<uint32_t>(p)});
    }
    std::sort(user_entries_.begin() + static_cast<std::ptrdiff_t>(begin), user_entries_.end(),
              [&](const UserEntry& a, const UserEntry& b) { return key(a) < key(b); });
    it->second = {begin, user_entries_.size()};
  }
  auto first = user_entries_.begin() + static_cast<std::ptrdiff_t>(it->second.first);
  auto last = user_entries_.begin() + static_cast<std::ptrdiff_t>(it->second.second);
  // Users that are no get-tuple-element sort first.
  auto gtes = std::partition_point(first, last, [](const UserEntry& e) { return !e.reads_element; });
  auto lo = std::partition_point(gtes, last, [&](const UserEntry& e) { return e.element < element; });
  auto hi = std::partition_point(lo, last, [&](const UserEntry& e) { return e.element <= element; });
  auto at = [&](auto i) { return static_cast<size_t>(i - user_entries_.begin()); };
  return {{at(first), at(gtes)}, {at(lo), at(hi)}};
}

}  // namespace hloscope
