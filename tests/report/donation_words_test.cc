// Donations in words (report/donation_words.cc, and the donate hint of
// report/cause_words.cc): a donation asked for and dropped, with its reason
// and fix; a hint that names the argument JAX's way.
#include "hloscope/report/donation_words.h"

#include <gtest/gtest.h>

#include "../analysis/check_test_util.h"
#include "hloscope/report/cause_words.h"

namespace hloscope {
namespace {

using testing::Check;
using testing::ParseOne;

// A donated argument XLA could not alias: the output is 4× its size (a
// replicated result of a sharded argument). XLA leaves the unused donor.
constexpr std::string_view kDroppedDonor = R"(HloModule m, buffer_donor={ (0, {}) }
ENTRY %main (x: f32[128,256]) -> f32[1024,256] {
  %x = f32[128,256]{1,0} parameter(0), metadata={op_name="x"}
  %z = f32[] constant(0)
  ROOT %b = f32[1024,256]{1,0} broadcast(%z), dimensions={}
}
)";

TEST(DonationWordsTest, AnUnusedBufferDonorIsADroppedDonationWithItsReason) {
  auto m = ParseOne(std::string(kDroppedDonor));
  ModuleCheck c = Check(*m);
  ASSERT_EQ(c.parameters.size(), 1u);
  const ParameterFinding& p = c.parameters[0];
  ASSERT_TRUE(p.request);
  EXPECT_TRUE(p.request->requested);
  ASSERT_TRUE(p.request->dropped);
  EXPECT_EQ(*p.request->dropped, DroppedDonation::kNoOutputOfShape);
  EXPECT_EQ(c.donation_request_source, "buffer_donor");
  EXPECT_EQ(DonationColumn(p), "dropped");
  EXPECT_EQ(
      DroppedDonationReason(c, p),
      "no output has its per-device shape and dtype f32[128,256] (outputs: f32[1024,256]); XLA reuses a "
      "donated buffer only for such an output");
  EXPECT_EQ(
      DroppedDonationsLine(c),
      "x (argument 0), 128.0 KiB, was donated, but XLA could not reuse it: it still needs its own buffer");
  EXPECT_EQ(DonationRequestSourceText(c), "the module's buffer_donor");
}

TEST(DonationWordsTest, AKeptDonationAndAnUnknownRequestSayNothing) {
  auto kept = ParseOne(R"(HloModule m, input_output_alias={ {}: (0, {}, may-alias) }
ENTRY %main (x: f32[8]) -> f32[8] {
  %x = f32[8]{0} parameter(0)
  ROOT %n = f32[8]{0} negate(%x)
}
)");
  ModuleCheck c = Check(*kept);
  EXPECT_FALSE(c.parameters[0].request);  // nothing says what was asked for
  EXPECT_EQ(DonationColumn(c.parameters[0]), "donated");
  EXPECT_EQ(DroppedDonationsLine(c), "");
  EXPECT_EQ(AliasedOutputsText(c.parameters[0]), "its memory is reused for the output");
  EXPECT_EQ(DonationSavesText(c, c.parameters[0]), "");
}

// Which outputs a kept donation's memory goes to; what an undonated
// argument's copy would save, and nothing for a copy with another cause.
TEST(DonationWordsTest, AnArgumentSaysWhereItsMemoryGoesAndWhatDonatingItSaves) {
  auto m = ParseOne(R"(HloModule m, input_output_alias={ {1}: (1, {}, may-alias) }
ENTRY %main (p: f32[1024], q: f32[8], i: s32[]) -> (f32[1024], f32[8]) {
  %p = f32[1024]{0} parameter(0), metadata={op_name="state[\'buf\']"}
  %q = f32[8]{0} parameter(1), metadata={op_name="state[\'n\']"}
  %i = s32[] parameter(2)
  %cp = f32[1024]{0} copy(%p)
  %c = f32[1]{0} constant({1})
  %dus = f32[1024]{0} dynamic-update-slice(%cp, %c, %i)
  %n = f32[8]{0} negate(%q)
  ROOT %t = (f32[1024]{0}, f32[8]{0}) tuple(%dus, %n)
}
)");
  ModuleCheck c = Check(*m);
  ASSERT_EQ(c.parameters.size(), 3u);
  const ParameterFinding& p = c.parameters[0];
  EXPECT_EQ(p.donation_saves, 4096);
  EXPECT_EQ(DonationSavesText(c, p),
            "donating it would save 4.0 KiB moved per call: XLA copies it only because it is not donated");
  EXPECT_EQ(AliasedOutputsText(p), "");
  EXPECT_EQ(AliasedOutputsText(c.parameters[1]), "its memory is reused for output {1}");
  EXPECT_EQ(c.parameters[1].donation_saves, std::nullopt);  // donated: nothing to save
  EXPECT_EQ(c.parameters[2].donation_saves, std::nullopt);  // never copied
}

// The copy of an undonated argument whose JAX path is `op_name`.
std::string HintFor(std::string_view op_name) {
  std::string text = R"(HloModule m
ENTRY %main (p: f32[1024], i: s32[]) -> f32[1024] {
  %p = f32[1024]{0} parameter(0), metadata={op_name="OP"}
  %i = s32[] parameter(1)
  %cp = f32[1024]{0} copy(%p)
  %c = f32[1]{0} constant({1})
  ROOT %dus = f32[1024]{0} dynamic-update-slice(%cp, %c, %i)
}
)";
  text.replace(text.find("OP"), 2, op_name);
  auto m = ParseOne(text);
  ModuleCheck c = Check(*m);
  for (const CopyFinding& f : c.copies) return CauseHint(f);
  return "no copy";
}

TEST(DonationWordsTest, TheDonateHintNamesTheArgumentJaxNamesTheLeafAfter) {
  EXPECT_EQ(
      HintFor("state[\\'buf\\']"),
      "donate state: jax.jit(f, donate_argnames=\"state\") (the argument holding state['buf']); if the jit "
      "already has donate_argnums, add state's position there instead");
  EXPECT_EQ(
      HintFor("x"),
      "donate x: jax.jit(f, donate_argnames=\"x\"); if the jit already has donate_argnums, add x's position "
      "there instead");
  EXPECT_EQ(HintFor("args[2]"),
            "donate args[2]: jax.jit(f, donate_argnums=2) if f takes only *args (else 2 plus the number of "
            "positional parameters before *args)");
  // Not a JAX path: the HLO parameter, and the argument to find.
  EXPECT_EQ(HintFor("jit(f)/scatter"),
            "donate the argument holding HLO parameter 0 (p): jax.jit(f, donate_argnums=<its position>)");
}

}  // namespace
}  // namespace hloscope
