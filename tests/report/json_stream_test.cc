// JsonStream writes, piece by piece, the bytes JsonText writes whole: the
// streamed fusions document and the others cannot drift apart.
#include "hloscope/report/json_stream.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace hloscope {
namespace {

// Streams `doc` the way a renderer does: containers opened and closed,
// members one by one, leaves as values.
void Stream(JsonStream& s, const Json& doc) {
  if (doc.is_object()) {
    s.BeginObject();
    for (const auto& [key, value] : doc.items()) {
      s.Key(key);
      Stream(s, value);
    }
    s.EndObject();
  } else if (doc.is_array()) {
    s.BeginArray();
    for (const Json& v : doc) Stream(s, v);
    s.EndArray();
  } else {
    s.Value(doc);
  }
}

std::string Streamed(const Json& doc) {
  std::ostringstream out;
  JsonStream s(out);
  Stream(s, doc);
  s.Finish();
  return out.str();
}

TEST(JsonStreamTest, ByteForByteJsonText) {
  Json doc = Json::parse(R"({
    "schema_version": 2, "empty_object": {}, "empty_array": [],
    "modules": [{"name": "m", "fusions": [{"kind": "loop", "bytes": 9223372036854775807,
                  "ops": ["add", "multiply"], "source": null}, {}], "nested": [[1, [2, []]], {"a": {}}]}],
    "text": "tab\tnewline\n quote\" backslash\\ \u001b del \u007f"
  })");
  EXPECT_EQ(Streamed(doc), JsonText(doc));
  EXPECT_EQ(Streamed(Json::array()), JsonText(Json::array()));
  EXPECT_EQ(Streamed(Json(3)), JsonText(Json(3)));
}

TEST(JsonStreamTest, MembersWritesAnObjectsMembersInOrder) {
  Json entry = {{"b", 1}, {"a", Json::array({1, 2})}};
  std::ostringstream out;
  JsonStream s(out);
  s.BeginObject();
  s.Members(entry);
  s.Key("c");
  s.Value(nullptr);
  s.EndObject();
  s.Finish();
  Json whole = entry;
  whole["c"] = nullptr;
  EXPECT_EQ(out.str(), JsonText(whole));
}

TEST(JsonStreamTest, InvalidUtf8IsReplacedNotFatal) {
  // A raw byte from an input string (op_name, a file name) must not abort
  // the document; JsonText replaces it, and so does the stream.
  Json doc = {{"op_name", std::string("bad \xff byte")}};
  std::string streamed = Streamed(doc);
  EXPECT_EQ(streamed, JsonText(doc));
  EXPECT_TRUE(Json::accept(streamed));
}

}  // namespace
}  // namespace hloscope
