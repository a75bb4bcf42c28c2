// XLA:GPU's thunk dump: the thunks that run, by instruction; tolerant of
// fields a newer XLA adds, exact about what is malformed.
#include "hloscope/parser/thunk_metadata.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace hloscope {
namespace {

TEST(ThunkMetadataTest, ReadsTheThunksOfARealDump) {
  Result<ThunkMetadata> m =
      ReadThunkMetadataFile(std::string(HLOSCOPE_SOURCE_DIR) +
                            "/tests/fixtures/jax-gpu-h100/loop_dus_not_donated/thunk_metadata.txt");
  ASSERT_TRUE(m.ok()) << m.error().Format();
  ASSERT_EQ(m->thunks.size(), 6u);
  EXPECT_EQ(m->thunks[0].profile_annotation, "copy.10");
  EXPECT_EQ(m->thunks[0].id, 1);
  EXPECT_EQ(m->thunks[0].kind, "kCopy");
  EXPECT_EQ(m->thunks[0].line, 1);
  EXPECT_EQ(m->thunks[2].kind, "kWhile");
  EXPECT_EQ(m->thunks[5].profile_annotation, "loop_add_fusion");
}

TEST(ThunkMetadataTest, SkipsFieldsItDoesNotKnow) {
  Result<ThunkMetadata> m = ParseThunkMetadata(
      "# a comment\n"
      "version: 3\n"
      "thunk_metadata {\n"
      "  thunk_info { profile_annotation: \"cp\" \"y.1\" thunk_id: 7 execution_stream_id: 2 }\n"
      "  thunk_kind: \"kCopy\"\n"
      "  new_field { nested { deeper: ENUM_VALUE } }\n"
      "  [xla.ext]: 'x'\n"
      "}\n",
      "t.txt");
  ASSERT_TRUE(m.ok()) << m.error().Format();
  ASSERT_EQ(m->thunks.size(), 1u);
  EXPECT_EQ(m->thunks[0].profile_annotation, "cpy.1");
  EXPECT_EQ(m->thunks[0].id, 7);
  EXPECT_EQ(m->thunks[0].line, 3);
}

TEST(ThunkMetadataTest, MalformedDumpsGetAPositionedError) {
  struct Case {
    const char* text;
    const char* formatted;
  };
  const Case cases[] = {
      {"thunk_metadata {\n  thunk_kind: \"kCopy\n}\n",
       "t.txt:2:15: error: unterminated string\n  thunk_kind: \"kCopy\n              ^\n"},
      {"thunk_metadata {\n  thunk_kind: \"kCopy\"\n",
       "t.txt:1:16: error: '{' is not closed\nthunk_metadata {\n               ^\n"},
      {"thunk_metadata {\n  thunk_info { thunk_id: 99999999999999999999 }\n}\n",
       "t.txt:2:26: error: thunk_id is not a number that fits in 64 bits\n"
       "  thunk_info { thunk_id: 99999999999999999999 }\n                         ^\n"},
      {"thunk_metadata {\n  thunk_kind \"kCopy\"\n}\n",
       "t.txt:2:3: error: expected ':' or '{' after 'thunk_kind'\n  thunk_kind \"kCopy\"\n  ^\n"},
  };
  for (const Case& c : cases) {
    Result<ThunkMetadata> m = ParseThunkMetadata(c.text, "t.txt");
    ASSERT_FALSE(m.ok()) << c.text;
    EXPECT_EQ(m.error().Format(), c.formatted);
  }
  // Deep nesting is refused, not recursed into.
  std::string deep = "thunk_metadata ";
  for (int i = 0; i < 10000; ++i) deep += "a { ";
  EXPECT_FALSE(ParseThunkMetadata(deep, "t.txt").ok());
}

TEST(ThunkMetadataTest, FindsTheDumpBesideTheHlo) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / "hloscope-thunk-find";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "module_0003.jit_f.sm_9.0a_gpu_after_optimizations.txt") << "";
  std::ofstream(dir / "module_0003.jit_f.thunk_metadata.txt") << "";
  std::ofstream(dir / "module_0004.jit_g.cpu_after_optimizations.txt") << "";
  EXPECT_EQ(FindThunkMetadataBeside((dir / "module_0003.jit_f.sm_9.0a_gpu_after_optimizations.txt").string()),
            (dir / "module_0003.jit_f.thunk_metadata.txt").string());
  EXPECT_EQ(FindThunkMetadataBeside((dir / "module_0004.jit_g.cpu_after_optimizations.txt").string()),
            std::nullopt);
  std::string fixture =
      std::string(HLOSCOPE_SOURCE_DIR) + "/tests/fixtures/jax-gpu-h100/loop_dus_not_donated";
  EXPECT_EQ(FindThunkMetadataBeside(fixture + "/module.hlo.txt"), fixture + "/thunk_metadata.txt");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace hloscope
