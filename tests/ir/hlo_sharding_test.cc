// Shardings decoded from their text: every form XLA prints (the examples
// are copied from real JAX dumps, version in the comment), shard and global
// shapes, which devices hold which tile (checked against JAX's own
// devices_indices_map for the same mesh and PartitionSpec), replication,
// tuples, unknown future forms and exact errors.
#include "hloscope/ir/hlo_sharding.h"

#include <gtest/gtest.h>

#include "hloscope/support/saturating.h"

namespace hloscope {
namespace {

using Dims = std::vector<int64_t>;

HloSharding Decode(std::string_view text) {
  Result<HloSharding> s = ParseHloSharding(text);
  EXPECT_TRUE(s.ok()) << text << ": " << (s.ok() ? "" : s.error().Format());
  return s.ok() ? *s : HloSharding{};
}

std::string DecodeError(std::string_view text) {
  Result<HloSharding> s = ParseHloSharding(text);
  if (s.ok()) return "<decoded>";
  return "col " + std::to_string(s.error().column) + ": " + s.error().message;
}

// Device -> its slice [lo, hi) per dimension of a value of `global`.
std::vector<std::pair<Dims, Dims>> Slices(const HloSharding& s, const Dims& global, int64_t devices) {
  std::vector<std::pair<Dims, Dims>> out;
  Dims shard = ShardShape(s, global).value();
  for (int64_t d = 0; d < devices; ++d) {
    Dims lo(global.size(), 0), hi = global;
    if (s.kind == ShardingKind::kTiled) {
      Dims index = TileIndexOfDevice(s, d).value();
      for (size_t i = 0; i < global.size(); ++i) {
        lo[i] = std::min(index[i] * shard[i], global[i]);
        hi[i] = std::min((index[i] + 1) * shard[i], global[i]);
      }
    }
    out.push_back({lo, hi});
  }
  return out;
}

TEST(HloShardingTest, SimpleKinds) {
  EXPECT_EQ(Decode("{replicated}").kind, ShardingKind::kReplicated);
  EXPECT_EQ(Decode("{manual}").kind, ShardingKind::kManual);
  EXPECT_EQ(Decode("{unknown}").kind, ShardingKind::kUnknown);
  EXPECT_EQ(Decode("{unreduced}").kind, ShardingKind::kUnreduced);
  HloSharding m = Decode("{maximal device=3}");
  EXPECT_EQ(m.kind, ShardingKind::kMaximal);
  EXPECT_EQ(m.device, 3);
  EXPECT_EQ(m.text, "{maximal device=3}");
  HloSharding md = Decode("{replicated metadata={op_name=\"a}b\" source_line=3}}");
  EXPECT_EQ(md.kind, ShardingKind::kReplicated);
  EXPECT_EQ(md.metadata, "{op_name=\"a}b\" source_line=3}");
  HloSharding g = Decode("{devices=[2,1]<=[2] shard_as 1}");
  EXPECT_EQ(g.shard_as, 1);
  EXPECT_EQ(Decode("{replicated shard_like 7}").shard_like, 7);
}

TEST(HloShardingTest, TiledForms) {
  // jax 0.10.2, CPU and TPU: P('a', None) over a 2x4 mesh.
  HloSharding a = Decode("{devices=[2,1,4]<=[8] last_tile_dim_replicate}");
  EXPECT_EQ(a.kind, ShardingKind::kTiled);
  EXPECT_TRUE(a.replicate_on_last_tile_dim);
  EXPECT_EQ(a.TiledDataRank(), 2);
  EXPECT_EQ(a.SubgroupDimCount(), 1);
  EXPECT_EQ(a.ReplicasPerTile(), 4);
  EXPECT_EQ(ShardsPerDimension(a, 2).value(), (Dims{2, 1}));
  EXPECT_TRUE(IsReplicatedOnSomeAxis(a));
  // jax 0.10.2: P(None, 'b').
  HloSharding b = Decode("{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}");
  EXPECT_EQ(ShardsPerDimension(b, 2).value(), (Dims{1, 4}));
  EXPECT_EQ(
      DevicesPerTile(b).value(),
      (std::vector<TileDevices>{{{0, 0}, {0, 4}}, {{0, 1}, {1, 5}}, {{0, 2}, {2, 6}}, {{0, 3}, {3, 7}}}));
  // jax 0.10.2: P('a', 'b').
  HloSharding ab = Decode("{devices=[2,4]<=[8]}");
  EXPECT_EQ(ab.ReplicasPerTile(), 1);
  EXPECT_FALSE(IsReplicatedOnSomeAxis(ab));
  EXPECT_EQ(TileIndexOfDevice(ab, 6).value(), (Dims{1, 2}));
  // Explicit device order (older XLA, the corpus).
  HloSharding e = Decode("{devices=[2,2]0,2,1,3}");
  EXPECT_EQ(e.tile_assignment.devices, (Dims{0, 2, 1, 3}));
  EXPECT_EQ(TileIndexOfDevice(e, 2).value(), (Dims{0, 1}));
  EXPECT_EQ(TileIndexOfDevice(e, 9).error().message, "device 9 holds no tile of this sharding");
  // jax 0.10.2 GSPMD (jax_use_shardy_partitioner=False), a partially manual
  // shard_map: manual over b, replicated over a.
  HloSharding pm = Decode("{devices=[1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}");
  EXPECT_EQ(pm.last_tile_dims, (std::vector<SubgroupKind>{SubgroupKind::kManual, SubgroupKind::kReplicated}));
  EXPECT_EQ(pm.TiledDataRank(), 2);
  EXPECT_EQ(pm.ReplicasPerTile(), 2);
  EXPECT_EQ(ShardShape(pm, Dims{64, 32}).value(), (Dims{64, 32}));
  // The same, on a scalar: every tile-assignment dimension is a subgroup.
  HloSharding scalar = Decode("{devices=[4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}");
  EXPECT_EQ(scalar.TiledDataRank(), 0);
  EXPECT_EQ(ShardShape(scalar, Dims{}).value(), Dims{});
  EXPECT_EQ(Decode("{devices=[2,1,2]<=[4] last_tile_dims={unreduced}}").last_tile_dims,
            std::vector<SubgroupKind>{SubgroupKind::kUnreduced});
  EXPECT_EQ(Decode("{devices=[2,2]<=[4] last_tile_dims={maximul}}").last_tile_dims,
            std::vector<SubgroupKind>{SubgroupKind::kMaximal});  // older printer's spelling
}

TEST(HloShardingTest, ShardAndGlobalShapes) {
  HloSharding a = Decode("{devices=[2,1,4]<=[8] last_tile_dim_replicate}");
  EXPECT_EQ(ShardShape(a, Dims{64, 128}).value(), (Dims{32, 128}));
  EXPECT_EQ(ShardShape(a, Dims{7, 3}).value(), (Dims{4, 3}));  // ceil: uneven shapes are padded
  EXPECT_EQ(GlobalShapeRange(a, Dims{32, 128}).value(), (GlobalDimsRange{{63, 128}, {64, 128}}));
  EXPECT_EQ(GlobalShapeRange(a, Dims{0, 5}).value(), (GlobalDimsRange{{0, 5}, {0, 5}}));
  EXPECT_EQ(ShardShape(Decode("{replicated}"), Dims{5, 6}).value(), (Dims{5, 6}));
  EXPECT_EQ(GlobalShapeRange(Decode("{manual}"), Dims{5}).value(), (GlobalDimsRange{{5}, {5}}));
  EXPECT_EQ(ShardShape(a, Dims{64}).error().message, "the sharding tiles 2 dimensions, the shape has 1");
  EXPECT_EQ(ShardShape(a, Dims{-1, 4}).error().message, "dimension 0 has unknown size");
  EXPECT_EQ(ShardShape(Decode("{{replicated}}"), Dims{4}).error().message,
            "a tuple sharding has no shards per dimension");
  // Saturating: a huge shard times its shards.
  EXPECT_EQ(GlobalShapeRange(Decode("{devices=[4]<=[4]}"), Dims{int64_t{1} << 62})->max[0], kSaturated);
}

TEST(HloShardingTest, TupleShardings) {
  // jax 0.12.0.1 (before optimizations): a shard_map's tuple of manual values.
  HloSharding t = Decode("{{mesh['a'=2,'b'=4], manual}, {mesh['a'=2,'b'=4], manual}}");
  EXPECT_EQ(t.kind, ShardingKind::kTuple);
  ASSERT_EQ(t.tuple_elements.size(), 2u);
  EXPECT_EQ(t.tuple_elements[1].kind, ShardingKind::kManual);
  EXPECT_EQ(t.tuple_elements[1].text, "{mesh['a'=2,'b'=4], manual}");
  HloSharding v2 = Decode(
      "{{replicated}, {maximal device=0}, {devices=[2,1]<=[2] last_tile_dim_replicate "
      "metadata={op_name=\"s\"}}, "
      "{manual}, {replicated}, /*index=5*/{devices=[2]0,1}}");
  ASSERT_EQ(v2.tuple_elements.size(), 6u);
  EXPECT_EQ(v2.tuple_elements[2].metadata, "{op_name=\"s\"}");
  EXPECT_EQ(v2.tuple_elements[5].tile_assignment.devices, (Dims{0, 1}));
  EXPECT_EQ(LeafSharding(v2, 1)->device, 0);
  EXPECT_EQ(LeafSharding(v2, 6), nullptr);
  EXPECT_TRUE(IsReplicatedOnSomeAxis(v2));
  HloSharding single = Decode("{replicated}");
  EXPECT_EQ(LeafSharding(single, 3), &single);
  HloSharding empty = Decode("{}");
  EXPECT_EQ(empty.kind, ShardingKind::kTuple);
  EXPECT_TRUE(empty.tuple_elements.empty());
}

TEST(HloShardingTest, NamedForms) {
  // jax 0.12.0.1 (before optimizations), mesh a=2 x b=4.
  HloSharding ab = Decode("{mesh['a'=2,'b'=4], [{'a'}, {'b'}]}");
  EXPECT_EQ(ab.kind, ShardingKind::kTiled);
  ASSERT_TRUE(ab.named.has_value());
  EXPECT_EQ(ab.named->mesh.axes.size(), 2u);
  EXPECT_EQ(TileAssignmentToString(ab.tile_assignment), "[2,4]<=[8]");
  HloSharding nb = Decode("{mesh['a'=2,'b'=4], [{}, {'b'}]}");
  EXPECT_EQ(TileAssignmentToString(nb.tile_assignment), "[1,4,2]<=[2,4]T(1,0)");
  EXPECT_TRUE(nb.replicate_on_last_tile_dim);
  HloSharding ba = Decode("{mesh['a'=2,'b'=4], [{}, {'b', 'a'}]}");
  EXPECT_EQ(TileAssignmentToString(ba.tile_assignment), "[1,8]<=[2,4]T(1,0)");
  HloSharding open = Decode("{mesh['a'=2,'b'=4], [{?}, {'b', ?}]}");
  EXPECT_EQ(open.named->dim_open, (std::vector<bool>{true, true}));
  EXPECT_EQ(open.named->dim_axes[1].size(), 1u);
  EXPECT_EQ(ShardsPerDimension(open, 2).value(), (Dims{1, 4}));
  // Partially manual (shard_map over b): manual and replicated subgroups.
  HloSharding pm = Decode("{mesh['a'=2,'b'=4], [{?}, {?}], manual={'b'}}");
  EXPECT_EQ(TileAssignmentToString(pm.tile_assignment), "[1,1,4,2]<=[2,4]T(1,0)");
  EXPECT_EQ(pm.last_tile_dims, (std::vector<SubgroupKind>{SubgroupKind::kManual, SubgroupKind::kReplicated}));
  EXPECT_EQ(Decode("{mesh['a'=2,'b'=4], [{}, {}]}").kind, ShardingKind::kReplicated);
  EXPECT_EQ(Decode("{mesh['a'=2,'b'=4], replicated}").kind, ShardingKind::kReplicated);
  EXPECT_EQ(Decode("{mesh['a'=2,'b'=4], manual}").kind, ShardingKind::kManual);
  EXPECT_EQ(Decode("{mesh['a'=2,'b'=4], unreduced}").kind, ShardingKind::kUnreduced);
  // jax 0.12.0.1 single-device compiles (tests/fixtures/jax-cpu.jax0.12.0.1).
  EXPECT_EQ(Decode("{mesh[], replicated}").kind, ShardingKind::kReplicated);
  EXPECT_EQ(Decode("{mesh[], [{}, {}]}").kind, ShardingKind::kReplicated);
  // jax 0.12.0.1: a pure_callback's sharding; XLA's own spelling.
  HloSharding sd = Decode("{single_device[device_id=0]}");
  EXPECT_EQ(sd.kind, ShardingKind::kMaximal);
  EXPECT_EQ(sd.device, 0);
  EXPECT_EQ(Decode("{maximal_mesh[device_id=5], metadata={{op_name=\"x\"}}}").device, 5);
  // XLA's NamedSharding::ToString forms: replicated/unreduced axes, sub-axes,
  // device ids, metadata.
  HloSharding full = Decode(
      "{mesh[a=2,b=2,c=2], device_ids=(0,2,1,3,4,6,5,7), [{a}, {}], replicated={c}, unreduced={b}, "
      "metadata={{op_name=\"m\"}}}");
  EXPECT_EQ(full.last_tile_dims,
            (std::vector<SubgroupKind>{SubgroupKind::kUnreduced, SubgroupKind::kReplicated}));
  EXPECT_EQ(full.metadata, "{{op_name=\"m\"}}");
  EXPECT_FALSE(full.tile_assignment.iota.has_value());  // a permuted mesh: ids written out
  EXPECT_EQ(full.tile_assignment.devices, (Dims{0, 2, 1, 3, 4, 6, 5, 7}));
  HloSharding sub = Decode("{mesh['a'=4,'b'=2], [{'a':(1)2}, {'b'}]}");
  EXPECT_EQ(TileAssignmentToString(sub.tile_assignment), "[2,2,2]<=[2,2,2]T(0,2,1)");
  EXPECT_EQ(sub.ReplicasPerTile(), 2);
}

TEST(HloShardingTest, MatchesJaxDevicesIndicesMap) {
  // For each case JAX compiled `x * 2` with a NamedSharding over a 2x4 mesh
  // and printed the parameter's sharding; the slices are JAX's
  // NamedSharding.devices_indices_map((16, 24)) by device position.
  struct Case {
    std::string_view text;  // jax 0.10.2 (V2) / jax 0.12.0.1 (named)
    std::vector<std::pair<Dims, Dims>> slices;
  };
  const Dims global = {16, 24};
  auto row = [](int64_t lo0, int64_t hi0, int64_t lo1, int64_t hi1) {
    return std::pair<Dims, Dims>{{lo0, lo1}, {hi0, hi1}};
  };
  std::vector<std::pair<Dims, Dims>> p_b = {row(0, 4, 0, 24),   row(4, 8, 0, 24),  row(8, 12, 0, 24),
                                            row(12, 16, 0, 24), row(0, 4, 0, 24),  row(4, 8, 0, 24),
                                            row(8, 12, 0, 24),  row(12, 16, 0, 24)};
  std::vector<std::pair<Dims, Dims>> p_ba_2 = {row(0, 16, 0, 3),   row(0, 16, 6, 9),  row(0, 16, 12, 15),
                                               row(0, 16, 18, 21), row(0, 16, 3, 6),  row(0, 16, 9, 12),
                                               row(0, 16, 15, 18), row(0, 16, 21, 24)};
  std::vector<std::pair<Dims, Dims>> p_ab = {row(0, 8, 0, 6),    row(0, 8, 6, 12),  row(0, 8, 12, 18),
                                             row(0, 8, 18, 24),  row(8, 16, 0, 6),  row(8, 16, 6, 12),
                                             row(8, 16, 12, 18), row(8, 16, 18, 24)};
  for (const Case& c : std::vector<Case>{
           {"{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}", p_b},
           {"{mesh['a'=2,'b'=4], [{'b'}, {}]}", p_b},
           {"{devices=[1,8]<=[2,4]T(1,0)}", p_ba_2},
           {"{mesh['a'=2,'b'=4], [{}, {'b', 'a'}]}", p_ba_2},
           {"{devices=[2,4]<=[8]}", p_ab},
           {"{mesh['a'=2,'b'=4], [{'a'}, {'b'}]}", p_ab},
       })
    EXPECT_EQ(Slices(Decode(c.text), global, 8), c.slices) << c.text;
}

TEST(HloShardingTest, ReplicatedMeshAxes) {
  auto names = [](const HloSharding& s, const Mesh* mesh) {
    std::optional<std::vector<AxisRef>> axes = ReplicatedMeshAxes(s, mesh);
    if (!axes) return std::string("<unknown>");
    const Mesh& m = s.named ? s.named->mesh : *mesh;
    std::string out;
    for (const AxisRef& a : *axes) {
      if (!out.empty()) out += ",";
      out += AxisRefToString(a, m);
    }
    return out;
  };
  Mesh mesh = IotaMesh({{"a", 2}, {"b", 4}});
  EXPECT_EQ(names(Decode("{mesh['a'=2,'b'=4], [{'a'}, {}]}"), nullptr), "b");
  EXPECT_EQ(names(Decode("{mesh['a'=2,'b'=4], [{}, {}]}"), nullptr), "a,b");
  EXPECT_EQ(names(Decode("{mesh['a'=4,'b'=2], [{'a':(1)2}, {'b'}]}"), nullptr), "a:(2)2");
  EXPECT_EQ(names(Decode("{mesh['a'=2,'b'=4], [{?}, {?}], manual={'b'}}"), nullptr), "a");
  EXPECT_EQ(names(Decode("{devices=[2,1,4]<=[8] last_tile_dim_replicate}"), &mesh), "b");
  EXPECT_EQ(names(Decode("{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"), &mesh), "a");
  EXPECT_EQ(names(Decode("{devices=[2,4]<=[8]}"), &mesh), "");
  EXPECT_EQ(names(Decode("{replicated}"), &mesh), "a,b");
  EXPECT_EQ(names(Decode("{devices=[2,1,4]<=[8] last_tile_dim_replicate}"), nullptr), "<unknown>");
}

TEST(HloShardingTest, UnknownFutureFormsAreKept) {
  HloSharding f = Decode("{devices=[2]<=[2] future_flag}");
  EXPECT_EQ(f.kind, ShardingKind::kOther);
  EXPECT_EQ(f.text, "{devices=[2]<=[2] future_flag}");
  HloSharding g = Decode("{brand_new=[1,2]{x} \"}\" (y)}");
  EXPECT_EQ(g.kind, ShardingKind::kOther);
  HloSharding n = Decode("{mesh['a'=2], [{'a'}], future={'a'}}");
  EXPECT_EQ(n.kind, ShardingKind::kOther);
  HloSharding t = Decode("{{replicated}, {shiny}}");
  EXPECT_EQ(t.tuple_elements[1].kind, ShardingKind::kOther);
  EXPECT_EQ(t.tuple_elements[1].text, "{shiny}");
  EXPECT_FALSE(IsReplicatedOnSomeAxis(t.tuple_elements[1]));
  EXPECT_EQ(ShardsPerDimension(f, 1).error().message,
            "a sharding this version does not understand has no shards per dimension");
}

TEST(HloShardingTest, HostileSizesAreBounded) {
  // 2^20 tiles of rank 3 would be 3 million tile indices: refused.
  HloSharding wide = Decode("{devices=[1024,1024,1]<=[1048576]}");
  EXPECT_EQ(wide.TiledDataRank(), 3);
  EXPECT_EQ(ShardShape(wide, Dims{1 << 20, 1 << 20, 1}).value(), (Dims{1024, 1024, 1}));
  EXPECT_EQ(DevicesPerTile(wide).error().message,
            "the sharding has 1048576 tiles of rank 3, more than the limit of 1048576 ids");
  // A billion devices in iota order decode without allocating them.
  HloSharding billion = Decode("{devices=[1000000000,1]<=[1000000000]}");
  EXPECT_EQ(ShardShape(billion, Dims{2000000000, 5}).value(), (Dims{2, 5}));
  EXPECT_EQ(DevicesPerTile(billion).error().message,
            "the tile assignment holds 1000000000 devices, more than the limit of 1048576");
  std::string many_axes = "{mesh[";
  for (int i = 0; i <= 1024; ++i) many_axes += (i ? ",a" : "a") + std::to_string(i) + "=1";
  many_axes += "], replicated}";
  EXPECT_EQ(DecodeError(many_axes),
            "col " + std::to_string(many_axes.find("a1024=") + 1) + ": the mesh has more than 1024 axes");
}

TEST(HloShardingTest, ExactErrors) {
  EXPECT_EQ(DecodeError("{replicated devices=[2]0,1}"),
            "col 1: replicated shardings should not have any devices assigned");
  EXPECT_EQ(DecodeError("{maximal}"), "col 1: maximal shardings should have exactly one device assigned");
  EXPECT_EQ(DecodeError("{manual device=1}"), "col 1: manual shardings should not have any devices assigned");
  EXPECT_EQ(DecodeError("{last_tile_dim_replicate}"),
            "col 1: non-maximal shardings must have a tile assignment list including dimensions");
  EXPECT_EQ(DecodeError("{devices=[1]0}"),
            "col 1: non-maximal shardings must have more than one device assigned");
  EXPECT_EQ(DecodeError("{devices=[2,2]<=[4] last_tile_dim_replicate last_tile_dims={manual}}"),
            "col 1: last_tile_dim_replicate and last_tile_dims= cannot both be given");
  EXPECT_EQ(DecodeError("{devices=[2]<=[2] last_tile_dims={manual, replicated}}"),
            "col 1: the tile assignment has 1 dimensions, fewer than its 2 subgroups");
  EXPECT_EQ(DecodeError("{devices=[2,2]<=[4] last_tile_dims={sideways}}"),
            "col 37: unknown subgroup kind 'sideways' in last_tile_dims");
  EXPECT_EQ(DecodeError("{devices=[2,2]<=[5]}"),
            "col 17: the iota has 5 devices but the tile assignment dimensions need 4");
  EXPECT_EQ(DecodeError("{maximal device=-1}"), "col 17: device id -1 is negative");
  EXPECT_EQ(DecodeError("{replicated"), "col 12: expected '}' to close the sharding, found end of value");
  EXPECT_EQ(DecodeError("{replicated} {manual}"), "col 14: expected the end of the sharding, found '{'");
  EXPECT_EQ(DecodeError("{{replicated}, {{manual}}}"),
            "col 17: expected a sharding keyword (tuple shardings do not nest), found '{'");
  EXPECT_EQ(DecodeError("{3}"), "col 2: expected a sharding keyword, found '3'");
  EXPECT_EQ(DecodeError("replicated"), "col 1: expected '{' to open the sharding, found 'r'");
  EXPECT_EQ(DecodeError("{mesh['a'=2], [{'b'}]}"), "col 17: axis 'b' is not in the mesh");
  EXPECT_EQ(DecodeError("{mesh['a'=2], [{'a'}, {'a'}]}"), "col 1: mesh axis references overlap: 'a' and 'a'");
  EXPECT_EQ(DecodeError("{mesh['a'=2], [{?, 'a'}]}"),
            "col 18: expected '}' after '?' (it ends the list), found ','");
  EXPECT_EQ(DecodeError("{mesh['a'=2], replicated, extra}"),
            "col 27: expected 'metadata=' after the sharding kind, found 'e'");
  EXPECT_EQ(DecodeError("{single_device[device_id=x]}"), "col 26: expected a device id, found 'x'");
}

}  // namespace
}  // namespace hloscope
