// Collective traffic: group sizes, groups, mesh axes and bytes per device for
// every collective form (sync, async pairs, sugared and wrapped async,
// combined tuples), the byte conventions of collective_traffic.h on lines
// copied from real JAX dumps, decode errors as values, hostile sizes.
#include "hloscope/analysis/collective_traffic.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "hloscope/ir/name_index.h"
#include "hloscope/parser/parser.h"

namespace hloscope {
namespace {

using Groups = std::vector<std::vector<int64_t>>;

constexpr std::string_view kAdd = R"(
%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %a = f32[] add(%x, %y)
}
)";

class CollectiveTrafficTest : public ::testing::Test {
 protected:
  // Parses `header` + the add computation + `body` (an ENTRY computation).
  void Parse(std::string_view header, std::string_view body) {
    std::string text = std::string(header) + "\n" + std::string(kAdd) + std::string(body);
    auto r = ParseHloText(text);
    ASSERT_TRUE(r.ok()) << r.error().Format();
    group_ = std::move(r).value();
    module_ = group_.modules[0].get();
    auto config = DecodeSpmdConfig(*module_);
    ASSERT_TRUE(config.ok()) << config.error().Format();
    config_ = *config;
  }
  const HloInstruction& I(std::string_view name) {
    std::vector<const HloInstruction*> all = module_->names().InstructionsNamed(name);
    EXPECT_EQ(all.size(), 1u) << name;
    return *all.at(0);
  }
  CollectiveTraffic T(std::string_view name) {
    Result<CollectiveTraffic> t = AnalyzeCollective(I(name), config_);
    EXPECT_TRUE(t.ok()) << name << ": " << (t.ok() ? "" : t.error().Format());
    return t.ok() ? *t : CollectiveTraffic{};
  }
  std::string Error(std::string_view name) {
    Result<CollectiveTraffic> t = AnalyzeCollective(I(name), config_);
    return t.ok() ? "<analyzed>" : t.error().message;
  }

  HloModuleGroup group_;
  HloModule* module_ = nullptr;
  SpmdConfig config_;
};

TEST_F(CollectiveTrafficTest, SyncCollectivesFromRealDumps) {
  Parse("HloModule jit_f, num_partitions=8", R"(
ENTRY %e (p: f32[32,256], q: f32[64,512], r: f32[32,1024], s: f32[128,128]) -> f32[256,256] {
  %p = f32[32,256]{1,0} parameter(0)
  %q = f32[64,512]{1,0} parameter(1)
  %r = f32[32,1024]{1,0} parameter(2)
  %s = f32[128,128]{1,0} parameter(3)
  // jax 0.10.2 CPU (grad of an FSDP loss): every device, XLA's own axis names.
  %all-gather = f32[256,256]{1,0} all-gather(%p), channel_id=1, replica_groups=mesh['axis_0'=8,'axis_1'=1] {'axis_0'}, dimensions={0}, use_global_device_ids=true
  // jax 0.10.2 CPU (x @ w contracting over b): the form that failed to parse.
  %all-reduce = f32[64,512]{1,0} all-reduce(%q), channel_id=1, replica_groups=mesh['axis_0'=4,'axis_1'=1,'axis_2'=2], device_ids=([2,4]T(1,0)) {'axis_0'}, use_global_device_ids=true, to_apply=%add
  // jax 0.12.0.1 CPU (shard_map psum_scatter over b).
  %reduce_scatter.5 = f32[8,1024]{1,0} reduce-scatter(%r), channel_id=1, replica_groups=mesh['a'=2,'b'=4] {'b'}, use_global_device_ids=true, dimensions={0}, to_apply=%add
  // jax 0.12.0.1 CPU (shard_map all_to_all over b).
  %all_to_all.5 = f32[128,128]{1,0} all-to-all(%s), channel_id=1, replica_groups=mesh['a'=2,'b'=4] {'b'}, dimensions={1}
  // jax 0.10.2 CPU (shard_map ppermute over b).
  %ppermute.3 = f32[32,256]{1,0} collective-permute(%p), channel_id=1, source_target_pairs={{0,1},{1,2},{2,3},{3,0},{4,5},{5,6},{6,7},{7,4}}
  // jax 0.10.2 CPU (scan over layers, FSDP weights): iota groups.
  %all-reduce.2 = f32[32,256]{1,0} all-reduce(%p), channel_id=1, replica_groups=[2,4]<=[8], use_global_device_ids=true, to_apply=%add
  ROOT %ag2 = f32[256,256]{1,0} all-gather(%p), channel_id=1, replica_groups={{0,1,2,3,4,5,6,7}}, dimensions={0}, use_global_device_ids=true
})");
  CollectiveTraffic ag = T("all-gather");
  EXPECT_EQ(ag.family, CollectiveFamily::kAllGather);
  EXPECT_EQ(ag.part, CollectivePart::kSync);
  EXPECT_EQ(ag.mode, CollectiveGroupMode::kFlattenedId);
  EXPECT_EQ(ag.group_size, 8);
  EXPECT_EQ(ag.num_groups, 1);
  EXPECT_TRUE(ag.spans_all_devices);
  EXPECT_EQ(ag.mesh_axes, (std::vector<std::string>{"axis_0"}));
  EXPECT_TRUE(ag.mesh_axes_known);
  EXPECT_EQ(ag.operand_bytes, 32 * 256 * 4);
  EXPECT_EQ(ag.bytes_sent, 7 * 32 * 256 * 4);      // its operand to 7 peers
  EXPECT_EQ(ag.bytes_received, 7 * 32 * 256 * 4);  // result - own operand
  EXPECT_TRUE(ag.exact);

  CollectiveTraffic ar = T("all-reduce");
  EXPECT_EQ(ar.groups, (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  EXPECT_EQ(ar.group_size, 4);
  EXPECT_FALSE(ar.spans_all_devices);
  EXPECT_EQ(ar.mesh_axes, (std::vector<std::string>{"axis_0"}));
  EXPECT_EQ(ar.bytes_sent, 2 * (64 * 512 * 4) * 3 / 4);  // reduce-scatter + all-gather
  EXPECT_EQ(ar.bytes_received, ar.bytes_sent);

  CollectiveTraffic rs = T("reduce_scatter.5");
  EXPECT_EQ(rs.family, CollectiveFamily::kReduceScatter);
  EXPECT_EQ(rs.mesh_axes, (std::vector<std::string>{"b"}));
  EXPECT_EQ(rs.bytes_sent, 32 * 1024 * 4 * 3 / 4);

  CollectiveTraffic a2a = T("all_to_all.5");
  EXPECT_EQ(a2a.mode, CollectiveGroupMode::kCrossPartition);
  EXPECT_EQ(a2a.bytes_sent, 128 * 128 * 4 * 3 / 4);
  EXPECT_EQ(a2a.bytes_received, a2a.bytes_sent);

  CollectiveTraffic cp = T("ppermute.3");
  EXPECT_EQ(cp.family, CollectiveFamily::kCollectivePermute);
  EXPECT_EQ(cp.pairs.size(), 8u);
  EXPECT_TRUE(cp.groups.empty());
  EXPECT_TRUE(cp.max_over_devices);
  EXPECT_EQ(cp.bytes_sent, 32 * 256 * 4);
  EXPECT_EQ(cp.bytes_received, 32 * 256 * 4);

  CollectiveTraffic iota = T("all-reduce.2");
  EXPECT_EQ(iota.groups, (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  EXPECT_FALSE(iota.mesh_axes_known);  // no mesh in the text
  EXPECT_TRUE(T("ag2").spans_all_devices);
}

TEST_F(CollectiveTrafficTest, MeshAxesFromTheCallersMesh) {
  Parse("HloModule m, num_partitions=8", R"(
ENTRY %e (p: f32[32,32]) -> f32[32,32] {
  %p = f32[32,32]{1,0} parameter(0)
  %iota = f32[32,32]{1,0} all-reduce(%p), channel_id=1, replica_groups=[2,4]<=[8], use_global_device_ids=true, to_apply=%add
  %expl = f32[32,32]{1,0} all-reduce(%p), channel_id=1, replica_groups={{0,4},{1,5},{2,6},{3,7}}, use_global_device_ids=true, to_apply=%add
  %both = f32[32,32]{1,0} all-reduce(%p), channel_id=1, replica_groups=[1,8]<=[8], use_global_device_ids=true, to_apply=%add
  %half = f32[32,32]{1,0} all-reduce(%p), channel_id=1, replica_groups=[4,2]<=[8], use_global_device_ids=true, to_apply=%add
  ROOT %odd = f32[32,32]{1,0} all-reduce(%p), channel_id=1, replica_groups={{0,3},{1,2},{4,7},{5,6}}, use_global_device_ids=true, to_apply=%add
})");
  config_.mesh = IotaMesh({{"a", 2}, {"b", 4}});
  EXPECT_EQ(T("iota").mesh_axes, (std::vector<std::string>{"b"}));
  EXPECT_EQ(T("expl").mesh_axes, (std::vector<std::string>{"a"}));
  EXPECT_EQ(T("both").mesh_axes, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(T("half").mesh_axes, (std::vector<std::string>{"b:(2)2"}));
  EXPECT_FALSE(T("odd").mesh_axes_known);
  EXPECT_TRUE(T("iota").mesh_axes_known);
  // A mesh of another size says nothing.
  config_.mesh = IotaMesh({{"a", 4}});
  EXPECT_FALSE(T("iota").mesh_axes_known);
}

// Replica groups naming 2^20 devices in a few bytes
// (tools/gen_hostile_bounds.py replica-groups): the sizes come from the
// form, never written out, and what is written out (to read ids against the
// user's mesh) comes from one budget per module, each form once.
TEST_F(CollectiveTrafficTest, HugeGroupsAreSizesNotIds) {
  std::string body = "ENTRY %e (p: f32[8]) -> f32[8] {\n  %p = f32[8]{0} parameter(0)\n";
  const char* forms[] = {"[1,1048576]<=[1048576]", "mesh['x'=1024,'y'=1024] {'x'}"};
  for (int i = 0; i < 2; ++i)
    body += fmt::format(
        "  %f{} = f32[8]{{0}} all-reduce(%p), channel_id=1, replica_groups={}, use_global_device_ids=true, "
        "to_apply=%add\n",
        i, forms[i]);
  // 40 collectives over 20 distinct iota forms of 2^20 ids, each twice.
  for (int i = 0; i < 40; ++i)
    body += fmt::format(
        "  %d{} = f32[8]{{0}} all-reduce(%p), channel_id=1, replica_groups=[{},{}]<=[1048576], "
        "use_global_device_ids=true, to_apply=%add\n",
        i, 1 << (i % 20), 1048576 >> (i % 20));
  body += "  ROOT %r = f32[8]{0} copy(%p)\n}\n";
  Parse("HloModule m, num_partitions=1048576", body);
  DeviceIdBudget budget;
  const CollectiveTrafficOptions sizes_only{.keep_groups = false, .budget = &budget};
  for (const char* name : {"f0", "f1"}) {
    Result<CollectiveTraffic> t = AnalyzeCollective(I(name), config_, sizes_only);
    ASSERT_TRUE(t.ok()) << t.error().Format();
    EXPECT_EQ(t->num_groups * t->group_size, 1048576) << name;
    EXPECT_TRUE(t->groups.empty());
  }
  Result<CollectiveTraffic> f1 = AnalyzeCollective(I("f1"), config_, sizes_only);
  EXPECT_EQ(f1->group_size, 1024);
  EXPECT_EQ(f1->num_groups, 1024);
  EXPECT_EQ(budget.written, 0);  // no mesh to read ids against: nothing written out
  // Against the user's mesh: each distinct form written out once, until
  // the module's budget is spent; the sizes stay known past it.
  config_.mesh = IotaMesh({{"x", 1024}, {"y", 1024}});
  int known = 0;
  for (int i = 0; i < 40; ++i) {
    Result<CollectiveTraffic> t = AnalyzeCollective(I(fmt::format("d{}", i)), config_, sizes_only);
    ASSERT_TRUE(t.ok()) << t.error().Format();
    EXPECT_EQ(t->group_size, 1048576 >> (i % 20));
    EXPECT_EQ(t->num_groups, 1 << (i % 20));
    EXPECT_TRUE(t->groups.empty());
    known += t->mesh_axes_known;
  }
  EXPECT_EQ(budget.written, kModuleDeviceIdBudget);  // 16 forms of 2^20 ids
  EXPECT_EQ(budget.refused, 8);                      // the other 4 forms, twice each
  EXPECT_EQ(known, 32);
  // Without a budget, each call writes out what it reads, as it always did.
  CollectiveTraffic d0 = T("d0");
  EXPECT_EQ(d0.groups.size(), 1u);
  EXPECT_EQ(d0.groups[0].size(), 1048576u);
  EXPECT_TRUE(d0.mesh_axes_known);
}

TEST_F(CollectiveTrafficTest, AsyncPairsCountedAtTheStart) {
  Parse("HloModule m, num_partitions=4", R"(
%wrapped_reduce_scatter (p0: f32[32]) -> f32[8] {
  %p0 = f32[32]{0} parameter(0)
  ROOT %rs = f32[8]{0} reduce-scatter(%p0), channel_id=1, replica_groups=[1,4]<=[4], use_global_device_ids=true, dimensions={0}, to_apply=%add
}
ENTRY %e (p: f32[32], q: f32[8]) -> f32[32] {
  %p = f32[32]{0} parameter(0)
  %q = f32[8]{0} parameter(1)
  %ags = (f32[8]{0}, f32[32]{0}) all-gather-start(%q), channel_id=1, replica_groups={{0,1,2,3}}, dimensions={0}, use_global_device_ids=true
  %agd = f32[32]{0} all-gather-done(%ags)
  %ars = f32[32]{0} all-reduce-start(%p), channel_id=1, replica_groups={{0,1},{2,3}}, use_global_device_ids=true, to_apply=%add
  %ard = f32[32]{0} all-reduce-done(%ars)
  %cps = (f32[32]{0}, f32[32]{0}, u32[], u32[]) collective-permute-start(%p), channel_id=2, source_target_pairs={{0,1},{1,0}}
  %cpd = f32[32]{0} collective-permute-done(%cps)
  %as = ((f32[32]{0}), f32[8]{0}) async-start(%p), calls=%wrapped_reduce_scatter
  %ad = f32[8]{0} async-done(%as), calls=%wrapped_reduce_scatter
  %srs = ((f32[32]{0}), f32[8]{0}) reduce-scatter-start(%p), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, dimensions={0}, to_apply=%add
  %sru = ((f32[32]{0}), f32[8]{0}) reduce-scatter-update(%srs)
  %srd = f32[8]{0} reduce-scatter-done(%sru)
  ROOT %t = f32[32]{0} add(%agd, %ard)
})");
  CollectiveTraffic ags = T("ags");
  EXPECT_EQ(ags.part, CollectivePart::kStart);
  EXPECT_EQ(ags.bytes_sent, 3 * 32);
  EXPECT_EQ(ags.bytes_received, 128 - 32);  // the start's (operand, result) tuple
  CollectiveTraffic agd = T("agd");
  EXPECT_EQ(agd.part, CollectivePart::kDone);
  EXPECT_EQ(agd.family, CollectiveFamily::kAllGather);
  EXPECT_EQ(agd.counted_at, &I("ags"));
  EXPECT_EQ(agd.group_size, 4);
  EXPECT_EQ(agd.bytes_sent, 0);
  EXPECT_EQ(agd.bytes_received, 0);
  EXPECT_EQ(T("ars").bytes_sent, 2 * 128 / 2);
  EXPECT_EQ(T("ard").counted_at, &I("ars"));
  EXPECT_EQ(T("cps").bytes_sent, 128);
  EXPECT_EQ(T("cpd").bytes_sent, 0);
  CollectiveTraffic as = T("as");
  EXPECT_EQ(as.family, CollectiveFamily::kReduceScatter);
  EXPECT_EQ(as.part, CollectivePart::kStart);
  EXPECT_EQ(as.collective, &I("rs"));
  EXPECT_EQ(as.counted_at, &I("as"));
  EXPECT_EQ(as.bytes_sent, 128 * 3 / 4);
  EXPECT_EQ(T("ad").counted_at, &I("as"));
  EXPECT_EQ(T("ad").part, CollectivePart::kDone);
  CollectiveTraffic srs = T("srs");  // sugared: an opcode this version does not know
  EXPECT_EQ(srs.family, CollectiveFamily::kReduceScatter);
  EXPECT_EQ(srs.bytes_sent, 96);
  EXPECT_EQ(T("sru").part, CollectivePart::kUpdate);
  EXPECT_EQ(T("srd").counted_at, &I("srs"));
  EXPECT_EQ(CollectiveFamilyOf(I("t")), std::nullopt);
  EXPECT_EQ(Error("t"), "'t' (add) is not a collective");
}

TEST_F(CollectiveTrafficTest, CombinedRaggedBroadcastAndLayouts) {
  Parse("HloModule m, num_partitions=4", R"(
ENTRY %e (a: f32[8], b: bf16[4,8], c: f32[10], d: s4[64], o: f32[16], off: s32[4]) -> f32[16] {
  %a = f32[8]{0} parameter(0)
  %b = bf16[4,8]{1,0} parameter(1)
  %c = f32[10]{0:T(128)} parameter(2)
  %d = s4[64]{0:E(4)} parameter(3)
  %o = f32[16]{0} parameter(4)
  %off = s32[4]{0} parameter(5)
  %comb = (f32[8]{0}, bf16[4,8]{1,0}) all-reduce(%a, %b), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=%add
  %agt = (f32[32]{0}, bf16[16,8]{1,0}) all-gather(%a, %b), channel_id=1, replica_groups={{0,1,2,3}}, dimensions={0}, use_global_device_ids=true
  %tiled = f32[10]{0:T(128)} all-reduce(%c), channel_id=1, replica_groups={{0,1}}, use_global_device_ids=true, to_apply=%add
  %packed = s4[64]{0:E(4)} all-to-all(%d), channel_id=1, replica_groups={{0,1,2,3}}, dimensions={0}
  %ragged = f32[16]{0} ragged-all-to-all(%a, %o, %off, %off, %off, %off), channel_id=1, replica_groups={{0,1,2,3}}
  %bcast = f32[8]{0} collective-broadcast(%a), channel_id=1, replica_groups={{0,1,2,3}}
  %one = f32[8]{0} all-reduce(%a), channel_id=1, replica_groups={{0},{1},{2},{3}}, use_global_device_ids=true, to_apply=%add
  ROOT %cp = f32[16]{0} collective-permute(%o), channel_id=2, source_target_pairs={{0,1},{0,2},{3,3}}
})");
  CollectiveTraffic comb = T("comb");
  EXPECT_EQ(comb.operand_count, 2);
  EXPECT_EQ(comb.operand_bytes, 32 + 64);
  EXPECT_EQ(comb.bytes_sent, 2 * 96 * 3 / 4);
  CollectiveTraffic agt = T("agt");
  EXPECT_EQ(agt.bytes_sent, 3 * 96);
  EXPECT_EQ(agt.bytes_received, (128 - 32) + (256 - 64));
  // TPU tiles pad f32[10] to 128 elements; s4 with E(4) packs two per byte.
  EXPECT_EQ(T("tiled").operand_bytes, 512);
  EXPECT_EQ(T("tiled").bytes_sent, 2 * 512 / 2);
  Result<CollectiveTraffic> logical = AnalyzeCollective(I("tiled"), config_, {.padded_sizes = false});
  ASSERT_TRUE(logical.ok());
  EXPECT_EQ(logical->operand_bytes, 40);  // the ten elements, not the 128-element tile
  EXPECT_EQ(logical->bytes_sent, 40);
  EXPECT_EQ(T("packed").operand_bytes, 32);
  EXPECT_EQ(T("packed").bytes_sent, 24);
  CollectiveTraffic ragged = T("ragged");
  EXPECT_FALSE(ragged.exact);
  EXPECT_EQ(ragged.bytes_sent, 32);
  EXPECT_EQ(ragged.bytes_received, 64);
  CollectiveTraffic bcast = T("bcast");
  EXPECT_TRUE(bcast.max_over_devices);
  EXPECT_EQ(bcast.bytes_sent, 3 * 32);  // the root, to each of its 3 peers
  EXPECT_EQ(bcast.bytes_received, 32);
  CollectiveTraffic one = T("one");
  EXPECT_EQ(one.group_size, 1);
  EXPECT_EQ(one.bytes_sent, 0);
  // Device 0 sends to two peers; (3,3) moves nothing.
  CollectiveTraffic cp = T("cp");
  EXPECT_EQ(cp.bytes_sent, 2 * 64);
  EXPECT_EQ(cp.bytes_received, 64);
}

TEST_F(CollectiveTrafficTest, ReceivedBytesAreCountedInTheResultsType) {
  Parse("HloModule m, num_partitions=4", R"(
%add.bf16 (x: bf16[], y: bf16[]) -> bf16[] {
  %x = bf16[] parameter(0)
  %y = bf16[] parameter(1)
  ROOT %a = bf16[] add(%x, %y)
}
ENTRY %e (a: f32[64], s: f32[]) -> bf16[16] {
  %a = f32[64]{0} parameter(0)
  %s = f32[] parameter(1)
  %odd = f32[] all-reduce(%s), channel_id=1, replica_groups={{0,1,2},{3}}, use_global_device_ids=true, to_apply=%add
  %ar = bf16[64]{0} all-reduce(%a), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=%add.bf16
  ROOT %rs = bf16[16]{0} reduce-scatter(%a), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, dimensions={0}, to_apply=%add.bf16
})");
  CollectiveTraffic ar = T("ar");
  EXPECT_EQ(ar.operand_bytes, 256);
  EXPECT_EQ(ar.result_bytes, 128);
  EXPECT_EQ(ar.bytes_sent, 2 * 256 * 3 / 4);
  EXPECT_EQ(ar.bytes_received, 2 * 128 * 3 / 4);
  // Rounded down once: 2*4*(3-1)/3 = 5; ragged groups report the largest.
  CollectiveTraffic odd = T("odd");
  EXPECT_EQ(odd.bytes_sent, 5);
  EXPECT_EQ(odd.group_size, 3);
  EXPECT_TRUE(odd.max_over_devices);
  CollectiveTraffic rs = T("rs");
  EXPECT_EQ(rs.bytes_sent, 256 * 3 / 4);
  EXPECT_EQ(rs.bytes_received, 3 * 32);  // the 3 peers' bf16 contributions to its 16 elements
}

TEST_F(CollectiveTrafficTest, EmptyGroupsFollowTheGroupMode) {
  Parse("HloModule m, replica_count=2, num_partitions=4", R"(
ENTRY %e (a: f32[8]) -> f32[8] {
  %a = f32[8]{0} parameter(0)
  %xr = f32[8]{0} all-reduce(%a), replica_groups={}, to_apply=%add
  %xp = f32[8]{0} all-to-all(%a), channel_id=1, replica_groups={}, dimensions={0}
  %xrp = f32[8]{0} all-reduce(%a), channel_id=1, replica_groups={{0,1}}, to_apply=%add
  %absent = f32[8]{0} all-reduce(%a), channel_id=1, use_global_device_ids=true, to_apply=%add
  ROOT %flat = f32[8]{0} all-reduce(%a), channel_id=1, replica_groups={{0,1,2,3,4,5,6,7}}, use_global_device_ids=true, to_apply=%add
})");
  EXPECT_EQ(config_.num_devices(), 8);
  CollectiveTraffic xr = T("xr");
  EXPECT_EQ(xr.mode, CollectiveGroupMode::kCrossReplica);
  EXPECT_EQ(xr.group_size, 2);
  EXPECT_EQ(xr.groups, (Groups{{0, 1}}));
  EXPECT_FALSE(xr.spans_all_devices);
  EXPECT_EQ(T("xp").group_size, 4);
  CollectiveTraffic xrp = T("xrp");
  EXPECT_EQ(xrp.mode, CollectiveGroupMode::kCrossReplicaAndPartition);
  EXPECT_EQ(xrp.group_size, 8);  // replicas 0 and 1, each with all 4 partitions
  EXPECT_TRUE(xrp.spans_all_devices);
  EXPECT_EQ(T("absent").group_size, 8);
  EXPECT_TRUE(T("flat").spans_all_devices);
}

TEST_F(CollectiveTrafficTest, MalformedValuesParseAndFailOnlyWhenDecoded) {
  // The parser keeps each value as text: the module parses, the decoders say
  // what is wrong, and AttributeDiagnostic places it in the file.
  Parse("HloModule m, num_partitions=4", R"(
ENTRY %e (a: f32[8]) -> f32[8] {
  %a = f32[8]{0} parameter(0)
  %bad = f32[8]{0} all-reduce(%a), channel_id=1, replica_groups={{0,1},{2,x}}, to_apply=%add
  %huge = f32[8]{0} all-reduce(%a), channel_id=1, replica_groups=[1,1000000000]<=[1000000000], to_apply=%add
  %pairs = f32[8]{0} collective-permute(%a), channel_id=1, source_target_pairs={{0,1,2}}
  %mesh = f32[8]{0} all-reduce(%a), channel_id=1, replica_groups=mesh['a'=4] {'z'}, to_apply=%add
  ROOT %mode = f32[8]{0} all-reduce(%a), replica_groups={}, use_global_device_ids=true, to_apply=%add
})");
  EXPECT_EQ(Error("bad"), "expected a device id in a replica group, found 'x'");
  EXPECT_EQ(Error("huge"), "the tile assignment holds 1000000000 devices, more than the limit of 1048576");
  EXPECT_EQ(Error("pairs"), "a source-target pair has 3 ids; it needs exactly 2");
  EXPECT_EQ(Error("mesh"), "axis 'z' is not in the mesh");
  EXPECT_EQ(Error("mode"), "Invalid combination of has_channel_id and use_global_device_ids");

  const HloInstruction& bad = I("bad");
  std::string_view value = *bad.attribute("replica_groups");
  Result<CollectiveDeviceList> decoded = ParseCollectiveDeviceList(value);
  ASSERT_FALSE(decoded.ok());
  Diagnostic placed = AttributeDiagnostic(*module_, value, decoded.error());
  EXPECT_EQ(placed.line, 11);
  EXPECT_EQ(placed.column, 75);
  EXPECT_EQ(placed.line_text.substr(placed.caret - 1, 1), "x");
  EXPECT_EQ(placed.message, "expected a device id in a replica group, found 'x'");
  // A value from elsewhere is left as it is.
  EXPECT_EQ(AttributeDiagnostic(*module_, "{{x}}", decoded.error()).line, decoded.error().line);
}

TEST(SpmdConfigTest, HeaderFields) {
  auto parse = [](std::string text) {
    auto r = ParseHloText(std::move(text));
    EXPECT_TRUE(r.ok());
    return std::move(r).value();
  };
  HloModuleGroup plain = parse("HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n");
  Result<SpmdConfig> c = DecodeSpmdConfig(*plain.modules[0]);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->replica_count, 1);
  EXPECT_EQ(c->num_partitions, 1);
  EXPECT_EQ(c->num_devices(), 1);
  EXPECT_FALSE(c->mesh.has_value());
  HloModuleGroup both =
      parse("HloModule m, replica_count=2, num_partitions=4\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n");
  EXPECT_EQ(DecodeSpmdConfig(*both.modules[0])->num_devices(), 8);
  HloModuleGroup bad =
      parse("HloModule m, num_partitions=eight\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n");
  Result<SpmdConfig> e = DecodeSpmdConfig(*bad.modules[0]);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().Format(),
            "<input>:1:29: error: num_partitions must be a positive integer, found 'eight'\n"
            "HloModule m, num_partitions=eight\n"
            "                            ^\n");
  HloModuleGroup zero = parse("HloModule m, replica_count=0\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n");
  EXPECT_EQ(DecodeSpmdConfig(*zero.modules[0]).error().message,
            "replica_count must be a positive integer, found '0'");
}

}  // namespace
}  // namespace hloscope
