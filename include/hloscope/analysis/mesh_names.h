// The user's names for the mesh axes. XLA prints the mesh of mesh-form
// replica groups with names of its own ('axis_0'=2 'axis_1'=1 'axis_2'=4);
// the program named them in jax.sharding.Mesh ("data", "model"), and
// Shardy keeps that mesh in the module's `xla.sdy.meshes` frontend
// attribute: on the module before optimization (and, on TPU, the optimized
// one). Where the two agree axis for axis (sizes in order, size-1 axes
// aside), the dump's names are replaced by the user's in the module's SPMD
// facts and in every collective's axes.
#ifndef HLOSCOPE_ANALYSIS_MESH_NAMES_H_
#define HLOSCOPE_ANALYSIS_MESH_NAMES_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hloscope/ir/mesh.h"

namespace hloscope {

struct ModuleCheck;

struct UserMesh {
  std::vector<MeshAxis> axes;  // in the mesh's order
  std::string source;          // where the names come from: "xla.sdy.meshes"
};

// The one mesh of a `xla.sdy.meshes={mesh = #sdy.mesh<["x"=2, "y"=4]>}`
// attribute anywhere in `text` (a module header, its frontend_attributes;
// quotes may be escaped \"). nullopt when there is none, more than one
// with axes, or it does not decode.
std::optional<UserMesh> SdyMeshIn(std::string_view text);

// Renames the dump's mesh axes in `check` to `mesh`'s where they agree
// (above); returns whether it did. Records the source in check->spmd.
bool NameMeshAxes(const UserMesh& mesh, ModuleCheck* check);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_MESH_NAMES_H_
