#include "hloscope/report/json_stream.h"

#include <string>

namespace hloscope {

void JsonStream::NewLine(size_t depth) {
  out_ << '\n';
  for (size_t i = 0; i < depth; ++i) out_ << "  ";
}

// A value dumped at depth 0, shifted to `depth`.
void JsonStream::Write(std::string_view dumped, size_t depth) {
  size_t start = 0;
  while (true) {
    size_t nl = dumped.find('\n', start);
    out_ << dumped.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    if (nl == std::string_view::npos) break;
    NewLine(depth);
    start = nl + 1;
  }
}

void JsonStream::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (stack_.empty()) return;
  Level& l = stack_.back();
  if (!l.empty) out_ << ',';
  l.empty = false;
  NewLine(stack_.size());
}

void JsonStream::BeginObject() {
  BeforeValue();
  out_ << '{';
  stack_.push_back({/*object=*/true});
}

void JsonStream::BeginArray() {
  BeforeValue();
  out_ << '[';
  stack_.push_back({/*object=*/false});
}

void JsonStream::End(char close) {
  bool empty = stack_.back().empty;
  stack_.pop_back();
  if (!empty) NewLine(stack_.size());
  out_ << close;
}

void JsonStream::EndObject() { End('}'); }
void JsonStream::EndArray() { End(']'); }

void JsonStream::Key(std::string_view key) {
  Level& l = stack_.back();
  if (!l.empty) out_ << ',';
  l.empty = false;
  NewLine(stack_.size());
  std::string k = JsonText(Json(std::string(key)));
  k.pop_back();  // JsonText's newline
  out_ << k << ": ";
  after_key_ = true;
}

void JsonStream::Value(const Json& value) {
  BeforeValue();
  std::string text = JsonText(value);
  text.pop_back();
  Write(text, stack_.size());
}

void JsonStream::Members(const Json& object) {
  for (auto it = object.begin(); it != object.end(); ++it) {
    Key(it.key());
    Value(it.value());
  }
}

void JsonStream::Finish() { out_ << '\n'; }

}  // namespace hloscope
