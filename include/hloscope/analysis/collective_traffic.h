// Collective traffic: for one collective instruction of an SPMD module, who
// it talks to and how many bytes each device sends and receives per
// execution. A pure function of the instruction, its attributes (decoded by
// ir/collective_device_list.h) and the module's SpmdConfig.
//
// Instructions understood (xla-reference-2.md §8.1):
//   sync        all-gather, all-reduce, reduce-scatter, all-to-all, ragged-all-to-all,
//               collective-permute, collective-broadcast (tuple-shaped combined ones too)
//   async pairs all-gather-start/-done, all-reduce-start/-done, collective-permute-start/-done,
//               the sugared reduce-scatter-start/all-to-all-start/... (-update, -done)
//   wrapped     async-start(...), calls=%c whose computation holds the collective, and its
//               async-update / async-done
// The bytes are counted once, at the start (or the sync op): a -done or
// -update reports the collective with zero bytes and `counted_at` the
// instruction that carries them (as XLA's cost models give *-done zero time).
//
// Byte conventions, per device per execution, from the shapes (which are
// per-device after SPMD partitioning). B = the operands' bytes (summed over
// operands for combined collectives), R = the result's bytes, G = the group
// size. Arrays count as ir/shape.h's ByteSizeOf counts them (packed sub-byte
// types, and TPU tile padding unless CollectiveTrafficOptions::padded_sizes
// is false). What a device receives is counted in the result's type (XLA may
// fold a convert into the collective; the TPU fixtures reduce f32 partial
// sums as bf16), in the operand's when the result shape is not known:
//
//   all-gather          sent = (G-1)*B        its operand to each of G-1 peers
//                       received = R - B      all blocks but its own (= (G-1)*B)
//   reduce-scatter      sent = B*(G-1)/G      its contributions to the peers' blocks
//                       received = (G-1)*R    the peers' contributions to its block
//   all-reduce          sent = 2*B*(G-1)/G, received = 2*R*(G-1)/G
//                                             reduce-scatter + all-gather: the ring / two-phase
//                                             figure (XLA's SoL GPU model: all-reduce = 2 rounds)
//   all-to-all          sent = B*(G-1)/G, received = R*(G-1)/G
//                                             every chunk but its own (tuple form: on the total)
//   ragged-all-to-all   sent <= B(input), received <= R: data-dependent, `exact` false
//   collective-permute  sent = B * (pairs it is the source of), received = R * (pairs it is
//                       the target of), the busiest device (`max_over_devices`); a pair (i,i)
//                       moves nothing; an in-place permute (slice_sizes=) counts its first operand
//   collective-broadcast sent = (G-1)*B at the root (each group's first device), received = R
//                       at the others (`max_over_devices`)
//
// XLA's HloCostAnalysis has no per-opcode network model (it counts operand +
// output bytes accessed); these follow the op semantics, "what a device must
// receive from and send to its peers" whatever the algorithm, as
// tools/collective_oracle.py and xla-reference-2.md §8.3 do. Divisions round
// down; every product saturates (support/saturating.h). G <= 1 moves nothing.
//
// Group size: explicit and iota groups by their size; `replica_groups={}`
// means every participant of the group mode (num_partitions cross-partition,
// replica_count cross-replica, both multiplied flattened, which XLA itself
// rejects); in cross-replica-and-partition mode each group spans all
// partitions of its replicas (XLA's GetParticipatingDevicesGroups), so G =
// |group| * num_partitions.
//
// Mesh axes: the mesh form names them (JAX 0.10.2's XLA writes a mesh of its
// own making, axes axis_0, axis_1, ..., for some collectives; JAX 0.12's
// writes the user's mesh and names for most). For the iota and explicit
// forms the text has device ids only; given SpmdConfig::mesh (replica_count
// 1, as many devices as partitions) the groups' ids are read as positions in
// that mesh, row-major: the ids are positions in the executable's device
// assignment, which for JAX is the mesh's devices in `mesh.devices.flat`
// order, so a mesh over permuted physical devices still reads right. Groups
// that are no product of (sub-)axes, and collective-permutes, get none.
#ifndef HLOSCOPE_ANALYSIS_COLLECTIVE_TRAFFIC_H_
#define HLOSCOPE_ANALYSIS_COLLECTIVE_TRAFFIC_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hloscope/ir/collective_device_list.h"
#include "hloscope/ir/instruction.h"
#include "hloscope/ir/spmd_config.h"
#include "hloscope/support/result.h"

namespace hloscope {

enum class CollectiveFamily : uint8_t {
  kAllGather,
  kAllReduce,
  kReduceScatter,
  kAllToAll,
  kRaggedAllToAll,
  kCollectivePermute,
  kCollectiveBroadcast,
};

std::string_view CollectiveFamilyName(CollectiveFamily family);  // "all-gather", ...

enum class CollectivePart : uint8_t { kSync, kStart, kUpdate, kDone };

struct CollectiveTraffic {
  CollectiveFamily family = CollectiveFamily::kAllReduce;
  CollectivePart part = CollectivePart::kSync;
  const HloInstruction* instruction = nullptr;  // the one asked about
  const HloInstruction* collective = nullptr;   // whose replica_groups etc. were read
  const HloInstruction* counted_at = nullptr;   // the instruction the bytes belong to
  CollectiveGroupMode mode = CollectiveGroupMode::kCrossReplica;

  int64_t group_size = 0;  // devices per group (G; the largest group if they differ); 0 for permutes
  int64_t num_groups = 0;  // 0 for permutes
  // The groups as the attribute gives them (ids in the mode's id space; `{}`
  // written out as one group of every participant). Empty for
  // collective-permute, which has `pairs` instead, and unless
  // CollectiveTrafficOptions::keep_groups.
  std::vector<std::vector<int64_t>> groups;
  bool groups_written = true;  // false: left unwritten, past CollectiveTrafficOptions::budget
  std::vector<SourceTargetPair> pairs;
  bool spans_all_devices = false;  // one group of replica_count * num_partitions devices
  // The mesh axes each group varies along, most major first (`b`,
  // `a:(1)2`): from the text (mesh form) or, given SpmdConfig::mesh, from the
  // groups' device ids. Empty with mesh_axes_known false otherwise.
  std::vector<std::string> mesh_axes;
  bool mesh_axes_known = false;

  int64_t operand_count = 0;
  std::optional<int64_t> operand_bytes;   // B, per device
  std::optional<int64_t> result_bytes;    // R, per device (nullopt: not shown by the shape)
  const Shape* result_shape = nullptr;    // the result's part of the shape (a -start's is a tuple)
  std::optional<int64_t> bytes_sent;      // per device per execution (nullopt: unknown size)
  std::optional<int64_t> bytes_received;  // per device per execution
  bool exact = true;                      // false: an upper bound (ragged-all-to-all)
  bool max_over_devices = false;          // devices differ; the busiest one is reported
};

// Device ids one module's collectives may write out together
// (FindCollectives): a replica group form names up to kMaxExpandedDeviceIds
// in a few bytes (`[1,1048576]<=[1048576]`), so a per-call limit alone lets
// 1,000 short lines cost 8 GB.
inline constexpr int64_t kModuleDeviceIdBudget = int64_t{16} << 20;

// Shared by the AnalyzeCollective calls of one module (one SpmdConfig):
// the ids they may still write out, and the mesh axes already read for
// each (replica_groups text, group mode), so a form a module repeats over
// thousands of collectives is written out and read once.
struct DeviceIdBudget {
  int64_t left = kModuleDeviceIdBudget;
  int64_t written = 0;  // device ids written out so far
  int64_t refused = 0;  // calls whose groups were left unwritten: the budget was spent
  std::map<std::pair<std::string, CollectiveGroupMode>, std::optional<std::vector<std::string>>> axes;
};

struct CollectiveTrafficOptions {
  // Arrays as the buffer assignment sizes them, tile padding included (true),
  // or by their elements only (false: the data, whatever its layout).
  bool padded_sizes = true;
  // Keep the groups written out in CollectiveTraffic::groups. False: the
  // sizes only (group_size, num_groups: never written out); the ids are
  // written out only to read them against SpmdConfig::mesh, then dropped.
  bool keep_groups = true;
  // nullptr: each call writes out up to kMaxExpandedDeviceIds. Given, the
  // iota and `{}` forms are written out only while it lasts (the explicit
  // form is the text's own); past it `groups` stays empty, groups_written
  // false, and the mesh axes of groups whose text names none unknown.
  DeviceIdBudget* budget = nullptr;
};

// A collective that is a kernel of its own: a synchronous collective, or the
// -start of an async pair (its -done is the same transfer). Async wrappers
// are not: the collective in their computation is.
bool IsCollectiveKernelOpcode(HloOpcode opcode);

// The collective family of `instr`, including -start/-update/-done forms and
// async wrappers whose computation holds a collective; nullopt otherwise.
std::optional<CollectiveFamily> CollectiveFamilyOf(const HloInstruction& instr);

// The traffic of collective `instr`. Errors: not a collective, a
// replica_groups/source_target_pairs/channel_id attribute that does not
// decode (the decoder's message and position within the value; place it in
// the file with AttributeDiagnostic), groups past kMaxExpandedDeviceIds.
// The sizes come from the form, never from the groups written out: memory
// and time per call are bounded by the text and, with a budget, per module.
Result<CollectiveTraffic> AnalyzeCollective(const HloInstruction& instr, const SpmdConfig& config,
                                            const CollectiveTrafficOptions& options = {});

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_COLLECTIVE_TRAFFIC_H_
