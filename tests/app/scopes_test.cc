// `hloscope scopes` and what every --scope now checks: a scope no
// instruction lies in is an error naming the closest ones.
#include <gtest/gtest.h>

#include <filesystem>

#include "run_cli.h"

namespace hloscope {
namespace {

const std::string kTrainStep =
    (std::filesystem::path(HLOSCOPE_SOURCE_DIR) / "tests/fixtures/jax/scoped_train_step/module.hlo.txt")
        .string();

TEST(Scopes, ListsTheNamedScopesWithInstructionCounts) {
  CliRun r = Cli({"scopes", kTrainStep});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out,
            "jit_scoped_train_step: 5 named scopes\n"
            "  grad_step                                            17 instructions\n"
            "    grad_step/encoder                                  10 instructions\n"
            "    grad_step/head                                      3 instructions\n"
            "  log_write                                             8 instructions\n"
            "  per_example                                           9 instructions\n");
}

TEST(Scopes, AnUnknownScopeIsAnErrorNamingTheClosest) {
  const std::string expected =
      "hloscope: error: no instruction lies in scope 'grad_stp' (closest: grad_step, grad_step/head, "
      "grad_step/encoder; `hloscope scopes " +
      kTrainStep + "` lists them all)\n";
  for (const char* command : {"check", "fusions", "annotate"}) {
    CliRun r = Cli({command, kTrainStep, "--scope", "grad_stp"});
    EXPECT_EQ(r.code, 2) << command;
    EXPECT_EQ(r.err, expected) << command;
    EXPECT_EQ(r.out, "") << command;
  }
  // Existing scopes, wildcards and nested paths still select.
  for (const char* scope : {"grad_step", "grad_*", "grad_step/encoder", "encoder"})
    EXPECT_EQ(Cli({"check", kTrainStep, "--scope", scope}).code, 0) << scope;
}

}  // namespace
}  // namespace hloscope
