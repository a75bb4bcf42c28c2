// The facts behind a copy's cause: what the copy feeds (an update, a loop
// state), the readers of the old contents, and one payload type per rule
// family (CauseFamily, analysis/cause_catalog.h) holding what that family's
// rules matched on. Part of the findings (analysis/findings.h); refers to
// the IR by pointers and positions, never by names.
#ifndef HLOSCOPE_ANALYSIS_CAUSE_FACTS_H_
#define HLOSCOPE_ANALYSIS_CAUSE_FACTS_H_

#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

#include "hloscope/analysis/cause_catalog.h"
#include "hloscope/analysis/dataflow.h"
#include "hloscope/analysis/donation.h"
#include "hloscope/analysis/source_map.h"
#include "hloscope/ir/module.h"

namespace hloscope {

// Why a copy exists (CopyCause) and the rule that said so (CauseRule):
// analysis/cause_catalog.h, one row per rule in cause_catalog.def.

// An instruction with the user's source line it comes from (for sentences
// such as "while wrapped_dynamic-slice (train.py:40) still reads ...").
struct InstructionAt {
  const HloInstruction* instruction = nullptr;
  std::optional<SourceLocation> source;
};

// What an update finding is about: the instruction that updates (a fused or
// top-level dynamic-update-slice/scatter, or an instruction with declared
// aliasing such as a custom-call) and, for fused updates, the fusion that
// runs it. `output_index` is the index of the in-place pair in the output
// of the instruction that owns it (the fusion for fused updates).
struct UpdateSite {
  const HloInstruction* instruction = nullptr;
  const HloInstruction* fusion = nullptr;  // nullptr: not fused
  ShapeIndex output_index;

  // The instruction in a sequential computation that has the pair.
  const HloInstruction* owner() const { return fusion ? fusion : instruction; }
  bool operator==(const UpdateSite& o) const {
    return instruction == o.instruction && fusion == o.fusion && output_index == o.output_index;
  }
};

// Where a copy's result goes that makes it necessary: an update that writes
// into it in place, or a loop whose state it initializes and which
// overwrites that state.
struct CopyFeed {
  enum class Kind : uint8_t { kUpdate, kLoopState };
  Kind kind = Kind::kUpdate;
  UpdateSite update;                     // kUpdate
  const HloInstruction* loop = nullptr;  // kLoopState: the while
  ShapeIndex carry;                      // kLoopState: the carry's index

  bool operator==(const CopyFeed& o) const {
    return kind == o.kind && update == o.update && loop == o.loop && carry == o.carry;
  }
};

// The facts behind a copy's cause: one payload type per rule family
// (CauseFamily, analysis/cause_catalog.h), holding what that family's rules
// matched on. The JSON writes them structurally (`cause_facts`), so no
// consumer needs the prose.

// kBranch: the copy is inside a branch of a conditional.
struct BranchFacts {
  const HloComputation* branch = nullptr;
  const HloInstruction* conditional = nullptr;  // nullptr: the branch has no caller
};

// kConstant: the copied value is a constant.
struct ConstantFacts {
  const HloInstruction* constant = nullptr;
};

// kParameter: the copied value is an entry parameter (element).
struct ParameterFacts {
  int64_t parameter_number = 0;
  ShapeIndex parameter_index;
  DonationKind donation = DonationKind::kNotDonated;
  // kDonatedParameterRewritten: the new value written into the donated
  // buffer, the instruction that makes it, the output it is, and the
  // readers of the old value it does not depend on (unordered with it).
  HloPosition new_value;
  InstructionAt writer;
  std::optional<ShapeIndex> output;
  std::vector<const HloInstruction*> unordered_readers;
  // kNonDonatedParameter: an entry output has the argument's (per-device)
  // dimensions and element type, so a donation could alias it (XLA reuses a
  // donated buffer only for such an output; without one, donating is no fix).
  bool aliasable_output = true;
};

struct CarryStart {
  const HloInstruction* loop = nullptr;
  int64_t carry = 0;
  bool operator==(const CarryStart&) const = default;
};
// kShared: the value starts several arrays that each need a buffer of
// their own: carries (of one loop, or of several) or in-place updates.
struct SharedValueFacts {
  const HloInstruction* loop = nullptr;  // the loop whose carry this copy starts; nullptr: it feeds an update
  int64_t carry = 0;
  std::vector<CarryStart> starts;  // every carry the value starts
  // Every in-place update the value starts (directly or behind a copy), in
  // use order: kSharedByUpdates.
  std::vector<UpdateSite> updates;
  // The value is one XLA may have merged from identical ones (a broadcast,
  // constant or iota: jnp.zeros).
  bool merged_initial_value = false;
};

// kStaged: a loop carry that memory-space assignment moves into another
// memory space and back every iteration; `other` is the other move of the
// pair (the copy finding's position: the move in, or the move back).
struct StagedCarryFacts {
  const HloInstruction* loop = nullptr;
  int64_t carry = 0;
  int64_t home = 0;   // the carry's memory space
  int64_t stage = 0;  // where it is updated
  HloPosition other;
};

// kRead: the readers are the common `readers`; for kReadAfterLoopInit, the
// loop the copy becomes the state of, and whether the read is the enclosing
// loop's body passing the original on.
struct ReadFacts {
  const HloInstruction* loop = nullptr;
  bool passed_on_by_enclosing_loop = false;
};

// kCarry, kOldValue: the carry written and, when they trade places, the one
// read; the new value (kCarryOldValueRead) and the readers of the old one;
// the collective-permute that received the new value (kCarryPermuted); the
// nested loop that reads the old value and builds the new one in another
// of its carries (kCarryRebuilt: lax.scan over the array, xs in, ys out).
struct CarryFacts {
  int64_t carry = 0;
  std::optional<int64_t> other_carry;
  HloPosition new_value;
  std::vector<const HloInstruction*> old_value_readers;
  const HloInstruction* permute = nullptr;
  const HloInstruction* scan = nullptr;
};

// kOutput: the entry output indices the copy reaches; the other index the
// copied value is returned at (kOutputAlsoReturned); the donated parameter
// whose buffer holds the output (kOutputAliasing).
struct OutputFacts {
  std::vector<ShapeIndex> outputs;
  std::optional<ShapeIndex> other_output;
  std::optional<int64_t> aliased_parameter;
};

// kLayout: the layouts are the copy's shapes'.
// kReshardTranspose: the all-to-all the transpose lays the data out for
// (or out of): the re-shard it is part of. (A plain pointer: a payload
// with an optional member made GCC 12 warn -Wmaybe-uninitialized on every
// Match the variant holds.)
struct LayoutFacts {
  const HloInstruction* collective = nullptr;
};

// kMemorySpace: S(n) of the source and the destination.
struct MemorySpaceFacts {
  int64_t from = 0;
  int64_t to = 0;
};

// kReshaped: the in-place update the copy feeds returns another shape or
// layout than the array it updates (XLA fused the reshape that follows the
// update into its kernel); `operand` and `result` are the pair's shapes.
// `sliced_from`: the array the copied value is a dynamic-slice of (a layer
// of a stacked array), the one to write into instead; its instruction is
// nullptr when the value is not a slice.
struct ReshapedUpdateFacts {
  const Shape* operand = nullptr;
  const Shape* result = nullptr;
  HloPosition sliced_from;
  // The entry argument that array starts from (behind loop inits and
  // copies: CheckContext::ParameterOrigin), for its name; nullopt if none.
  std::optional<HloPosition> sliced_from_argument;
};

using CausePayload = std::variant<std::monostate, BranchFacts, ConstantFacts, ParameterFacts,
                                  SharedValueFacts, StagedCarryFacts, ReadFacts, CarryFacts, OutputFacts,
                                  LayoutFacts, MemorySpaceFacts, ReshapedUpdateFacts>;

struct CauseFacts {
  CopyCause cause = CopyCause::kUnknown;
  CauseRule rule = CauseRule::kNone;
  // Readers of the old contents besides the chain of copies (the reads that
  // force a read-after-update copy), in use order; for
  // kDonatedParameterRewritten the unordered ones first. Empty for layout
  // changes (no dataflow evidence is gathered for them).
  std::vector<InstructionAt> readers;
  // What the copy feeds first; nullopt: it is only returned.
  std::optional<CopyFeed> feed;
  // The line of the update it feeds (the writer's own metadata, inside a
  // fusion too); nullopt for a loop state or an update without a line.
  std::optional<SourceLocation> feed_source;
  // The copy runs inside a loop (for "every iteration").
  bool in_loop = false;
  // The family's facts (monostate: no rule matched).
  CausePayload payload;

  template <typename T>
  const T* As() const {
    return std::get_if<T>(&payload);
  }
};

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_CAUSE_FACTS_H_
