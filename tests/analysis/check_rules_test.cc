// One test per rule of the check analysis, each on a small hand-written
// module shaped like what XLA prints.
#include <gtest/gtest.h>

#include "check_test_util.h"
#include "hloscope/analysis/donation.h"
#include "hloscope/analysis/in_place.h"
#include "hloscope/report/wording.h"

namespace hloscope {
namespace {

using testing::Check;
using testing::FindCopy;
using testing::FindUpdate;
using testing::Name;
using testing::Names;
using testing::ParseOne;
using testing::RunsOn;

// A while loop that writes one element per iteration into a buffer.
std::string Loop(const std::string& header, const std::string& init) {
  return testing::DusLoopModule({.header = header, .init = init});
}

TEST(CheckRulesTest, DonatedLoopUpdateIsInPlaceWithNoCopy) {
  auto m = ParseOne(Loop(", input_output_alias={ {}: (0, {}, may-alias) }",
                         "  %init = (s32[], f32[1024]{0}) tuple(%zero, %buf)"));
  ModuleCheck c = Check(*m);
  EXPECT_TRUE(c.copies.empty());
  const UpdateFinding* u = FindUpdate(c, "dus");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->verdict, UpdateVerdict::kInPlace);
  EXPECT_EQ(Name(u->fusion()), "upd");
  EXPECT_EQ(u->executions, 100);
  EXPECT_EQ(u->bytes_written, 4);
  EXPECT_FALSE(u->full_rewrite);
  ASSERT_TRUE(u->source.has_value());
  EXPECT_EQ(u->source->file, "train.py");
  EXPECT_EQ(u->source->line, 41);
  ASSERT_EQ(c.parameters.size(), 1u);
  EXPECT_TRUE(c.parameters[0].donated());
  EXPECT_FALSE(c.parameters[0].copied());
}

TEST(CheckRulesTest, NonDonatedLoopUpdateRunsOnACopyOfTheArgument) {
  auto m = ParseOne(Loop("",
                         "  %cp = f32[1024]{0} copy(%buf)\n"
                         "  %init = (s32[], f32[1024]{0}) tuple(%zero, %cp)"));
  ModuleCheck c = Check(*m);
  const CopyFinding* cp = FindCopy(c, "cp");
  ASSERT_NE(cp, nullptr);
  EXPECT_EQ(cp->bytes, 4096);
  EXPECT_EQ(cp->executions, 1);
  EXPECT_EQ(cp->total_bytes, 4096);
  EXPECT_EQ(cp->cause.cause, CopyCause::kNonDonatedParameter);
  // No JAX name in the metadata: the HLO parameter, and the argument to find.
  EXPECT_EQ(CauseHint(*cp),
            "donate the argument holding HLO parameter 0 (buf): jax.jit(f, donate_argnums=<its position>)");
  // A copy has no metadata; it is attributed to the update that needed it.
  ASSERT_TRUE(cp->source.has_value());
  EXPECT_EQ(cp->source->line, 41);
  EXPECT_EQ(cp->source->via, SourceVia::kUpdate);
  const UpdateFinding* u = FindUpdate(c, "dus");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->verdict, UpdateVerdict::kInPlaceOnCopy);
  EXPECT_EQ(RunsOn(*u), "cp");
  EXPECT_TRUE(c.parameters[0].copied());
  ASSERT_EQ(c.loops.size(), 1u);
  EXPECT_EQ(c.loops[0].trip_count, 100);
  EXPECT_EQ(c.loops[0].trip_count_source, TripCountSource::kInductionVariable);
  EXPECT_EQ(c.loops[0].copy_bytes_per_iteration, 0);
  EXPECT_FALSE(c.loops[0].scales_with_buffer);
}

TEST(CheckRulesTest, UpdatedConstantIsCopied) {
  auto m = ParseOne(Loop("",
                         "  %k = f32[1024]{0} constant({...})\n"
                         "  %cp = f32[1024]{0} copy(%k)\n"
                         "  %init = (s32[], f32[1024]{0}) tuple(%zero, %cp)"));
  ModuleCheck c = Check(*m);
  const CopyFinding* cp = FindCopy(c, "cp");
  ASSERT_NE(cp, nullptr);
  EXPECT_EQ(cp->cause.cause, CopyCause::kConstantUpdated);
}

TEST(CheckRulesTest, SwappedCarriesAreLoopCarriedLive) {
  auto m = ParseOne(R"(
HloModule m, input_output_alias={ {0}: (0, {}, may-alias), {1}: (1, {}, may-alias) }
%body (t: (f32[8], f32[8])) -> (f32[8], f32[8]) {
  %t = (f32[8]{0}, f32[8]{0}) parameter(0)
  %a = f32[8]{0} get-tuple-element(%t), index=0
  %b = f32[8]{0} get-tuple-element(%t), index=1
  %ca = f32[8]{0} copy(%a)
  %cb = f32[8]{0} copy(%b)
  ROOT %r = (f32[8]{0}, f32[8]{0}) tuple(%cb, %ca)
}
%cond (t: (f32[8], f32[8])) -> pred[] {
  %t = (f32[8]{0}, f32[8]{0}) parameter(0)
  ROOT %p = pred[] constant(false)
}
ENTRY %main (x: f32[8], y: f32[8]) -> (f32[8], f32[8]) {
  %x = f32[8]{0} parameter(0)
  %y = f32[8]{0} parameter(1)
  %init = (f32[8]{0}, f32[8]{0}) tuple(%x, %y)
  ROOT %w = (f32[8]{0}, f32[8]{0}) while(%init), condition=%cond, body=%body, backend_config={"known_trip_count":{"n":"7"}}
}
)");
  ModuleCheck c = Check(*m);
  const CopyFinding* ca = FindCopy(c, "ca");
  ASSERT_NE(ca, nullptr);
  EXPECT_EQ(ca->cause.cause, CopyCause::kLoopCarriedLive);
  EXPECT_EQ(ca->executions, 7);
  EXPECT_EQ(ca->total_bytes, 7 * 32);
  EXPECT_EQ(Names(ca->enclosing_loops), std::vector<std::string>{"w"});
  ASSERT_EQ(c.loops.size(), 1u);
  EXPECT_EQ(c.loops[0].trip_count_source, TripCountSource::kKnownTripCount);
  EXPECT_EQ(c.loops[0].copy_bytes_per_iteration, 64);
  // Listed, but not "grows with buffer size": a swap of carries is what
  // jax.random's threefry loops do with their fixed-size key words every
  // iteration (tests/analysis/loop_growth_test.cc), and HLO cannot tell the
  // two apart.
  EXPECT_EQ(c.loops[0].scaling.size(), 2u);
  EXPECT_FALSE(c.loops[0].scales_with_buffer);
}

TEST(CheckRulesTest, ReadAfterUpdateKeepsTheOldValue) {
  auto m = ParseOne(R"(
HloModule m, input_output_alias={ {0}: (0, {}, may-alias) }
ENTRY %main (x: f32[64], i: s32[]) -> (f32[64], f32[]) {
  %x = f32[64]{0} parameter(0)
  %i = s32[] parameter(1)
  %keep = f32[64]{0} copy(%x)
  %c = f32[1]{0} constant({2})
  %dus = f32[64]{0} dynamic-update-slice(%x, %c, %i)
  %z = f32[] constant(0)
  %sum = f32[] reduce(%keep, %z), dimensions={0}, to_apply=%add
  ROOT %r = (f32[64]{0}, f32[]) tuple(%dus, %sum)
}
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
)");
  // XLA would put the copy on the DUS operand; here the reader holds the
  // copy. Either way the copy exists because the old value is still read.
  ModuleCheck c = Check(*m);
  const UpdateFinding* u = FindUpdate(c, "dus");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->verdict, UpdateVerdict::kInPlace);
  EXPECT_EQ(u->bytes_written, 4);
}

TEST(CheckRulesTest, OutputReturnedTwiceIsDuplicated) {
  auto m = ParseOne(R"(
HloModule m
ENTRY %main (x: f32[16]) -> (f32[16], f32[16]) {
  %x = f32[16]{0} parameter(0)
  %y = f32[16]{0} negate(%x)
  %y2 = f32[16]{0} copy(%y)
  ROOT %r = (f32[16]{0}, f32[16]{0}) tuple(%y, %y2)
}
)");
  ModuleCheck c = Check(*m);
  const CopyFinding* cp = FindCopy(c, "y2");
  ASSERT_NE(cp, nullptr);
  EXPECT_EQ(cp->cause.cause, CopyCause::kOutputDuplicated);
}

TEST(CheckRulesTest, ReturnedParameterIsCopiedWhenNotDonated) {
  auto m = ParseOne(R"(
HloModule m
ENTRY %main (x: f32[16]) -> (f32[16]) {
  %x = f32[16]{0} parameter(0)
  %cx = f32[16]{0} copy(%x)
  ROOT %r = (f32[16]{0}) tuple(%cx)
}
)");
  ModuleCheck c = Check(*m);
  const CopyFinding* cp = FindCopy(c, "cx");
  ASSERT_NE(cp, nullptr);
  EXPECT_EQ(cp->cause.cause, CopyCause::kNonDonatedParameter);
  EXPECT_NE(CauseDetail(*cp).find("returned"), std::string::npos);
}

TEST(CheckRulesTest, LayoutChangeAndMemorySpaceMove) {
  auto m = ParseOne(R"(
HloModule m
ENTRY %main (x: f32[4,8]) -> (f32[4,8], f32[4,8]) {
  %x = f32[4,8]{1,0} parameter(0)
  %t = f32[4,8]{0,1} copy(%x)
  %cs = (f32[4,8]{1,0:S(1)}, f32[4,8]{1,0}, u32[]) copy-start(%x)
  %cd = f32[4,8]{1,0:S(1)} copy-done(%cs)
  ROOT %r = (f32[4,8]{0,1}, f32[4,8]{1,0:S(1)}) tuple(%t, %cd)
}
)");
  ModuleCheck c = Check(*m);
  const CopyFinding* t = FindCopy(c, "t");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->copy_class, CopyClass::kLayoutChange);
  EXPECT_EQ(t->cause.cause, CopyCause::kLayoutChange);
  const CopyFinding* cs = FindCopy(c, "cs");
  ASSERT_NE(cs, nullptr);
  EXPECT_EQ(cs->kind, CopyKind::kCopyStart);
  EXPECT_EQ(cs->copy_class, CopyClass::kMemorySpaceMove);
  EXPECT_EQ(cs->bytes, 128);
}

TEST(CheckRulesTest, GpuCopyFusionIsACopy) {
  auto m = ParseOne(R"(
HloModule m
%copy_fusion (p: f32[256]) -> f32[256] {
  %p = f32[256]{0} parameter(0)
  ROOT %c = f32[256]{0} copy(%p)
}
ENTRY %main (x: f32[256]) -> f32[256] {
  %x = f32[256]{0} parameter(0)
  ROOT %f = f32[256]{0} fusion(%x), kind=kLoop, calls=%copy_fusion
}
)");
  ModuleCheck c = Check(*m);
  const CopyFinding* f = FindCopy(c, "f");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->kind, CopyKind::kCopyFusion);
  EXPECT_EQ(f->bytes, 1024);
  EXPECT_EQ(f->copy_class, CopyClass::kProtective);
}

TEST(CheckRulesTest, SeedExampleUpdateIsNotMaterialized) {
  // The fused example from the user's question: the DUS feeds a reduce in
  // the same kernel and is never written to memory.
  auto m = ParseOne(R"(
HloModule jit_f
%region (a: s32[], b: s32[]) -> s32[] {
  %a = s32[] parameter(0)
  %b = s32[] parameter(1)
  ROOT %add = s32[] add(%a, %b)
}
%fused_computation (param_0.2: s32[10]) -> s32[] {
  %param_0.2 = s32[10]{0} parameter(0)
  %c1 = s32[1]{0} constant({1})
  %c0 = s32[] constant(0)
  %dynamic-update-slice.4 = s32[10]{0} dynamic-update-slice(%param_0.2, %c1, %c0)
  ROOT %reduce.1 = s32[] reduce(%dynamic-update-slice.4, %c0), dimensions={0}, to_apply=%region
}
ENTRY %main.14 (Arg_0.1: s32[10]) -> s32[] {
  %Arg_0.1 = s32[10]{0} parameter(0)
  ROOT %fusion = s32[] fusion(%Arg_0.1), kind=kLoop, calls=%fused_computation
}
)");
  ModuleCheck c = Check(*m);
  const UpdateFinding* u = FindUpdate(c, "dynamic-update-slice.4");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->verdict, UpdateVerdict::kNotMaterialized);
  EXPECT_EQ(Name(u->fusion()), "fusion");
  EXPECT_EQ(u->bytes_written, 0);
  EXPECT_TRUE(c.copies.empty());
}

TEST(CheckRulesTest, FusionComputingItsOwnOperandIsOutOfPlace) {
  auto m = ParseOne(R"(
HloModule m
%fused (p0: bf16[64], p1: s32[]) -> bf16[64] {
  %p0 = bf16[64]{0} parameter(0)
  %p1 = s32[] parameter(1)
  %wide = f32[64]{0} convert(%p0)
  %c = f32[1]{0} constant({1})
  %dus = f32[64]{0} dynamic-update-slice(%wide, %c, %p1)
  ROOT %narrow = bf16[64]{0} convert(%dus)
}
ENTRY %main (x: bf16[64], i: s32[]) -> bf16[64] {
  %x = bf16[64]{0} parameter(0)
  %i = s32[] parameter(1)
  ROOT %f = bf16[64]{0} fusion(%x, %i), kind=kLoop, calls=%fused
}
)");
  ModuleCheck c = Check(*m);
  const UpdateFinding* u = FindUpdate(c, "dus");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->verdict, UpdateVerdict::kOutOfPlace);
  // The kernel writes its bf16[64] output (128 B), not the f32 it computes in.
  EXPECT_EQ(u->buffer_bytes, 128);
  EXPECT_EQ(u->bytes_written, 128);
}

TEST(CheckRulesTest, FullRewriteWhenTheParameterIsReadElsewhere) {
  // The DUS fusion shares its buffer but also reads the whole parameter
  // (reverse), so the emitter cannot update only the slice.
  auto m = ParseOne(R"(
HloModule m
%fused (p0: f32[64], p1: s32[]) -> (f32[64], f32[64]) {
  %p0 = f32[64]{0} parameter(0)
  %p1 = s32[] parameter(1)
  %rev = f32[64]{0} reverse(%p0), dimensions={0}
  %c = f32[1]{0} constant({1})
  %dus = f32[64]{0} dynamic-update-slice(%p0, %c, %p1)
  ROOT %t = (f32[64]{0}, f32[64]{0}) tuple(%dus, %rev)
}
ENTRY %main (x: f32[64], i: s32[]) -> (f32[64], f32[64]) {
  %x = f32[64]{0} parameter(0)
  %i = s32[] parameter(1)
  ROOT %f = (f32[64]{0}, f32[64]{0}) fusion(%x, %i), kind=kLoop, calls=%fused
}
)");
  ModuleCheck c = Check(*m);
  const UpdateFinding* u = FindUpdate(c, "dus");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->verdict, UpdateVerdict::kInPlace);
  EXPECT_TRUE(u->full_rewrite);
  EXPECT_EQ(u->bytes_written, 256);
}

TEST(CheckRulesTest, UnknownTripCountIsReportedNotGuessed) {
  auto m = ParseOne(testing::kUnknownTripCountLoop);
  ModuleCheck c = Check(*m);
  ASSERT_EQ(c.loops.size(), 1u);
  EXPECT_EQ(c.loops[0].trip_count, std::nullopt);
  EXPECT_EQ(c.loops[0].trip_count_source, TripCountSource::kUnknown);
  const CopyFinding* cb = FindCopy(c, "cb");
  ASSERT_NE(cb, nullptr);
  EXPECT_EQ(cb->executions, std::nullopt);
  EXPECT_EQ(cb->total_bytes, std::nullopt);
  EXPECT_EQ(cb->bytes, 32);
  // Per iteration the loop's bytes are known all the same: the copy runs
  // once per iteration.
  EXPECT_EQ(c.loops[0].copy_bytes_per_iteration, 32);
}

TEST(CheckRulesTest, OutputToOperandAliasingIsAnInPlacePair) {
  std::vector<InPlacePair> pairs = ParseOutputToOperandAliasing("{{0}: (1, {}), {1}: (2, {0})}");
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[0].operand_number, 1);
  EXPECT_EQ(pairs[0].output_index, ShapeIndex{0});
  EXPECT_EQ(pairs[1].operand_number, 2);
  EXPECT_EQ(pairs[1].operand_index, ShapeIndex{0});
}

TEST(CheckRulesTest, BufferDonorOnlyIsDonatedButStillReadOnly) {
  // donate_argnums without a matching output: JAX writes buffer_donor, XLA
  // still protects the argument (IsReadonlyEntryParameterValue).
  auto m = ParseOne(Loop(", buffer_donor={ (0, {}) }",
                         "  %cp = f32[1024]{0} copy(%buf)\n"
                         "  %init = (s32[], f32[1024]{0}) tuple(%zero, %cp)"));
  ModuleCheck c = Check(*m);
  ASSERT_EQ(c.parameters.size(), 1u);
  EXPECT_TRUE(c.parameters[0].donated());
  EXPECT_EQ(c.parameters[0].donation, DonationKind::kBufferDonor);
  const CopyFinding* cp = FindCopy(c, "cp");
  ASSERT_NE(cp, nullptr);
  EXPECT_EQ(cp->cause.cause, CopyCause::kNonDonatedParameter);
  ASSERT_NE(cp->cause.As<ParameterFacts>(), nullptr);
  EXPECT_EQ(cp->cause.As<ParameterFacts>()->donation, DonationKind::kBufferDonor);
  EXPECT_NE(CauseDetail(*cp).find("buffer_donor only"), std::string::npos) << CauseDetail(*cp);
  EXPECT_EQ(DonationOf(*m, 0, {}), DonationKind::kBufferDonor);
  EXPECT_EQ(DonationOf(*m, 1, {}), DonationKind::kNotDonated);
}

TEST(CheckRulesTest, DonationIsPerShapeIndex) {
  auto m = ParseOne(R"(
HloModule m, input_output_alias={ {0}: (0, {1}, may-alias) }
ENTRY %main (p: (f32[4], f32[4])) -> (f32[4]) {
  %p = (f32[4]{0}, f32[4]{0}) parameter(0)
  %a = f32[4]{0} get-tuple-element(%p), index=0
  ROOT %r = (f32[4]{0}) tuple(%a)
}
)");
  EXPECT_EQ(DonationOf(*m, 0, {1}), DonationKind::kInputOutputAlias);
  EXPECT_EQ(DonationOf(*m, 0, {0}), DonationKind::kNotDonated);
  EXPECT_EQ(ParameterDonation(*m, 0), DonationKind::kInputOutputAlias);
  // The table answers as the scans, and says where the memory goes.
  DonationTable table(*m);
  EXPECT_EQ(table.Of(0, {1}), DonationKind::kInputOutputAlias);
  EXPECT_EQ(table.Of(0, {0}), DonationKind::kNotDonated);
  EXPECT_EQ(table.OfParameter(0), DonationKind::kInputOutputAlias);
  EXPECT_EQ(table.OfParameter(1), DonationKind::kNotDonated);
  EXPECT_EQ(table.AliasedOutputs(0), (std::vector<ShapeIndex>{{0}}));
}

TEST(CheckRulesTest, FindingsAreFoundFromTheIr) {
  auto m = ParseOne(Loop("",
                         "  %cp = f32[1024]{0} copy(%buf)\n"
                         "  %init = (s32[], f32[1024]{0}) tuple(%zero, %cp)"));
  ModuleCheck c = Check(*m);
  const HloComputation* body = m->GetComputation("body");
  const HloInstruction* upd = body->GetInstruction("upd");
  const HloInstruction* cp = m->entry_computation()->GetInstruction("cp");
  ASSERT_TRUE(upd && cp);
  ASSERT_EQ(c.UpdatesOf(upd).size(), 1u);  // the fusion finds the update fused into it
  const UpdateFinding* u = c.UpdatesOf(upd)[0];
  EXPECT_EQ(Name(u->instruction()), "dus");
  EXPECT_EQ(c.FindUpdate(u->site), u);
  ASSERT_TRUE(u->runs_on);
  EXPECT_EQ(c.FindCopy(*u->runs_on), FindCopy(c, "cp"));  // the typed "runs on" relation
  ASSERT_EQ(c.CopiesOf(cp).size(), 1u);
  ASSERT_EQ(FindCopy(c, "cp")->feeds.size(), 2u);  // the update, and the loop state it starts
  EXPECT_EQ(FindCopy(c, "cp")->feeds[0].kind, CopyFeed::Kind::kUpdate);
  EXPECT_EQ(FindCopy(c, "cp")->feeds[0].update, u->site);
  EXPECT_EQ(FindCopy(c, "cp")->feeds[1].kind, CopyFeed::Kind::kLoopState);
  EXPECT_EQ(Name(FindCopy(c, "cp")->feeds[1].loop), "w");
  EXPECT_EQ(c.FindLoop(m->entry_computation()->GetInstruction("w")), &c.loops[0]);
}

}  // namespace
}  // namespace hloscope
