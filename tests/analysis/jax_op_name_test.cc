// JAX's op_name vocabulary: splitting, transformation chains, and which
// segments are a private helper JAX jitted for itself (library code).
#include "hloscope/analysis/jax_op_name.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hloscope/analysis/source_origin.h"

namespace hloscope {
namespace {

std::vector<std::string> Split(std::string_view s) {
  std::vector<std::string> out;
  for (std::string_view p : SplitOpNamePath(s)) out.emplace_back(p);
  return out;
}

TEST(JaxOpName, SplitsOnlyAtTopLevelSlashes) {
  EXPECT_EQ(Split("jit(f)/transpose(jvp(enc))/reduce_sum[axes=(0,)]"),
            (std::vector<std::string>{"jit(f)", "transpose(jvp(enc))", "reduce_sum[axes=(0,)]"}));
  EXPECT_EQ(Split("jit(f)/odd(a/b)/add"), (std::vector<std::string>{"jit(f)", "odd(a/b)", "add"}));
}

TEST(JaxOpName, UnwrapsTheTransformationChainOutermostFirst) {
  UnwrappedSegment u = UnwrapSegment("vmap(jit(_threefry_split))");
  ASSERT_EQ(u.transforms.size(), 2u);
  EXPECT_EQ(u.transforms[0], "vmap");
  EXPECT_EQ(u.transforms[1], "jit");
  EXPECT_EQ(u.core, "_threefry_split");
  EXPECT_EQ(UnwrapSegment("reduce_sum[axes=(0,)]").core, "reduce_sum");
  EXPECT_EQ(UnwrapSegment("vmap()").core, "");
  // Not a call spanning the whole segment: kept as written.
  EXPECT_EQ(UnwrapSegment("f(a)b").core, "f(a)b");
}

TEST(JaxOpName, OneListOfTransformations) {
  EXPECT_EQ(JaxTransformOf("pjit"), JaxTransform::kJit);
  EXPECT_EQ(JaxTransformOf("vmap"), JaxTransform::kBatch);
  EXPECT_EQ(JaxTransformOf("pmap"), JaxTransform::kDistribute);
  EXPECT_EQ(JaxTransformOf("shard_map"), JaxTransform::kDistribute);
  EXPECT_EQ(JaxTransformOf("transpose"), JaxTransform::kDifferentiate);
  EXPECT_EQ(JaxTransformOf("checkpoint"), JaxTransform::kRemat);
  EXPECT_EQ(JaxTransformOf("custom_vjp_call"), JaxTransform::kCustomRule);
  EXPECT_EQ(JaxTransformOf("encoder"), std::nullopt);
}

TEST(JaxOpName, PrivateHelpersUnderAnyTransformationAreFound) {
  // JAX 0.10/0.12 spellings of jax.random under vmap, grad and checkpoint.
  EXPECT_EQ(
      PrivateJitHelper("jit(step)/vmap()/vmap(jit(_threefry_split))/f.<locals>.<lambda>/while/body/add"),
      "vmap(jit(_threefry_split))");
  EXPECT_EQ(PrivateJitHelper("jit(step)/vmap(jit(_normal))/jit(_normal_real)/erf_inv"), "vmap(jit(_normal))");
  EXPECT_EQ(PrivateJitHelper("jit(step)/transpose(jvp(jit(_logsumexp)))/exp"),
            "transpose(jvp(jit(_logsumexp)))");
  EXPECT_EQ(PrivateJitHelper("jit(step)/checkpoint(jit(_uniform))/or"), "checkpoint(jit(_uniform))");
  EXPECT_EQ(PrivateJitHelper("jit(step)/shard_map(jit(_where))/select_n"), "shard_map(jit(_where))");
}

TEST(JaxOpName, TheUsersOwnNamesAreNotHelpers) {
  // The program's root is the user's, underscore or not.
  EXPECT_EQ(PrivateJitHelper("jit(_train_step)/while/body/dynamic_update_slice"), "");
  // A named scope or a vmapped function of the user's, not jitted.
  EXPECT_EQ(PrivateJitHelper("jit(step)/_private_scope/add"), "");
  EXPECT_EQ(PrivateJitHelper("jit(step)/vmap(_inner)/add"), "");
  EXPECT_EQ(PrivateJitHelper("jit(step)/vmap(jit(update))/add"), "");
}

TEST(SourceOrigin, AVmappedRandomHelperIsLibraryCode) {
  SourceLocation loc;
  loc.file = "/home/me/train.py";
  loc.line = 12;
  loc.op_name = "jit(step)/while/body/vmap(jit(_threefry_split))/f.<locals>.<lambda>/while/body/add";
  SourceOrigin o = OriginOf(loc);
  EXPECT_TRUE(o.library);
  EXPECT_EQ(o.library_part, "vmap(jit(_threefry_split))");
  loc.op_name = "jit(_step)/while/body/dynamic_update_slice";
  EXPECT_FALSE(OriginOf(loc).library);
}

}  // namespace
}  // namespace hloscope
