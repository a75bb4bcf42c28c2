// The memo of one CostAnalysis (analysis/hlo_cost.h): what it has costed
// of one module's computations and instructions, so that each is costed
// once however many paths lead to it.
#ifndef HLOSCOPE_SRC_ANALYSIS_COST_MEMO_H_
#define HLOSCOPE_SRC_ANALYSIS_COST_MEMO_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "hloscope/analysis/hlo_cost.h"
#include "hloscope/ir/computation.h"
#include "hloscope/ir/module.h"

namespace hloscope {
namespace cost_internal {

// Costs of whole computations, kept across one CostOf: a computation called
// from many places (a reducer, a diamond of calls in hostile input) is
// costed once, not once per path to it (2^60 paths in 60 levels).
// Kept in arrays indexed by the dense ids of one module's computations and
// instructions, not in hash maps: the maps' hashing, nodes and frees were a
// third of the cost part of `check` on a 105 MB module.
struct ComputationMemo {
  // A computation's sum.
  struct Entry {
    HloCost cost;
    bool known = false;  // costed, or being costed (a cycle reads it as incomplete)
  };
  struct Table {
    std::vector<Entry> entries;  // by HloComputation::id
    // The entry of `comp`, grown to hold it. Not held across a recursive
    // Sum: growing moves the entries.
    Entry& operator[](const HloComputation& comp) {
      if (comp.id() >= entries.size()) entries.resize(size_t{comp.id()} + 1);
      return entries[comp.id()];
    }
    const Entry* Find(const HloComputation& comp) const {
      return comp.id() < entries.size() && entries[comp.id()].known ? &entries[comp.id()] : nullptr;
    }
  };
  const HloModule* module = nullptr;  // whose ids index the arrays
  Table full;                         // everything (loops, calls: kAsXla)
  Table flops;                        // FLOPs only (fusions, reducers)
  // kAsXla, with bytes, of each instruction costed in a `full` sum: a
  // module's kernels are costed again per run, and most cost the same.
  // `slots` (by HloInstruction::id; 0: none) points into `kept`: 4 bytes per
  // instruction of the module, the costs only for the sequential ones (a
  // cost per instruction id was tens of MB to fault in on a 105 MB module).
  std::vector<uint32_t> slots;
  std::vector<HloCost> kept;

  // Ids are per module: asked about another module's, the memo starts over.
  void Bind(const HloModule* m) {
    if (m == module) return;
    *this = {};
    module = m;
  }
  void Bind(const HloComputation& comp) { Bind(comp.parent()); }
  void Keep(const HloInstruction& instr, const HloCost& cost) {
    const size_t id = instr.id();
    if (id >= slots.size()) slots.resize(std::max(id + 1, slots.size() * 2));
    if (slots[id] == 0) {
      kept.push_back(cost);
      slots[id] = static_cast<uint32_t>(kept.size());
    } else {
      kept[slots[id] - 1] = cost;
    }
  }
  const HloCost* Kept(const HloInstruction& instr) const {
    const size_t id = instr.id();
    return id < slots.size() && slots[id] != 0 ? &kept[slots[id] - 1] : nullptr;
  }
};

}  // namespace cost_internal

}  // namespace hloscope

#endif  // HLOSCOPE_SRC_ANALYSIS_COST_MEMO_H_
