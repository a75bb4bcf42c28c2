// The user's mesh axis names (analysis/mesh_names.h): read from Shardy's
// xla.sdy.meshes attribute and put in place of XLA's axis_N where the two
// meshes agree. On real compiles: tests/python/test_mesh_names.py.
#include "hloscope/analysis/mesh_names.h"

#include <gtest/gtest.h>

#include "check_test_util.h"

namespace hloscope {
namespace {

using testing::Check;
using testing::ParseOne;

TEST(MeshNamesTest, TheOneMeshOfTheAttributeIsRead) {
  std::optional<UserMesh> m =
      SdyMeshIn(R"(frontend_attributes={xla.sdy.meshes={mesh = #sdy.mesh<["data"=2, "model"=4]>}})");
  ASSERT_TRUE(m);
  ASSERT_EQ(m->axes.size(), 2u);
  EXPECT_EQ(m->axes[0], (MeshAxis{"data", 2}));
  EXPECT_EQ(m->axes[1], (MeshAxis{"model", 4}));
  EXPECT_EQ(m->source, "xla.sdy.meshes");
  // Quotes escaped, as inside an instruction's attribute.
  m = SdyMeshIn(R"(xla.sdy.meshes={mesh = #sdy.mesh<[\"x\"=8]>})");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->axes, (std::vector<MeshAxis>{{"x", 8}}));
}

TEST(MeshNamesTest, NoMeshSeveralMeshesOrGarbageNameNothing) {
  EXPECT_FALSE(SdyMeshIn("HloModule m, num_partitions=8"));
  EXPECT_FALSE(SdyMeshIn("xla.sdy.meshes={empty_mesh = #sdy.mesh<[]>}"));  // one device
  EXPECT_FALSE(SdyMeshIn(R"(xla.sdy.meshes={a = #sdy.mesh<["x"=8]>, b = #sdy.mesh<["y"=8]>})"));
  EXPECT_FALSE(SdyMeshIn(R"(xla.sdy.meshes={mesh = #sdy.mesh<["x"=0]>})"));
  EXPECT_FALSE(SdyMeshIn(R"(xla.sdy.meshes={mesh = #sdy.mesh<["x"=8)"));
  EXPECT_FALSE(SdyMeshIn(R"(xla.sdy.meshes={mesh = #sdy.mesh<[x=8]>})"));
}

// Two all-gathers, each over its own view of a 2×4 mesh, as XLA prints
// them: the first over the 2-axis, the second over the 4-axis.
constexpr char kTwoViews[] = R"(
HloModule jit_step, is_scheduled=true, num_partitions=8
ENTRY %main (p: f32[4,8], q: f32[2,8]) -> (f32[8,8], f32[8,8]) {
  %p = f32[4,8]{1,0} parameter(0)
  %q = f32[2,8]{1,0} parameter(1)
  %ag = f32[8,8]{1,0} all-gather(%p), channel_id=1, replica_groups=mesh['axis_0'=2,'axis_1'=1,'axis_2'=4] {'axis_0'}, dimensions={0}, use_global_device_ids=true
  %ag.1 = f32[8,8]{1,0} all-gather(%q), channel_id=2, replica_groups=mesh['axis_0'=2,'axis_1'=1,'axis_2'=4] {'axis_2'}, dimensions={0}, use_global_device_ids=true
  ROOT %t = (f32[8,8]{1,0}, f32[8,8]{1,0}) tuple(%ag, %ag.1)
}
)";

TEST(MeshNamesTest, TheUsersNamesReplaceXlasWhereTheMeshesAgree) {
  auto module = ParseOne(kTwoViews);
  ModuleCheck m = Check(*module);
  ASSERT_EQ(m.collectives.size(), 2u);
  ASSERT_EQ(m.spmd.mesh_axes.size(), 3u);  // XLA's own names until told the user's
  EXPECT_EQ(m.spmd.mesh_axes[0].first, "axis_0");
  EXPECT_TRUE(NameMeshAxes(UserMesh{{{"data", 2}, {"model", 4}}, "xla.sdy.meshes"}, &m));
  EXPECT_EQ(m.spmd.mesh_axes, (std::vector<std::pair<std::string, int64_t>>{{"data", 2}, {"model", 4}}));
  EXPECT_EQ(m.spmd.mesh_names_from, "xla.sdy.meshes");
  std::vector<std::string> axes;
  for (const CollectiveFinding& c : m.collectives)
    axes.insert(axes.end(), c.mesh_axes.begin(), c.mesh_axes.end());
  std::sort(axes.begin(), axes.end());
  EXPECT_EQ(axes, (std::vector<std::string>{"data", "model"}));
}

TEST(MeshNamesTest, AMeshThatDoesNotAgreeRenamesNothing) {
  auto module = ParseOne(kTwoViews);
  ModuleCheck m = Check(*module);
  // Sizes in another order, and another device count.
  EXPECT_FALSE(NameMeshAxes(UserMesh{{{"model", 4}, {"data", 2}}, "xla.sdy.meshes"}, &m));
  EXPECT_FALSE(NameMeshAxes(UserMesh{{{"x", 16}}, "xla.sdy.meshes"}, &m));
  EXPECT_EQ(m.spmd.mesh_axes[0].first, "axis_0");
  EXPECT_TRUE(m.spmd.mesh_names_from.empty());
  for (const CollectiveFinding& c : m.collectives)
    for (const std::string& a : c.mesh_axes) EXPECT_EQ(a.rfind("axis_", 0), 0u) << a;
}

}  // namespace
}  // namespace hloscope
