// The HLO text parser: a hand-written recursive-descent reader over the
// input bytes. Each Parse* function carries its production as a comment; all
// of them are collected in docs/grammar.md.
//
// Speed comes from three choices: names, attribute values and metadata
// strings are views into the input (no copies); each distinct shape text is
// parsed once and interned; instructions, operand lists and attributes are
// bump-allocated in the module's arena. Attribute values are scanned as
// balanced text and decoded only for the attributes hloscope reads.
//
// Robustness: every loop advances or fails, nesting is bounded by
// ParseOptions::max_nesting_depth, integers are overflow-checked, and errors
// unwind through one exception type caught at the API boundary.
#include "hloscope/parser/parser.h"

#include <charconv>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <unordered_map>

#include <fmt/format.h>

#include "parser/name_table.h"

namespace hloscope {

namespace {

struct ParseFailure {
  size_t offset;
  std::string message;
};

inline bool IsIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
inline bool IsIdentChar(char c) {
  return IsIdentStart(c) || (c >= '0' && c <= '9') || c == '.' || c == '-';
}
inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }

std::string Describe(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return fmt::format("'{}'", c);
  if (c == '\n') return "end of line";
  return fmt::format("byte 0x{:02x}", u);
}

struct PendingOperand {
  HloInstruction** slot;
  std::string_view name;
  size_t offset;
};

struct PendingCall {
  CalledComputation* slot;
  std::string_view name;
  size_t offset;
};

}  // namespace

class HloParserImpl {
 public:
  HloParserImpl(std::shared_ptr<const std::string> text,
                const ParseOptions& options)
      : text_(std::move(text)), s_(*text_), options_(options) {}

  HloModuleGroup Run();

 private:
  [[noreturn]] void Error(size_t offset, std::string message) {
    throw ParseFailure{offset, std::move(message)};
  }
  [[noreturn]] void ErrorExpected(std::string_view what) {
    if (p_ >= s_.size())
      Error(p_, fmt::format("expected {}, found end of input", what));
    Error(p_, fmt::format("expected {}, found {}", what, Describe(s_[p_])));
  }

  // --- lexical helpers -----------------------------------------------------
  bool AtEnd() const { return p_ >= s_.size(); }
  char Peek() const { return p_ < s_.size() ? s_[p_] : '\0'; }
  char PeekAt(size_t i) const { return i < s_.size() ? s_[i] : '\0'; }
  void SkipSpace();
  bool Consume(char c) {
    SkipSpace();
    if (Peek() == c) {
      ++p_;
      return true;
    }
    return false;
  }
  void Expect(char c, std::string_view context) {
    if (!Consume(c)) ErrorExpected(fmt::format("'{}' {}", c, context));
  }
  bool ConsumeKeyword(std::string_view kw);
  std::string_view ScanIdentifier();            // [A-Za-z_][A-Za-z0-9_.-]*
  std::string_view ParseName(std::string_view what);  // ['%'] identifier
  int64_t ParseInt64();
  size_t ScanBalanced(size_t start);  // from an opening bracket to past its mate
  size_t ScanString(size_t start);    // from a quote to past its mate
  size_t ScanAttributeValue();

  // --- grammar ---------------------------------------------------------------
  void ParseModuleHeader();
  void ParseStackFrameTable(std::string_view table);
  void ParseComputation();
  HloInstruction* ParseInstruction(HloComputation* comp, bool nested);
  void ParseOperands(HloInstruction* instr);
  void ParseAttributes(HloInstruction* instr);
  void DecodeAttribute(HloInstruction* instr, const HloAttribute& attr,
                       size_t value_offset);
  const OpMetadata* ParseMetadata(std::string_view raw, size_t offset);
  const Shape* ParseShape();
  size_t ScanShapeEnd(size_t start, int depth);
  const Shape* BuildShape(size_t start, size_t end, int depth);
  void ParseLayout(std::string_view raw, size_t offset, Layout* layout);
  ShapeIndex ParseShapeIndexAt(size_t* pos);
  void ParseInputOutputAlias(std::string_view value, size_t offset);
  void ParseBufferDonor(std::string_view value, size_t offset);

  // --- module assembly -------------------------------------------------------
  void StartModule(size_t offset);
  void FinishModule();
  void ResolveComputation(HloComputation* comp);
  void AddCall(CallRole role, std::string_view name, size_t offset);

  std::shared_ptr<const std::string> text_;
  std::string_view s_;
  const ParseOptions& options_;
  size_t p_ = 0;
  int depth_ = 0;
  bool split_seen_ = false;  // a `// -----` line since the last computation

  HloModuleGroup group_;
  HloModule* module_ = nullptr;
  size_t module_offset_ = 0;
  bool module_has_header_ = false;
  std::vector<HloComputation*> computations_;
  std::vector<PendingCall> pending_calls_;
  std::vector<std::pair<HloComputation*, size_t>> entry_candidates_;
  NameTable<HloComputation*> computation_names_;
  std::unordered_map<std::string_view, const Shape*> shape_pool_;
  std::vector<std::string_view> pending_shape_names_;
  uint32_t next_id_ = 0;

  // Per computation.
  NameTable<HloInstruction*> instruction_names_;
  std::vector<HloInstruction*> instructions_;
  std::vector<PendingOperand> pending_operands_;

  // Scratch buffers reused across instructions.
  std::vector<HloInstruction*> operand_scratch_;
  std::vector<HloAttribute> attribute_scratch_;
  std::vector<CalledComputation> call_scratch_;
  std::vector<size_t> call_offsets_;
  std::vector<std::string_view> call_names_;
  std::vector<std::pair<std::string_view, size_t>> control_scratch_;
};

// --- lexical ------------------------------------------------------------------

void HloParserImpl::SkipSpace() {
  while (p_ < s_.size()) {
    char c = s_[p_];
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      ++p_;
      continue;
    }
    if (c == '/' && p_ + 1 < s_.size()) {
      if (s_[p_ + 1] == '/') {
        size_t eol = s_.find('\n', p_);
        std::string_view comment =
            s_.substr(p_ + 2, (eol == std::string_view::npos ? s_.size() : eol) -
                                  p_ - 2);
        // hlo-opt --split-input-file separates modules with `// -----`.
        // Only the exact marker: longer dashed lines are decoration.
        size_t k = comment.find_first_not_of(' ');
        size_t e = comment.find_last_not_of(" \r");
        if (k != std::string_view::npos && comment.substr(k, e - k + 1) == "-----")
          split_seen_ = true;
        p_ = eol == std::string_view::npos ? s_.size() : eol + 1;
        continue;
      }
      if (s_[p_ + 1] == '*') {
        size_t end = s_.find("*/", p_ + 2);
        if (end == std::string_view::npos) Error(p_, "unterminated '/*' comment");
        p_ = end + 2;
        continue;
      }
    }
    break;
  }
}

bool HloParserImpl::ConsumeKeyword(std::string_view kw) {
  SkipSpace();
  if (s_.substr(p_, kw.size()) == kw && !IsIdentChar(PeekAt(p_ + kw.size()))) {
    p_ += kw.size();
    return true;
  }
  return false;
}

std::string_view HloParserImpl::ScanIdentifier() {
  size_t start = p_;
  if (!IsIdentStart(Peek())) return {};
  ++p_;
  while (p_ < s_.size() && IsIdentChar(s_[p_])) ++p_;
  return s_.substr(start, p_ - start);
}

// name ::= ['%'] [A-Za-z_][A-Za-z0-9_.-]*
std::string_view HloParserImpl::ParseName(std::string_view what) {
  SkipSpace();
  if (Peek() == '%') ++p_;
  std::string_view id = ScanIdentifier();
  if (id.empty()) ErrorExpected(what);
  return id;
}

int64_t HloParserImpl::ParseInt64() {
  SkipSpace();
  size_t start = p_;
  bool negative = Peek() == '-';
  if (negative) ++p_;
  if (!IsDigit(Peek())) ErrorExpected("an integer");
  size_t digits = p_;
  while (IsDigit(Peek())) ++p_;
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(s_.data() + digits, s_.data() + p_, v);
  if (ec != std::errc() || v > static_cast<uint64_t>(INT64_MAX) + negative)
    Error(start, fmt::format("integer '{}' does not fit in 64 bits",
                             s_.substr(start, p_ - start)));
  return negative ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
}

size_t HloParserImpl::ScanString(size_t start) {
  char quote = s_[start];
  size_t i = start + 1;
  while (true) {
    size_t next = s_.find_first_of(quote == '"' ? "\"\\" : "'\\", i);
    if (next == std::string_view::npos)
      Error(start, "unterminated string literal");
    if (s_[next] == '\\') {
      i = next + 2;
      continue;
    }
    return next + 1;
  }
}

// Skips a balanced (), [] or {} group, strings inside it included. Nesting is
// tracked with a small stack, not recursion, so deep input cannot overflow.
size_t HloParserImpl::ScanBalanced(size_t start) {
  std::string stack;
  size_t i = start;
  while (i < s_.size()) {
    char c = s_[i];
    switch (c) {
      case '(': stack.push_back(')'); break;
      case '[': stack.push_back(']'); break;
      case '{': stack.push_back('}'); break;
      case ')': case ']': case '}':
        if (stack.empty() || stack.back() != c)
          Error(i, fmt::format("unbalanced '{}'", c));
        stack.pop_back();
        if (stack.empty()) return i + 1;
        break;
      case '"':
        i = ScanString(i);
        continue;
      default: break;
    }
    ++i;
  }
  Error(start, fmt::format("unbalanced '{}': no matching '{}' before end of input",
                           s_[start], stack.empty() ? '?' : stack.back()));
}

// attribute value ::= balanced group | string | bare text up to ',' / space
size_t HloParserImpl::ScanAttributeValue() {
  SkipSpace();
  size_t i = p_;
  if (i >= s_.size()) ErrorExpected("an attribute value");
  char c = s_[i];
  if (c == '{' || c == '(') return ScanBalanced(i);
  if (c == '"' || c == '\'') return ScanString(i);
  // Bare values: kLoop, LT, 0_1x1_1, b01f_01io->b01f, %comp, 3, -inf, and
  // iota replica groups [2,2]<=[4]T(1,0).
  while (i < s_.size()) {
    c = s_[i];
    if (c == '[' || c == '(' || c == '{') {
      i = ScanBalanced(i);
      continue;
    }
    if (c == ' ' || c == '\t') {
      // `mesh[...] {'axis_1'}` and `literal=s32[2]{0} {1, 2}`: a value
      // continues when a group follows on the same line.
      size_t j = i;
      while (j < s_.size() && (s_[j] == ' ' || s_[j] == '\t')) ++j;
      if (j < s_.size() && (s_[j] == '{' || s_[j] == '[')) {
        i = j;
        continue;
      }
      break;
    }
    if (c == ',' || c == '\n' || c == '\r' || c == '}' || c == ')') break;
    ++i;
  }
  if (i == p_) ErrorExpected("an attribute value");
  return i;
}

// --- shapes -----------------------------------------------------------------

// Finds where the shape starting at `start` ends, without building it.
size_t HloParserImpl::ScanShapeEnd(size_t start, int depth) {
  if (depth > options_.max_nesting_depth)
    Error(start, fmt::format("shape nested deeper than {} levels",
                             options_.max_nesting_depth));
  size_t i = start;
  if (s_[i] == '(') {
    // Tuple: balanced parens; layouts and /*index*/ comments inside.
    int level = 0;
    while (i < s_.size()) {
      char c = s_[i];
      if (c == '(') {
        if (++level > options_.max_nesting_depth)
          Error(i, fmt::format("shape nested deeper than {} levels",
                               options_.max_nesting_depth));
      } else if (c == ')') {
        if (--level == 0) return i + 1;
      } else if (c == '/' && PeekAt(i + 1) == '*') {
        size_t end = s_.find("*/", i + 2);
        if (end == std::string_view::npos) Error(i, "unterminated '/*' comment");
        i = end + 2;
        continue;
      } else if (c == '/' && PeekAt(i + 1) == '/') {
        size_t end = s_.find('\n', i);
        i = end == std::string_view::npos ? s_.size() : end;
        continue;
      } else if (c == '"') {
        i = ScanString(i);
        continue;
      } else if (c == '{' || c == '}' || c == '[' || c == ']' || c == ',' ||
                 c == ' ' || c == ':' || c == '<' || c == '=' || c == '?' ||
                 c == '*' || c == '#' || IsIdentChar(c) || c == '\n' ||
                 c == '\t' || c == '\r') {
        // shape characters
      } else {
        Error(i, fmt::format("unexpected {} in tuple shape", Describe(c)));
      }
      ++i;
    }
    Error(start, "unbalanced '(' in tuple shape: no matching ')' before end of input");
  }
  // Array: type '[' dims ']' [layout]; b(...) buffers.
  while (i < s_.size() && IsIdentChar(s_[i])) ++i;
  if (i - start == 1 && s_[start] == 'b' && PeekAt(i) == '(')
    return ScanShapeEnd(i, depth + 1);
  if (PeekAt(i) != '[') return start;  // not a shape
  size_t close = s_.find(']', i);
  if (close == std::string_view::npos) Error(i, "unbalanced '[' in shape");
  i = close + 1;
  if (PeekAt(i) == '{') {
    char n = PeekAt(i + 1);
    if (IsDigit(n) || n == ':' || n == '}') {
      size_t end = s_.find('}', i);
      // Layouts may nest braces only inside P(...) memory-space shapes.
      size_t paren = s_.find("P(", i);
      if (paren != std::string_view::npos && paren < end)
        return ScanBalanced(i);
      if (end == std::string_view::npos) Error(i, "unbalanced '{' in layout");
      i = end + 1;
    }
  }
  return i;
}

// shape ::= '(' [shape (',' shape)*] ')' | 'b(' shape ')'
//         | type '[' [dim (',' dim)*] ']' [layout]
// dim   ::= INT | '<=' INT | '?'
const Shape* HloParserImpl::ParseShape() {
  SkipSpace();
  size_t start = p_;
  size_t end = ScanShapeEnd(start, 0);
  if (end == start) ErrorExpected("a shape");
  std::string_view key = s_.substr(start, end - start);
  auto it = shape_pool_.find(key);
  p_ = end;
  if (it != shape_pool_.end()) return it->second;
  const Shape* shape = BuildShape(start, end, 0);
  shape_pool_.emplace(key, shape);
  return shape;
}

const Shape* HloParserImpl::BuildShape(size_t start, size_t end, int depth) {
  if (depth > options_.max_nesting_depth)
    Error(start, fmt::format("shape nested deeper than {} levels",
                             options_.max_nesting_depth));
  Shape shape;
  size_t saved = p_;
  p_ = start;
  if (s_[p_] == '(') {
    shape.element_type = PrimitiveType::kTuple;
    ++p_;
    SkipSpace();
    if (Peek() != ')') {
      while (true) {
        SkipSpace();
        size_t e_start = p_;
        size_t e_end = ScanShapeEnd(e_start, depth + 1);
        if (e_end == e_start) ErrorExpected("a shape in the tuple");
        std::string_view key = s_.substr(e_start, e_end - e_start);
        auto it = shape_pool_.find(key);
        const Shape* element;
        if (it != shape_pool_.end()) {
          element = it->second;
        } else {
          element = BuildShape(e_start, e_end, depth + 1);
          shape_pool_.emplace(key, element);
        }
        p_ = e_end;
        shape.tuple_shapes.push_back(element);
        SkipSpace();
        if (Peek() == ',') {
          ++p_;
          continue;
        }
        break;
      }
    }
    Expect(')', "to close the tuple shape");
  } else if (s_[p_] == 'b' && PeekAt(p_ + 1) == '(') {
    shape.is_buffer = true;
    p_ += 2;
    SkipSpace();
    size_t e_start = p_;
    size_t e_end = ScanShapeEnd(e_start, depth + 1);
    if (e_end == e_start) ErrorExpected("a shape inside b(...)");
    shape.tuple_shapes.push_back(BuildShape(e_start, e_end, depth + 1));
    p_ = e_end;
    Expect(')', "to close b(...)");
  } else {
    std::string_view type = ScanIdentifier();
    shape.type_name = std::string(type);
    shape.element_type = PrimitiveTypeFromName(type);
    ++p_;  // '['
    SkipSpace();
    if (Peek() != ']') {
      while (true) {
        SkipSpace();
        DimensionKind kind = DimensionKind::kStatic;
        int64_t dim = -1;
        if (Peek() == '?') {
          ++p_;
          kind = DimensionKind::kUnbounded;
        } else {
          if (Peek() == '<' && PeekAt(p_ + 1) == '=') {
            p_ += 2;
            kind = DimensionKind::kBounded;
          }
          size_t d_start = p_;
          dim = ParseInt64();
          if (dim < 0) Error(d_start, "negative dimension size");
        }
        if (kind != DimensionKind::kStatic && shape.dimension_kinds.empty())
          shape.dimension_kinds.assign(shape.dimensions.size(),
                                       DimensionKind::kStatic);
        shape.dimensions.push_back(dim);
        if (!shape.dimension_kinds.empty()) shape.dimension_kinds.push_back(kind);
        SkipSpace();
        if (Peek() == ',') {
          ++p_;
          continue;
        }
        break;
      }
    }
    if (Peek() != ']') ErrorExpected("',' or ']' in the dimensions");
    ++p_;
    if (p_ < end && Peek() == '{') {
      size_t l_end = end;  // the scan already found the closing brace
      Layout layout;
      layout.raw = std::string(s_.substr(p_ + 1, l_end - p_ - 2));
      ParseLayout(layout.raw, p_ + 1, &layout);
      shape.layout = std::move(layout);
      p_ = l_end;
    }
  }
  if (p_ != end) Error(p_, "unexpected text in shape");
  p_ = saved;
  module_->shapes_.push_back(std::move(shape));
  return &module_->shapes_.back();
}

// layout ::= '{' [INT (',' INT)*] [':' sub_attribute*] '}'
// sub_attribute ::= 'T' ('(' ints ')')+ | 'E(' INT ')' | 'S(' INT ')' | LETTERS '(' ... ')'
void HloParserImpl::ParseLayout(std::string_view raw, size_t offset,
                                Layout* layout) {
  size_t i = 0;
  auto fail = [&](std::string msg) { Error(offset + i, std::move(msg)); };
  auto read_int = [&]() -> int64_t {
    size_t st = i;
    while (i < raw.size() && IsDigit(raw[i])) ++i;
    if (st == i) fail("expected an integer in the layout");
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(raw.data() + st, raw.data() + i, v);
    if (ec != std::errc()) fail("integer in the layout does not fit in 64 bits");
    return v;
  };
  while (i < raw.size() && raw[i] != ':') {
    if (raw[i] == ',' || raw[i] == ' ') {
      ++i;
      continue;
    }
    layout->minor_to_major.push_back(read_int());
  }
  if (i >= raw.size()) return;
  ++i;  // ':'
  while (i < raw.size()) {
    char c = raw[i];
    if (c == ' ') {
      ++i;
      continue;
    }
    size_t name_start = i;
    while (i < raw.size() && raw[i] != '(') ++i;
    std::string_view name = raw.substr(name_start, i - name_start);
    if (i >= raw.size()) fail("expected '(' after layout attribute");
    // One or more (...) groups; T has several.
    size_t groups_start = i;
    while (i < raw.size() && raw[i] == '(') {
      int level = 0;
      do {
        if (raw[i] == '(') ++level;
        if (raw[i] == ')') --level;
        ++i;
      } while (i < raw.size() && level > 0);
      if (level != 0) fail("unbalanced '(' in layout");
    }
    std::string_view args = raw.substr(groups_start, i - groups_start);
    if (name == "T") {
      layout->tiles = std::string(args);
    } else if (name == "E" || name == "S") {
      int64_t v = 0;
      auto [ptr, ec] =
          std::from_chars(args.data() + 1, args.data() + args.size() - 1, v);
      if (ec != std::errc()) Error(offset + groups_start, "expected an integer");
      (name == "E" ? layout->element_size_in_bits : layout->memory_space) = v;
    }
  }
}

// --- module -------------------------------------------------------------------

// input ::= (module | '// -----')*
// module ::= ['HloModule' NAME (',' attribute)*] stack_frame_tables? computation+
HloModuleGroup HloParserImpl::Run() {
  while (true) {
    split_seen_ = false;
    SkipSpace();
    if (split_seen_ && module_ && !computations_.empty()) FinishModule();
    if (AtEnd()) break;
    size_t here = p_;
    if (ConsumeKeyword("HloModule")) {
      if (module_ && (module_has_header_ || !computations_.empty())) FinishModule();
      if (!module_) StartModule(here);
      module_has_header_ = true;
      ParseModuleHeader();
      continue;
    }
    if (!module_) StartModule(here);
    bool table = false;
    for (std::string_view kw :
         {"FileNames", "FunctionNames", "FileLocations", "StackFrames"}) {
      if (ConsumeKeyword(kw)) {
        ParseStackFrameTable(kw);
        table = true;
        break;
      }
    }
    if (table) continue;
    char c = Peek();
    if (c != '%' && !IsIdentStart(c))
      ErrorExpected("'HloModule', 'ENTRY' or a computation");
    ParseComputation();
  }
  if (module_) FinishModule();
  if (group_.modules.empty()) Error(p_, "no HLO module in input");
  return std::move(group_);
}

void HloParserImpl::StartModule(size_t offset) {
  group_.modules.push_back(std::make_unique<HloModule>(text_));
  module_ = group_.modules.back().get();
  module_->path_ = options_.path;
  module_offset_ = offset;
  module_has_header_ = false;
  computations_.clear();
  pending_calls_.clear();
  entry_candidates_.clear();
  computation_names_.Clear();
  shape_pool_.clear();
}

// header ::= 'HloModule' NAME (',' NAME '=' value)*
void HloParserImpl::ParseModuleHeader() {
  module_->name_ = ParseName("a module name after 'HloModule'");
  if (Peek() == ':') ++p_;  // XLA's lexer takes `name:` as a name
  std::vector<HloAttribute> attrs;
  while (true) {
    size_t save = p_;
    SkipSpace();
    if (Peek() != ',') {
      p_ = save;
      break;
    }
    ++p_;
    SkipSpace();
    size_t name_start = p_;
    while (p_ < s_.size() && (IsIdentChar(s_[p_]))) ++p_;
    if (p_ == name_start) ErrorExpected("a module attribute name");
    std::string_view name = s_.substr(name_start, p_ - name_start);
    if (Peek() != '=') ErrorExpected(fmt::format("'=' after '{}'", name));
    ++p_;
    size_t v_start = p_;
    SkipSpace();
    v_start = p_;
    size_t v_end = ScanAttributeValue();
    std::string_view value = s_.substr(v_start, v_end - v_start);
    p_ = v_end;
    attrs.push_back({name, value});
    if (name == "is_scheduled") module_->is_scheduled_ = value == "true";
    if (name == "input_output_alias") ParseInputOutputAlias(value, v_start);
    if (name == "buffer_donor") ParseBufferDonor(value, v_start);
  }
  module_->attributes_ = module_->arena_.CopyOf<HloAttribute>(attrs);
}

// shape_index ::= '{' [INT (',' INT)*] '}'
ShapeIndex HloParserImpl::ParseShapeIndexAt(size_t* pos) {
  size_t save = p_;
  p_ = *pos;
  Expect('{', "to open a shape index");
  ShapeIndex index;
  SkipSpace();
  while (Peek() != '}') {
    index.push_back(ParseInt64());
    SkipSpace();
    if (Peek() == ',') ++p_;
    else if (Peek() != '}') ErrorExpected("',' or '}' in the shape index");
  }
  ++p_;
  *pos = p_;
  p_ = save;
  return index;
}

// input_output_alias ::= '{' (shape_index ':' '(' INT ',' shape_index
//                         [',' ('may-alias'|'must-alias')] ')' ','?)* '}'
void HloParserImpl::ParseInputOutputAlias(std::string_view value, size_t offset) {
  size_t save = p_;
  p_ = offset + 1;
  while (true) {
    SkipSpace();
    if (Peek() == '}') break;
    InputOutputAlias alias;
    size_t pos = p_;
    alias.output_index = ParseShapeIndexAt(&pos);
    p_ = pos;
    Expect(':', "after the output index in input_output_alias");
    Expect('(', "in input_output_alias");
    alias.parameter_number = ParseInt64();
    Expect(',', "after the parameter number in input_output_alias");
    SkipSpace();
    pos = p_;
    alias.parameter_index = ParseShapeIndexAt(&pos);
    p_ = pos;
    if (Consume(',')) {
      SkipSpace();
      std::string_view kind = ScanIdentifier();
      if (kind == "must-alias") alias.kind = AliasKind::kMustAlias;
      else if (kind != "may-alias") Error(p_ - kind.size(), "expected 'may-alias' or 'must-alias'");
    }
    Expect(')', "to close the alias entry");
    module_->aliases_.push_back(std::move(alias));
    Consume(',');
  }
  (void)value;
  p_ = save;
}

// buffer_donor ::= '{' ('(' INT ',' shape_index ')' ','?)* '}'
void HloParserImpl::ParseBufferDonor(std::string_view value, size_t offset) {
  size_t save = p_;
  p_ = offset + 1;
  while (true) {
    SkipSpace();
    if (Peek() == '}') break;
    BufferDonor donor;
    Expect('(', "in buffer_donor");
    donor.parameter_number = ParseInt64();
    Expect(',', "after the parameter number in buffer_donor");
    SkipSpace();
    size_t pos = p_;
    donor.parameter_index = ParseShapeIndexAt(&pos);
    p_ = pos;
    Expect(')', "to close the buffer_donor entry");
    module_->donors_.push_back(std::move(donor));
    Consume(',');
  }
  (void)value;
  p_ = save;
}

// table ::= 'FileNames' (INT? STRING)* | 'FunctionNames' (INT? STRING)*
//         | 'FileLocations' (INT? '{' key=INT ... '}')*
//         | 'StackFrames' (INT? '{' file_location_id=INT parent_frame_id=INT '}')*
void HloParserImpl::ParseStackFrameTable(std::string_view table) {
  StackFrameIndex& index = module_->stack_frames_;
  std::vector<int64_t> raw_parents;
  while (true) {
    SkipSpace();
    size_t row_start = p_;
    if (IsDigit(Peek())) {
      ParseInt64();  // row numbers are positional; the printed one is ignored
      SkipSpace();
    }
    char c = Peek();
    if (table == "FileNames" || table == "FunctionNames") {
      if (c != '"') {
        if (p_ != row_start) ErrorExpected("a quoted name");
        break;
      }
      size_t end = ScanString(p_);
      std::string_view name = s_.substr(p_ + 1, end - p_ - 2);
      (table == "FileNames" ? index.file_names : index.function_names)
          .push_back(name);
      p_ = end;
      continue;
    }
    if (c != '{') {
      if (p_ != row_start) ErrorExpected("'{' to start a table row");
      break;
    }
    size_t end = ScanBalanced(p_);
    ++p_;
    std::unordered_map<std::string_view, int64_t> fields;
    while (true) {
      SkipSpace();
      if (Peek() == '}') {
        ++p_;
        break;
      }
      if (Peek() == ',') {
        ++p_;
        continue;
      }
      std::string_view key = ScanIdentifier();
      if (key.empty()) ErrorExpected("a field name");
      Expect('=', "after the field name");
      fields[key] = ParseInt64();
    }
    if (p_ != end) Error(p_, "unexpected text in table row");
    auto need = [&](std::string_view key) {
      auto it = fields.find(key);
      if (it == fields.end())
        Error(row_start, fmt::format("{} row lacks '{}'", table, key));
      return it->second;
    };
    if (table == "FileLocations") {
      FileLocation loc;
      loc.file_name_id = need("file_name_id");
      loc.function_name_id = need("function_name_id");
      loc.line = need("line");
      auto get = [&](std::string_view k) {
        auto it = fields.find(k);
        return it == fields.end() ? 0 : it->second;
      };
      loc.end_line = get("end_line");
      loc.column = get("column");
      loc.end_column = get("end_column");
      index.file_locations.push_back(loc);
    } else {
      StackFrameRow row;
      row.file_location_id = need("file_location_id");
      raw_parents.push_back(need("parent_frame_id"));
      index.stack_frames.push_back(row);
    }
  }
  if (table == "StackFrames") {
    // The printer writes proto parent + 1 (so 1 = root, k = frame k-1). A 0
    // can only come from a printer without that shift: take ids as they are.
    bool shifted = true;
    for (int64_t v : raw_parents)
      if (v == 0) shifted = false;
    size_t first = index.stack_frames.size() - raw_parents.size();
    for (size_t i = 0; i < raw_parents.size(); ++i)
      index.stack_frames[first + i].parent_frame_id =
          shifted ? raw_parents[i] - 1 : raw_parents[i];
  }
}

// computation ::= ['ENTRY'] NAME [ '(' params ')' '->' shape ] '{' instruction+ '}'
//                 [',' 'execution_thread' '=' STRING]
void HloParserImpl::ParseComputation() {
  SkipSpace();
  size_t start = p_;
  bool is_entry = ConsumeKeyword("ENTRY");
  std::string_view name = ParseName("a computation name");
  HloComputation* comp = module_->arena_.New<HloComputation>();
  comp->name_ = name;
  comp->parent_ = module_;
  comp->offset_ = start;
  comp->is_entry_ = is_entry;
  SkipSpace();
  if (Peek() == '(') {
    size_t sig_start = p_;
    p_ = ScanBalanced(p_);
    SkipSpace();
    if (Peek() != '-' || PeekAt(p_ + 1) != '>')
      ErrorExpected("'->' after the computation's parameters");
    p_ += 2;
    ParseShape();
    comp->signature_ = s_.substr(sig_start, p_ - sig_start);
    SkipSpace();
  }
  if (Peek() != '{')
    ErrorExpected(fmt::format("'{{' to open computation '{}'", name));
  size_t open = p_;
  ++p_;
  if (++depth_ > options_.max_nesting_depth)
    Error(open, "computations nested too deeply");

  // Save the enclosing computation's state (for inline nested computations).
  NameTable<HloInstruction*> saved_names = std::move(instruction_names_);
  std::vector<HloInstruction*> saved_instrs = std::move(instructions_);
  std::vector<PendingOperand> saved_pending = std::move(pending_operands_);
  instruction_names_.Clear();
  instructions_.clear();
  pending_operands_.clear();

  HloInstruction* root = nullptr;
  while (true) {
    SkipSpace();
    if (AtEnd())
      Error(open, fmt::format("computation '{}' is not closed: expected '}}' "
                              "before end of input",
                              name));
    if (Peek() == '}') {
      ++p_;
      break;
    }
    HloInstruction* instr = ParseInstruction(comp, /*nested=*/false);
    if (instr->is_root_) {
      if (root) Error(instr->offset_, fmt::format("computation '{}' has more than one ROOT", name));
      root = instr;
    }
  }
  if (instructions_.empty())
    Error(open, fmt::format("computation '{}' has no instructions", name));
  if (!root) {
    root = instructions_.back();  // XLA: the last instruction is the root
    root->is_root_ = true;
  }
  comp->root_ = root;
  comp->instructions_ = module_->arena_.CopyOf<HloInstruction*>(instructions_);
  ResolveComputation(comp);

  instruction_names_ = std::move(saved_names);
  instructions_ = std::move(saved_instrs);
  pending_operands_ = std::move(saved_pending);
  --depth_;

  // execution_thread="host" after the closing brace.
  size_t save = p_;
  SkipSpace();
  if (Peek() == ',') {
    ++p_;
    SkipSpace();
    if (ConsumeKeyword("execution_thread")) {
      Expect('=', "after execution_thread");
      SkipSpace();
      if (Peek() != '"') ErrorExpected("a quoted thread name");
      size_t end = ScanString(p_);
      comp->execution_thread_ = s_.substr(p_ + 1, end - p_ - 2);
      p_ = end;
    } else {
      ErrorExpected("'execution_thread' after ','");
    }
  } else {
    p_ = save;
  }

  if (HloComputation** prev = computation_names_.Find(name))
    Error(start, fmt::format("duplicate computation name '{}' (first defined at line {})",
                             name, module_->LineOf((*prev)->offset_)));
  computation_names_.Insert(name, comp);
  computations_.push_back(comp);
  if (is_entry) entry_candidates_.emplace_back(comp, start);
}

void HloParserImpl::ResolveComputation(HloComputation* comp) {
  for (const PendingOperand& pending : pending_operands_) {
    HloInstruction** found = instruction_names_.Find(pending.name);
    if (!found)
      Error(pending.offset,
            fmt::format("use of undefined instruction '{}' in computation '{}'",
                        pending.name, comp->name_));
    *pending.slot = *found;
  }
  std::vector<HloInstruction*> params;
  for (HloInstruction* instr : instructions_) {
    if (instr->opcode_ == HloOpcode::kParameter) {
      int64_t n = instr->int_attr_;
      if (n < 0 || n > 1'000'000)
        Error(instr->offset_, fmt::format("parameter number {} out of range", n));
      if (static_cast<int64_t>(params.size()) <= n) params.resize(n + 1, nullptr);
      if (params[n])
        Error(instr->offset_,
              fmt::format("duplicate parameter number {} in computation '{}'", n,
                          comp->name_));
      params[n] = instr;
    }
  }
  comp->parameters_ = module_->arena_.CopyOf<HloInstruction*>(params);
}

// instruction ::= ['ROOT'] NAME '=' [shape] opcode '(' operands ')' (',' attribute)*
HloInstruction* HloParserImpl::ParseInstruction(HloComputation* comp,
                                                bool nested) {
  SkipSpace();
  HloInstruction* instr = module_->arena_.New<HloInstruction>();
  instr->parent_ = comp;
  if (!nested) {
    size_t root_at = p_;
    if (ConsumeKeyword("ROOT")) instr->is_root_ = true;
    else p_ = root_at;
    SkipSpace();
    instr->offset_ = p_;
    instr->name_ = ParseName("an instruction name");
    SkipSpace();
    if (Peek() != '=')
      ErrorExpected(fmt::format("'=' after instruction name '{}'", instr->name_));
    ++p_;
    SkipSpace();
  } else {
    instr->offset_ = p_;
  }
  // Optional shape (hand-written text may omit it).
  char c = Peek();
  bool has_shape = c == '(';
  if (!has_shape && IsIdentStart(c)) {
    size_t i = p_;
    while (i < s_.size() && IsIdentChar(s_[i])) ++i;
    has_shape = PeekAt(i) == '[' || (i == p_ + 1 && c == 'b' && PeekAt(i) == '(' &&
                                      !nested);
  }
  instr->shape_ = has_shape ? ParseShape() : nullptr;
  SkipSpace();
  size_t op_start = p_;
  std::string_view opcode = ScanIdentifier();
  if (opcode.empty()) ErrorExpected("an opcode");
  instr->opcode_text_ = opcode;
  instr->opcode_ = StringToHloOpcode(opcode);
  if (nested) {
    // Nested operand instructions get a made-up name.
    module_->synthesized_.push_back(fmt::format("{}.nested.{}", opcode, next_id_));
    instr->name_ = module_->synthesized_.back();
  }
  if (!instr->shape_) {
    if (module_->shapes_.empty() || shape_pool_.find("()") == shape_pool_.end()) {
      Shape unknown;
      unknown.element_type = PrimitiveType::kTuple;
      module_->shapes_.push_back(std::move(unknown));
      shape_pool_.emplace("()", &module_->shapes_.back());
    }
    // Shape not written: keep an empty tuple as "unknown".
    instr->shape_ = shape_pool_["()"];
  }
  SkipSpace();
  if (Peek() != '(')
    ErrorExpected(fmt::format("'(' after opcode '{}'", opcode));
  (void)op_start;

  HloOpcode op = instr->opcode_;
  if (op == HloOpcode::kParameter) {
    ++p_;
    instr->operand_text_ = s_.substr(p_, 0);
    size_t num_start = p_;
    instr->int_attr_ = ParseInt64();
    instr->operand_text_ = s_.substr(num_start, p_ - num_start);
    Expect(')', "after the parameter number");
  } else if (op == HloOpcode::kConstant) {
    size_t end = ScanBalanced(p_);
    instr->operand_text_ = s_.substr(p_ + 1, end - p_ - 2);
    p_ = end;
  } else {
    ParseOperands(instr);
  }
  // Nested operand instructions cannot carry attributes: a ',' after them
  // separates the enclosing operand list.
  if (!nested) ParseAttributes(instr);
  if (op == HloOpcode::kGetTupleElement && instr->int_attr_ < 0)
    Error(instr->offset_, "get-tuple-element needs 'index='");

  instr->id_ = next_id_++;
  if (!nested) {
    if (HloInstruction** prev = instruction_names_.Find(instr->name_))
      Error(instr->offset_,
            fmt::format("duplicate instruction name '{}' (first defined at line {})",
                        instr->name_, module_->LineOf((*prev)->offset_)));
    instruction_names_.Insert(instr->name_, instr);
  }
  instructions_.push_back(instr);
  return instr;
}

// operands ::= '(' [operand (',' operand)*] ')'
// operand  ::= [shape] NAME | [shape] opcode operands     (nested, hand-written)
void HloParserImpl::ParseOperands(HloInstruction* instr) {
  ++p_;  // '('
  size_t base = operand_scratch_.size();
  struct Unresolved {
    size_t index;
    std::string_view name;
    size_t offset;
  };
  std::vector<Unresolved> unresolved;
  SkipSpace();
  if (Peek() != ')') {
    while (true) {
      SkipSpace();
      size_t at = p_;
      char c = Peek();
      // A leading shape: '(' tuple, or TYPE '['.
      if (c == '(') {
        ParseShape();
        SkipSpace();
      } else if (IsIdentStart(c)) {
        size_t i = p_;
        while (i < s_.size() && IsIdentChar(s_[i])) ++i;
        if (PeekAt(i) == '[') {
          ParseShape();
          SkipSpace();
        }
      }
      at = p_;
      if (Peek() == '.' && s_.substr(p_, 3) == "...")
        Error(p_, "elided operand list '...' (printed with compact_operands) cannot be parsed");
      bool percent = Peek() == '%';
      if (percent) ++p_;
      std::string_view name = ScanIdentifier();
      if (name.empty()) {
        p_ = at;
        ErrorExpected("an operand name");
      }
      if (!percent && Peek() == '(') {
        // Nested instruction as operand.
        if (++depth_ > options_.max_nesting_depth)
          Error(at, "nested operands too deep");
        p_ = at;
        HloInstruction* nested = ParseInstruction(instr->parent_, /*nested=*/true);
        --depth_;
        operand_scratch_.push_back(nested);
      } else if (Peek() == '#') {
        // Compact GTE (`%p0#1`, --xla_dump_compact_gte): element 1 of p0.
        HloInstruction** found = instruction_names_.Find(name);
        if (!found)
          Error(at, fmt::format("use of undefined instruction '{}'", name));
        HloInstruction* tuple = *found;
        while (Peek() == '#') {
          ++p_;
          size_t idx_at = p_;
          int64_t index = ParseInt64();
          const Shape& ts = tuple->shape();
          if (!ts.IsTuple() || index < 0 ||
              index >= static_cast<int64_t>(ts.tuple_shapes.size()))
            Error(idx_at, fmt::format("'{}' has no tuple element {}", tuple->name_, index));
          HloInstruction* gte = module_->arena_.New<HloInstruction>();
          gte->parent_ = instr->parent_;
          gte->offset_ = at;
          gte->opcode_ = HloOpcode::kGetTupleElement;
          gte->opcode_text_ = HloOpcodeString(HloOpcode::kGetTupleElement);
          gte->shape_ = ts.tuple_shapes[index];
          gte->int_attr_ = index;
          module_->synthesized_.push_back(fmt::format("{}#{}", tuple->name_, index));
          module_->synthesized_.push_back(fmt::format("{}", index));
          gte->attributes_ = module_->arena_.CopyOf<HloAttribute>(std::vector<HloAttribute>{
              {"index", module_->synthesized_.back()}});
          module_->synthesized_.push_back(
              fmt::format("{}.gte{}.{}", tuple->name_, index, next_id_));
          gte->name_ = module_->synthesized_.back();
          gte->operands_ = module_->arena_.CopyOf<HloInstruction*>(
              std::vector<HloInstruction*>{tuple});
          gte->id_ = next_id_++;
          instructions_.push_back(gte);
          tuple = gte;
        }
        operand_scratch_.push_back(tuple);
      } else {
        HloInstruction** found = instruction_names_.Find(name);
        if (found) {
          operand_scratch_.push_back(*found);
        } else {
          unresolved.push_back({operand_scratch_.size() - base, name, at});
          operand_scratch_.push_back(nullptr);
        }
      }
      SkipSpace();
      if (Peek() == ',') {
        ++p_;
        continue;
      }
      if (Peek() == ')') break;
      ErrorExpected("',' or ')' in the operand list");
    }
  }
  ++p_;  // ')'
  std::span<HloInstruction*> ops = module_->arena_.CopyOf<HloInstruction*>(
      std::span<HloInstruction* const>(operand_scratch_.data() + base,
                                       operand_scratch_.size() - base));
  operand_scratch_.resize(base);
  for (const Unresolved& u : unresolved)
    pending_operands_.push_back({&ops[u.index], u.name, u.offset});
  instr->operands_ = ops;
}

// attribute ::= NAME '=' value
void HloParserImpl::ParseAttributes(HloInstruction* instr) {
  size_t attr_base = attribute_scratch_.size();
  size_t call_base = call_scratch_.size();
  size_t ctrl_base = control_scratch_.size();
  while (true) {
    size_t save = p_;
    SkipSpace();
    if (Peek() != ',') {
      p_ = save;
      break;
    }
    ++p_;
    SkipSpace();
    size_t name_start = p_;
    while (p_ < s_.size() && IsIdentChar(s_[p_])) ++p_;
    if (p_ == name_start) ErrorExpected("an attribute name");
    std::string_view name = s_.substr(name_start, p_ - name_start);
    if (Peek() != '=') ErrorExpected(fmt::format("'=' after attribute '{}'", name));
    ++p_;
    SkipSpace();
    size_t v_start = p_;
    // Inline nested computation: calls={ instr ... }.
    if (Peek() == '{' && (name == "calls" || name == "to_apply" ||
                          name == "body" || name == "condition")) {
      size_t k = p_ + 1;
      while (k < s_.size() && (s_[k] == ' ' || s_[k] == '\n' || s_[k] == '\t' || s_[k] == '\r')) ++k;
      size_t n = k;
      if (PeekAt(n) == '%') ++n;
      while (n < s_.size() && IsIdentChar(s_[n])) ++n;
      while (n < s_.size() && s_[n] == ' ') ++n;
      bool looks_like_instr = n > k && (PeekAt(n) == '=' ||
                              s_.substr(k, 4) == "ROOT");
      if (looks_like_instr) {
        // Parse it as an anonymous computation and reference it by name.
        module_->synthesized_.push_back(
            fmt::format("{}.inline.{}", instr->opcode_text_, next_id_));
        std::string_view cname = module_->synthesized_.back();
        // Temporarily splice: parse "{...}" with a synthetic name.
        HloComputation* comp = module_->arena_.New<HloComputation>();
        comp->name_ = cname;
        comp->parent_ = module_;
        comp->offset_ = p_;
        size_t open = p_;
        ++p_;
        if (++depth_ > options_.max_nesting_depth)
          Error(open, "computations nested too deeply");
        NameTable<HloInstruction*> saved_names = std::move(instruction_names_);
        std::vector<HloInstruction*> saved_instrs = std::move(instructions_);
        std::vector<PendingOperand> saved_pending = std::move(pending_operands_);
        instruction_names_.Clear();
        instructions_.clear();
        pending_operands_.clear();
        HloInstruction* root = nullptr;
        while (true) {
          SkipSpace();
          if (AtEnd()) Error(open, "inline computation is not closed");
          if (Peek() == '}') {
            ++p_;
            break;
          }
          HloInstruction* inner = ParseInstruction(comp, false);
          if (inner->is_root_) root = inner;
        }
        if (instructions_.empty()) Error(open, "inline computation has no instructions");
        if (!root) {
          root = instructions_.back();
          root->is_root_ = true;
        }
        comp->root_ = root;
        comp->instructions_ = module_->arena_.CopyOf<HloInstruction*>(instructions_);
        ResolveComputation(comp);
        instruction_names_ = std::move(saved_names);
        instructions_ = std::move(saved_instrs);
        pending_operands_ = std::move(saved_pending);
        --depth_;
        computation_names_.Insert(cname, comp);
        computations_.insert(computations_.end() - 0, comp);
        // Printing refers to the computation by its made-up name.
        attribute_scratch_.push_back({name, cname});
        CallRole role = name == "calls" ? CallRole::kCalls
                        : name == "to_apply" ? CallRole::kToApply
                        : name == "body" ? CallRole::kBody
                                         : CallRole::kCondition;
        call_scratch_.push_back({role, comp});
        call_names_.push_back({});
        call_offsets_.push_back(v_start);
        continue;
      }
    }
    if (name == "literal" && Peek() != '(') {
      // custom-call literal=s32[] 1: a shape, then the literal after a space.
      // (A tuple literal `( s32[2] {1, 2}, ... )` is one balanced group.)
      ParseShape();
      SkipSpace();
    }
    size_t v_end = ScanAttributeValue();
    HloAttribute attr{name, s_.substr(v_start, v_end - v_start)};
    p_ = v_end;
    attribute_scratch_.push_back(attr);
    DecodeAttribute(instr, attr, v_start);
  }
  instr->attributes_ = module_->arena_.CopyOf<HloAttribute>(
      std::span<const HloAttribute>(attribute_scratch_.data() + attr_base,
                                    attribute_scratch_.size() - attr_base));
  attribute_scratch_.resize(attr_base);
  if (call_scratch_.size() > call_base) {
    std::span<CalledComputation> calls = module_->arena_.CopyOf<CalledComputation>(
        std::span<const CalledComputation>(call_scratch_.data() + call_base,
                                           call_scratch_.size() - call_base));
    for (size_t i = 0; i < calls.size(); ++i) {
      if (calls[i].computation == nullptr)
        pending_calls_.push_back(
            {&calls[i], call_names_[call_base + i], call_offsets_[call_base + i]});
    }
    instr->called_ = calls;
    call_scratch_.resize(call_base);
    call_names_.resize(call_base);
    call_offsets_.resize(call_base);
  }
  if (control_scratch_.size() > ctrl_base) {
    std::vector<HloInstruction*> preds;
    std::span<HloInstruction*> span;
    preds.resize(control_scratch_.size() - ctrl_base, nullptr);
    span = module_->arena_.CopyOf<HloInstruction*>(preds);
    for (size_t i = ctrl_base; i < control_scratch_.size(); ++i)
      pending_operands_.push_back({&span[i - ctrl_base], control_scratch_[i].first,
                                   control_scratch_[i].second});
    instr->control_predecessors_ = span;
    control_scratch_.resize(ctrl_base);
  }
}

void HloParserImpl::AddCall(CallRole role, std::string_view name, size_t offset) {
  if (!name.empty() && name[0] == '%') name.remove_prefix(1);
  call_scratch_.push_back({role, nullptr});
  call_names_.push_back(name);
  call_offsets_.push_back(offset);
}

void HloParserImpl::DecodeAttribute(HloInstruction* instr,
                                    const HloAttribute& attr, size_t offset) {
  std::string_view n = attr.name;
  std::string_view v = attr.value;
  auto single = [&](CallRole role) {
    if (!v.empty() && v[0] == '{') {
      // calls={%a, %b} (async wrappers may list several)
      std::string_view inner = v.substr(1, v.size() - 2);
      size_t i = 0;
      while (i < inner.size()) {
        while (i < inner.size() && (inner[i] == ' ' || inner[i] == ',' ||
                                    inner[i] == '\n' || inner[i] == '%'))
          ++i;
        size_t st = i;
        while (i < inner.size() && IsIdentChar(inner[i])) ++i;
        if (i > st) AddCall(role, inner.substr(st, i - st), offset + 1 + st);
        else if (i < inner.size()) Error(offset + 1 + i, "expected a computation name");
      }
      return;
    }
    AddCall(role, v, offset);
  };
  if (n == "metadata") {
    if (v.empty() || v[0] != '{') Error(offset, "expected '{' after metadata=");
    instr->metadata_ = ParseMetadata(v, offset);
  } else if (n == "calls") {
    single(CallRole::kCalls);
  } else if (n == "to_apply") {
    single(CallRole::kToApply);
  } else if (n == "body") {
    single(CallRole::kBody);
  } else if (n == "condition") {
    single(CallRole::kCondition);
  } else if (n == "branch_computations") {
    single(CallRole::kBranch);
  } else if (n == "true_computation") {
    single(CallRole::kTrueComputation);
  } else if (n == "false_computation") {
    single(CallRole::kFalseComputation);
  } else if (n == "called_computations") {
    single(CallRole::kCalledComputations);
  } else if (n == "select" && instr->opcode_ == HloOpcode::kSelectAndScatter) {
    single(CallRole::kSelect);
  } else if (n == "scatter" && instr->opcode_ == HloOpcode::kSelectAndScatter) {
    single(CallRole::kScatter);
  } else if (n == "index" && instr->opcode_ == HloOpcode::kGetTupleElement) {
    size_t save = p_;
    p_ = offset;
    instr->int_attr_ = ParseInt64();
    if (p_ != offset + v.size()) Error(p_, "expected an integer index");
    p_ = save;
  } else if (n == "kind" && instr->opcode_ == HloOpcode::kFusion) {
    instr->fusion_kind_ = v == "kLoop"     ? FusionKind::kLoop
                          : v == "kInput"  ? FusionKind::kInput
                          : v == "kOutput" ? FusionKind::kOutput
                          : v == "kCustom" ? FusionKind::kCustom
                                           : FusionKind::kOther;
  } else if (n == "control-predecessors") {
    if (v.empty() || v[0] != '{') Error(offset, "expected '{' after control-predecessors=");
    size_t i = 1;
    while (i + 1 < v.size()) {
      while (i < v.size() && (v[i] == ' ' || v[i] == ',' || v[i] == '%' || v[i] == '\n')) ++i;
      size_t st = i;
      while (i < v.size() && IsIdentChar(v[i])) ++i;
      if (i > st) control_scratch_.push_back({v.substr(st, i - st), offset + st});
      else if (i + 1 < v.size()) Error(offset + i, "expected an instruction name");
    }
  }
}

// metadata ::= '{' (KEY '=' (STRING | INT | '{'...'}'))* '}'
const OpMetadata* HloParserImpl::ParseMetadata(std::string_view raw,
                                               size_t offset) {
  OpMetadata* md = module_->arena_.New<OpMetadata>();
  md->raw = raw.substr(1, raw.size() - 2);
  size_t save = p_;
  p_ = offset + 1;
  size_t end = offset + raw.size() - 1;
  while (true) {
    SkipSpace();
    if (p_ >= end) break;
    if (Peek() == ',') {
      ++p_;
      continue;
    }
    std::string_view key = ScanIdentifier();
    if (key.empty()) ErrorExpected("a metadata field");
    if (Peek() != '=') ErrorExpected(fmt::format("'=' after metadata field '{}'", key));
    ++p_;
    char c = Peek();
    if (c == '"') {
      size_t e = ScanString(p_);
      std::string_view str = s_.substr(p_ + 1, e - p_ - 2);
      p_ = e;
      if (key == "op_name") md->op_name = str;
      else if (key == "op_type") md->op_type = str;
      else if (key == "source_file") md->source_file = str;
    } else if (c == '{') {
      p_ = ScanBalanced(p_);
    } else if (IsDigit(c) || c == '-') {
      int64_t v = ParseInt64();
      if (key == "source_line") md->source_line = v;
      else if (key == "source_end_line") md->source_end_line = v;
      else if (key == "source_column") md->source_column = v;
      else if (key == "source_end_column") md->source_end_column = v;
      else if (key == "stack_frame_id") md->stack_frame_id = v;
    } else {
      // true/false and other bare words (preserve_layout=true).
      std::string_view word = ScanIdentifier();
      if (word.empty()) ErrorExpected("a metadata value");
    }
  }
  p_ = save;
  return md;
}

void HloParserImpl::FinishModule() {
  HloModule* m = module_;
  // Resolve called computations by name.
  for (const PendingCall& call : pending_calls_) {
    HloComputation** found = computation_names_.Find(call.name);
    if (!found)
      Error(call.offset, fmt::format("use of undefined computation '{}'", call.name));
    call.slot->computation = *found;
  }
  if (computations_.empty())
    Error(module_offset_, fmt::format("module '{}' has no computations", m->name_));
  if (entry_candidates_.size() > 1)
    Error(entry_candidates_[1].second, "more than one ENTRY computation in module");
  m->entry_ = entry_candidates_.empty() ? computations_.back()
                                        : entry_candidates_[0].first;
  m->entry_->is_entry_ = true;
  if (m->name_.empty()) m->name_ = m->entry_->name_;
  m->computations_ = m->arena_.CopyOf<HloComputation*>(computations_);

  // Users and callers: count, allocate once, fill.
  std::vector<uint32_t> user_count(next_id_, 0);
  std::unordered_map<HloComputation*, std::vector<HloInstruction*>> callers;
  for (HloComputation* c : computations_) {
    for (HloInstruction* instr : c->instructions_) {
      for (HloInstruction* op : instr->operands_)
        if (op) ++user_count[op->id_];
      for (const CalledComputation& cc : instr->called_)
        callers[cc.computation].push_back(instr);
    }
  }
  std::vector<std::span<HloInstruction*>> users(next_id_);
  for (HloComputation* c : computations_) {
    for (HloInstruction* instr : c->instructions_) {
      uint32_t n = user_count[instr->id_];
      if (n) {
        auto* p = static_cast<HloInstruction**>(
            m->arena_.Allocate(sizeof(HloInstruction*) * n, alignof(HloInstruction*)));
        users[instr->id_] = {p, 0};
      }
    }
  }
  for (HloComputation* c : computations_) {
    for (HloInstruction* instr : c->instructions_) {
      for (HloInstruction* op : instr->operands_) {
        if (!op) continue;
        std::span<HloInstruction*>& u = users[op->id_];
        // Avoid listing a user twice when it uses an operand twice.
        bool dup = false;
        for (HloInstruction* x : u) dup |= x == instr;
        if (!dup) u = {u.data(), u.size() + 1}, u[u.size() - 1] = instr;
      }
    }
  }
  for (HloComputation* c : computations_)
    for (HloInstruction* instr : c->instructions_) instr->users_ = users[instr->id_];
  for (auto& [comp, list] : callers)
    comp->callers_ = m->arena_.CopyOf<HloInstruction*>(list);

  module_ = nullptr;
  computations_.clear();
  pending_calls_.clear();
  entry_candidates_.clear();
  computation_names_.Clear();
  shape_pool_.clear();
  next_id_ = 0;
}

// --- API ------------------------------------------------------------------------

Result<HloModuleGroup> ParseHloText(std::shared_ptr<const std::string> text,
                                    const ParseOptions& options) {
  HloParserImpl parser(text, options);
  try {
    return parser.Run();
  } catch (const ParseFailure& f) {
    return MakeDiagnostic(options.path, *text, f.offset, f.message);
  }
}

Result<HloModuleGroup> ParseHloText(std::string text, const ParseOptions& options) {
  return ParseHloText(std::make_shared<const std::string>(std::move(text)), options);
}

Result<std::shared_ptr<const std::string>> ReadFileOrStdin(const std::string& path) {
  std::string data;
  if (path == "-") {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    data = std::move(ss).str();
  } else {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      Diagnostic d;
      d.path = path;
      d.message = fmt::format("cannot open file: {}", std::strerror(errno));
      return d;
    }
    in.seekg(0, std::ios::end);
    std::streamoff size = in.tellg();
    in.seekg(0, std::ios::beg);
    if (size > 0) {
      data.resize(static_cast<size_t>(size));
      in.read(data.data(), size);
    } else {
      data.assign(std::istreambuf_iterator<char>(in), {});
    }
    if (in.bad()) {
      Diagnostic d;
      d.path = path;
      d.message = "read error";
      return d;
    }
  }
  return std::make_shared<const std::string>(std::move(data));
}

Result<HloModuleGroup> ParseHloFile(const std::string& path,
                                    const ParseOptions& options) {
  auto text = ReadFileOrStdin(path);
  if (!text.ok()) return text.error();
  ParseOptions opts = options;
  opts.path = path == "-" ? "<stdin>" : path;
  return ParseHloText(std::move(text).value(), opts);
}

}  // namespace hloscope
