// Decoders shared by tile_assignment.cc, mesh.cc, collective_device_list.cc
// and hlo_sharding.cc: each reads one construct at a DecodeCursor and throws
// DecodeFailure on malformed text. Not installed.
#ifndef HLOSCOPE_IR_SHARDING_TEXT_H_
#define HLOSCOPE_IR_SHARDING_TEXT_H_

#include <span>
#include <vector>

#include "hloscope/ir/mesh.h"
#include "hloscope/ir/tile_assignment.h"
#include "ir/decode_cursor.h"

namespace hloscope::ir_internal {

// `[dims]<=[reshape]T(perm)`, or `[dims]d0,d1,...` when allow_explicit.
TileAssignment ParseTileAssignmentAt(DecodeCursor& c, bool allow_explicit);
// `[r0,r1]T(p0,p1)` or `[r]` (a mesh's device_ids=(...) iota), with `dims`
// already known.
TileAssignment ParseBareIotaAt(DecodeCursor& c, std::vector<int64_t> dims);
// `mesh[...]` (with `, device_ids=(...)`) or `maximal_mesh[device_id=N]`.
Mesh ParseMeshAt(DecodeCursor& c);
// `'a'`, `a`, `'a':(1)2` or an axis index, checked against `mesh`.
AxisRef ParseAxisRefAt(DecodeCursor& c, const Mesh& mesh);
// `{ref, ref, ...}` (possibly empty); `open` (optional) is set when a `?`
// ends the list (a named sharding's open dimension).
std::vector<AxisRef> ParseAxisRefListAt(DecodeCursor& c, const Mesh& mesh, bool* open = nullptr);

// The mesh split into factors so that every reference in `refs` is a run of
// whole factors: each mesh axis becomes its parts between the sub-axis
// boundaries any reference puts on it (major to minor). Row-major order over
// the factors is row-major order over the mesh, so device ids stay put.
struct MeshFactors {
  std::vector<int64_t> sizes;                 // all factors, mesh axis 0's first
  std::vector<AxisRef> as_refs;               // each factor as a (sub-)axis reference
  std::vector<std::vector<int64_t>> of_refs;  // for refs[i]: its factor indices, major to minor
};
// Throws (at `offset`) when references overlap or do not divide their axis.
MeshFactors SplitMesh(const Mesh& mesh, std::span<const AxisRef> refs, size_t offset, const DecodeCursor& c);

// The devices of `mesh` reshaped to `factor_sizes` and transposed by `perm`
// (a permutation of the factors), reshaped to `dims`: the named sharding's
// (or mesh replica group's) tile assignment. Iota stays iota when the mesh's
// devices are in plain iota order; otherwise the ids are written out (at
// most max_ids, else throws at `offset`).
TileAssignment TransposedMeshDevices(const Mesh& mesh, const std::vector<int64_t>& factor_sizes,
                                     const std::vector<int64_t>& perm, std::vector<int64_t> dims,
                                     int64_t max_ids, size_t offset, const DecodeCursor& c);

}  // namespace hloscope::ir_internal

#endif  // HLOSCOPE_IR_SHARDING_TEXT_H_
