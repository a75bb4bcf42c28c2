// MappedFile: a file's bytes followed by a '\0', whatever its size.
#include "hloscope/support/mapped_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace hloscope {
namespace {

std::string WriteTemp(const std::string& name, const std::string& bytes) {
  std::filesystem::path p =
      std::filesystem::temp_directory_path() / ("hloscope_mapped_" + std::to_string(getpid()) + "_" + name);
  std::ofstream(p, std::ios::binary) << bytes;
  return p.string();
}

TEST(MappedFileTest, ContentAndSentinelForEverySizeAroundAPage) {
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  for (size_t size : {size_t{1}, page - 1, page, page + 1, 3 * page}) {
    std::string bytes(size, 'x');
    bytes.back() = '}';
    std::string path = WriteTemp(std::to_string(size), bytes);
    std::string error;
    auto f = MappedFile::Open(path, &error);
    ASSERT_NE(f, nullptr) << size;
    EXPECT_EQ(f->text(), bytes) << size;
    EXPECT_EQ(f->text().data()[size], '\0') << size;  // readable, zero
    std::filesystem::remove(path);
  }
}

TEST(MappedFileTest, EmptyFile) {
  std::string path = WriteTemp("empty", "");
  std::string error;
  auto f = MappedFile::Open(path, &error);
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(f->text().empty());
  EXPECT_EQ(f->text().data()[0], '\0');
  std::filesystem::remove(path);
}

TEST(MappedFileTest, MissingFileSaysWhy) {
  std::string error;
  EXPECT_EQ(MappedFile::Open("/nonexistent/dir/x.hlo", &error), nullptr);
  EXPECT_EQ(error, "No such file or directory");
}

TEST(MappedFileTest, NotARegularFileIsLeftToTheCaller) {
  std::string error;
  EXPECT_EQ(MappedFile::Open("/dev/null", &error), nullptr);
  EXPECT_TRUE(error.empty());
  EXPECT_EQ(MappedFile::Open(std::filesystem::temp_directory_path().string(), &error), nullptr);
  EXPECT_TRUE(error.empty());
}

}  // namespace
}  // namespace hloscope
