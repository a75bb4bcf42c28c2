// Collectives as findings (analysis/collectives.h) on inline SPMD modules:
// what is counted (once per collective: async pairs, TPU async collective
// fusion chains), the bytes per device, the cause rules, growth with the
// loop's buffer, the update a gather serves, and the gate. The same rules
// on real compiles are checked against the oracle and the 4× compiles in
// tests/python/test_collectives_vs_oracle.py and test_collective_growth.py.
#include "hloscope/analysis/collectives.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "check_test_util.h"
#include "hloscope/analysis/cause_catalog.h"
#include "hloscope/analysis/policy.h"

namespace hloscope {
namespace {

using testing::Check;
using testing::ParseOne;

std::string Replace(std::string s, std::string_view from, std::string_view to) {
  size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

const CollectiveFinding* Named(const ModuleCheck& c, std::string_view name) {
  for (const CollectiveFinding& f : c.collectives)
    if (f.instruction->name() == name) return &f;
  return nullptr;
}

// A fori_loop over 8 iterations writing one row of a row-sharded f32[64,16]
// buffer (16 rows per device) after gathering all of it, as TPU compiles
// buf.at[i].set(row): the old row is read from the gathered copy.
constexpr char kGatherForUpdate[] = R"(
HloModule m, num_partitions=4
%body (t: (s32[], f32[16,16])) -> (s32[], f32[16,16]) {
  %t = (s32[], f32[16,16]{1,0}) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %buf = f32[16,16]{1,0} get-tuple-element(%t), index=1
  %all = f32[64,16]{1,0} all-gather(%buf), channel_id=1, replica_groups={{0,1,2,3}}, dimensions={0}, use_global_device_ids=true
  %zero = s32[] constant(0)
  %old = f32[1,16]{1,0} dynamic-slice(%all, %i, %zero), dynamic_slice_sizes={1,16}
  %row = f32[1,16]{1,0} negate(%old)
  %new = f32[16,16]{1,0} dynamic-update-slice(%buf, %row, %i, %zero), metadata={op_name="jit(f)/while/body/scatter" source_file="f.py" source_line=7}
  %one = s32[] constant(1)
  %next = s32[] add(%i, %one)
  ROOT %r = (s32[], f32[16,16]{1,0}) tuple(%next, %new)
}
%cond (t: (s32[], f32[16,16])) -> pred[] {
  %t = (s32[], f32[16,16]{1,0}) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %n = s32[] constant(8)
  ROOT %lt = pred[] compare(%i, %n), direction=LT
}
ENTRY %main (x: f32[16,16]) -> f32[16,16] {
  %x = f32[16,16]{1,0} parameter(0), sharding={devices=[4,1]<=[4]}
  %z = s32[] constant(0)
  %init = (s32[], f32[16,16]{1,0}) tuple(%z, %x)
  %w = (s32[], f32[16,16]{1,0}) while(%init), condition=%cond, body=%body, backend_config={"known_trip_count":{"n":"8"}}
  ROOT %out = f32[16,16]{1,0} get-tuple-element(%w), index=1
}
)";

TEST(CollectivesTest, AGatherServingAnUpdateAtARunTimeIndexIsNamedGrowsAndFails) {
  auto m = ParseOne(kGatherForUpdate);
  ModuleCheck c = Check(*m);
  ASSERT_EQ(c.collectives.size(), 1u);
  const CollectiveFinding& g = c.collectives[0];
  EXPECT_EQ(g.family, CollectiveFamily::kAllGather);
  EXPECT_EQ(g.group_size, 4);
  // Per device: sends its 1 KiB shard to 3 peers, receives the other 3 KiB.
  EXPECT_EQ(g.bytes_sent, 3 * 1024);
  EXPECT_EQ(g.bytes_received, 3 * 1024);
  EXPECT_EQ(g.executions, 8);
  EXPECT_EQ(g.total_bytes, 8 * 3 * 1024);
  EXPECT_EQ(g.cause.rule, CollectiveRule::kGatherForDynamicRead);
  EXPECT_TRUE(g.grows_with_buffer);
  EXPECT_EQ(GateOf(g), Gate::kReshardsInLoops);
  EXPECT_EQ(c.spmd.num_partitions, 4);
  ASSERT_EQ(c.parameters.size(), 1u);
  ASSERT_TRUE(c.parameters[0].sharding);
  EXPECT_EQ(c.parameters[0].global_bytes, 4 * 1024);  // 4 shards of 1 KiB
  ASSERT_EQ(c.loops.size(), 1u);
  EXPECT_EQ(c.loops[0].collective_bytes_per_iteration, 3 * 1024);
  EXPECT_TRUE(c.loops[0].scales_with_buffer);
}

TEST(CollectivesTest, AGatherWhoseReadFeedsTheUpdateIsGatherForDynamicUpdateAndTheUpdateNamesIt) {
  // The read of the old row feeds the update of the local shard: the
  // gather serves the update (buf.at[i].set(f(buf[i]))).
  auto m = ParseOne(kGatherForUpdate);
  ModuleCheck c = Check(*m);
  ASSERT_EQ(c.collectives.size(), 1u);
  // %row feeds %new's update operand through negate: the dynamic-slice's
  // user is not the update itself, so this is a read.
  EXPECT_EQ(c.collectives[0].cause.cause, CollectiveCause::kDynamicIndex);
  std::string direct =
      Replace(kGatherForUpdate, "dynamic-update-slice(%buf, %row,", "dynamic-update-slice(%buf, %old,");
  auto m2 = ParseOne(direct);
  ModuleCheck c2 = Check(*m2);
  ASSERT_EQ(c2.collectives.size(), 1u);
  EXPECT_EQ(c2.collectives[0].cause.rule, CollectiveRule::kGatherForDynamicUpdate);
  EXPECT_TRUE(c2.collectives[0].cause.from_scatter);
  ASSERT_EQ(c2.updates.size(), 1u);
  EXPECT_EQ(c2.updates[0].gathered_by, c2.collectives[0].instruction);
}

// A ring: the carry is permuted every iteration (shard_map + ppermute).
constexpr char kRing[] = R"(
HloModule m, num_partitions=4
%body (t: (s32[], f32[256])) -> (s32[], f32[256]) {
  %t = (s32[], f32[256]{0}) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %a = f32[256]{0} get-tuple-element(%t), index=1
  %p = f32[256]{0} collective-permute(%a), channel_id=1, source_target_pairs={{0,1},{1,2},{2,3},{3,0}}, metadata={op_name="jit(f)/shard_map/while/body/ppermute"}
  %one = s32[] constant(1)
  %next = s32[] add(%i, %one)
  ROOT %r = (s32[], f32[256]{0}) tuple(%next, %p)
}
%cond (t: (s32[], f32[256])) -> pred[] {
  %t = (s32[], f32[256]{0}) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %n = s32[] constant(5)
  ROOT %lt = pred[] compare(%i, %n), direction=LT
}
ENTRY %main (x: f32[256]) -> f32[256] {
  %x = f32[256]{0} parameter(0)
  %z = s32[] constant(0)
  %init = (s32[], f32[256]{0}) tuple(%z, %x)
  %w = (s32[], f32[256]{0}) while(%init), condition=%cond, body=%body, backend_config={"known_trip_count":{"n":"5"}}
  %out = f32[256]{0} get-tuple-element(%w), index=1
  %s = f32[256]{0} all-reduce(%out), channel_id=2, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=%add
  ROOT %g = f32[1024]{0} all-gather(%s), channel_id=3, replica_groups={{0,1,2,3}}, dimensions={0}, use_global_device_ids=true
}
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %c = f32[] add(%a, %b)
}
)";

TEST(CollectivesTest, ARingPermutesItsCarryExplicitlyAndGrowsWithItButPassesTheGate) {
  auto m = ParseOne(kRing);
  ModuleCheck c = Check(*m);
  const CollectiveFinding* p = Named(c, "p");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->cause.rule, CollectiveRule::kExplicitCollective);
  EXPECT_EQ(p->cause.primitive, "ppermute");
  EXPECT_EQ(p->bytes, 1024);
  EXPECT_EQ(p->executions, 5);
  EXPECT_TRUE(p->grows_with_buffer);           // the carry travels around the ring
  EXPECT_EQ(GateOf(*p), std::nullopt);         // the program asked for it
  const CollectiveFinding* g = Named(c, "g");  // only returned
  ASSERT_TRUE(g);
  EXPECT_EQ(g->cause.rule, CollectiveRule::kReshardForOutput);
  EXPECT_EQ(g->executions, 1);
  EXPECT_EQ(GateOf(*g), std::nullopt);  // not in a loop
  const CollectiveFinding* s = Named(c, "s");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->cause.cause, CollectiveCause::kUnknownCollective);  // no contraction made %out
  // All-reduce: 2·B·(G−1)/G each way.
  EXPECT_EQ(s->bytes_sent, 2 * 1024 * 3 / 4);
  // Largest per call first.
  EXPECT_EQ(c.collectives.front().instruction->name(), "p");
}

// TPU's async collective fusion: one all-gather split into a start kernel,
// a continuation and a done kernel, each holding a copy of the collective
// with the same chain_id. The data moves once.
constexpr char kChain[] = R"(
HloModule m, num_partitions=4
%start_comp (p0: f32[64]) -> (f32[64], f32[256]) {
  %p0 = f32[64]{0} parameter(0)
  %ag0 = f32[256]{0} all-gather(%p0), channel_id=2, replica_groups={{0,1,2,3}}, dimensions={0}, use_global_device_ids=true, frontend_attributes={chain_id="0"}
  ROOT %cc0 = (f32[64]{0}, f32[256]{0}) custom-call(%p0, %ag0), custom_call_target="AsyncCollectiveStart"
}
%cont_comp (p1: f32[64], q1: f32[256]) -> f32[256] {
  %p1 = f32[64]{0} parameter(0)
  %q1 = f32[256]{0} parameter(1)
  %ag1 = f32[256]{0} all-gather(%p1), channel_id=2, replica_groups={{0,1,2,3}}, dimensions={0}, use_global_device_ids=true, frontend_attributes={chain_id="0"}
  ROOT %cc1 = f32[256]{0} custom-call(%p1, %q1, %ag1), custom_call_target="AsyncCollectiveDone"
}
ENTRY %main (x: f32[64]) -> f32[256] {
  %x = f32[64]{0} parameter(0)
  %start = (f32[64]{0}, f32[256]{0}) fusion(%x), kind=kCustom, calls=%start_comp
  %s0 = f32[64]{0} get-tuple-element(%start), index=0
  %s1 = f32[256]{0} get-tuple-element(%start), index=1
  ROOT %done = f32[256]{0} fusion(%s0, %s1), kind=kCustom, calls=%cont_comp
}
)";

TEST(CollectivesTest, AnAsyncCollectiveFusionChainIsCountedOnceAtItsStart) {
  auto m = ParseOne(kChain);
  ModuleCheck c = Check(*m);
  ASSERT_EQ(c.collectives.size(), 1u);
  EXPECT_EQ(c.collectives[0].instruction->name(), "start");
  EXPECT_EQ(c.collectives[0].collective->name(), "ag0");
  EXPECT_EQ(c.collectives[0].bytes_sent, 3 * 256);
  // Its result is read where the done kernel's is: the program returns it.
  EXPECT_EQ(c.collectives[0].cause.rule, CollectiveRule::kReshardForOutput);
}

TEST(CollectivesTest, PartialSumsOfAShardedContraction) {
  auto m = ParseOne(R"(
HloModule m, num_partitions=2
ENTRY %main (x: f32[8,16], w: f32[16,4]) -> f32[8,4] {
  %x = f32[8,16]{1,0} parameter(0)
  %w = f32[16,4]{1,0} parameter(1)
  %d = f32[8,4]{1,0} dot(%x, %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT %s = f32[8,4]{1,0} all-reduce(%d), channel_id=1, replica_groups={{0,1}}, use_global_device_ids=true, to_apply=%add
}
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %c = f32[] add(%a, %b)
}
)");
  ModuleCheck c = Check(*m);
  ASSERT_EQ(c.collectives.size(), 1u);
  EXPECT_EQ(c.collectives[0].cause.rule, CollectiveRule::kPartialSums);
  EXPECT_EQ(c.collectives[0].cause.producer.instruction->name(), "d");
}

TEST(CollectivesTest, ACollectiveWhoseGroupsDoNotDecodeIsLeftOutAndSaidSo) {
  auto m = ParseOne(R"(
HloModule m, num_partitions=4
ENTRY %main (x: f32[64]) -> f32[256] {
  %x = f32[64]{0} parameter(0)
  ROOT %g = f32[256]{0} all-gather(%x), channel_id=1, replica_groups=[2,3]<=[4], dimensions={0}, use_global_device_ids=true
}
)");
  ModuleCheck c = Check(*m);
  EXPECT_TRUE(c.collectives.empty());
  ASSERT_EQ(c.undecoded.size(), 1u);
  EXPECT_NE(c.undecoded[0].find("the iota has 4 devices but the tile assignment dimensions need 6"),
            std::string::npos);
}

TEST(CollectivesTest, AModuleWithoutCollectivesHasNone) {
  auto m = ParseOne(testing::kUnknownTripCountLoop);
  ModuleCheck c = Check(*m);
  EXPECT_TRUE(c.collectives.empty());
  EXPECT_EQ(c.spmd.devices(), 1);
  ASSERT_EQ(c.loops.size(), 1u);
  EXPECT_EQ(c.loops[0].collective_bytes_per_iteration, std::nullopt);
}

// Reading x[1] of an f32[32] sharded over 8 devices (4 elements each), as
// XLA's SPMD partitioner writes it: the device that owns element 1 keeps it,
// the others contribute zero, and an all-reduce sums the pieces.
// The kernel that keeps element 1 of a device's f32[4] shard on device 0
// only (the mask compares partition-id, passed in, with the owner), and the
// sum the all-reduce applies.
constexpr char kMaskedKernel[] = R"(
%masked (p0: f32[4], p1: u32[]) -> f32[1] {
  %p0 = f32[4]{0} parameter(0)
  %p1 = u32[] parameter(1)
  %c0 = u32[] constant(0)
  %mine = pred[] compare(%p1, %c0), direction=EQ
  %s = f32[1]{0} slice(%p0), slice={[1:2]}
  %z = f32[] constant(0)
  %zb = f32[1]{0} broadcast(%z), dimensions={}
  %mb = pred[1]{0} broadcast(%mine), dimensions={}
  ROOT %sel = f32[1]{0} select(%mb, %s, %zb)
}
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %c = f32[] add(%a, %b)
}
)";

const std::string kMaskedRead = std::string("HloModule m, num_partitions=8\n") + kMaskedKernel + R"(
ENTRY %main (x: f32[4]) -> f32[1] {
  %x = f32[4]{0} parameter(0)
  %pid = u32[] partition-id()
  %m = f32[1]{0} fusion(%x, %pid), kind=kLoop, calls=%masked
  ROOT %r = f32[1]{0} all-reduce(%m), channel_id=1, replica_groups={{0,1,2,3,4,5,6,7}}, use_global_device_ids=true, to_apply=%add
}
)";

TEST(CollectivesTest, AnAllReduceOfDeviceMaskedElementsIsAnIndexedAccess) {
  auto m = ParseOne(kMaskedRead);
  ModuleCheck c = Check(*m);
  ASSERT_EQ(c.collectives.size(), 1u);
  EXPECT_EQ(c.collectives[0].cause.rule, CollectiveRule::kMaskedIndex);
  EXPECT_EQ(c.collectives[0].cause.cause, CollectiveCause::kIndexedAccess);
  EXPECT_EQ(c.collectives[0].cause.producer.instruction->name(), "m");
  EXPECT_FALSE(c.collectives[0].grows_with_buffer);
}

TEST(CollectivesTest, AMaskThatDoesNotDependOnTheDeviceIsNoIndexedAccess) {
  // The same kernel selecting on a constant: nothing says which device owns what.
  auto m = ParseOne(Replace(kMaskedRead, "%m = f32[1]{0} fusion(%x, %pid)",
                            "%k = u32[] constant(3)\n  %m = f32[1]{0} fusion(%x, %k)"));
  ModuleCheck c = Check(*m);
  ASSERT_EQ(c.collectives.size(), 1u);
  EXPECT_EQ(c.collectives[0].cause.rule, CollectiveRule::kNone);
}

TEST(CollectivesTest, PartitionIdCarriedIntoALoopStillMasksByDevice) {
  // XLA hoists partition-id out of a while body and passes it in the loop state.
  auto m = ParseOne(std::string("HloModule m, num_partitions=8\n") + kMaskedKernel + R"(
%body (t: (s32[], f32[4], u32[], f32[1])) -> (s32[], f32[4], u32[], f32[1]) {
  %t = (s32[], f32[4]{0}, u32[], f32[1]{0}) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %x = f32[4]{0} get-tuple-element(%t), index=1
  %pid = u32[] get-tuple-element(%t), index=2
  %m = f32[1]{0} fusion(%x, %pid), kind=kLoop, calls=%masked
  %r = f32[1]{0} all-reduce(%m), channel_id=1, replica_groups={{0,1,2,3,4,5,6,7}}, use_global_device_ids=true, to_apply=%add
  %one = s32[] constant(1)
  %n = s32[] add(%i, %one)
  ROOT %o = (s32[], f32[4]{0}, u32[], f32[1]{0}) tuple(%n, %x, %pid, %r)
}
%cond (t: (s32[], f32[4], u32[], f32[1])) -> pred[] {
  %t = (s32[], f32[4]{0}, u32[], f32[1]{0}) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %k = s32[] constant(3)
  ROOT %lt = pred[] compare(%i, %k), direction=LT
}
ENTRY %main (x: f32[4]) -> f32[1] {
  %x = f32[4]{0} parameter(0)
  %pid = u32[] partition-id()
  %zero = s32[] constant(0)
  %z = f32[] constant(0)
  %acc = f32[1]{0} broadcast(%z), dimensions={}
  %init = (s32[], f32[4]{0}, u32[], f32[1]{0}) tuple(%zero, %x, %pid, %acc)
  %w = (s32[], f32[4]{0}, u32[], f32[1]{0}) while(%init), condition=%cond, body=%body
  ROOT %out = f32[1]{0} get-tuple-element(%w), index=3
}
)");
  ModuleCheck c = Check(*m);
  ASSERT_EQ(c.collectives.size(), 1u);
  EXPECT_EQ(c.collectives[0].cause.rule, CollectiveRule::kMaskedIndex);
  EXPECT_EQ(c.collectives[0].executions, 3);
}

// A device's f32[4] shard placed at offset 4 × partition-id in a zero
// f32[16] and summed over the devices: XLA:TPU's all-gather written as an
// all-reduce.
constexpr char kGatherByAllReduce[] = R"(
HloModule m, num_partitions=4
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %c = f32[] add(%a, %b)
}
ENTRY %main (x: f32[4], i: s32[]) -> f32[16] {
  %x = f32[4]{0} parameter(0)
  %i = s32[] parameter(1)
  %pid = u32[] partition-id()
  %c4 = u32[] constant(4)
  %off = u32[] multiply(%pid, %c4)
  %z = f32[] constant(0)
  %zb = f32[16]{0} broadcast(%z), dimensions={}
  %placed = f32[16]{0} dynamic-update-slice(%zb, %x, %off)
  ROOT %r = f32[16]{0} all-reduce(%placed), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=%add
}
)";

TEST(CollectivesTest, AnAllReduceOfShardsPlacedByDeviceIsAGather) {
  auto m = ParseOne(kGatherByAllReduce);
  ModuleCheck c = Check(*m);
  ASSERT_EQ(c.collectives.size(), 1u);
  EXPECT_EQ(c.collectives[0].cause.rule, CollectiveRule::kReshardForOutput);

  // Read at a run-time index: the whole buffer is gathered for it.
  std::string read =
      Replace(Replace(kGatherByAllReduce, "-> f32[16] {", "-> f32[2] {"), "  ROOT %r =", "  %r =");
  read = Replace(read, "use_global_device_ids=true, to_apply=%add\n}",
                 "use_global_device_ids=true, to_apply=%add\n  ROOT %d = f32[2]{0} dynamic-slice(%r, %i), "
                 "dynamic_slice_sizes={2}\n}");
  auto m3 = ParseOne(read);
  ModuleCheck c3 = Check(*m3);
  ASSERT_EQ(c3.collectives.size(), 1u);
  EXPECT_EQ(c3.collectives[0].cause.rule, CollectiveRule::kGatherForDynamicRead);
  EXPECT_EQ(c3.collectives[0].cause.consumer.instruction->name(), "d");
}

// The cause is the first of the catalog's COLLECTIVE_RULE rows that
// matches: Explain runs each family's matcher once, at the family's first
// row, and takes the rule it names. So every row's family needs a matcher, a
// family's rows must be contiguous (else a later row of it would be tried
// ahead of the rows between), and the families fit the bit set of those tried.
TEST(CollectivesTest, EveryCollectiveRuleFamilyHasAMatcherAndItsRowsAreContiguous) {
  std::vector<CollectiveRuleFamily> seen;
  std::optional<CollectiveRuleFamily> current;
  for (const CollectiveRuleEntry& row : CollectiveRuleCatalog()) {
    EXPECT_TRUE(HasCollectiveMatcher(row.family)) << row.name;
    EXPECT_LT(static_cast<unsigned>(row.family), 32u) << row.name;
    if (current == row.family) continue;
    EXPECT_EQ(std::count(seen.begin(), seen.end(), row.family), 0)
        << row.name << ": the rows of its family are not contiguous";
    seen.push_back(row.family);
    current = row.family;
  }
  EXPECT_FALSE(seen.empty());
}

}  // namespace
}  // namespace hloscope
