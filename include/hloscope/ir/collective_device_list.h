// Which devices a collective talks to: the `replica_groups=` value of
// all-reduce, all-gather, reduce-scatter, all-to-all, ragged-all-to-all and
// collective-broadcast (XLA's CollectiveDeviceList family,
// xla/hlo/ir/collective_device_list.h and replica_group.h), the
// `source_target_pairs=` of collective-permute, and the group mode the
// channel_id / use_global_device_ids attributes select.
//
// replica_groups forms, all decoded from the verbatim attribute text:
//
//   {{0,1},{2,3}}                  explicit (ReplicaGroupsToString); {} = one group of every participant
//   [2,4]<=[8]                     iota: 2 groups of 4 (IotaReplicaGroupList)
//   [4,2]<=[2,4]T(1,0)             iota with reshape and transpose: {0,4},{1,5},{2,6},{3,7}
//   mesh['a'=2,'b'=4] {'b'}        mesh axes (MeshAxesReplicaGroupList): groups vary along b
//   mesh['x'=4,'y'=1,'z'=2], device_ids=([2,4]T(1,0)) {'x'}   the same over a permuted mesh
//   mesh['a'=8] {'a':(1)2}         a sub-axis (Shardy's notation)
//
// The parser keeps these as text and never rejects a malformed one; the
// decoders here report it as an error value. Expansion into explicit groups
// is bounded by kMaxExpandedDeviceIds; the sizes (num_groups, group_size,
// CountDeviceIds) never need it.
//
// What a group's ids mean depends on the group mode (GroupModeFor): replica
// ids, partition ids, or global ids = replica * num_partitions + partition.
// JAX SPMD programs (replica_count=1) use partition ids or global ids, which
// are then the same: positions in the executable's device assignment.
#ifndef HLOSCOPE_IR_COLLECTIVE_DEVICE_LIST_H_
#define HLOSCOPE_IR_COLLECTIVE_DEVICE_LIST_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hloscope/ir/instruction.h"
#include "hloscope/ir/mesh.h"
#include "hloscope/ir/tile_assignment.h"
#include "hloscope/support/result.h"

namespace hloscope {

enum class DeviceListForm : uint8_t {
  kExplicit,  // {{0,1},{2,3}} (or {})
  kIota,      // [G,S]<=[...]T(...)
  kMeshAxes,  // mesh[...] {axes}
};

struct CollectiveDeviceList {
  DeviceListForm form = DeviceListForm::kExplicit;
  std::vector<std::vector<int64_t>> groups;  // kExplicit, as written
  TileAssignment iota;                       // kIota: dims {num_groups, group_size}
  Mesh mesh;                                 // kMeshAxes: the mesh and
  std::vector<AxisRef> axes;                 //   the axes each group varies along

  // `{}`: every participant in one group (its size depends on the group mode).
  bool all_participants() const { return form == DeviceListForm::kExplicit && groups.empty(); }
  // 0 for `{}`.
  int64_t num_groups() const;
  // Devices per group (XLA's num_devices_per_group: the first group's size
  // for the explicit form); 0 for `{}`.
  int64_t group_size() const;
  // Every group has group_size() devices (always true but for hand-written
  // explicit groups).
  bool uniform() const;
};

// Decodes a `replica_groups=` value. Errors name what is wrong: an
// unbalanced or non-integer list, a negative id, an iota of the wrong rank
// (XLA's replica-group iota has exactly two dims), a mesh axis that is not
// in the mesh.
Result<CollectiveDeviceList> ParseCollectiveDeviceList(std::string_view text);

// The groups written out (device ids in the group mode's id space). `{}`
// expands to no groups: the caller knows the participants
// (collective_traffic.h does). An error past `max_ids` ids in all.
Result<std::vector<std::vector<int64_t>>> ExpandDeviceGroups(const CollectiveDeviceList& list,
                                                             int64_t max_ids = kMaxExpandedDeviceIds);

// How many device ids ExpandDeviceGroups would write out (0 for `{}`),
// without writing them: the same errors, past `max_ids`, and nothing
// allocated. num_groups() and group_size() then hold for the iota and mesh
// forms whatever their size: analyses need the groups written out only to
// read their ids.
Result<int64_t> CountDeviceIds(const CollectiveDeviceList& list, int64_t max_ids = kMaxExpandedDeviceIds);

// The axis names of a kMeshAxes list as written (`b`, `a:(1)2`); empty for
// the other forms, whose axes are only known against a mesh
// (MeshAxesOfGroups in mesh.h).
std::vector<std::string> MeshAxisNames(const CollectiveDeviceList& list);

struct SourceTargetPair {
  int64_t source = 0;
  int64_t target = 0;

  bool operator==(const SourceTargetPair&) const = default;
};

// Decodes `source_target_pairs={{0,1},{1,2}}` (collective-permute); `{}` is
// no pairs. Each pair has exactly two non-negative ids.
Result<std::vector<SourceTargetPair>> ParseSourceTargetPairs(std::string_view text);

// xla::CollectiveOpGroupMode (collective_op_group_mode.h).
enum class CollectiveGroupMode : uint8_t {
  kCrossReplica,              // no channel_id: replica ids, each partition on its own
  kCrossPartition,            // channel_id: partition ids, each replica on its own
  kCrossReplicaAndPartition,  // channel_id, use_global_device_ids=false: replica ids x all partitions
  kFlattenedId,               // channel_id, use_global_device_ids=true: global ids
};

std::string_view CollectiveGroupModeName(CollectiveGroupMode mode);

// xla::GetCollectiveOpGroupMode(has_channel_id, use_global_device_ids) for
// all-reduce, all-gather and reduce-scatter; the error is XLA's: "Invalid
// combination of has_channel_id and use_global_device_ids".
Result<CollectiveGroupMode> GroupModeFor(bool has_channel_id, std::optional<bool> use_global_device_ids);

// The group mode of a collective instruction, from its channel_id and
// use_global_device_ids attributes (all-to-all, collective-permute and
// collective-broadcast have no use_global_device_ids: cross-partition with a
// channel, cross-replica without). Errors: a channel_id that is not an
// integer, a use_global_device_ids that is not true/false.
Result<CollectiveGroupMode> GroupModeOf(const HloInstruction& instr);

}  // namespace hloscope

#endif  // HLOSCOPE_IR_COLLECTIVE_DEVICE_LIST_H_
