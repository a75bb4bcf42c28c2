// JSON a user hands back (report/json_input.h): hostile documents are
// diagnostics at the offending byte, never a signal.
#include "hloscope/report/json_input.h"

#include <gtest/gtest.h>

#include <string>

namespace hloscope {
namespace {

TEST(JsonInputTest, ADocumentParses) {
  Result<Json> j = ParseJsonInput(R"({"a": [1, {"b": "]]"}]})", "doc.json", "a test");
  ASSERT_TRUE(j.ok());
  EXPECT_EQ((*j)["a"][1]["b"], "]]");
}

TEST(JsonInputTest, NestingDeeperThanAnyDocumentIsADiagnosticNotACrash) {
  std::string deep(200000, '[');
  deep += std::string(200000, ']');
  Result<Json> j = ParseJsonInput(deep, "deep.json", "a baseline is check's JSON");
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.error().message, "JSON nested deeper than 64 levels (a baseline is check's JSON)");
  EXPECT_EQ(j.error().column, 65);
  // Brackets inside strings do not count.
  std::string quoted = "[\"" + std::string(1000, '[') + "\"]";
  EXPECT_TRUE(ParseJsonInput(quoted, "q.json", "x").ok());
}

TEST(JsonInputTest, ANumberOutOfRangeIsADiagnostic) {
  Result<Json> j = ParseJsonInput(R"({"bytes": 1e999999})", "big.json", "a baseline");
  ASSERT_FALSE(j.ok());
  EXPECT_NE(j.error().message.find("number overflow"), std::string::npos) << j.error().message;
  EXPECT_NE(j.error().message.find("(a baseline)"), std::string::npos);
}

TEST(JsonInputTest, MalformedJsonPointsAtTheByte) {
  Result<Json> j = ParseJsonInput("{\"a\": 1,\n \"b\": }", "bad.json", "a baseline");
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.error().message, "not valid JSON (a baseline)");
  EXPECT_EQ(j.error().line, 2);
}

}  // namespace
}  // namespace hloscope
