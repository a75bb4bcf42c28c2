// Shapes and layouts (xla ParseShape / ParseLayout, ShapeUtil's printer):
//   f32[8,128]{1,0:T(8,128)}   (f32[], s32[4]{0})   b(f32[4])   token[]
// Each distinct shape text is built once per module and interned.
#include <fmt/format.h>

#include <charconv>

#include "parser/parser_impl.h"

namespace hloscope {

void HloParserImpl::ErrorTooDeep(size_t offset, std::string_view what) {
  Error(offset, fmt::format("{} nested deeper than {} levels", what, options_.max_nesting_depth));
}

// Finds where the shape starting at `start` ends, without building it;
// returns `start` when no shape starts there.
size_t HloParserImpl::ScanShapeEnd(size_t start, int depth) {
  if (depth > options_.max_nesting_depth) ErrorTooDeep(start, "shape");
  size_t i = start;
  char first = PeekAt(i);
  if (first == '(') {
    // Tuple: balanced parens; layouts and /*index=N*/ comments inside.
    int level = 0;
    while (i < s_.size()) {
      char c = s_[i];
      if (c == '(') {
        if (++level > options_.max_nesting_depth) ErrorTooDeep(i, "shape");
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
      } else if (c == '{' || c == '}' || c == '[' || c == ']' || c == ',' || c == ' ' || c == ':' ||
                 c == '<' || c == '=' || c == '?' || c == '*' || c == '#' || IsIdentChar(c) || c == '\n' ||
                 c == '\t' || c == '\r') {
        // shape characters
      } else {
        Error(i, fmt::format("unexpected {} in tuple shape", DescribeChar(c)));
      }
      ++i;
    }
    Error(start, "unbalanced '(' in tuple shape: no matching ')' before end of input");
  }
  // Array: type '[' dims ']' [layout]; b(...) buffers.
  if (!IsIdentStart(first)) return start;
  i = IdentEnd(s_.data(), i);
  if (i - start == 1 && first == 'b' && PeekAt(i) == '(') return ScanShapeEnd(i, depth + 1);
  if (PeekAt(i) != '[') return start;  // not a shape
  // The dimensions end at ']'; stop early at characters they cannot hold,
  // so that a missing ']' does not send the scan through the whole file.
  ++i;
  const char* d = s_.data();                 // d[size] is the '\0' sentinel
  while (IsDigit(d[i]) || d[i] == ',') ++i;  // the common case: 8,128
  while (i < s_.size() && d[i] != ']' && d[i] != '\n' && d[i] != '(' && d[i] != ')' && d[i] != '{' &&
         d[i] != '}' && d[i] != '[')
    ++i;
  if (PeekAt(i) != ']') {
    p_ = i;
    ErrorExpected("']' to close the dimensions");
  }
  ++i;
  // A '{' right after the dimensions is a layout when an integer, ':' or
  // '}' follows (spaces allowed, as XLA's lexer skips them); `-> f32[2] {`
  // opens a computation instead.
  if (PeekAt(i) == '{') {
    size_t k = i + 1;
    while (PeekAt(k) == ' ') ++k;
    char n = PeekAt(k);
    if (IsDigit(n) || n == ':' || n == '}') {
      // Layouts nest braces only inside P(...) (the shape of the memory
      // space's pointee).
      size_t end = i + 1;
      while (IsDigit(d[end]) || d[end] == ',') ++end;  // minor-to-major: 1,0
      while (end < s_.size() && s_[end] != '}' && s_[end] != '{' && s_[end] != '\n') {
        if (s_[end] == 'P' && PeekAt(end + 1) == '(') return ScanBalanced(i);
        ++end;
      }
      if (PeekAt(end) != '}') {
        p_ = end;
        ErrorExpected("'}' to close the layout");
      }
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
  const Shape* shape = InternShape(start, end, 0);
  p_ = end;
  return shape;
}

const Shape* HloParserImpl::InternShape(size_t start, size_t end, int depth) {
  std::string_view key = s_.substr(start, end - start);
  // refresh: the next comparison reads this text, now in cache, not the
  // first occurrence of the shape far back in the input.
  if (const Shape** found = shape_pool_.Find(key, /*refresh=*/true)) return *found;
  // Not FindOrInsert: building a tuple interns its elements first.
  const Shape* shape = BuildShape(start, end, depth);
  shape_pool_.Insert(key, shape);
  return shape;
}

const Shape* HloParserImpl::UnknownShape() {
  // Hand-written text may leave the shape out; keep an empty tuple as
  // "unknown" so that every instruction has a shape.
  if (!unknown_shape_) {
    Shape unknown;
    unknown.element_type = PrimitiveType::kTuple;
    module_->shapes_.push_front(std::move(unknown));
    unknown_shape_ = &module_->shapes_.front();
  }
  return unknown_shape_;
}

const Shape* HloParserImpl::BuildShape(size_t start, size_t end, int depth) {
  if (depth > options_.max_nesting_depth) ErrorTooDeep(start, "shape");
  Shape shape;
  size_t saved = p_;
  p_ = start;
  if (Peek() == '(') {
    shape.element_type = PrimitiveType::kTuple;
    ++p_;
    SkipSpace();
    if (Peek() != ')') {
      while (true) {
        SkipSpace();
        size_t e_start = p_;
        size_t e_end = ScanShapeEnd(e_start, depth + 1);
        if (e_end == e_start) ErrorExpected("a shape in the tuple");
        shape.tuple_shapes.push_back(InternShape(e_start, e_end, depth + 1));
        p_ = e_end;
        SkipSpace();
        if (Peek() == ',') {
          ++p_;
          continue;
        }
        break;
      }
    }
    Expect(')', "to close the tuple shape");
  } else if (Peek() == 'b' && PeekAt(p_ + 1) == '(') {
    shape.is_buffer = true;
    p_ += 2;
    SkipSpace();
    size_t e_start = p_;
    size_t e_end = ScanShapeEnd(e_start, depth + 1);
    if (e_end == e_start) ErrorExpected("a shape inside b(...)");
    shape.tuple_shapes.push_back(InternShape(e_start, e_end, depth + 1));
    p_ = e_end;
    Expect(')', "to close b(...)");
  } else {
    std::string_view type = ScanIdentifier();
    shape.type_name = std::string(type);
    shape.element_type = PrimitiveTypeFromName(type);
    ++p_;  // '[' (ScanShapeEnd checked it)
    SkipSpace();
    bool dynamic = false;
    std::vector<DimensionKind> kinds;
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
        dynamic |= kind != DimensionKind::kStatic;
        shape.dimensions.push_back(dim);
        kinds.push_back(kind);
        SkipSpace();
        if (Peek() == ',') {
          ++p_;
          continue;
        }
        break;
      }
    }
    if (dynamic) shape.dimension_kinds = std::move(kinds);
    if (Peek() != ']') ErrorExpected("',' or ']' in the dimensions");
    ++p_;
    if (p_ < end && Peek() == '{') {
      // ScanShapeEnd found the closing brace: it ends the shape.
      Layout layout;
      layout.raw = std::string(s_.substr(p_ + 1, end - p_ - 2));
      ParseLayout(layout.raw, p_ + 1, &layout);
      shape.layout = std::move(layout);
      p_ = end;
    }
  }
  if (p_ != end) Error(p_, "unexpected text in shape");
  p_ = saved;
  module_->shapes_.push_front(std::move(shape));
  return &module_->shapes_.front();
}

// layout        ::= '{' [INT (',' INT)*] [':' sub_attribute*] '}'
// sub_attribute ::= 'T' ('(' INT|'*' (',' INT|'*')* ')')+ | 'E(' INT ')'
//                 | 'S(' INT ')' | 'L(' INT ')' | '#(' type ')' | '*(' type ')'
//                 | 'SC' ('(' ... ')')+ | 'P(' shape ')' | 'M(' INT ')'
//                 | 'D(' ... ')' | LETTERS ('(' ... ')')+     (kept verbatim)
void HloParserImpl::ParseLayout(std::string_view raw, size_t offset, Layout* layout) {
  size_t i = 0;
  auto fail = [&](std::string msg) { Error(offset + i, std::move(msg)); };
  auto read_int = [&]() -> int64_t {
    size_t st = i;
    while (i < raw.size() && IsDigit(raw[i])) ++i;
    if (st == i) fail("expected an integer in the layout");
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(raw.data() + st, raw.data() + i, v);
    if (ec != std::errc()) {
      i = st;
      fail("integer in the layout does not fit in 64 bits");
    }
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
    if (i >= raw.size()) {
      i = name_start;
      fail("expected '(' after layout attribute");
    }
    // One or more (...) groups; T and SC have several.
    size_t groups_start = i;
    while (i < raw.size() && raw[i] == '(') {
      size_t group_start = i;
      int level = 0;
      do {
        if (raw[i] == '(') ++level;
        if (raw[i] == ')') --level;
        ++i;
      } while (i < raw.size() && level > 0);
      if (level != 0) {
        i = group_start;
        fail("unbalanced '(' in layout");
      }
    }
    std::string_view args = raw.substr(groups_start, i - groups_start);
    if (name == "T") {
      layout->tiles = std::string(args);
    } else if (name == "E" || name == "S") {
      int64_t v = 0;
      auto [ptr, ec] = std::from_chars(args.data() + 1, args.data() + args.size() - 1, v);
      if (ec != std::errc() || ptr != args.data() + args.size() - 1 || v < 0)
        Error(offset + groups_start + 1, fmt::format("expected a non-negative integer in {}(...)", name));
      (name == "E" ? layout->element_size_in_bits : layout->memory_space) = v;
    }
  }
}

}  // namespace hloscope
