// Where an instruction sits among its users' operands. A forward walk
// (UsesOf) meets each user of a value and needs the operand numbers at
// which that user reads it; scanning the user's operands costs the user's
// width, and a walk over every value of a module then costs the square of
// it: a train step's global-norm clipping fusion reads one operand per
// parameter (436 at 48 layers, ~4,000 at 462), and every one of those
// values meets it. OperandNumbers indexes each wide user once, so that
// walk stays linear in the module.
//
// It also indexes the readers of a tuple by element (ForEachUser): n
// temporaries packed into one tuple and read back by n get-tuple-elements
// would otherwise have each temporary's walk meet all n readers, n^2 steps
// for the memory analysis. Each value meets only the get-tuple-elements of
// its own element (and the tuple's other users): linear in the module.
#ifndef HLOSCOPE_ANALYSIS_OPERAND_NUMBERS_H_
#define HLOSCOPE_ANALYSIS_OPERAND_NUMBERS_H_

#include <cstdint>
#include <span>
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

  // Calls f(user) for each user of `instr`, in instr->users() order, that
  // can read the value at `index` of it: all of them, but for a non-empty
  // index the get-tuple-elements of other elements are skipped (they read
  // neither the value nor the whole tuple). A wide instruction's users are
  // indexed by element when first met.
  template <typename F>
  void ForEachUser(const HloInstruction* instr, const ShapeIndex& index, F&& f) {
    std::span<HloInstruction* const> users = instr->users();
    if (index.empty() || static_cast<int64_t>(users.size()) <= kWide) {
      users_met_ += static_cast<int64_t>(users.size());
      for (const HloInstruction* u : users) f(u);
      return;
    }
    auto [others, readers] = UserRanges(instr, index.front());
    // Both runs are in users() order: merge them.
    while (others.first < others.second || readers.first < readers.second) {
      bool other = readers.first == readers.second ||
                   (others.first < others.second &&
                    user_entries_[others.first].position < user_entries_[readers.first].position);
      size_t& at = other ? others.first : readers.first;
      ++users_met_;
      f(users[user_entries_[at++].position]);
    }
  }

  // Users ForEachUser has handed out, over this object's life: what a walk
  // costs (tests assert it stays linear on fan-outs).
  int64_t users_met() const { return users_met_; }

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

  // A wide instruction's users, by kind: get-tuple-elements by element,
  // the others apart; each run in users() order.
  struct UserEntry {
    bool reads_element = false;  // a get-tuple-element: reads only `element`
    int64_t element = 0;
    uint32_t position = 0;  // in instr->users()
  };
  using Run = std::pair<size_t, size_t>;
  // (the users that are no get-tuple-element, the get-tuple-elements of
  // `element`), as [begin, end) of user_entries_.
  std::pair<Run, Run> UserRanges(const HloInstruction* instr, int64_t element);
  std::vector<UserEntry> user_entries_;           // per wide instruction, sorted
  std::unordered_map<uint32_t, Run> by_element_;  // instruction id -> [begin, end)
  int64_t users_met_ = 0;
};

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_OPERAND_NUMBERS_H_
