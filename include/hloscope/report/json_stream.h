// Writing a JSON document piece by piece, byte for byte as JsonText would
// write it whole (two-space indent, the same escapes): a report with one
// entry per kernel of a 100 MB module is larger than the module, and held
// as one nlohmann tree it took ten times its size. Each entry is built,
// written and dropped.
#ifndef HLOSCOPE_REPORT_JSON_STREAM_H_
#define HLOSCOPE_REPORT_JSON_STREAM_H_

#include <ostream>
#include <string_view>
#include <vector>

#include "hloscope/report/json_model.h"

namespace hloscope {

class JsonStream {
 public:
  explicit JsonStream(std::ostream& out) : out_(out) {}

  // Containers, as the document's root, an array element or a member's value.
  void BeginObject();
  void EndObject();
  void BeginArray();
  void EndArray();
  // Inside an object: the next member's key (its value follows).
  void Key(std::string_view key);
  // A complete value.
  void Value(const Json& value);
  // Every member of `object`, in order.
  void Members(const Json& object);
  // Inside an object: the member `key`, an array of `to_json(item)` for
  // each of `items`, each built, written and dropped in turn.
  template <typename Items, typename ToJson>
  void Array(std::string_view key, const Items& items, ToJson to_json) {
    Key(key);
    BeginArray();
    for (const auto& item : items) Value(to_json(item));
    EndArray();
  }
  // After the root: the final newline.
  void Finish();

 private:
  struct Level {
    bool object;
    bool empty = true;
  };
  void BeforeValue();
  void End(char close);
  void NewLine(size_t depth);
  void Write(std::string_view dumped, size_t depth);

  std::ostream& out_;
  std::vector<Level> stack_;
  bool after_key_ = false;
};

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_JSON_STREAM_H_
