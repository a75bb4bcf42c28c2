// Findings of `hloscope check`: the facts every renderer (text, JSON, the
// Python package) draws from.
//
// Findings refer to the IR, never to names: instruction pointers, positions
// (instruction + shape index), typed relations (the copy an update runs on,
// the updates and loop states a copy feeds, the instructions that still read
// an old value). Names, labels and sentences exist only in the report layer
// (report/wording.h); the JSON shapes are in report/json_model.h and
// docs/json-format.md.
#ifndef HLOSCOPE_ANALYSIS_FINDINGS_H_
#define HLOSCOPE_ANALYSIS_FINDINGS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "hloscope/analysis/cause_facts.h"
#include "hloscope/analysis/collective_traffic.h"
#include "hloscope/analysis/cost_summary.h"
#include "hloscope/analysis/dataflow.h"
#include "hloscope/analysis/donation.h"
#include "hloscope/analysis/execution_counts.h"
#include "hloscope/analysis/finding_header.h"
#include "hloscope/analysis/memory_usage.h"
#include "hloscope/analysis/source_map.h"
#include "hloscope/ir/module.h"
#include "hloscope/parser/buffer_assignment.h"

namespace hloscope {

// ---------------------------------------------------------------------------
// Copies

enum class CopyKind : uint8_t {
  kCopy,        // a top-level `copy`
  kCopyStart,   // `copy-start` (async, finished by copy-done); the copy is tuple element {0}
  kCopyFusion,  // a fusion whose root (or a root tuple element) is copy(parameter)
};

enum class CopyClass : uint8_t { kProtective, kLayoutChange, kMemorySpaceMove };

// Why a copy exists and the facts behind it: analysis/cause_facts.h.

// The largest constant prefetch still summarised with scalar copies: two
// TPU tiles of 128 words.
inline constexpr int64_t kSmallPrefetchBytes = 1024;

// The thunk XLA:GPU runs for a copy (thunk_metadata.txt): "kCopy" is a
// device-to-device memcpy; a copy fusion or a transposing copy runs as a
// kernel.
struct CopyThunk {
  int64_t id = 0;
  std::string kind;
};

struct CopyFinding {
  // The copy: the instruction, and the index of its output that holds the
  // copied value ({} for copy, {0} for copy-start, the root tuple element of
  // a multi-output copy fusion).
  HloPosition copy;
  CopyKind kind = CopyKind::kCopy;
  CopyClass copy_class = CopyClass::kProtective;
  const Shape* shape = nullptr;         // destination
  const Shape* source_shape = nullptr;  // what it copies from
  bool scalar = false;  // rank 0 (loop counters, loop-start constants): never what makes it slow
  // Scalar, or a small constant moved into another memory space (TPU moves
  // index tables and loop bounds such as an s32[2] to S(1); at most
  // kSmallPrefetchBytes), whatever its cause: renderers summarise these and
  // gates skip them.
  bool minor = false;
  std::optional<int64_t> bytes;
  std::optional<int64_t> executions;
  std::optional<int64_t> total_bytes;
  bool executions_upper_bound = false;                 // inside a conditional branch
  std::vector<const HloInstruction*> enclosing_loops;  // innermost first
  // Some enclosing loop judged that the copy grows with buffer size (its
  // LoopScaling kCopy): it copies an array the loop works on at run-time
  // positions, so a larger buffer makes it larger. Set by CheckModule once
  // the loops are analysed; the gates and the answer read it.
  bool grows_with_buffer = false;
  // When total_bytes is unknown because a loop's trip count is: the
  // innermost such loop, and the bytes the copy moves per iteration of it
  // (its bytes times the trip counts of the loops between). Copies rank by
  // this where the total is unknown: "8.0 MiB per iteration of while.3".
  const HloInstruction* unknown_trip_loop = nullptr;
  std::optional<int64_t> bytes_per_unknown_trip_iteration;
  // The value the copy protects: the defining position of the copied
  // operand, behind any chain of copies (copy of a copy).
  HloPosition copied_from;
  std::vector<CopyFeed> feeds;  // updates that run on this copy, loop states it starts
  CauseFacts cause;
  std::optional<SourceLocation> source;
  std::optional<CopyThunk> thunk;  // with a GPU thunk dump: what runs it

  const HloInstruction* instruction() const { return copy.instruction; }
};

// ---------------------------------------------------------------------------
// Updates

enum class UpdateVerdict : uint8_t { kInPlace, kInPlaceOnCopy, kOutOfPlace, kNotMaterialized };

// How a verdict was checked against XLA's buffer assignment.
struct Confirmation {
  enum class Basis : uint8_t {
    kNoDump,              // no buffer assignment given: unconfirmed
    kNotListed,           // a compared value is not in the dump: not checkable
    kSlicesCompared,      // in-place verdicts: `subject` and `object` slices compared
    kOwnSlice,            // out-of-place: the output shares no operand's slice
    kReusedDyingOperand,  // out-of-place: XLA reused a dying operand's slice (still a full rewrite)
    kNoBuffer,            // not-materialized: the fused update has no buffer
    kListed,              // not-materialized, but the dump lists a buffer for it
    kOutputNotListed,     // out-of-place: the fusion output is not in the dump
  };
  Basis basis = Basis::kNoDump;
  std::optional<bool> confirmed;  // true: XLA agrees; false: contradicts; nullopt: unknown
  HloPosition subject;            // the update's output value as listed
  HloPosition object;             // the operand value (or the reused operand) as listed
  std::optional<Slice> subject_slice;
  std::optional<Slice> object_slice;
};

struct UpdateFinding {
  UpdateSite site;
  UpdateVerdict verdict = UpdateVerdict::kInPlace;
  bool full_rewrite = false;  // shares the buffer but writes all of it
  // kInPlaceOnCopy: the copy it writes into (a CopyFinding's `copy`), and the value it was made from.
  std::optional<HloPosition> runs_on;
  HloPosition copy_of;
  // kInPlace, writing into the result of earlier in-place updates of which
  // the first runs on a copy (two writes into one KV cache): that copy —
  // one copy per run serves them all.
  std::optional<HloPosition> shares_copy;
  // The buffer value written into (in place); for out-of-place fused
  // updates the operand computed inside the kernel.
  HloPosition operand;
  std::optional<int64_t> buffer_bytes;
  std::optional<int64_t> bytes_written;  // per execution
  std::optional<int64_t> executions;
  bool executions_upper_bound = false;
  // The loops it runs in, innermost first (the owner's computation's).
  std::vector<const HloInstruction*> enclosing_loops;
  Confirmation confirmation;
  std::optional<SourceLocation> source;
  // A collective that gathers the whole (sharded) buffer so that this
  // update can run at a run-time index (a CollectiveFinding's
  // `instruction`): the update is in place on the local shard, but the
  // gather moves the whole buffer every time.
  const HloInstruction* gathered_by = nullptr;

  const HloInstruction* instruction() const { return site.instruction; }
  const HloInstruction* fusion() const { return site.fusion; }
};

// ---------------------------------------------------------------------------
// Loops

// Something that grows with a buffer's size, every iteration.
struct LoopScaling {
  enum class Kind : uint8_t {
    kCopy,            // a copy runs every iteration
    kCarryRewritten,  // a carry is rewritten in full every iteration
    kCollective,      // a collective runs every iteration (per device)
    kWholeRead,       // a kernel reads a carry whole every iteration (attention over a cache)
  };
  Kind kind = Kind::kCopy;
  HloPosition copy;                                 // kCopy: the copy (a CopyFinding's `copy`)
  const HloInstruction* collective = nullptr;       // kCollective: a CollectiveFinding's `instruction`
  std::optional<CollectiveCause> collective_cause;  // kCollective: its cause
  int64_t carry = -1;                               // kCarryRewritten, kWholeRead: the carry
  const HloInstruction* kernel = nullptr;           // kWholeRead: the kernel that reads it
  bool slice = false;        // kWholeRead: a slice (`shape`) spanning the dimension the loop writes rows of
  HloPosition rewritten_by;  // kCarryRewritten: the defining position of the new value
  const Shape* shape = nullptr;
  std::optional<int64_t> bytes;
  std::optional<SourceLocation> source;  // kWholeRead: the kernel's line, or for_op's
  // kWholeRead by a relayout, or a kernel without a line: the first op downstream with one.
  const HloInstruction* for_op = nullptr;
  // The array is a buffer the loop touches at run-time positions (dynamic
  // slices, gathers, in-place updates, a masked `where`): copying, rewriting
  // or reading it whole every iteration makes the step grow with the buffer.
  bool grows_with_buffer = false;
  // kCarryRewritten, checked against the buffer assignment: XLA must keep
  // the rewriting value (subject) in the carry's own slice (object: the
  // carry in the body); another slice contradicts the claim.
  Confirmation confirmation;
};

// One element of a loop's state, with what the program reveals of the
// user's name for it: the entry argument it starts from, the instruction
// (and line) that makes its first value, and the one that makes its new
// value each iteration.
struct LoopCarry {
  int64_t index = 0;
  const Shape* shape = nullptr;
  std::optional<int64_t> bytes;
  // The entry parameter the initial value comes from (through copies,
  // bitcasts and outer loops' state); nullptr when it is made in the program.
  const HloInstruction* parameter = nullptr;
  ShapeIndex parameter_index;
  InstructionAt init;                         // defines the value the loop starts from, behind copies
  const HloInstruction* init_copy = nullptr;  // the copy it reaches the loop through, if any
  // Defines the new value in the body; nullptr when the body passes the
  // carry through unchanged.
  InstructionAt update;
};

struct LoopFinding {
  const HloInstruction* loop = nullptr;
  std::vector<LoopCarry> carries;
  std::optional<int64_t> trip_count;
  TripCountSource trip_count_source = TripCountSource::kUnknown;
  std::optional<int64_t> executions;
  std::optional<int64_t> copy_bytes_per_iteration;
  std::optional<int64_t> rewrite_bytes_per_iteration;
  // Bytes the loop's collectives move per device per iteration (nested loops
  // multiplied in); nullopt in a module without collectives, or unknown.
  std::optional<int64_t> collective_bytes_per_iteration;
  bool scales_with_buffer = false;  // some scaling entry is a sliced buffer
  std::vector<LoopScaling> scaling;
  std::vector<const HloInstruction*> enclosing_loops;
  std::optional<SourceLocation> source;
};

// ---------------------------------------------------------------------------
// Collectives (sharded programs)

// The facts behind a collective's cause (CollectiveRule, the catalog's
// collective rows): the instruction that makes it necessary, and how.
struct CollectiveCauseFacts {
  CollectiveCause cause = CollectiveCause::kUnknownCollective;
  CollectiveRule rule = CollectiveRule::kNone;
  // The JAX primitive of an explicit collective (psum, ppermute, ...), as
  // its op_name ends.
  std::string primitive;
  // The instruction (or fused instruction) that reads, updates or consumes
  // the collective's result at a run-time index, or that made its operand
  // (partial sums); and the kernel it is fused into.
  InstructionAt consumer;
  const HloInstruction* consumer_fusion = nullptr;
  InstructionAt producer;
  // The value it gathers or moves: the defining position of its operand.
  HloPosition value;
  // The consumer is JAX's scatter (buf.at[i].set): the fix is a
  // dynamic_update_slice.
  bool from_scatter = false;
  // What the module before SPMD partitioning says (analysis/reshard_origin.h):
  // the instruction the partitioner inserted the collective for, its
  // operand sharded otherwise, and both shardings. Instructions of that
  // module, not of the checked one.
  struct Origin {
    InstructionAt consumer;
    InstructionAt operand;
    int64_t operand_number = 0;
    std::string consumer_sharding;  // as written there: "{devices=[1,8]<=[8]}"
    std::string operand_sharding;
    std::vector<int64_t> consumer_shards;  // tiles per dimension (1: whole)
    std::vector<int64_t> operand_shards;
    std::optional<int64_t> operand_parameter;  // the entry argument it is, if one
    bool consumer_is_constraint = false;       // with_sharding_constraint's custom-call
    bool consumer_is_output = false;           // the entry's root: the output sharding
    // Where the sharding was propagated: the instruction that needs the
    // re-shard (a dot, say, whose operand is split otherwise) took its
    // sharding from `consumer` — a constraint or the output it feeds through
    // ops that keep the sharding — and `operand` is that instruction's.
    // Null when `consumer` itself holds the pair.
    InstructionAt propagated_to;
    // Whether the caller fixed that sharding (jit's out_shardings /
    // in_shardings) or let XLA choose it: the module's
    // allow_spmd_sharding_propagation_to_output / _to_parameters; nullopt
    // when it does not say.
    std::optional<bool> output_sharding_given;
    std::optional<bool> parameter_sharding_given;
  };
  std::optional<Origin> before_partitioning;
};

struct CollectiveFinding {
  // The collective as counted: the sync op, the -start of an async pair,
  // an async-start wrapper, or the fusion a (TPU) fused collective runs in.
  const HloInstruction* instruction = nullptr;
  // The collective instruction whose attributes were read (inside the
  // async or fused computation; `instruction` otherwise).
  const HloInstruction* collective = nullptr;
  CollectiveFamily family = CollectiveFamily::kAllReduce;
  int64_t group_size = 0;
  int64_t num_groups = 0;
  bool spans_all_devices = false;
  // The mesh axes its groups vary along, when the module says (the mesh
  // form of replica groups, or the module's mesh): axis names as written.
  std::vector<std::string> mesh_axes;
  // Per device per execution (analysis/collective_traffic.h), and per call.
  std::optional<int64_t> bytes_sent;
  std::optional<int64_t> bytes_received;
  std::optional<int64_t> bytes;  // the larger of the two: what one execution moves per device
  bool exact = true;             // false: an upper bound (ragged-all-to-all)
  std::optional<int64_t> executions;
  bool executions_upper_bound = false;
  std::optional<int64_t> total_bytes;  // bytes × executions, per device per call
  std::vector<const HloInstruction*> enclosing_loops;
  // What it moves every iteration of its innermost loop grows with the
  // loop's buffer (the loop's judgement: analysis/loops.cc).
  bool grows_with_buffer = false;
  // The operand and the result shapes (per device) of the collective.
  const Shape* operand_shape = nullptr;
  const Shape* shape = nullptr;
  CollectiveCauseFacts cause;
  std::optional<SourceLocation> source;
};

// The module's SPMD layout: how many programs it runs as, and the mesh the
// collectives name, when they name one.
struct SpmdFacts {
  int64_t replica_count = 1;
  int64_t num_partitions = 1;
  int64_t devices() const { return replica_count * num_partitions; }
  // The mesh of the mesh-form replica groups (all that name one agree), as
  // axis names and sizes; empty when no collective names one. With the
  // user's mesh known (analysis/mesh_names.h), the user's axes and names.
  std::vector<std::pair<std::string, int64_t>> mesh_axes;
  // Where the names come from when they are the user's ("xla.sdy.meshes");
  // empty: XLA's own ('axis_0').
  std::string mesh_names_from;
};

// ---------------------------------------------------------------------------
// Parameters

// A parameter's sharding (sharding= on the entry parameter, JAX 0.10's XLA
// keeps it; newer XLA may not): its text, and the global shape it is a
// shard of.
struct ParameterSharding {
  std::string text;                     // the sharding as written: "{devices=[2,1,4]<=[8] ...}"
  std::vector<int64_t> shards_per_dim;  // tiles along each dimension (1: not sharded)
  std::vector<int64_t> global_dims;     // the global shape (per-device dims × tiles)
  bool replicated = false;
};

// Why XLA did not keep a donation the program asked for: it aliases a
// donated buffer only with an entry output of the same per-device shape and
// element type (optimize_input_output_buffer_alias.cc).
enum class DroppedDonation {
  kNoOutputOfShape,   // no output has the argument's per-device shape and type
  kOutputNotAliased,  // one has: another argument took it, or layout or memory space differ
};
// The donation the program asked for (JAX's donate_argnums, or the module
// before optimization's input_output_alias and buffer_donor) against what
// XLA kept.
struct DonationRequest {
  bool requested = false;
  std::optional<DroppedDonation> dropped;  // requested, and XLA did not alias it
};

struct ParameterFinding {
  const HloInstruction* parameter = nullptr;
  int64_t number = 0;
  std::optional<int64_t> bytes;
  DonationKind donation = DonationKind::kNotDonated;
  std::vector<HloPosition> copies;  // copies of it (CopyFinding `copy`s)
  std::optional<ParameterSharding> sharding;
  std::optional<int64_t> global_bytes;     // bytes of the global array, when sharded
  std::optional<DonationRequest> request;  // set when the request is known
  // The entry outputs XLA aliased with it (input_output_alias), in order:
  // where a kept donation's memory goes.
  std::vector<ShapeIndex> aliased_outputs;
  // Bytes per call its copies move only because it is not donated (their
  // cause is non-donated-parameter): what donating it saves. nullopt when no
  // such copy, or when a loop's unknown trip count leaves the total unknown.
  std::optional<int64_t> donation_saves;

  bool donated() const { return donation != DonationKind::kNotDonated; }
  bool copied() const { return !copies.empty(); }
};

// ---------------------------------------------------------------------------
// Thunks (GPU)

// The copies checked against what XLA:GPU runs (analysis/thunks.h).
struct ThunkCheck {
  std::string path;
  int64_t thunks = 0;       // thunks in the dump
  int64_t copy_thunks = 0;  // of kind kCopy
  int64_t unmatched = 0;    // thunks naming no instruction of this module
  int64_t copies_as_copy_thunks = 0;
  int64_t copies_as_kernels = 0;
  // Listed copies no thunk runs: XLA does not execute them as hloscope says.
  std::vector<HloPosition> copies_not_run;
  // kCopy thunks that are not listed copies, and what XLA runs as a memcpy.
  enum class MemcpyOf : uint8_t { kFusedUpdate, kSlice, kOther };
  struct OtherCopyThunk {
    const HloInstruction* instruction = nullptr;
    MemcpyOf runs = MemcpyOf::kOther;
  };
  std::vector<OtherCopyThunk> other_copy_thunks;

  // A dump of another module names none of this one's instructions.
  bool applied() const { return thunks == 0 || thunks > unmatched; }
};

// ---------------------------------------------------------------------------
// One module's findings, with lookups from the IR back to them.

class ModuleCheck {
 public:
  const HloModule* module = nullptr;
  std::string buffer_assignment_path;      // the dump given or found, or empty
  bool buffer_assignment_applied = false;  // false: none, or not this module's (several modules)
  // Set when the dump given or found is another module's: why (not applied).
  std::optional<std::string> buffer_assignment_mismatch;
  // The module before SPMD partitioning that re-shard reasons were read
  // from (analysis/reshard_origin.h), or empty; applied: it names this module.
  std::string pre_partition_path;
  bool pre_partition_applied = false;
  // Where the donation request came from ("donate_argnums", or the module
  // before optimization's path), or empty when unknown.
  std::string donation_request_source;
  std::vector<ParameterFinding> parameters;
  std::vector<CopyFinding> copies;  // by total bytes, largest first
  std::vector<UpdateFinding> updates;
  std::vector<LoopFinding> loops;
  std::vector<CollectiveFinding> collectives;  // by total bytes per call, largest first
  SpmdFacts spmd;
  // A collective attribute that does not decode (replica groups ...): the
  // diagnostic; the collective is left out.
  std::vector<std::string> undecoded;
  // Collectives whose replica groups were not read against the user's mesh:
  // the module's budget of device ids written out (kModuleDeviceIdBudget)
  // was spent; their mesh axes are unknown, everything else counted.
  int64_t collectives_past_id_budget = 0;
  std::optional<ThunkCheck> thunks;  // a GPU thunk dump was given or found
  // The memory by the buffer assignment, when one of this module's was
  // applied (analysis/memory_usage.h).
  std::optional<MemoryUsage> memory;
  // The whole module's work per call (not filtered by --scope).
  CostSummary cost;
  // Every kernel's estimated time and bytes per call (module_cost.h's
  // KernelCost), the measure the answer ranks work by.
  struct KernelTime {
    double seconds = 0;
    int64_t bytes = 0;
    const HloInstruction* loop = nullptr;  // innermost enclosing loop
  };
  std::unordered_map<const HloInstruction*, KernelTime> kernel_times;
  // The source options lines were resolved with (the answer resolves a
  // relayout's served op with them).
  SourceOptions source_options;
  // Every finding's header, ranked by impact (answer.h: RankFindings).
  Answer answer;
  // The parameter finding of entry parameter `number`; nullptr if none.
  const ParameterFinding* FindParameter(int64_t number) const;

  // The copy finding whose `copy` is `position`; nullptr if none.
  const CopyFinding* FindCopy(const HloPosition& position) const;
  // The copy findings of an instruction (a multi-output copy fusion has several).
  std::vector<const CopyFinding*> CopiesOf(const HloInstruction* instr) const;
  // The update findings of an instruction: its own (site.instruction) and,
  // for a fusion, those fused into it.
  std::vector<const UpdateFinding*> UpdatesOf(const HloInstruction* instr) const;
  const UpdateFinding* FindUpdate(const UpdateSite& site) const;
  // The collective finding counted at `instruction`; nullptr if none.
  const CollectiveFinding* FindCollective(const HloInstruction* instruction) const;
  const LoopFinding* FindLoop(const HloInstruction* loop) const;

  // Rebuilds the lookups; call after changing the vectors (scope filters).
  void Reindex();

 private:
  std::unordered_map<const HloInstruction*, std::vector<uint32_t>> copies_by_instr_;
  std::unordered_map<const HloInstruction*, std::vector<uint32_t>> updates_by_instr_;
  std::unordered_map<const HloInstruction*, uint32_t> loop_by_instr_;
};

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_FINDINGS_H_
