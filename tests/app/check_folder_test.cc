// `hloscope check DIR` on an XLA dump folder: every optimized module is
// listed and checked with its own buffer assignment, compilations of one
// function are told apart by file and signature, and gates count them all.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "run_cli.h"

namespace hloscope {
namespace {

namespace fs = std::filesystem;
const fs::path kFixtures = fs::path(HLOSCOPE_SOURCE_DIR) / "tests" / "fixtures" / "jax";

class CheckFolderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("hloscope_check_folder_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    // Two compilations of one function (XLA numbers them apart), one with
    // the HLO before optimization too, and a file that is no HLO.
    Dump("loop_dus_donated", "module_0001.jit_step.cpu_after_optimizations");
    Dump("loop_read_after_write", "module_0004.jit_step.cpu_after_optimizations");
    std::ofstream(dir_ / "module_0001.jit_step.before_optimizations.txt") << "HloModule jit_step\n";
    std::ofstream(dir_ / "module_0001.jit_step.ir-no-opt.ll") << "; llvm\n";
  }
  void TearDown() override { fs::remove_all(dir_); }
  void Dump(const std::string& fixture, const std::string& stem) {
    fs::copy_file(kFixtures / fixture / "module.hlo.txt", dir_ / (stem + ".txt"));
    fs::copy_file(kFixtures / fixture / "buffer-assignment.txt", dir_ / (stem + "-buffer-assignment.txt"));
  }
  fs::path dir_;
};

TEST_F(CheckFolderTest, ListsTheModulesAndChecksEachOptimizedOneWithItsBufferAssignment) {
  CliRun r = Cli({"check", dir_.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(
      r.out.rfind("dump folder " + dir_.string() + ": 2 modules, 2 optimized HLO files checked below\n", 0),
      0u)
      << r.out;
  EXPECT_NE(r.out.find("module_0001.jit_step.before_optimizations.txt  (before optimization: not checked)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("module_0004.jit_step.cpu_after_optimizations.txt  (optimized: checked with its "
                       "buffer assignment)"),
            std::string::npos)
      << r.out;
  // The module whose answer stands out is shown whole; the clean one (an
  // update in place, nothing copied) is one line at the end. Its check
  // against its own dump is in the JSON (the test below).
  EXPECT_NE(r.out.find("== module_0004 jit_loop_read_after_write"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("== module_0001"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n+ 1 module where nothing stands out and nothing is copied: jit_loop_dus_donated "),
            std::string::npos)
      << r.out;
  // Each module against its own dump, not "not applied: the input holds 2".
  EXPECT_NE(
      r.out.find("verdicts checked against XLA's buffer assignment (" +
                 (dir_ / "module_0004.jit_step.cpu_after_optimizations-buffer-assignment.txt").string()),
      std::string::npos)
      << r.out;
  size_t agreed = 0;
  for (size_t at = r.out.find(" confirmed, 0 contradicted"); at != std::string::npos;
       at = r.out.find(" confirmed, 0 contradicted", at + 1))
    ++agreed;
  EXPECT_EQ(agreed, 1u) << r.out;
}

TEST_F(CheckFolderTest, JsonHasEveryModuleWithItsPathAndGatesCountThemAll) {
  CliRun r = Cli({"check", dir_.string(), "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["modules"].size(), 2u);
  for (const nlohmann::json& m : doc["modules"]) EXPECT_FALSE(m["buffer_assignment"].is_null()) << m["name"];
  EXPECT_EQ(doc["modules"][1]["path"], (dir_ / "module_0004.jit_step.cpu_after_optimizations.txt").string());
  // The read-after-write compilation copies in its loop; the donated one does not.
  CliRun gate = Cli({"check", dir_.string(), "--fail-on-copies-in-loops"});
  EXPECT_EQ(gate.code, 1) << gate.err;
  EXPECT_NE(gate.err.find("jit_loop_read_after_write"), std::string::npos) << gate.err;
}

TEST_F(CheckFolderTest, RefusesFoldersWithoutOptimizedDumpsAndOneModulesFlags) {
  fs::remove(dir_ / "module_0001.jit_step.cpu_after_optimizations.txt");
  fs::remove(dir_ / "module_0004.jit_step.cpu_after_optimizations.txt");
  CliRun r = Cli({"check", dir_.string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(
      r.err.rfind(dir_.string() + ": error: a dump folder of 1 module without an optimized HLO dump", 0), 0u)
      << r.err;
  CliRun ba = Cli({"check", dir_.string(), "--buffer-assignment", "x.txt"});
  EXPECT_EQ(ba.code, 2);
  EXPECT_NE(ba.err.find("is a dump folder: each module is checked with the buffer assignment beside it"),
            std::string::npos)
      << ba.err;
}

TEST_F(CheckFolderTest, AScopeNeedExistInOneModuleOnly) {
  CliRun r = Cli({"check", dir_.string(), "--scope", "no_such_scope"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("no_such_scope"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace hloscope
