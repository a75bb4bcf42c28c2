// TileAssignment: an array of device ids, as XLA prints it in shardings,
// iota replica groups and mesh device orders (xla/hlo/ir/tile_assignment.h).
//
//   [4,2]<=[8]             iota(8) reshaped to 4x2              (IotaTileAssignment)
//   [4,2]<=[2,4]T(1,0)     iota(8) reshaped to 2x4, transposed, reshaped to 4x2
//   [2,2]0,2,1,3           the ids written out, row-major        (sharding devices=)
//
// An iota assignment is never materialised unless asked: DeviceAt computes
// one id at a time, so `[1000000000]<=[1000000000]` costs nothing until
// someone expands it, and every expansion is bounded (kMaxExpandedDeviceIds).
//
// Also here: device-id factors, the structure shared by every group form
// (a group {0,4} {1,5} ... varies by stride 4, size 2), which is how hloscope
// says which mesh axes a group spans when the text does not name them.
#ifndef HLOSCOPE_IR_TILE_ASSIGNMENT_H_
#define HLOSCOPE_IR_TILE_ASSIGNMENT_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hloscope/support/result.h"

namespace hloscope {

// The most device ids any decoder writes out (expanded replica groups, the
// devices of a sharding). Past it, decoders return an error instead of
// allocating: a hostile `[1000000000,1]<=[1000000000]` stays cheap.
inline constexpr int64_t kMaxExpandedDeviceIds = int64_t{1} << 20;

// `<=[reshape_dims]T(transpose_perm)`: iota(product) reshaped to
// reshape_dims and transposed by transpose_perm (identity when no T(...)).
struct IotaTileAssignment {
  std::vector<int64_t> reshape_dims;
  std::vector<int64_t> transpose_perm;

  bool operator==(const IotaTileAssignment&) const = default;
};

struct TileAssignment {
  std::vector<int64_t> dims;
  std::optional<IotaTileAssignment> iota;  // the `<=` form
  std::vector<int64_t> devices;            // the explicit form (row-major), when !iota

  // Product of dims (decoded assignments never overflow; saturates otherwise).
  int64_t num_elements() const;
  // The device at row-major position `linear` (0 <= linear < num_elements()),
  // as xla::IotaTileAssignment::value_at for the iota form.
  int64_t DeviceAt(int64_t linear) const;
  // The device at multi-index `index` (one entry per dim, each in range).
  int64_t DeviceAt(std::span<const int64_t> index) const;
  // Every device, row-major; an error past `max_ids`.
  Result<std::vector<int64_t>> Devices(int64_t max_ids = kMaxExpandedDeviceIds) const;

  bool operator==(const TileAssignment&) const = default;
};

// Decodes `[dims]<=[reshape_dims]T(perm)` or `[dims]d0,d1,...` (what follows
// `devices=` in a sharding, or an iota `replica_groups=` value). Checks what
// XLA's parser and TileAssignment check: positive dims, a permutation of the
// right rank, equal element counts, non-negative ids, no overflow.
Result<TileAssignment> ParseTileAssignment(std::string_view text);
// The text form: `[4,2]<=[2,4]T(1,0)`, `[2,2]0,2,1,3`.
std::string TileAssignmentToString(const TileAssignment& assignment);

// One factor of a device-id group: its members are base + i*stride for
// i < size (combined over factors, mixed-radix).
struct DeviceIdFactor {
  int64_t stride = 0;
  int64_t size = 0;

  bool operator==(const DeviceIdFactor&) const = default;
};

// The factors, major to minor, that every group is built from: group g,
// member k (in written order) = groups[g][0] + sum_j digit_j(k) * stride_j,
// with k written mixed-radix in the factor sizes. nullopt when the groups do
// not share one such structure (ragged, or not a product of strided runs).
// Groups of one device have no factors (an empty vector).
std::optional<std::vector<DeviceIdFactor>> InferDeviceIdFactors(std::span<const std::vector<int64_t>> groups);

}  // namespace hloscope

#endif  // HLOSCOPE_IR_TILE_ASSIGNMENT_H_
