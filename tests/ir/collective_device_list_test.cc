// Collective device lists (replica_groups), tile assignments, meshes,
// source_target_pairs and group modes, decoded from attribute text: every
// form XLA prints, expansion to groups (cross-checked against the explicit
// groups older XLA prints for the same program), bounds and exact errors.
#include "hloscope/ir/collective_device_list.h"

#include <gtest/gtest.h>

#include "hloscope/parser/parser.h"

namespace hloscope {
namespace {

using Groups = std::vector<std::vector<int64_t>>;

Groups Expand(std::string_view text) {
  Result<CollectiveDeviceList> list = ParseCollectiveDeviceList(text);
  EXPECT_TRUE(list.ok()) << text << ": " << (list.ok() ? "" : list.error().Format());
  if (!list.ok()) return {};
  Result<Groups> groups = ExpandDeviceGroups(*list);
  EXPECT_TRUE(groups.ok()) << text << ": " << (groups.ok() ? "" : groups.error().Format());
  return groups.ok() ? *groups : Groups{};
}

// "col N: message" of a decode error (the column is within the value).
std::string DecodeError(std::string_view text) {
  Result<CollectiveDeviceList> list = ParseCollectiveDeviceList(text);
  if (list.ok()) return "<decoded>";
  return "col " + std::to_string(list.error().column) + ": " + list.error().message;
}

TEST(TileAssignmentTest, IotaAndExplicitForms) {
  Result<TileAssignment> t = ParseTileAssignment("[4,2]<=[2,4]T(1,0)");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->dims, (std::vector<int64_t>{4, 2}));
  ASSERT_TRUE(t->iota.has_value());
  EXPECT_EQ(t->iota->reshape_dims, (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(t->iota->transpose_perm, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(t->Devices().value(), (std::vector<int64_t>{0, 4, 1, 5, 2, 6, 3, 7}));
  EXPECT_EQ(t->DeviceAt(std::vector<int64_t>{3, 1}), 7);
  EXPECT_EQ(TileAssignmentToString(*t), "[4,2]<=[2,4]T(1,0)");

  // A three-dimensional transpose: iota(24).reshape(2,3,4).transpose(2,0,1).
  Result<TileAssignment> t3 = ParseTileAssignment("[4,6]<=[2,3,4]T(2,0,1)");
  ASSERT_TRUE(t3.ok());
  std::vector<int64_t> want;
  for (int64_t k = 0; k < 4; ++k)
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 3; ++j) want.push_back(i * 12 + j * 4 + k);
  EXPECT_EQ(t3->Devices().value(), want);

  Result<TileAssignment> e = ParseTileAssignment("[2,2]0,2,1,3");
  ASSERT_TRUE(e.ok());
  EXPECT_FALSE(e->iota.has_value());
  EXPECT_EQ(e->devices, (std::vector<int64_t>{0, 2, 1, 3}));
  EXPECT_EQ(TileAssignmentToString(*e), "[2,2]0,2,1,3");
  EXPECT_EQ(ParseTileAssignment("[8]<=[8]")->num_elements(), 8);
}

TEST(TileAssignmentTest, ExactErrors) {
  auto error = [](std::string_view text) {
    Result<TileAssignment> t = ParseTileAssignment(text);
    return t.ok() ? std::string("<decoded>")
                  : "col " + std::to_string(t.error().column) + ": " + t.error().message;
  };
  EXPECT_EQ(error("[4,2]<=[2,4]T(1,1)"), "col 17: iota transpose dimension 1 appears twice");
  EXPECT_EQ(error("[4,2]<=[2,4]T(2,0)"), "col 15: iota transpose dimension 2 is out of range [0, 2)");
  EXPECT_EQ(error("[4,2]<=[2,4]T(0)"),
            "col 14: the iota transpose permutation has 1 dimensions, the reshape 2");
  EXPECT_EQ(error("[4,2]<=[9]"), "col 8: the iota has 9 devices but the tile assignment dimensions need 8");
  EXPECT_EQ(error("[0,2]<=[0]"), "col 2: tile assignment dimensions 0 is not positive");
  EXPECT_EQ(error("[2,2]0,1,2"), "col 1: the tile assignment [2,2] needs 4 device ids, found 3");
  EXPECT_EQ(error("[2]0,-1"), "col 6: device id -1 is negative");
  EXPECT_EQ(error("[2,x]"), "col 4: expected an integer in the tile assignment dimensions, found 'x'");
  EXPECT_EQ(error("[99999999999999999999]"), "col 2: integer '99999999999999999999' does not fit in 64 bits");
  EXPECT_EQ(error("[4294967296,4294967296]<=[1]"),
            "col 1: the tile assignment dimensions hold more than 2^63 devices");
  EXPECT_EQ(error("[2]<=[2] junk"), "col 10: expected the end of the tile assignment, found 'j'");
}

TEST(TileAssignmentTest, HostileSizesStayCheapAndBounded) {
  // A billion devices: decoding allocates nothing, one device is computed
  // on its own, writing them out is refused.
  Result<TileAssignment> t = ParseTileAssignment("[1000000000,1]<=[1000000000]");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->num_elements(), 1000000000);
  EXPECT_EQ(t->DeviceAt(int64_t{999999999}), 999999999);
  Result<std::vector<int64_t>> all = t->Devices();
  ASSERT_FALSE(all.ok());
  EXPECT_EQ(all.error().message,
            "the tile assignment holds 1000000000 devices, more than the limit of 1048576");
}

TEST(DeviceIdFactorsTest, StridedGroups) {
  using F = std::vector<DeviceIdFactor>;
  EXPECT_EQ(InferDeviceIdFactors(Groups{{0, 1, 2, 3}, {4, 5, 6, 7}}), (F{{1, 4}}));
  EXPECT_EQ(InferDeviceIdFactors(Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}}), (F{{4, 2}}));
  // Major first: members 0,2,8,10 = base + {0,1}*8 + {0,1}*2.
  EXPECT_EQ(InferDeviceIdFactors(Groups{{0, 2, 8, 10}, {1, 3, 9, 11}}), (F{{8, 2}, {2, 2}}));
  // Written in a transposed order: the minor factor varies slower.
  EXPECT_EQ(InferDeviceIdFactors(Groups{{0, 4, 1, 5}}), (F{{1, 2}, {4, 2}}));
  EXPECT_EQ(InferDeviceIdFactors(Groups{{3}, {5}}), F{});
  EXPECT_EQ(InferDeviceIdFactors(Groups{{0, 1}, {2, 4}}), std::nullopt);  // not translates
  EXPECT_EQ(InferDeviceIdFactors(Groups{{0, 1, 3}}), std::nullopt);       // not a product
  EXPECT_EQ(InferDeviceIdFactors(Groups{{0, 0}}), std::nullopt);          // a device twice
  EXPECT_EQ(InferDeviceIdFactors(Groups{}), std::nullopt);
}

TEST(MeshTest, Forms) {
  Result<Mesh> m = ParseMesh("mesh['a'=2,'b'=4]");
  ASSERT_TRUE(m.ok());
  ASSERT_EQ(m->axes.size(), 2u);
  EXPECT_EQ(m->axes[0], (MeshAxis{"a", 2}));
  EXPECT_EQ(m->axes[1], (MeshAxis{"b", 4}));
  EXPECT_EQ(m->num_devices(), 8);
  EXPECT_EQ(m->AxisIndex("b"), 1);
  EXPECT_EQ(m->AxisIndex("c"), std::nullopt);
  EXPECT_EQ(ParseMesh("mesh[a=2,b=4]").value(), *m);  // XLA's own tests leave names bare

  Result<Mesh> p = ParseMesh("mesh['axis_0'=4,'axis_1'=1,'axis_2'=2], device_ids=([2,4]T(1,0))");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->devices.Devices().value(), (std::vector<int64_t>{0, 4, 1, 5, 2, 6, 3, 7}));
  Result<Mesh> x = ParseMesh("mesh['a'=2,'b'=2], device_ids=(0,2,1,3)");
  ASSERT_TRUE(x.ok());
  EXPECT_EQ(x->devices.devices, (std::vector<int64_t>{0, 2, 1, 3}));
  EXPECT_EQ(ParseMesh("maximal_mesh[device_id=3]")->maximal_device, 3);
  EXPECT_EQ(ParseMesh("single_device[device_id=0]")->maximal_device, 0);
  Result<Mesh> empty = ParseMesh("mesh[]");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->axes.empty());
  EXPECT_EQ(empty->num_devices(), 1);
}

TEST(MeshTest, ExactErrors) {
  auto error = [](std::string_view text) {
    Result<Mesh> m = ParseMesh(text);
    return m.ok() ? std::string("<decoded>")
                  : "col " + std::to_string(m.error().column) + ": " + m.error().message;
  };
  EXPECT_EQ(error("mesh['a'=2,'a'=4]"), "col 12: mesh axis 'a' appears twice");
  EXPECT_EQ(error("mesh['a'=0]"), "col 10: mesh axis 'a' has size 0; sizes must be positive");
  EXPECT_EQ(error("mesh['a'=2,'b'=2], device_ids=(0,1,2)"),
            "col 32: the mesh has 4 devices but device_ids lists 3");
  EXPECT_EQ(error("mesh['a'=2,'b'=2], device_ids=(0,1,1,2)"), "col 36: mesh device id 1 appears twice");
  EXPECT_EQ(error("mesh['a'=2,'b'=2], device_ids=(0,1,2,4)"),
            "col 38: mesh device id 4 is out of range [0, 4)");
  EXPECT_EQ(error("mesh['a'=2,'b'=2], device_ids=([3]T(0))"),
            "col 32: the iota has 3 devices but the tile assignment dimensions need 4");
  EXPECT_EQ(error("mesh['a=2]"), "col 6: unterminated quoted axis name");
  EXPECT_EQ(error("grid['a'=2]"), "col 1: expected 'mesh', 'maximal_mesh' or 'single_device', found 'g'");
  EXPECT_EQ(error("maximal_mesh[device=3]"), "col 14: expected 'device_id=' in maximal_mesh, found 'd'");
}

TEST(MeshTest, GroupsAlongAxesAndSubAxes) {
  Mesh m = IotaMesh({{"a", 2}, {"b", 4}});
  EXPECT_EQ(DeviceGroupsAlongAxes(m, std::vector<AxisRef>{{1, std::nullopt}}).value(),
            (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  EXPECT_EQ(DeviceGroupsAlongAxes(m, std::vector<AxisRef>{{0, std::nullopt}}).value(),
            (Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
  // Axis order inside a group: b major, then a.
  EXPECT_EQ(DeviceGroupsAlongAxes(m, std::vector<AxisRef>{{1, std::nullopt}, {0, std::nullopt}}).value(),
            (Groups{{0, 4, 1, 5, 2, 6, 3, 7}}));
  // b:(1)2 is the major half of b: devices b in {0,2} or {1,3}.
  EXPECT_EQ(DeviceGroupsAlongAxes(m, std::vector<AxisRef>{{1, SubAxis{1, 2}}}).value(),
            (Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}}));
  EXPECT_EQ(DeviceGroupsAlongAxes(m, std::vector<AxisRef>{{1, SubAxis{2, 2}}}).value(),
            (Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}}));
  EXPECT_EQ(DeviceGroupsAlongAxes(m, std::vector<AxisRef>{}).value(),
            (Groups{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}}));
  Result<Groups> overlap =
      DeviceGroupsAlongAxes(m, std::vector<AxisRef>{{1, std::nullopt}, {1, SubAxis{1, 2}}});
  ASSERT_FALSE(overlap.ok());
  EXPECT_EQ(overlap.error().message, "mesh axis references overlap: 'b' and 'b:(1)2'");
  Result<Groups> misfit = DeviceGroupsAlongAxes(m, std::vector<AxisRef>{{1, SubAxis{3, 2}}});
  ASSERT_FALSE(misfit.ok());
  EXPECT_EQ(misfit.error().message, "sub-axis 'b:(3)2' does not fit mesh axis 'b' of size 4");
}

TEST(MeshTest, AxesOfGroups) {
  Mesh m = IotaMesh({{"a", 2}, {"b", 4}});
  auto names = [&](const Groups& groups, const Mesh& mesh) {
    std::optional<std::vector<AxisRef>> axes = MeshAxesOfGroups(groups, mesh);
    if (!axes) return std::string("<unknown>");
    std::string out;
    for (const AxisRef& a : *axes) {
      if (!out.empty()) out += ",";
      out += AxisRefToString(a, mesh);
    }
    return out;
  };
  EXPECT_EQ(names({{0, 1, 2, 3}, {4, 5, 6, 7}}, m), "b");
  EXPECT_EQ(names({{0, 4}, {1, 5}, {2, 6}, {3, 7}}, m), "a");
  EXPECT_EQ(names({{0, 1, 2, 3, 4, 5, 6, 7}}, m), "a,b");
  EXPECT_EQ(names({{0, 4, 1, 5, 2, 6, 3, 7}}, m), "b,a");
  EXPECT_EQ(names({{0, 2}, {1, 3}, {4, 6}, {5, 7}}, m), "b:(1)2");
  EXPECT_EQ(names({{0, 1}, {2, 3}, {4, 5}, {6, 7}}, m), "b:(2)2");
  EXPECT_EQ(names({{0}, {1}}, m), "");
  EXPECT_EQ(names({{0, 9}}, m), "<unknown>");
  // A mesh with size-1 axes and a permuted device order (JAX 0.10.2's
  // reconstruction of a 2x4 mesh for a reduction over the minor axis).
  Mesh p = ParseMesh("mesh['axis_0'=4,'axis_1'=1,'axis_2'=2], device_ids=([2,4]T(1,0))").value();
  EXPECT_EQ(names({{0, 1, 2, 3}, {4, 5, 6, 7}}, p), "axis_0");
  EXPECT_EQ(names({{0, 4}, {1, 5}, {2, 6}, {3, 7}}, p), "axis_2");
}

TEST(CollectiveDeviceListTest, ExplicitForm) {
  Result<CollectiveDeviceList> l = ParseCollectiveDeviceList("{{0,4},{1,5},{2,6},{3,7}}");
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->form, DeviceListForm::kExplicit);
  EXPECT_EQ(l->num_groups(), 4);
  EXPECT_EQ(l->group_size(), 2);
  EXPECT_TRUE(l->uniform());
  EXPECT_FALSE(l->all_participants());
  Result<CollectiveDeviceList> all = ParseCollectiveDeviceList("{}");
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->all_participants());
  EXPECT_EQ(all->group_size(), 0);
  EXPECT_FALSE(ParseCollectiveDeviceList("{{0,1},{2}}")->uniform());
  EXPECT_EQ(Expand("{ {0, 1} , {2,3} }"), (Groups{{0, 1}, {2, 3}}));
  EXPECT_EQ(Expand("{{0}}"), (Groups{{0}}));
}

TEST(CollectiveDeviceListTest, IotaForms) {
  // jax 0.10.2 (CPU, 8 devices): a reduction over b of a 2x4 mesh.
  EXPECT_EQ(Expand("[2,4]<=[8]"), (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  EXPECT_EQ(Expand("[4,2]<=[2,4]T(1,0)"), (Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
  EXPECT_EQ(Expand("[2,4]<=[2,2,2]T(0,2,1)"), (Groups{{0, 2, 1, 3}, {4, 6, 5, 7}}));
  Result<CollectiveDeviceList> l = ParseCollectiveDeviceList("[1,128]<=[128]");
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->form, DeviceListForm::kIota);
  EXPECT_EQ(l->num_groups(), 1);
  EXPECT_EQ(l->group_size(), 128);
}

TEST(CollectiveDeviceListTest, MeshAxesForms) {
  // jax 0.12.0.1 (CPU, mesh a=2 x b=4).
  Result<CollectiveDeviceList> l = ParseCollectiveDeviceList("mesh['a'=2,'b'=4] {'b'}");
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->form, DeviceListForm::kMeshAxes);
  EXPECT_EQ(l->num_groups(), 2);
  EXPECT_EQ(l->group_size(), 4);
  EXPECT_EQ(MeshAxisNames(*l), (std::vector<std::string>{"b"}));
  EXPECT_EQ(Expand("mesh['a'=2,'b'=4] {'b'}"), (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  EXPECT_EQ(Expand("mesh['a'=2,'b'=4] {'a'}"), (Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
  EXPECT_EQ(Expand("mesh['a'=2,'b'=4] {'a','b'}"), (Groups{{0, 1, 2, 3, 4, 5, 6, 7}}));
  // jax 0.12.0.1, a 2x1x4 mesh with a size-1 axis.
  EXPECT_EQ(Expand("mesh['x'=2,'y'=1,'z'=4] {'x','z'}"), (Groups{{0, 1, 2, 3, 4, 5, 6, 7}}));
  EXPECT_EQ(Expand("mesh['x'=2,'y'=1,'z'=4] {'x'}"), (Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
  // jax 0.10.2 (CPU): the same reduction over b as {{0,1,2,3},{4,5,6,7}},
  // written over XLA's own permuted mesh (matmul_tp_rs in the report).
  EXPECT_EQ(Expand("mesh['axis_0'=4,'axis_1'=1,'axis_2'=2], device_ids=([2,4]T(1,0)) {'axis_0'}"),
            (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  // jax 0.10.2 + flax 0.12.8 (CPU): nn.scan with FSDP over Mesh((4,2),
  // ('data','model')); the same groups as [4,2]<=[8] in that module.
  EXPECT_EQ(Expand("mesh['axis_0'=1,'axis_1'=2,'axis_2'=4], device_ids=([4,2]T(1,0)) {'axis_1'}"),
            (Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}}));
  // jax 0.10.2 (TPU v5e 2x2, compile-only).
  EXPECT_EQ(Expand("mesh['axis_0'=1,'axis_1'=2,'axis_2'=2], device_ids=([2,2]T(1,0)) {'axis_1'}"),
            (Groups{{0, 1}, {2, 3}}));
  EXPECT_EQ(Expand("mesh['axis_0'=8,'axis_1'=1] {'axis_0'}"), (Groups{{0, 1, 2, 3, 4, 5, 6, 7}}));
  // Explicit device ids, sub-axes, bare names, axis indices.
  EXPECT_EQ(Expand("mesh['a'=2,'b'=2], device_ids=(0,2,1,3) {'b'}"), (Groups{{0, 2}, {1, 3}}));
  EXPECT_EQ(Expand("mesh['a'=8] {'a':(1)2}"), (Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
  // Two sub-axes of one axis, in the order written: a:(2)2 (stride 2) major.
  EXPECT_EQ(Expand("mesh['a'=8] {'a':(2)2,'a':(1)2}"), (Groups{{0, 4, 2, 6}, {1, 5, 3, 7}}));
  EXPECT_EQ(Expand("mesh[a=2,b=4] {b}"), (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  EXPECT_EQ(Expand("mesh[a=2,b=4] {0}"), (Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
  EXPECT_EQ(MeshAxisNames(ParseCollectiveDeviceList("mesh['a'=8] {'a':(1)2}").value()),
            (std::vector<std::string>{"a:(1)2"}));
}

TEST(CollectiveDeviceListTest, ExactErrors) {
  EXPECT_EQ(DecodeError("{{0,1},{2,x}}"), "col 11: expected a device id in a replica group, found 'x'");
  EXPECT_EQ(DecodeError("{{0,1},{2,3}"),
            "col 13: expected '}' to close the replica groups, found end of value");
  EXPECT_EQ(DecodeError("{{0,-1}}"), "col 5: device id -1 is negative");
  EXPECT_EQ(DecodeError("[2,2,2]<=[8]"),
            "col 1: iota replica groups have 2 dimensions [groups,size], found 3");
  EXPECT_EQ(DecodeError("[2,4]0,1,2,3,4,5,6,7"), "col 6: expected '<=' after the iota dimensions, found '0'");
  EXPECT_EQ(DecodeError("mesh['a'=2] {'b'}"), "col 14: axis 'b' is not in the mesh");
  EXPECT_EQ(DecodeError("mesh['a'=2] {'a','a'}"), "col 13: mesh axis references overlap: 'a' and 'a'");
  EXPECT_EQ(DecodeError("mesh['a'=8] {'a':(3)2}"),
            "col 14: sub-axis 'a':(3)2 does not fit mesh axis 'a' of size 8");
  EXPECT_EQ(DecodeError("mesh['a'=8] {'a':(1)8}"),
            "col 14: sub-axis 'a':(1)8 does not fit mesh axis 'a' of size 8");
  EXPECT_EQ(DecodeError("mesh['a'=8] {'a'} extra"),
            "col 19: expected the end of the replica groups, found 'e'");
  EXPECT_EQ(DecodeError("groups"),
            "col 1: expected '{', '[' or 'mesh' to start the replica groups, found 'g'");
  EXPECT_EQ(DecodeError(""),
            "col 1: expected '{', '[' or 'mesh' to start the replica groups, found end of value");
}

TEST(CollectiveDeviceListTest, ExpansionIsBounded) {
  // A hostile iota of a billion devices decodes (nothing allocated) but does
  // not expand.
  Result<CollectiveDeviceList> l = ParseCollectiveDeviceList("[1,1000000000]<=[1000000000]");
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->group_size(), 1000000000);
  Result<Groups> g = ExpandDeviceGroups(*l);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.error().message,
            "the tile assignment holds 1000000000 devices, more than the limit of 1048576");
  Result<CollectiveDeviceList> m = ParseCollectiveDeviceList("mesh['a'=65536,'b'=65536] {'a'}");
  ASSERT_TRUE(m.ok());
  Result<Groups> mg = ExpandDeviceGroups(*m);
  ASSERT_FALSE(mg.ok());
  EXPECT_EQ(mg.error().message, "the mesh holds 4294967296 devices, more than the limit of 1048576");
  EXPECT_FALSE(ExpandDeviceGroups(ParseCollectiveDeviceList("{{0,1},{2,3}}").value(), 3).ok());
  EXPECT_TRUE(ExpandDeviceGroups(ParseCollectiveDeviceList("{{0,1},{2,3}}").value(), 4).ok());
}

TEST(SourceTargetPairsTest, Forms) {
  Result<std::vector<SourceTargetPair>> p = ParseSourceTargetPairs("{{0,1},{1,2},{2,3},{3,0}}");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(*p, (std::vector<SourceTargetPair>{{0, 1}, {1, 2}, {2, 3}, {3, 0}}));
  EXPECT_TRUE(ParseSourceTargetPairs("{}")->empty());
  auto error = [](std::string_view text) {
    auto r = ParseSourceTargetPairs(text);
    return r.ok() ? std::string("<decoded>")
                  : "col " + std::to_string(r.error().column) + ": " + r.error().message;
  };
  EXPECT_EQ(error("{{0,1,2}}"), "col 2: a source-target pair has 3 ids; it needs exactly 2");
  EXPECT_EQ(error("{{0,1},{-2,1}}"), "col 9: device id -2 is negative");
  EXPECT_EQ(error("{{0,1}"), "col 7: expected '}' to close the source-target pairs, found end of value");
}

TEST(GroupModeTest, XlaTruthTable) {
  EXPECT_EQ(GroupModeFor(false, std::nullopt).value(), CollectiveGroupMode::kCrossReplica);
  EXPECT_EQ(GroupModeFor(false, false).value(), CollectiveGroupMode::kCrossReplica);
  EXPECT_EQ(GroupModeFor(false, true).error().message,
            "Invalid combination of has_channel_id and use_global_device_ids");
  EXPECT_EQ(GroupModeFor(true, std::nullopt).value(), CollectiveGroupMode::kCrossPartition);
  EXPECT_EQ(GroupModeFor(true, false).value(), CollectiveGroupMode::kCrossReplicaAndPartition);
  EXPECT_EQ(GroupModeFor(true, true).value(), CollectiveGroupMode::kFlattenedId);
  EXPECT_EQ(CollectiveGroupModeName(CollectiveGroupMode::kFlattenedId), "flattened-id");
}

TEST(GroupModeTest, FromInstructions) {
  auto r = ParseHloText(R"(HloModule m, num_partitions=4
%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %a = f32[] add(%x, %y)
}
ENTRY %e (p: f32[8]) -> f32[8] {
  %p = f32[8]{0} parameter(0)
  %ar0 = f32[8]{0} all-reduce(%p), replica_groups={}, to_apply=%add
  %ar1 = f32[8]{0} all-reduce(%p), channel_id=1, replica_groups={{0,1}}, to_apply=%add
  %ar2 = f32[8]{0} all-reduce(%p), channel_id=1, replica_groups={{0,1}}, use_global_device_ids=true, to_apply=%add
  %a2a = f32[8]{0} all-to-all(%p), channel_id=1, replica_groups={{0,1}}, dimensions={0}
  %cp = f32[8]{0} collective-permute(%p), channel_id=2, source_target_pairs={{0,1}}
  %bad = f32[8]{0} all-reduce(%p), channel_id=x1, replica_groups={}, to_apply=%add
  ROOT %bad2 = f32[8]{0} all-reduce(%p), channel_id=1, use_global_device_ids=yes, replica_groups={}, to_apply=%add
})");
  ASSERT_TRUE(r.ok()) << r.error().Format();
  const HloComputation* e = r->modules[0]->entry_computation();
  EXPECT_EQ(GroupModeOf(*e->GetInstruction("ar0")).value(), CollectiveGroupMode::kCrossReplica);
  // XLA keeps use_global_device_ids as a bool on all-reduce: absent = false.
  EXPECT_EQ(GroupModeOf(*e->GetInstruction("ar1")).value(), CollectiveGroupMode::kCrossReplicaAndPartition);
  EXPECT_EQ(GroupModeOf(*e->GetInstruction("ar2")).value(), CollectiveGroupMode::kFlattenedId);
  EXPECT_EQ(GroupModeOf(*e->GetInstruction("a2a")).value(), CollectiveGroupMode::kCrossPartition);
  EXPECT_EQ(GroupModeOf(*e->GetInstruction("cp")).value(), CollectiveGroupMode::kCrossPartition);
  EXPECT_EQ(GroupModeOf(*e->GetInstruction("bad")).error().message,
            "expected an integer channel_id, found 'x'");
  EXPECT_EQ(GroupModeOf(*e->GetInstruction("bad2")).error().message,
            "expected 'true' or 'false' for use_global_device_ids, found 'yes'");
}

}  // namespace
}  // namespace hloscope
