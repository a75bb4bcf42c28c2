// The memo of one CostAnalysis (analysis/hlo_cost.h): what it has costed
// of one module's computations and instructions, so that each is costed
// once however many paths lead to it.
#ifndef HLOSCOPE_SRC_ANALYSIS_COST_MEMO_H_
#define HLOSCOPE_SRC_ANALYSIS_COST_MEMO_H_

#include <algorithm>
#include <cstdint>
#include <unordered_map>
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
  // Arrays cost their size to set up: a whole-module analysis (XlaTotal)
  // sizes them for the module (Reserve); a CostOf of one instruction, which
  // touches a few computations, keeps what it costs in hash maps instead
  // (an array as long as the module per call made `fusions` quadratic).
  struct Table {
    std::vector<Entry> entries;                     // by HloComputation::id, below entries.size()
    std::unordered_map<uint32_t, Entry> elsewhere;  // the other ids
    // The entry of `comp`. Not held across a recursive Sum (a map that
    // grows keeps its elements where they are; the array never grows).
    Entry& operator[](const HloComputation& comp) {
      return comp.id() < entries.size() ? entries[comp.id()] : elsewhere[comp.id()];
    }
    const Entry* Find(const HloComputation& comp) const {
      const Entry* e = nullptr;
      if (comp.id() < entries.size()) {
        e = &entries[comp.id()];
      } else if (auto it = elsewhere.find(comp.id()); it != elsewhere.end()) {
        e = &it->second;
      }
      return e && e->known ? e : nullptr;
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
  std::vector<uint32_t> slots;                         // sized by Reserve
  std::unordered_map<uint32_t, uint32_t> other_slots;  // ids beyond it
  std::vector<HloCost> kept;

  // Ids are per module: asked about another module's, the memo starts over.
  void Bind(const HloModule* m) {
    if (m == module) return;
    *this = {};
    module = m;
  }
  void Bind(const HloComputation& comp) { Bind(comp.parent()); }
  // Arrays as long as the module's ids: for an analysis of the whole module.
  void Reserve(const HloModule& m) {
    Bind(&m);
    uint32_t computations = 0;
    for (const HloComputation* c : m.computations()) computations = std::max(computations, c->id() + 1);
    full.entries.resize(computations);
    flops.entries.resize(computations);
    slots.resize(static_cast<size_t>(m.instruction_count()));
  }
  void Keep(const HloInstruction& instr, const HloCost& cost) {
    const size_t id = instr.id();
    uint32_t* slot = nullptr;
    if (id < slots.size()) {
      slot = &slots[id];
    } else {
      slot = &other_slots[instr.id()];
    }
    if (*slot == 0) {
      kept.push_back(cost);
      *slot = static_cast<uint32_t>(kept.size());
    } else {
      kept[*slot - 1] = cost;
    }
  }
  const HloCost* Kept(const HloInstruction& instr) const {
    const size_t id = instr.id();
    uint32_t slot = 0;
    if (id < slots.size()) {
      slot = slots[id];
    } else if (auto it = other_slots.find(instr.id()); it != other_slots.end()) {
      slot = it->second;
    }
    return slot != 0 ? &kept[slot - 1] : nullptr;
  }
};

}  // namespace cost_internal

}  // namespace hloscope

#endif  // HLOSCOPE_SRC_ANALYSIS_COST_MEMO_H_
