// Mesh and AxisRef: the named device mesh of newer XLA's text
// (xla/hlo/ir/mesh_and_axis.h, Mesh::ToString and AxisRef::ToString).
//
//   mesh['a'=2,'b'=4]                              devices in iota order
//   mesh['x'=4,'y'=1,'z'=2], device_ids=([2,4]T(1,0))   devices as an iota tile assignment
//   mesh[a=2,b=2], device_ids=(0,2,1,3)             devices written out
//   maximal_mesh[device_id=3]                       one device (XLA's Mesh::ToString)
//   single_device[device_id=0]                      the same, as JAX 0.12's XLA prints it
//   mesh[]                                          no axes (one device)
//
// Axis names are quoted by JAX 0.10+'s XLA ('a') and bare in XLA's own tests
// (a); both decode to the name without quotes. An axis reference is a whole
// axis (`'b'`) or a sub-axis `'a':(pre_size)size`: mesh axis a of size A
// split row-major into [pre_size, size, A/(pre_size*size)], the middle part.
#ifndef HLOSCOPE_IR_MESH_H_
#define HLOSCOPE_IR_MESH_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hloscope/ir/tile_assignment.h"
#include "hloscope/support/result.h"

namespace hloscope {

// The most axes a decoded mesh may have (XLA's meshes have a handful; the
// bound keeps name lookups cheap on hostile text).
inline constexpr size_t kMaxMeshAxes = 1024;

struct MeshAxis {
  std::string name;
  int64_t size = 1;

  bool operator==(const MeshAxis&) const = default;
};

struct Mesh {
  std::vector<MeshAxis> axes;
  // dims = the axis sizes; the device at each mesh coordinate. Iota `[N]`
  // (device id = row-major coordinate) unless `device_ids=(...)` says otherwise.
  TileAssignment devices;
  std::optional<int64_t> maximal_device;  // maximal_mesh[device_id=N]

  int64_t num_devices() const { return maximal_device ? 1 : devices.num_elements(); }
  // Index of the axis called `name`; nullopt when none.
  std::optional<int64_t> AxisIndex(std::string_view name) const;

  bool operator==(const Mesh&) const = default;
};

// A mesh of `axes` whose devices are in iota order (what JAX's Mesh over
// jax.devices() in order is, and what a caller passes in SpmdConfig).
Mesh IotaMesh(std::vector<MeshAxis> axes);

struct SubAxis {
  int64_t pre_size = 1;
  int64_t size = 1;

  bool operator==(const SubAxis&) const = default;
};

struct AxisRef {
  int64_t axis = 0;            // index into Mesh::axes
  std::optional<SubAxis> sub;  // nullopt: the whole axis

  bool operator==(const AxisRef&) const = default;
};

// Devices along the reference: the sub-axis size, or the whole axis's.
int64_t AxisRefSize(const AxisRef& ref, const Mesh& mesh);
// `a`, `b:(1)2` (Shardy's spelling, names without quotes).
std::string AxisRefToString(const AxisRef& ref, const Mesh& mesh);

// Decodes a whole mesh text (one of the forms above). Errors: unknown
// syntax, non-positive sizes, duplicate names, a device_ids count or iota
// that does not match the axis sizes, overflow.
Result<Mesh> ParseMesh(std::string_view text);

// The device groups that vary along `axes` (in that order, the first the
// most major within a group) with every other mesh coordinate fixed: XLA's
// MeshAxesReplicaGroupList::flattened_replica_groups. Groups are ordered by
// the fixed coordinates, row-major. Errors: axes that overlap or do not fit
// their mesh axis, more than `max_ids` ids in all.
Result<std::vector<std::vector<int64_t>>> DeviceGroupsAlongAxes(const Mesh& mesh,
                                                                std::span<const AxisRef> axes,
                                                                int64_t max_ids = kMaxExpandedDeviceIds);

// The mesh axes (whole or sub-axes, most major first) that `groups` vary
// along: the groups' device ids are mapped to mesh coordinates through the
// mesh's device order, and their factors (InferDeviceIdFactors) matched to
// axes. nullopt when a group holds a device outside the mesh, the groups
// have no common structure, or a factor is not a (sub-)axis. Groups of one
// device span no axis (an empty vector).
std::optional<std::vector<AxisRef>> MeshAxesOfGroups(std::span<const std::vector<int64_t>> groups,
                                                     const Mesh& mesh);

}  // namespace hloscope

#endif  // HLOSCOPE_IR_MESH_H_
