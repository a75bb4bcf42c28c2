// An XLA dump folder is listed by XLA's file naming: modules by id and
// name, which of their HLO files are optimized, and the buffer assignment
// beside each optimized one.
#include "hloscope/parser/dump_folder.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "hloscope/parser/dump_naming.h"

namespace hloscope {
namespace {

namespace fs = std::filesystem;

class DumpFolderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("hloscope_dump_folder_test_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void Write(const std::string& name, const std::string& text = "x") { std::ofstream(dir_ / name) << text; }
  fs::path dir_;
};

TEST_F(DumpFolderTest, ModulesByIdWithTheirStagesAndBufferAssignments) {
  Write("module_0007.jit_step.before_optimizations.txt", "12345");
  Write("module_0007.jit_step.cpu_after_optimizations.txt", "1234567890");
  Write("module_0007.jit_step.cpu_after_optimizations-buffer-assignment.txt");
  Write("module_0007.jit_step.cpu_after_optimizations-memory-usage-report.txt");
  Write("module_0007.jit_step.ir-no-opt.ll");
  Write("module_0002.jit_step.cl_739473212.after_optimizations.txt");
  Write("module_0002.jit_step.0012.hlo-pass.after_dce.before_cse.txt");
  fs::create_directories(dir_ / "module_0009.jit_x.cpu_after_optimizations.txt");  // not a file

  Result<DumpFolder> folder = ListDumpFolder(dir_.string());
  ASSERT_TRUE(folder.ok()) << folder.error().Format();
  ASSERT_EQ(folder->modules.size(), 2u);
  EXPECT_EQ(folder->other_files, 4);
  EXPECT_EQ(folder->optimized_files(), 2);

  const DumpModule& tpu = folder->modules[0];
  EXPECT_EQ(tpu.id, "0002");
  EXPECT_EQ(tpu.name, "jit_step");
  ASSERT_EQ(tpu.files.size(), 1u);
  EXPECT_EQ(tpu.files[0].stage, "cl_739473212.after_optimizations");
  EXPECT_TRUE(tpu.files[0].optimized);
  EXPECT_EQ(tpu.files[0].buffer_assignment, "");

  const DumpModule& cpu = folder->modules[1];
  EXPECT_EQ(cpu.id, "0007");
  ASSERT_EQ(cpu.files.size(), 2u);
  EXPECT_EQ(cpu.files[0].stage, "before_optimizations");
  EXPECT_FALSE(cpu.files[0].optimized);
  EXPECT_EQ(cpu.files[0].bytes, 5);
  EXPECT_EQ(cpu.files[1].stage, "cpu_after_optimizations");
  EXPECT_EQ(cpu.files[1].bytes, 10);
  EXPECT_EQ(cpu.files[1].buffer_assignment,
            (dir_ / "module_0007.jit_step.cpu_after_optimizations-buffer-assignment.txt").string());
}

TEST_F(DumpFolderTest, OptimizedNames) {
  EXPECT_TRUE(IsOptimizedDumpName("module_0000.jit_f.sm_9.0a_gpu_after_optimizations.txt"));
  EXPECT_TRUE(IsOptimizedDumpName("module_0000.jit_f.cpu_after_optimizations.txt"));
  EXPECT_FALSE(IsOptimizedDumpName("module_0000.jit_f.before_optimizations.txt"));
  EXPECT_FALSE(IsOptimizedDumpName("module_0000.jit_f.cpu_after_optimizations-buffer-assignment.txt"));
  EXPECT_FALSE(IsOptimizedDumpName("module.hlo.txt"));
  EXPECT_FALSE(IsOptimizedDumpName("module_x1.jit_f.cpu_after_optimizations.txt"));
}

TEST_F(DumpFolderTest, TheModuleBeforePartitioningIsFoundBesideItsOptimizedDump) {
  // --xla_dump_hlo_pass_re=spmd-partitioning: CPU/GPU and TPU pass names.
  EXPECT_TRUE(IsPrePartitionDumpOf(
      "module_0004.jit_f.0000.spmd-partitioner.after_shardy-xla.before_spmd-partitioning.txt",
      "module_0004.jit_f.cpu_after_optimizations.txt"));
  EXPECT_TRUE(IsPrePartitionDumpOf(
      "module_0000.jit_f.cl_93.0002.xla-partitioner.after_dce.before_tpu-spmd-partitioning.txt",
      "module_0000.jit_f.cl_93.after_optimizations.txt"));
  EXPECT_FALSE(
      IsPrePartitionDumpOf("module_0005.jit_f.0000.spmd-partitioner.after_x.before_spmd-partitioning.txt",
                           "module_0004.jit_f.cpu_after_optimizations.txt"));  // another module
  EXPECT_FALSE(
      IsPrePartitionDumpOf("module_0004.jit_f.0001.spmd-partitioner.after_spmd-partitioning.before_y.txt",
                           "module_0004.jit_f.cpu_after_optimizations.txt"));  // after, not before
  EXPECT_TRUE(IsPrePartitionDumpOf("before-partitioning.hlo.txt", "module.hlo.txt"));
  // Not a module of its own in a dump folder.
  EXPECT_FALSE(ParseDumpFileName(
      "module_0004.jit_f.0000.spmd-partitioner.after_shardy-xla.before_spmd-partitioning.txt"));

  Write("module_0004.jit_f.cpu_after_optimizations.txt");
  Write("module_0004.jit_f.0001.spmd-partitioner.after_b.before_spmd-partitioning.txt");
  Write("module_0004.jit_f.0000.spmd-partitioner.after_a.before_spmd-partitioning.txt");
  std::optional<std::string> found =
      FindPrePartitionBeside((dir_ / "module_0004.jit_f.cpu_after_optimizations.txt").string());
  ASSERT_TRUE(found);
  EXPECT_EQ(fs::path(*found).filename(),
            "module_0004.jit_f.0000.spmd-partitioner.after_a.before_spmd-partitioning.txt");
  EXPECT_FALSE(FindPrePartitionBeside((dir_ / "module_0009.jit_g.cpu_after_optimizations.txt").string()));

  // The folder's listing matches it to its module in the same pass (check DIR reads no folder twice).
  Write("module_0009.jit_g.cpu_after_optimizations.txt");
  Result<DumpFolder> listed = ListDumpFolder(dir_.string());
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->modules.size(), 2u);
  EXPECT_EQ(fs::path(listed->modules[0].files[0].pre_partition).filename(), fs::path(*found).filename());
  EXPECT_EQ(listed->modules[1].files[0].pre_partition, "");
  EXPECT_EQ(listed->other_files, 2);
}

// hloscope run sets --xla_dump_include_timestamp: every file of a module
// starts with its compile time, and two processes' modules of one number
// stay apart.
TEST_F(DumpFolderTest, TimestampedDumpsAreModulesOfTheirOwn) {
  std::optional<DumpFileName> d =
      ParseDumpFileName("1796406983002625.module_0006.jit_f.cpu_after_optimizations.txt");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->id, "0006");
  EXPECT_EQ(d->module, "jit_f");
  EXPECT_EQ(d->timestamp, "1796406983002625.");
  EXPECT_TRUE(d->optimized);
  EXPECT_EQ(ModuleStem(*d), "1796406983002625.module_0006.jit_f.");
  EXPECT_FALSE(ParseDumpFileName("17x.module_0006.jit_f.cpu_after_optimizations.txt"));
  EXPECT_EQ(
      PrePartitionModuleStem(
          "1796406983002625.module_0006.jit_f.0000.spmd-partitioner.after_a.before_spmd-partitioning.txt"),
      "1796406983002625.module_0006.jit_f.");

  Write("1.module_0006.jit_f.cpu_after_optimizations.txt");
  Write("1.module_0006.jit_f.before_optimizations.txt");
  Write("1.module_0006.jit_f.0000.spmd-partitioner.after_a.before_spmd-partitioning.txt");
  Write("2.module_0006.jit_f.cpu_after_optimizations.txt");
  Result<DumpFolder> listed = ListDumpFolder(dir_.string());
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->modules.size(), 2u);
  EXPECT_EQ(listed->modules[0].timestamp, "1.");
  EXPECT_EQ(listed->modules[0].files.size(), 2u);
  EXPECT_EQ(fs::path(listed->modules[0].files[1].pre_partition).filename(),
            "1.module_0006.jit_f.0000.spmd-partitioner.after_a.before_spmd-partitioning.txt");
  EXPECT_EQ(listed->modules[1].files[0].pre_partition, "");
}

// The module before optimization carries the donation the program asked for.
TEST_F(DumpFolderTest, TheModuleBeforeOptimizationIsFoundBesideItsOptimizedDump) {
  Write("module_0004.jit_f.cpu_after_optimizations.txt");
  Write("module_0004.jit_f.before_optimizations.txt");
  Write("module_0005.jit_g.cpu_after_optimizations.txt");
  std::optional<std::string> found =
      FindBeforeOptimizationsBeside((dir_ / "module_0004.jit_f.cpu_after_optimizations.txt").string());
  ASSERT_TRUE(found);
  EXPECT_EQ(fs::path(*found).filename(), "module_0004.jit_f.before_optimizations.txt");
  EXPECT_FALSE(
      FindBeforeOptimizationsBeside((dir_ / "module_0005.jit_g.cpu_after_optimizations.txt").string()));
  // Not for the module before optimization itself, nor for another file.
  EXPECT_FALSE(FindBeforeOptimizationsBeside((dir_ / "module_0004.jit_f.before_optimizations.txt").string()));
  Write("module.hlo.txt");
  Write("before-optimizations.hlo.txt");
  EXPECT_TRUE(FindBeforeOptimizationsBeside((dir_ / "module.hlo.txt").string()));
}

TEST_F(DumpFolderTest, EmptyFolderHasNoModulesAndAMissingOneIsAnError) {
  Result<DumpFolder> empty = ListDumpFolder(dir_.string());
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->modules.empty());
  Result<DumpFolder> missing = ListDumpFolder((dir_ / "nope").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().Format().find("nope"), std::string::npos);
}

// The pure half of the listing (fuzz/dump_folder_fuzzer.cc): the buffer
// assignment comes from the same listing, never from a stat, and a FIFO
// under a dump's name is not listed at all.
TEST(GroupDumpFolderTest, BufferAssignmentsComeFromTheListing) {
  DumpFolder folder =
      GroupDumpFolder("d", {{"module_0001.jit_f.cpu_after_optimizations.txt", 10},
                            {"module_0001.jit_f.cpu_after_optimizations-buffer-assignment.txt", 4},
                            {"module_0002.jit_g.cpu_after_optimizations.txt", 7}});
  ASSERT_EQ(folder.modules.size(), 2u);
  EXPECT_EQ(folder.modules[0].files[0].buffer_assignment,
            (fs::path("d") / "module_0001.jit_f.cpu_after_optimizations-buffer-assignment.txt").string());
  EXPECT_EQ(folder.modules[0].files[0].bytes, 10);
  EXPECT_EQ(folder.modules[1].files[0].buffer_assignment, "");
  EXPECT_EQ(folder.other_files, 1);
}

TEST_F(DumpFolderTest, AFifoUnderADumpsNameIsNotListed) {
  Write("module_0001.jit_f.cpu_after_optimizations.txt");
  ASSERT_EQ(mkfifo((dir_ / "module_0002.jit_g.cpu_after_optimizations.txt").c_str(), 0600), 0);
  Result<DumpFolder> folder = ListDumpFolder(dir_.string());
  ASSERT_TRUE(folder.ok());
  ASSERT_EQ(folder->modules.size(), 1u);
  EXPECT_EQ(folder->modules[0].name, "jit_f");
}

}  // namespace
}  // namespace hloscope
