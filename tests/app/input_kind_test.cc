// What users pass by mistake gets a one-line answer and exit 2: StableHLO,
// a jaxpr, the buffer-assignment dump, a JSON document, HLO before
// optimization (`--allow-unoptimized` reads the last anyway).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "run_cli.h"

namespace hloscope {
namespace {

namespace fs = std::filesystem;

class InputKindTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("hloscope_input_kind_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }
  fs::path dir_;
};

TEST_F(InputKindTest, ForeignFormatsSayWhatTheyAre) {
  struct Case {
    const char* name;
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {"f.mlir",
       "module @jit_f attributes {mhlo.num_partitions = 1 : i32} {\n  func.func public @main() {\n  }\n}\n",
       "this is StableHLO (MLIR) text, not HLO: hloscope reads the HLO XLA compiled — pass "
       "compiled.as_text() "
       "(jax.jit(f).lower(...).compile()) or an xla_dump_to dump's *after_optimizations.txt"},
      {"f.jaxpr", "{ lambda ; a:f32[8]. let b:f32[8] = neg a in (b,) }\n",
       "this is a jaxpr, not HLO: copies are decided by XLA after it — pass compiled.as_text() or an "
       "xla_dump_to "
       "dump's *after_optimizations.txt"},
      {"f-buffer-assignment.txt",
       "BufferAssignment:\nallocation 0: size 4, parameter 0, shape |f32[]| at ShapeIndex {}:\n",
       "this is XLA's buffer-assignment dump, not HLO: pass the module (the *after_optimizations.txt beside "
       "it), and "
       "this file with --buffer-assignment if it is not found by itself"},
      {"f.json", "{\"schema_version\": 2, \"tool\": \"hloscope\"}\n",
       "this is a JSON document, not HLO (a saved `hloscope check --format json` is compared with `hloscope "
       "diff "
       "BASELINE.json FILE`)"},
  };
  for (const Case& c : cases) {
    std::string path = Write(c.name, c.text);
    CliRun r = Cli({"check", path});
    EXPECT_EQ(r.code, 2) << c.name;
    EXPECT_EQ(r.err.substr(0, r.err.find('\n')), path + ":1:1: error: " + c.message) << c.name;
  }
}

TEST_F(InputKindTest, HloBeforeOptimizationIsRefusedUnlessAllowed) {
  const std::string text =
      "HloModule jit_f\n\nENTRY %main (x: f32[8]) -> f32[8] {\n  %x = f32[8]{0} parameter(0)\n"
      "  ROOT %n = f32[8]{0} negate(%x)\n}\n";
  std::string pre = Write("module_0001.jit_f.before_optimizations.txt", text);
  CliRun r = Cli({"check", pre});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            pre +
                ": error: module jit_f is HLO before optimization (no is_scheduled=true: a "
                "before_optimizations dump or lowered.as_text(dialect=\"hlo\")); XLA has not yet decided "
                "its copies — pass the *after_optimizations.txt dump or compiled.as_text() "
                "(--allow-unoptimized reads it anyway)\n");
  EXPECT_EQ(Cli({"diff", pre, pre}).code, 2);
  EXPECT_EQ(Cli({"check", pre, "--allow-unoptimized"}).code, 0);
  EXPECT_EQ(Cli({"diff", pre, pre, "--allow-unoptimized"}).code, 0);
  // The exploring commands read any HLO.
  EXPECT_EQ(Cli({"stats", pre}).code, 0);
  // Scheduled HLO is optimized HLO.
  std::string post =
      Write("post.txt", "HloModule jit_f, is_scheduled=true\n" + text.substr(text.find('\n') + 1));
  EXPECT_EQ(Cli({"check", post}).code, 0);
}

}  // namespace
}  // namespace hloscope
