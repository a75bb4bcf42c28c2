// Files hloscope finds rather than is given (support/found_file.h): every
// door that finds one — a dump folder's listing (`check DIR`, `memory DIR`,
// `diff DIR`) and the dumps found beside a module (the buffer assignment,
// the thunk dump, the modules before partitioning and before optimization)
// — with links to a secret outside the folder, to /proc/self/environ and to
// another project's dump. None is read; each is named in a note; the
// secret never appears in what hloscope prints. A parse error in a file
// found (not named) gives its place, never its text.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>

#include "hloscope/parser/buffer_assignment.h"
#include "hloscope/parser/dump_folder.h"
#include "hloscope/parser/dump_naming.h"
#include "hloscope/parser/thunk_metadata.h"
#include "hloscope/support/found_file.h"
#include "run_cli.h"

namespace hloscope {
namespace {

namespace fs = std::filesystem;
const fs::path kFixtures = fs::path(HLOSCOPE_SOURCE_DIR) / "tests" / "fixtures" / "jax";
const fs::path kGpuFixtures = fs::path(HLOSCOPE_SOURCE_DIR) / "tests" / "fixtures" / "jax-gpu-h100";
constexpr const char* kSecret = "CI_JOB_TOKEN=hloscope-test-secret-7f3a";
constexpr const char* kStem = "module_0001.jit_step.";
constexpr const char* kHlo = "module_0001.jit_step.cpu_after_optimizations.txt";

// The first entry of this process's environment, as /proc/self/environ
// gives it: what a link to it would leak.
std::string FirstEnvironEntry() {
  std::ifstream in("/proc/self/environ", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return all.substr(0, all.find('\0'));
}

// What a link may point at.
enum class Target { kSecret, kEnviron, kOtherDump };
const char* Name(Target t) {
  return t == Target::kSecret ? "secret" : t == Target::kEnviron ? "environ" : "other_dump";
}

class FoundFilesTest : public ::testing::TestWithParam<Target> {
 protected:
  void SetUp() override {
    static int n = 0;
    root_ = fs::temp_directory_path() /
            ("hloscope_found_files_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
    fs::remove_all(root_);
    dump_ = root_ / "dump";
    other_ = root_ / "other_project";
    fs::create_directories(dump_);
    fs::create_directories(other_);
    std::ofstream(root_ / "secret.txt") << kSecret << "\n";
    // Another project's dump: a valid module with its buffer assignment,
    // whose name must never show up in this dump's report.
    fs::copy_file(kFixtures / "loop_read_after_write" / "module.hlo.txt",
                  other_ / "module_0007.jit_other.cpu_after_optimizations.txt");
    fs::copy_file(kFixtures / "loop_read_after_write" / "buffer-assignment.txt",
                  other_ / "module_0007.jit_other.cpu_after_optimizations-buffer-assignment.txt");
    fs::copy_file(kFixtures / "loop_read_after_write" / "module.hlo.txt",
                  other_ / "module_0007.jit_other.before_optimizations.txt");
    environ_ = FirstEnvironEntry();
  }
  void TearDown() override { fs::remove_all(root_); }

  // This dump's own module, a regular file: what is checked.
  void OwnModule() { fs::copy_file(kFixtures / "loop_dus_donated" / "module.hlo.txt", dump_ / kHlo); }
  // A link named `name` in the dump to `t` (`other_file`: which file of the other dump).
  void Link(const std::string& name, Target t, const std::string& other_file = "") {
    fs::path to = t == Target::kSecret    ? root_ / "secret.txt"
                  : t == Target::kEnviron ? fs::path("/proc/self/environ")
                                          : other_ / other_file;
    fs::create_symlink(to, dump_ / name);
  }
  // Nothing of the target leaked into `text`.
  void ExpectNoLeak(const std::string& text) {
    EXPECT_EQ(text.find("hloscope-test-secret"), std::string::npos) << text;
    EXPECT_EQ(text.find("CI_JOB_TOKEN"), std::string::npos) << text;
    if (!environ_.empty()) EXPECT_EQ(text.find(environ_), std::string::npos) << text;
    EXPECT_EQ(text.find("jit_other"), std::string::npos) << text;
    EXPECT_EQ(text.find("loop_read_after_write"), std::string::npos) << text;
  }
  void ExpectRefused(const std::string& err, const std::string& name) {
    EXPECT_NE(err.find("hloscope: note: " + (dump_ / name).string() + " was not read: "), std::string::npos)
        << err;
  }

  fs::path root_, dump_, other_;
  std::string environ_;
};

// The dump folder's listing: a module file that is a link.
TEST_P(FoundFilesTest, CheckDirReadsNoLinkedModule) {
  OwnModule();
  std::string name = "module_0002.jit_linked.cpu_after_optimizations.txt";
  Link(name, GetParam(), "module_0007.jit_other.cpu_after_optimizations.txt");
  for (const char* format : {"text", "json"}) {
    CliRun r = Cli({"check", dump_.string(), "--format", format});
    ASSERT_EQ(r.code, 0) << r.err;
    ExpectNoLeak(r.out + r.err);
    ExpectRefused(r.err, name);
    EXPECT_NE(r.out.find("jit_loop_dus_donated"), std::string::npos) << r.out;
  }
  CliRun m = Cli({"memory", dump_.string()});
  ASSERT_EQ(m.code, 0) << m.err;
  ExpectNoLeak(m.out + m.err);
  ExpectRefused(m.err, name);
  CliRun d = Cli({"diff", dump_.string(), dump_.string()});
  ExpectNoLeak(d.out + d.err);
}

// A folder of nothing but links: no module is read, the error names none's text.
TEST_P(FoundFilesTest, CheckDirOfLinksOnlyReadsNothing) {
  Link("module_0002.jit_linked.cpu_after_optimizations.txt", GetParam(),
       "module_0007.jit_other.cpu_after_optimizations.txt");
  CliRun r = Cli({"check", dump_.string()});
  EXPECT_EQ(r.code, 2);
  ExpectNoLeak(r.out + r.err);
  ExpectRefused(r.err, "module_0002.jit_linked.cpu_after_optimizations.txt");
  CliRun d = Cli({"diff", dump_.string(), dump_.string()});
  EXPECT_NE(d.code, 0);
  ExpectNoLeak(d.out + d.err);
}

// The buffer assignment found beside a module the user named.
TEST_P(FoundFilesTest, CheckFileReadsNoLinkedBufferAssignment) {
  OwnModule();
  std::string ba = std::string(kStem) + "cpu_after_optimizations-buffer-assignment.txt";
  Link(ba, GetParam(), "module_0007.jit_other.cpu_after_optimizations-buffer-assignment.txt");
  for (const char* format : {"text", "json"}) {
    CliRun r = Cli({"check", (dump_ / kHlo).string(), "--format", format});
    ASSERT_EQ(r.code, 0) << r.err;
    ExpectNoLeak(r.out + r.err);
    ExpectRefused(r.err, ba);
    EXPECT_EQ(r.out.find("verdicts checked against XLA's buffer assignment"), std::string::npos) << r.out;
  }
  // The folder's door finds it too.
  CliRun r = Cli({"check", dump_.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  ExpectNoLeak(r.out + r.err);
  ExpectRefused(r.err, ba);
}

// The modules before optimization and before partitioning found beside it.
TEST_P(FoundFilesTest, CheckFileReadsNoLinkedModuleBeforeOptimizationOrPartitioning) {
  OwnModule();
  std::string before = std::string(kStem) + "before_optimizations.txt";
  std::string pre = std::string(kStem) + "0042.spmd-partitioner.after_x.before_spmd-partitioning.txt";
  Link(before, GetParam(), "module_0007.jit_other.before_optimizations.txt");
  Link(pre, GetParam(), "module_0007.jit_other.cpu_after_optimizations.txt");
  CliRun r = Cli({"check", (dump_ / kHlo).string(), "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  ExpectNoLeak(r.out + r.err);
  ExpectRefused(r.err, before);
  ExpectRefused(r.err, pre);
  CliRun d = Cli({"check", dump_.string()});
  ASSERT_EQ(d.code, 0) << d.err;
  ExpectNoLeak(d.out + d.err);
  ExpectRefused(d.err, before);
  ExpectRefused(d.err, pre);
}

// XLA:GPU's thunk dump found beside a GPU module.
TEST_P(FoundFilesTest, CheckFileReadsNoLinkedThunkDump) {
  fs::copy_file(kGpuFixtures / "loop_dus_donated" / "module.hlo.txt",
                dump_ / "module_0001.jit_step.sm_9.0a_gpu_after_optimizations.txt");
  std::string thunks = std::string(kStem) + "thunk_metadata.txt";
  Link(thunks, GetParam(), "module_0007.jit_other.cpu_after_optimizations.txt");
  CliRun r = Cli({"check", (dump_ / "module_0001.jit_step.sm_9.0a_gpu_after_optimizations.txt").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  ExpectNoLeak(r.out + r.err);
  ExpectRefused(r.err, thunks);
}

// The parser-level finders: nothing returned, the refusal recorded.
TEST_P(FoundFilesTest, FindersReturnNoLinkOut) {
  OwnModule();
  std::string hlo = (dump_ / kHlo).string();
  Link(std::string(kStem) + "cpu_after_optimizations-buffer-assignment.txt", GetParam(),
       "module_0007.jit_other.cpu_after_optimizations-buffer-assignment.txt");
  Link(std::string(kStem) + "before_optimizations.txt", GetParam(),
       "module_0007.jit_other.before_optimizations.txt");
  Link(std::string(kStem) + "thunk_metadata.txt", GetParam(),
       "module_0007.jit_other.before_optimizations.txt");
  Link(std::string(kStem) + "0001.p.after_x.before_spmd-partitioning.txt", GetParam(),
       "module_0007.jit_other.before_optimizations.txt");
  std::vector<RefusedFile> refused;
  EXPECT_EQ(FindBufferAssignmentBeside(hlo, &refused), std::nullopt);
  EXPECT_EQ(FindBeforeOptimizationsBeside(hlo, &refused), std::nullopt);
  EXPECT_EQ(FindPrePartitionBeside(hlo, &refused), std::nullopt);
  EXPECT_EQ(FindThunkMetadataBeside((dump_ / "module_0001.jit_step.gpu_after_optimizations.txt").string(),
                                    &refused),
            std::nullopt);
  EXPECT_EQ(refused.size(), 4u);
  Result<DumpFolder> listed = ListDumpFolder(dump_.string());
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->refused.size(), 4u);
  EXPECT_EQ(listed->modules.size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Links, FoundFilesTest,
                         ::testing::Values(Target::kSecret, Target::kEnviron, Target::kOtherDump),
                         [](const auto& info) { return std::string(Name(info.param)); });

class FoundFileRuleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("hloscope_found_rule_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "dump" / "sub");
    std::ofstream(root_ / "outside.txt") << "x\n";
    std::ofstream(root_ / "dump" / "plain.txt") << "x\n";
    std::ofstream(root_ / "dump" / "sub" / "deeper.txt") << "x\n";
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

TEST_F(FoundFileRuleTest, OnlyRegularFilesInsideTheFolder) {
  fs::path d = root_ / "dump";
  fs::create_symlink("plain.txt", d / "inner_link");
  fs::create_symlink("sub/deeper.txt", d / "down_link");
  fs::create_symlink("../outside.txt", d / "up_link");
  fs::create_symlink("/proc/self/environ", d / "environ");
  fs::create_symlink("/sys/kernel/mm", d / "sys_link");
  fs::create_symlink("/dev/null", d / "dev_null");
  fs::create_symlink("nowhere", d / "dangling");
  fs::create_symlink(".", d / "self");
  ASSERT_EQ(::mkfifo((d / "fifo").c_str(), 0600), 0);
  std::string real = ResolvedFolder(d.string());
  EXPECT_EQ(CheckFoundFile((d / "plain.txt").string(), real), FoundFile::kReadable);
  EXPECT_EQ(CheckFoundFile((d / "inner_link").string(), real), FoundFile::kReadable);
  EXPECT_EQ(CheckFoundFile((d / "down_link").string(), real), FoundFile::kReadable);
  EXPECT_EQ(CheckFoundFile((d / "up_link").string(), real), FoundFile::kOutside);
  EXPECT_EQ(CheckFoundFile((d / "environ").string(), real), FoundFile::kSystem);
  EXPECT_EQ(CheckFoundFile((d / "sys_link").string(), real), FoundFile::kSystem);
  EXPECT_EQ(CheckFoundFile((d / "dev_null").string(), real), FoundFile::kOutside);
  EXPECT_EQ(CheckFoundFile((d / "dangling").string(), real), FoundFile::kAbsent);
  EXPECT_EQ(CheckFoundFile((d / "missing").string(), real), FoundFile::kAbsent);
  EXPECT_EQ(CheckFoundFile((d / "self").string(), real), FoundFile::kOutside);
  EXPECT_EQ(CheckFoundFile((d / "fifo").string(), real), FoundFile::kNotRegular);
  // The folder found from the file's own path.
  EXPECT_EQ(CheckFoundFile((d / "up_link").string()), FoundFile::kOutside);
  EXPECT_EQ(CheckFoundFile((d / "plain.txt").string()), FoundFile::kReadable);
  // A folder reached through a link is the folder it resolves to.
  fs::create_symlink(d, root_ / "dump_link");
  EXPECT_EQ(CheckFoundFile((root_ / "dump_link" / "inner_link").string()), FoundFile::kReadable);
  EXPECT_EQ(CheckFoundFile((root_ / "dump_link" / "up_link").string()), FoundFile::kOutside);
  // Regular files of a folder under /proc are refused (they pass for regular files).
  EXPECT_EQ(CheckFoundFile("/proc/self/environ"), FoundFile::kSystem);
}

// A file the user names is read, link or not (the user named it).
TEST_F(FoundFileRuleTest, ANamedLinkIsRead) {
  fs::copy_file(kFixtures / "loop_dus_donated" / "module.hlo.txt", root_ / "outside.hlo.txt");
  fs::create_symlink(root_ / "outside.hlo.txt", root_ / "dump" / "named.hlo.txt");
  CliRun r = Cli({"check", (root_ / "dump" / "named.hlo.txt").string()});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("jit_loop_dus_donated"), std::string::npos) << r.out;
}

// A parse error in a file found (a module of the folder, a buffer
// assignment beside one) names the file and the place, never the text.
TEST_F(FoundFileRuleTest, ParseErrorsInFoundFilesQuoteNothing) {
  fs::path d = root_ / "dump";
  std::string hlo = (d / kHlo).string();
  fs::copy_file(kFixtures / "loop_dus_donated" / "module.hlo.txt", hlo);
  std::ofstream(d / (std::string(kStem) + "cpu_after_optimizations-buffer-assignment.txt"))
      << "BufferAssignment:\n"
      << kSecret << " (\n";
  CliRun r = Cli({"check", hlo});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.find("hloscope-test-secret"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("-buffer-assignment.txt:2:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("its text is not quoted"), std::string::npos) << r.err;
  // Named, it is quoted: the user asked for that file.
  CliRun named = Cli({"check", hlo, "--buffer-assignment",
                      (d / (std::string(kStem) + "cpu_after_optimizations-buffer-assignment.txt")).string()});
  EXPECT_EQ(named.code, 2);
  EXPECT_NE(named.err.find("hloscope-test-secret"), std::string::npos) << named.err;

  // A module of the folder that does not parse.
  fs::remove(d / (std::string(kStem) + "cpu_after_optimizations-buffer-assignment.txt"));
  std::ofstream(d / "module_0002.jit_bad.cpu_after_optimizations.txt")
      << "HloModule jit_bad\n\nENTRY e {\n  ROOT %x = f32[] " << kSecret << "\n}\n";
  CliRun dir = Cli({"check", d.string()});
  EXPECT_EQ(dir.code, 2);
  EXPECT_EQ(dir.err.find("hloscope-test-secret"), std::string::npos) << dir.err;
  EXPECT_NE(dir.err.find("module_0002.jit_bad.cpu_after_optimizations.txt:4:"), std::string::npos) << dir.err;
  // Named, the same file is quoted (the parser's message names the token too).
  CliRun one = Cli({"check", (d / "module_0002.jit_bad.cpu_after_optimizations.txt").string()});
  EXPECT_NE(one.err.find("hloscope-test-secret"), std::string::npos) << one.err;
  CliRun diff = Cli({"diff", d.string(), d.string()});
  EXPECT_EQ(diff.err.find("hloscope-test-secret"), std::string::npos) << diff.err;
  EXPECT_NE(diff.err.find("module_0002.jit_bad.cpu_after_optimizations.txt:4:"), std::string::npos)
      << diff.err;
}

}  // namespace
}  // namespace hloscope
