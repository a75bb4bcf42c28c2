// A reader for protobuf text format, as much as XLA's thunk dumps use:
// `name { ... }`, `name: "string"`, `name: 42`, `name: ENUM`, comments.
#include "hloscope/parser/thunk_metadata.h"

#include <charconv>
#include <filesystem>
#include <system_error>

#include "hloscope/parser/dump_naming.h"
#include "hloscope/support/diagnostic.h"

namespace hloscope {
namespace {

// Nesting deeper than this is not a thunk dump (and would cost stack).
constexpr int kMaxDepth = 64;

class TextProtoReader {
 public:
  TextProtoReader(std::string_view text, std::string_view path) : text_(text), path_(path) {}

  Result<ThunkMetadata> Read() {
    ThunkMetadata out;
    while (true) {
      Skip();
      if (pos_ >= text_.size()) break;
      size_t start = pos_;
      std::string_view name;
      if (!Name(&name)) return *error_;
      Skip();
      bool message = Peek() == '{';
      if (!message && Peek() == ':') {
        ++pos_;
        Skip();
        message = Peek() == '{';
      }
      if (name == "thunk_metadata" && message) {
        Thunk t;
        t.line = LineOf(start);
        if (!Message(0, &t)) return *error_;
        out.thunks.push_back(std::move(t));
      } else if (message) {
        if (!Message(0, nullptr)) return *error_;
      } else if (!Scalar(nullptr)) {
        return *error_;
      }
    }
    return out;
  }

 private:
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }

  void Skip() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ';') {
        ++pos_;
      } else if (c == '#') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else {
        break;
      }
    }
  }

  bool Fail(size_t at, std::string message) {
    error_ = MakeDiagnostic(path_, text_, at, std::move(message));
    return false;
  }

  // Thunks come in file order: counting on from the last one keeps this
  // linear in the file.
  int64_t LineOf(size_t at) {
    for (; counted_ < at && counted_ < text_.size(); ++counted_) line_ += text_[counted_] == '\n';
    return line_;
  }

  static bool NameChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-' || c == '+';
  }

  bool Name(std::string_view* name) {
    size_t start = pos_;
    if (Peek() == '[') {  // an extension: [package.field]
      size_t close = text_.find(']', pos_);
      if (close == std::string_view::npos) return Fail(pos_, "expected ']' to close the extension name");
      pos_ = close + 1;
    } else {
      while (pos_ < text_.size() && NameChar(text_[pos_])) ++pos_;
    }
    if (pos_ == start) return Fail(start, "expected a field name in the thunk dump");
    *name = text_.substr(start, pos_ - start);
    return true;
  }

  // A string (adjacent strings concatenate, as in protobuf) or a bare token.
  bool Scalar(std::string* value) {
    Skip();
    size_t start = pos_;
    if (Peek() == '"' || Peek() == '\'') {
      std::string s;
      while (Peek() == '"' || Peek() == '\'') {
        char quote = text_[pos_++];
        while (true) {
          if (pos_ >= text_.size() || text_[pos_] == '\n') return Fail(start, "unterminated string");
          char c = text_[pos_++];
          if (c == quote) break;
          if (c == '\\' && pos_ < text_.size()) c = text_[pos_++];
          s.push_back(c);
        }
        Skip();
      }
      if (value) *value = std::move(s);
      return true;
    }
    while (pos_ < text_.size() && NameChar(text_[pos_])) ++pos_;
    if (pos_ == start) return Fail(start, "expected a value after ':'");
    if (value) value->assign(text_.substr(start, pos_ - start));
    return true;
  }

  // After the name (and an optional ':'), at '{'. `thunk`: fill the fields
  // of a thunk_metadata entry (thunk_info's are nested one level down).
  bool Message(int depth, Thunk* thunk) {
    size_t open = pos_;
    if (depth >= kMaxDepth) return Fail(open, "the thunk dump nests too deeply");
    ++pos_;
    while (true) {
      Skip();
      if (pos_ >= text_.size()) return Fail(open, "'{' is not closed");
      if (Peek() == '}') {
        ++pos_;
        return true;
      }
      size_t at = pos_;
      std::string_view name;
      if (!Name(&name)) return false;
      Skip();
      bool colon = Peek() == ':';
      if (colon) {
        ++pos_;
        Skip();
      }
      if (Peek() == '{') {
        if (!Message(depth + 1, name == "thunk_info" ? thunk : nullptr)) return false;
        continue;
      }
      if (!colon) return Fail(at, "expected ':' or '{' after '" + std::string(name) + "'");
      std::string value;
      size_t value_at = pos_;
      if (!Scalar(&value)) return false;
      if (!thunk) continue;
      if (name == "profile_annotation") {
        thunk->profile_annotation = std::move(value);
      } else if (name == "thunk_kind") {
        thunk->kind = std::move(value);
      } else if (name == "thunk_id") {
        auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), thunk->id);
        if (ec != std::errc() || end != value.data() + value.size())
          return Fail(value_at, "thunk_id is not a number that fits in 64 bits");
      }
    }
  }

  std::string_view text_;
  std::string_view path_;
  size_t pos_ = 0;
  size_t counted_ = 0;  // LineOf: newlines counted up to here
  int64_t line_ = 1;
  std::optional<Diagnostic> error_;
};

}  // namespace

Result<ThunkMetadata> ParseThunkMetadata(std::string_view text, std::string_view path) {
  return TextProtoReader(text, path).Read();
}

Result<ThunkMetadata> ReadThunkMetadataFile(const std::string& path, const InputOptions& options) {
  Result<InputBytes> bytes = ReadInput(path, options);
  if (!bytes.ok()) return bytes.error();
  return ParseThunkMetadata(bytes->text, path == "-" ? "<stdin>" : path);
}

std::optional<std::string> FindThunkMetadataBeside(const std::string& hlo_path,
                                                   std::vector<RefusedFile>* refused) {
  for (const std::string& candidate : ThunkMetadataPathsFor(hlo_path))
    if (AcceptFoundFile(candidate, refused)) return candidate;
  return std::nullopt;
}

}  // namespace hloscope
