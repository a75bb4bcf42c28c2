// HloNameIndex: every computation and instruction of a module by name,
// built once (hash maps, seeded: support/hash.h) on the first lookup (HloModule::names()), so
// nothing after the parser looks a name up by scanning the module.
//
// Names are unique within a module in XLA's own output (HloModule's name
// uniquer), but hand-written HLO reuses them across computations (`%t` as
// the parameter of both a loop body and its condition). Lookups are
// therefore computation-qualified; an unqualified lookup returns every
// match, and callers report two or more as ambiguous instead of picking the
// first.
#ifndef HLOSCOPE_IR_NAME_INDEX_H_
#define HLOSCOPE_IR_NAME_INDEX_H_

#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "hloscope/ir/computation.h"
#include "hloscope/support/hash.h"

namespace hloscope {

class HloModule;

class HloNameIndex {
 public:
  explicit HloNameIndex(const HloModule& module);
  HloNameIndex(const HloNameIndex&) = delete;
  HloNameIndex& operator=(const HloNameIndex&) = delete;

  // The computation named `name` (without '%'); nullptr if none. A name
  // used by several computations (malformed input) resolves to none of
  // them: see ComputationsNamed.
  const HloComputation* FindComputation(std::string_view name) const;
  std::span<const HloComputation* const> ComputationsNamed(std::string_view name) const;

  // The instruction `name` of computation `comp`; nullptr if none.
  const HloInstruction* FindInstruction(const HloComputation& comp, std::string_view name) const;
  // Every instruction named `name`, in text order (usually one).
  std::vector<const HloInstruction*> InstructionsNamed(std::string_view name) const;
  // The one instruction named `name`; nullptr when none or several are
  // (no allocation: for lookups by the thousand).
  const HloInstruction* UniqueInstructionNamed(std::string_view name) const;

  // What a user typed: `name`, `%name`, or `computation/name`.
  struct Lookup {
    const HloInstruction* instruction = nullptr;  // set when exactly one matches
    std::vector<const HloInstruction*> matches;   // all matches (ambiguous when > 1)
  };
  Lookup Resolve(std::string_view text) const;

 private:
  std::unordered_map<std::string_view, std::vector<const HloComputation*>, NameHash> computations_;
  // Names are nearly always unique: the first instruction of each name in
  // one table, the rare later ones in another (a large module has a
  // million names; a vector per name would double the index).
  std::unordered_map<std::string_view, const HloInstruction*, NameHash> first_;
  std::unordered_multimap<std::string_view, const HloInstruction*, NameHash> more_;
};

}  // namespace hloscope

#endif  // HLOSCOPE_IR_NAME_INDEX_H_
