// Writing a file the user named (support/output_file.h): what is there is
// never harmed. A regular file is replaced whole; a device, a FIFO or a
// symbolic link is written through, never replaced; a link planted at a
// temporary name is never followed; a directory is an error.
#include "hloscope/support/output_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace hloscope {
namespace {

namespace fs = std::filesystem;

class OutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("hloscope_output_file_test_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string Read(const std::string& path) {
    std::ifstream f(path);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
  }
  fs::path dir_;
};

TEST_F(OutputFileTest, ARegularFileIsReplacedWholeAndKeepsItsMode) {
  std::string p = Path("page.html");
  EXPECT_EQ(WriteOutputFile(p, "first"), "");
  EXPECT_EQ(Read(p), "first");
  ::chmod(p.c_str(), 0640);
  EXPECT_EQ(WriteOutputFile(p, "second"), "");
  EXPECT_EQ(Read(p), "second");
  struct stat st;
  ASSERT_EQ(::stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  // Nothing else is left beside it.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(OutputFileTest, ALinkAtTheOldTemporaryNameIsNotFollowed) {
  std::string victim = Path("victim");
  std::ofstream(victim) << "precious";
  fs::create_symlink(victim, Path("page.html.tmp"));
  EXPECT_EQ(WriteOutputFile(Path("page.html"), "page"), "");
  EXPECT_EQ(Read(victim), "precious");
  EXPECT_EQ(Read(Path("page.html")), "page");
}

TEST_F(OutputFileTest, ASymbolicLinkStaysALinkAndItsTargetIsWritten) {
  std::string target = Path("target.html");
  std::ofstream(target) << "old";
  fs::create_symlink(target, Path("link.html"));
  EXPECT_EQ(WriteOutputFile(Path("link.html"), "new"), "");
  EXPECT_TRUE(fs::is_symlink(Path("link.html")));
  EXPECT_EQ(Read(target), "new");
  fs::create_symlink(Path("missing"), Path("dangling.html"));
  EXPECT_NE(WriteOutputFile(Path("dangling.html"), "x"), "");
  EXPECT_FALSE(fs::exists(Path("missing")));
}

TEST_F(OutputFileTest, ADirectoryIsAnError) {
  EXPECT_EQ(WriteOutputFile(dir_.string(), "x"), "Is a directory");
}

TEST_F(OutputFileTest, AFifoIsWrittenIntoNotReplaced) {
  std::string fifo = Path("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = Read(fifo); });
  EXPECT_EQ(WriteOutputFile(fifo, "through the pipe"), "");
  reader.join();
  EXPECT_EQ(got, "through the pipe");
  EXPECT_TRUE(fs::is_fifo(fifo));
}

// `report -o /dev/null` as root once replaced the machine's /dev/null with a
// regular file: a private null device made here stays a device.
TEST_F(OutputFileTest, ADeviceStaysADevice) {
  std::string null = Path("null");
  if (::mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) GTEST_SKIP() << "mknod needs root";
  EXPECT_EQ(WriteOutputFile(null, "discarded"), "");
  EXPECT_TRUE(fs::is_character_file(null));
}

}  // namespace
}  // namespace hloscope
