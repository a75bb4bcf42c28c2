// HloSharding: the `sharding={...}` attribute, decoded from its verbatim text
// in XLA's vocabulary (xla/hlo/ir/hlo_sharding.h, HloSharding::Print; named
// shardings: named_sharding.h, NamedSharding::ToString).
//
//   {replicated}  {manual}  {unknown}  {unreduced}  {maximal device=0}
//   {devices=[2,1,4]<=[8] last_tile_dim_replicate}           tiled, iota device order
//   {devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}   iota with reshape and transpose
//   {devices=[2,2]0,2,1,3}                                   explicit device order
//   {devices=[2,1,2,2]<=[8] last_tile_dims={manual, replicated}}   subgroups
//   {devices=[2,1]<=[2] shard_as 1 metadata={op_name="x"}}   shard group, metadata
//   {{replicated}, {maximal device=0}, /*index=2*/{manual}}  tuple (one per leaf); {} empty tuple
//   {mesh['a'=2,'b'=4], [{'a'}, {'b', ?}], replicated={'c'}, unreduced={...}, manual={...}}  named
//   {mesh['a'=2,'b'=4], replicated}  {mesh[...], manual}  {maximal_mesh[device_id=0]}
//   {single_device[device_id=0]}   (JAX 0.12's spelling of the maximal named sharding)
//
// A tiled sharding's tile assignment has one dimension per data dimension
// (the number of shards along it) and then one per subgroup: the last
// dimension groups the devices holding the same tile with
// last_tile_dim_replicate; last_tile_dims={...} names several trailing
// subgroup dimensions (manual, replicated, unreduced). A named sharding is
// also given as that tiled form (XLA's V3ToV2Sharding): its mesh devices
// reshaped to the referenced (sub-)axes, each data dimension's axes first,
// then manual, unreduced and replicated subgroups (replicated = every axis
// no dimension uses), size-1 subgroups left out.
//
// Text this version does not know (a future keyword) is kept as kOther with
// its text, not an error; malformed text of a known form is an error.
// Shapes in optimized SPMD HLO are per-device: ShardShape and
// GlobalShapeRange convert (XLA's HloSharding::TileShape, ceil division).
#ifndef HLOSCOPE_IR_HLO_SHARDING_H_
#define HLOSCOPE_IR_HLO_SHARDING_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hloscope/ir/mesh.h"
#include "hloscope/ir/tile_assignment.h"
#include "hloscope/support/result.h"

namespace hloscope {

enum class ShardingKind : uint8_t {
  kReplicated,  // every device holds the whole value
  kMaximal,     // one device holds it (device)
  kManual,      // partitioned by the user (shard_map): shapes are already per device
  kUnreduced,   // every device holds a partial value still to be reduced
  kUnknown,     // XLA's {unknown}: to be decided by propagation
  kTiled,       // tile_assignment (with optional subgroups)
  kTuple,       // tuple_elements, one per leaf of the tuple shape
  kOther,       // text this version does not understand (kept in `text`)
};

enum class SubgroupKind : uint8_t { kReplicated, kManual, kUnreduced, kMaximal };

// The named (mesh) form as written.
struct NamedShardingText {
  Mesh mesh;
  std::vector<std::vector<AxisRef>> dim_axes;  // per data dimension, major first
  std::vector<bool> dim_open;                  // `?`: the dimension may be sharded further
  std::vector<AxisRef> replicated_axes;        // explicit replicated={...}
  std::vector<AxisRef> unreduced_axes;
  std::vector<AxisRef> manual_axes;
};

struct HloSharding {
  ShardingKind kind = ShardingKind::kOther;
  std::string_view text;  // this sharding, braces included, a view of the decoded text

  // kTiled: data dimensions, then the subgroup dimensions.
  TileAssignment tile_assignment;
  bool replicate_on_last_tile_dim = false;
  std::vector<SubgroupKind> last_tile_dims;  // last_tile_dims={...}, in order
  int64_t device = -1;                       // kMaximal
  std::vector<HloSharding> tuple_elements;   // kTuple
  std::optional<NamedShardingText> named;    // written in the mesh form
  std::optional<int64_t> shard_as;           // `shard_as N`
  std::optional<int64_t> shard_like;         // `shard_like N`
  std::string_view metadata;                 // the metadata={...} value, verbatim; empty if none

  // Trailing tile-assignment dimensions that are subgroups, not data.
  int64_t SubgroupDimCount() const;
  // Data dimensions the tile assignment covers (0 unless kTiled).
  int64_t TiledDataRank() const;
  // Devices holding each tile: the product of the replicated subgroup
  // dimensions (1 when none; 0 unless kTiled: unknown without the device count).
  int64_t ReplicasPerTile() const;
};

// Decodes a `sharding=` value (the whole attribute value, braces included).
Result<HloSharding> ParseHloSharding(std::string_view text);

// Shards along each of `rank` data dimensions: the tile assignment's data
// dimensions for kTiled, 1 for replicated, maximal, manual, unreduced and
// unknown. An error for kTuple, kOther, or a rank other than the tiled one.
Result<std::vector<int64_t>> ShardsPerDimension(const HloSharding& sharding, int64_t rank);

// The per-device (shard) dimensions of a value of `global_dims`
// (xla::HloSharding::TileShape: ceil(global / shards), the padded shard
// every device allocates). Same errors as ShardsPerDimension.
Result<std::vector<int64_t>> ShardShape(const HloSharding& sharding, std::span<const int64_t> global_dims);

// The global dimensions a per-device shape can come from: shard = ceil(global
// / shards), so global lies in [(shard-1)*shards + 1, shard*shards] per
// dimension (exactly shard*shards when the global size divides evenly, which
// the text cannot tell). min == max when unsharded.
struct GlobalDimsRange {
  std::vector<int64_t> min;
  std::vector<int64_t> max;

  bool operator==(const GlobalDimsRange&) const = default;
};
Result<GlobalDimsRange> GlobalShapeRange(const HloSharding& sharding, std::span<const int64_t> shard_dims);

// One tile and the devices that hold it (several with replication).
struct TileDevices {
  std::vector<int64_t> tile_index;  // per data dimension
  std::vector<int64_t> devices;

  bool operator==(const TileDevices&) const = default;
};
// Every tile of a kTiled sharding in row-major tile order, with its holders
// (XLA's EachTile). kMaximal: one tile held by its device. An error for the
// other kinds (their holders are every device) and past `max_ids`.
Result<std::vector<TileDevices>> DevicesPerTile(const HloSharding& sharding,
                                                int64_t max_ids = kMaxExpandedDeviceIds);
// The tile index (per data dimension) device `device` holds; an error when
// the device does not appear in the tile assignment.
Result<std::vector<int64_t>> TileIndexOfDevice(const HloSharding& sharding, int64_t device,
                                               int64_t max_ids = kMaxExpandedDeviceIds);

// True when some devices hold the same data: replicated, maximal (trivially
// false), or tiled with a replicated subgroup of more than one device.
bool IsReplicatedOnSomeAxis(const HloSharding& sharding);
// The mesh axes the value is replicated over, when the text names them (the
// named form: every axis no dimension, unreduced or manual list uses, plus
// the explicit replicated ones), or against `mesh` for the tiled form (the
// axes along which the holders of one tile vary; MeshAxesOfGroups).
// nullopt when not known.
std::optional<std::vector<AxisRef>> ReplicatedMeshAxes(const HloSharding& sharding,
                                                       const Mesh* mesh = nullptr);

// The sharding of leaf `leaf` of a tuple-shaped value: the tuple's element,
// or the sharding itself when it is not a tuple (XLA applies it to every
// leaf). nullptr when out of range.
const HloSharding* LeafSharding(const HloSharding& sharding, int64_t leaf);

}  // namespace hloscope

#endif  // HLOSCOPE_IR_HLO_SHARDING_H_
