// Reading inputs: small regular files are read, large ones mapped, so that
// a folder of many small modules held open at once does not use one kernel
// mapping per module.
#include "hloscope/support/input_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace hloscope {
namespace {

namespace fs = std::filesystem;

size_t MappingCount() {
  std::ifstream maps("/proc/self/maps");
  size_t n = 0;
  for (std::string line; std::getline(maps, line);) ++n;
  return n;
}

fs::path TempDir() {
  fs::path dir = fs::temp_directory_path() / ("hloscope-input-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

TEST(InputFile, SmallFilesHeldOpenDoNotEachTakeAMapping) {
  fs::path dir = TempDir();
  std::vector<InputBytes> held;
  size_t before = MappingCount();
  for (int i = 0; i < 300; ++i) {
    fs::path p = dir / ("m" + std::to_string(i) + ".txt");
    std::ofstream(p) << "HloModule m" << i << "\n";
    Result<InputBytes> r = ReadInput(p.string());
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->text, "HloModule m" + std::to_string(i) + "\n");
    EXPECT_EQ(r->text.data()[r->text.size()], '\0');  // the parser's sentinel
    held.push_back(std::move(r).value());
  }
  // Heap growth may add a mapping or two; one per file would add 300.
  EXPECT_LT(MappingCount(), before + 30);
  fs::remove_all(dir);
}

TEST(InputFile, ALargeFileIsMappedAndEndsWithTheSentinel) {
  fs::path dir = TempDir();
  fs::path p = dir / "big.txt";
  std::string text(size_t{2} << 20, 'x');
  std::ofstream(p) << text;
  size_t before = MappingCount();
  Result<InputBytes> r = ReadInput(p.string());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->text.size(), text.size());
  EXPECT_EQ(r->text.data()[r->text.size()], '\0');
  EXPECT_GE(MappingCount(), before + 1);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace hloscope
