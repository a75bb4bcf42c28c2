#include "hloscope/parser/buffer_assignment.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <set>
#include <system_error>
#include <unordered_map>

namespace hloscope {

namespace {

constexpr std::string_view kCrossColorHeader = "reused by buffers of a different color:";

bool IsSpace(char c) { return c == ' ' || c == '\t'; }

std::string_view TrimLeft(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  return s;
}

std::string_view TrimRight(std::string_view s) {
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

std::string_view Trim(std::string_view s) { return TrimRight(TrimLeft(s)); }

// Lines that start something: anything else after an unfinished header or
// value line is a continuation of it (clang-format wrapped the original).
bool StartsEntry(std::string_view trimmed) {
  return trimmed.starts_with("allocation ") || trimmed.starts_with("value:") ||
         trimmed.starts_with(kCrossColorHeader) || trimmed.starts_with("Total bytes used") ||
         trimmed.starts_with("Used values:") || trimmed.starts_with("BufferAssignment:");
}

// Depth of ()[]{} nesting at the end of `s`; 0 when balanced. '<' is not
// counted because bounded dimensions print as `<=N`.
int64_t BracketDepth(std::string_view s) {
  int64_t depth = 0;
  for (char c : s) {
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
  }
  return depth;
}

// Where to start looking for a token of `n` characters that may straddle
// the piece appended at `from`.
size_t Back(size_t from, size_t n) { return from >= n ? from - n : 0; }

// Whether a logical line is complete, decided as its pieces arrive: each
// piece is scanned once, so a header or value wrapped over many lines (or
// a crafted one over a million) stays linear.
//
// A header is done once it ends with ':' after the size; "allocation 3:"
// alone is the start of a header wrapped right after the index.
class HeaderCompletion {
 public:
  // `text` is the joined line; [from, end) was just appended.
  void Add(std::string_view text, size_t from) {
    if (!has_size_) has_size_ = text.find(" size ", Back(from, 6)) != std::string_view::npos;
  }
  bool Done(std::string_view text) const { return has_size_ && TrimRight(text).ends_with(':'); }

 private:
  bool has_size_ = false;
};

// A value is done once it has its size (or color), is not left hanging on
// ':' or ',', and its brackets balance.
class ValueCompletion {
 public:
  void Add(std::string_view text, size_t from) {
    if (!has_size_)
      has_size_ = text.find("(size=", Back(from, 6)) != std::string_view::npos ||
                  text.find("(color=", Back(from, 7)) != std::string_view::npos;
    depth_ += BracketDepth(text.substr(from));
  }
  bool Done(std::string_view text) const {
    text = TrimRight(text);
    if (text.ends_with(':') || text.ends_with(',')) return false;
    return has_size_ && depth_ == 0;
  }

 private:
  bool has_size_ = false;
  int64_t depth_ = 0;
};

// One physical line of the input: [begin, end) without the line break.
struct PhysicalLine {
  size_t begin;
  size_t end;
};

// One logical line: a physical line plus any wrapped continuations, joined by
// single spaces. Remembers where each piece came from so that diagnostics
// point into the original text.
class LogicalLine {
 public:
  void Append(std::string_view piece, size_t source_offset) {
    if (!text_.empty()) text_ += ' ';
    pieces_.emplace_back(text_.size(), source_offset);
    text_ += piece;
  }
  const std::string& text() const { return text_; }
  // Offset in the source of position `pos` of text(). The joining space maps
  // to the end of the line before it.
  size_t SourceOffset(size_t pos) const {
    auto it =
        std::upper_bound(pieces_.begin(), pieces_.end(), pos,
                         [](size_t p, const std::pair<size_t, size_t>& piece) { return p < piece.first; });
    if (it == pieces_.begin()) return pieces_.empty() ? 0 : pieces_[0].second;
    --it;
    return it->second + (pos - it->first);
  }

 private:
  std::string text_;
  std::vector<std::pair<size_t, size_t>> pieces_;  // (pos in text_, offset)
};

// Parses the allocation list; the first error stops it.
class BufferAssignmentParser {
 public:
  BufferAssignmentParser(std::string_view text, std::string_view path) : text_(text), path_(path) {
    SplitLines();
  }

  // Fills `allocations`; false after an error (see error()).
  bool Parse(std::vector<BufferAllocation>* allocations);
  Diagnostic& error() { return *error_; }

 private:
  enum class Section { kValues, kCrossColor };

  void SplitLines();
  std::string_view LineText(size_t i) const {
    return text_.substr(lines_[i].begin, lines_[i].end - lines_[i].begin);
  }
  // Joins line `*i` with its continuations while a Completion
  // (HeaderCompletion, ValueCompletion) says the text is unfinished; leaves
  // `*i` on the last line used.
  template <typename Completion>
  LogicalLine Gather(size_t* i) const;

  bool ParseHeader(const LogicalLine& line, BufferAllocation* out);
  bool ParseHeaderItem(const LogicalLine& line, size_t begin, size_t end, BufferAllocation* out);
  bool ParseValue(const LogicalLine& line, Section section, BufferValue* out);

  // Cursor helpers over one logical line. On failure they record an error
  // at the cursor and return false.
  bool Fail(const LogicalLine& line, size_t pos, std::string message);
  bool Expect(const LogicalLine& line, size_t* pos, std::string_view token, std::string_view what);
  bool ParseInt(const LogicalLine& line, size_t* pos, std::string_view what, int64_t* out);
  bool ParseShapeIndex(const LogicalLine& line, size_t* pos, ShapeIndex* out);
  static void SkipSpaces(const std::string& s, size_t* pos) {
    while (*pos < s.size() && IsSpace(s[*pos])) ++*pos;
  }

  std::string_view text_;
  std::string_view path_;
  std::vector<PhysicalLine> lines_;
  std::optional<Diagnostic> error_;
};

void BufferAssignmentParser::SplitLines() {
  size_t begin = 0;
  while (begin < text_.size()) {
    size_t nl = text_.find('\n', begin);
    size_t next = nl == std::string_view::npos ? text_.size() : nl + 1;
    size_t end = nl == std::string_view::npos ? text_.size() : nl;
    if (end > begin && text_[end - 1] == '\r') --end;
    lines_.push_back({begin, end});
    begin = next;
  }
}

template <typename Completion>
LogicalLine BufferAssignmentParser::Gather(size_t* i) const {
  LogicalLine line;
  Completion completion;
  std::string_view raw_first = LineText(*i);
  std::string_view first = Trim(raw_first);
  line.Append(first, lines_[*i].begin + (raw_first.size() - TrimLeft(raw_first).size()));
  completion.Add(line.text(), 0);
  while (!completion.Done(line.text()) && *i + 1 < lines_.size()) {
    std::string_view raw = LineText(*i + 1);
    std::string_view next = Trim(raw);
    if (next.empty() || StartsEntry(next)) break;
    ++*i;
    size_t from = line.text().size();
    line.Append(next, lines_[*i].begin + (raw.size() - TrimLeft(raw).size()));
    completion.Add(line.text(), from);
  }
  return line;
}

bool BufferAssignmentParser::Fail(const LogicalLine& line, size_t pos, std::string message) {
  if (!error_) {
    error_ = MakeDiagnostic(path_, text_, line.SourceOffset(pos), std::move(message));
  }
  return false;
}

bool BufferAssignmentParser::Expect(const LogicalLine& line, size_t* pos, std::string_view token,
                                    std::string_view what) {
  if (std::string_view(line.text()).substr(*pos).starts_with(token)) {
    *pos += token.size();
    return true;
  }
  return Fail(line, *pos, fmt::format("expected {}", what));
}

bool BufferAssignmentParser::ParseInt(const LogicalLine& line, size_t* pos, std::string_view what,
                                      int64_t* out) {
  const std::string& s = line.text();
  size_t end = *pos;
  while (end < s.size() && s[end] >= '0' && s[end] <= '9') ++end;
  if (end == *pos) return Fail(line, *pos, fmt::format("expected {}", what));
  auto [ptr, ec] = std::from_chars(s.data() + *pos, s.data() + end, *out);
  if (ec != std::errc() || ptr != s.data() + end) {
    return Fail(line, *pos, fmt::format("{} is out of range", what));
  }
  *pos = end;
  return true;
}

bool BufferAssignmentParser::ParseShapeIndex(const LogicalLine& line, size_t* pos, ShapeIndex* out) {
  const std::string& s = line.text();
  if (!Expect(line, pos, "{", "'{' to start a shape index")) return false;
  out->clear();
  SkipSpaces(s, pos);
  if (*pos < s.size() && s[*pos] == '}') {
    ++*pos;
    return true;
  }
  while (true) {
    int64_t v;
    SkipSpaces(s, pos);
    if (!ParseInt(line, pos, "a shape index element", &v)) return false;
    out->push_back(v);
    SkipSpaces(s, pos);
    if (*pos < s.size() && s[*pos] == ',') {
      ++*pos;
      continue;
    }
    if (*pos < s.size() && s[*pos] == '}') {
      ++*pos;
      return true;
    }
    return Fail(line, *pos, "expected ',' or '}' in shape index");
  }
}

bool BufferAssignmentParser::ParseHeader(const LogicalLine& line, BufferAllocation* out) {
  const std::string& s = line.text();
  out->header = s;
  size_t pos = 0;
  if (!Expect(line, &pos, "allocation ", "'allocation'")) return false;
  SkipSpaces(s, &pos);
  if (!ParseInt(line, &pos, "an allocation index", &out->index)) return false;
  if (!Expect(line, &pos, ":", "':' after the allocation index")) {
    return false;
  }
  SkipSpaces(s, &pos);
  if (!Expect(line, &pos, "size", "'size' after 'allocation N:'")) {
    return false;
  }
  SkipSpaces(s, &pos);
  if (!ParseInt(line, &pos, "the allocation size in bytes", &out->size)) {
    return false;
  }
  // Everything up to the final ':' is a list of ", item" parts.
  std::string_view body = TrimRight(s);
  if (!body.ends_with(':')) {
    return Fail(line, body.size(), "expected ':' at the end of the allocation header");
  }
  const size_t body_end = body.size() - 1;
  if (pos == body_end) return true;
  if (s[pos] != ',') {
    return Fail(line, pos, "expected ',' or ':' after the allocation size");
  }
  // Split at top-level commas: shapes inside |...|, (), [] and {} have
  // commas of their own.
  int depth = 0;
  bool in_bars = false;
  size_t item_begin = pos + 1;
  for (size_t i = pos + 1; i <= body_end; ++i) {
    char c = i < body_end ? s[i] : ',';
    if (c == '|') in_bars = !in_bars;
    if (in_bars && i < body_end) continue;
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (c == ',' && (depth <= 0 || i == body_end)) {
      if (!ParseHeaderItem(line, item_begin, i, out)) return false;
      item_begin = i + 1;
    }
  }
  return true;
}

bool BufferAssignmentParser::ParseHeaderItem(const LogicalLine& line, size_t begin, size_t end,
                                             BufferAllocation* out) {
  const std::string& s = line.text();
  while (begin < end && IsSpace(s[begin])) ++begin;
  while (end > begin && IsSpace(s[end - 1])) --end;
  std::string_view item = std::string_view(s).substr(begin, end - begin);
  if (item.empty()) return Fail(line, begin, "empty item in allocation header");

  // Parses "<keyword> N" into *value.
  auto number_after = [&](std::string_view keyword, std::string_view what, int64_t* value) {
    size_t pos = begin + keyword.size();
    if (!ParseInt(line, &pos, what, value)) return false;
    if (pos != end) return Fail(line, pos, fmt::format("unexpected text after {}", what));
    return true;
  };
  // `|f32[4]|` -> `f32[4]`; older dumps print the shape without bars.
  auto strip_bars = [](std::string_view shape) {
    shape = Trim(shape);
    if (shape.size() >= 2 && shape.front() == '|' && shape.back() == '|') {
      shape = shape.substr(1, shape.size() - 2);
    }
    return std::string(shape);
  };

  if (item == "constant") {
    out->is_constant = true;
  } else if (item == "thread-local") {
    out->is_thread_local = true;
  } else if (item == "maybe-live-out") {
    out->maybe_live_out = true;
  } else if (item == "preallocated-temp") {
    out->is_preallocated_temp = true;
  } else if (item == "tuple") {
    out->is_tuple = true;
  } else if (item.starts_with("color ")) {
    return number_after("color ", "a color number", &out->color);
  } else if (item.starts_with("page ")) {
    int64_t page;
    if (!number_after("page ", "a page number", &page)) return false;
    out->page = page;
  } else if (item.starts_with("parameter ")) {
    int64_t number;
    if (!number_after("parameter ", "a parameter number", &number)) {
      return false;
    }
    out->parameter_number = number;
    out->is_entry_computation_parameter = true;
  } else if (item.starts_with("shape ")) {
    constexpr std::string_view kAt = " at ShapeIndex ";
    size_t at = item.rfind(kAt);
    if (at == std::string_view::npos) {
      return Fail(line, end, "expected 'at ShapeIndex {...}' after the parameter shape");
    }
    out->parameter_shape = strip_bars(item.substr(6, at - 6));
    size_t pos = begin + at + kAt.size();
    if (!ParseShapeIndex(line, &pos, &out->parameter_index)) return false;
    if (pos != end) return Fail(line, pos, "unexpected text after the shape index");
  } else if (item.starts_with("output shape is ")) {
    out->output_shape = strip_bars(item.substr(16));
  } else {
    out->unknown_flags.emplace_back(item);
  }
  return true;
}

bool BufferAssignmentParser::ParseValue(const LogicalLine& line, Section section, BufferValue* out) {
  const std::string& s = line.text();
  size_t pos = 0;
  SkipSpaces(s, &pos);
  if (!Expect(line, &pos, "value:", "'value:'")) return false;
  SkipSpaces(s, &pos);
  if (!Expect(line, &pos, "<", "'<' to start the value")) return false;
  if (!ParseInt(line, &pos, "a value id", &out->id)) return false;
  if (!Expect(line, &pos, " ", "' ' after the value id")) return false;
  size_t name_begin = pos;
  while (pos < s.size() && s[pos] != ' ' && s[pos] != '>' && s[pos] != '{') {
    ++pos;
  }
  if (pos == name_begin) return Fail(line, pos, "expected an instruction name");
  out->instruction = s.substr(name_begin, pos - name_begin);
  if (pos < s.size() && s[pos] == '{') {
    if (!ParseShapeIndex(line, &pos, &out->index)) return false;
  }
  std::string_view rest = std::string_view(s).substr(pos);
  if (rest.starts_with(" (phi)")) {
    out->phi = true;
    pos += 6;
    rest = std::string_view(s).substr(pos);
  }
  if (rest.starts_with(" @")) {
    pos += 2;
    if (!ParseInt(line, &pos, "a color number after '@'", &out->color)) {
      return false;
    }
  }
  if (!Expect(line, &pos, ">",
              "'>' to close the value (after the name, "
              "'{index}', ' (phi)' or ' @color')")) {
    return false;
  }
  SkipSpaces(s, &pos);

  if (section == Section::kCrossColor) {
    // `value: <...> (color=C)`: the slice is the one listed above.
    out->size = -1;
    out->offset = -1;
    if (!Expect(line, &pos, "(color=", "'(color=' after the value")) {
      return false;
    }
    if (!ParseInt(line, &pos, "a color number", &out->color)) return false;
    if (!Expect(line, &pos, ")", "')' after the color")) return false;
    SkipSpaces(s, &pos);
    if (pos != s.size()) return Fail(line, pos, "unexpected text after the value");
    return true;
  }

  if (!Expect(line, &pos, "(size=", "'(size=' after the value")) return false;
  if (!ParseInt(line, &pos, "the value size in bytes", &out->size)) return false;
  if (!Expect(line, &pos, ",", "',' after the value size")) return false;
  SkipSpaces(s, &pos);
  if (!Expect(line, &pos, "offset=", "'offset=' after the value size")) {
    return false;
  }
  if (!ParseInt(line, &pos, "the value offset", &out->offset)) return false;
  if (!Expect(line, &pos, "):", "'):' after the offset")) return false;
  SkipSpaces(s, &pos);
  std::string_view shape = TrimRight(std::string_view(s).substr(pos));
  if (shape.empty()) return Fail(line, pos, "expected the value's shape");
  if (BracketDepth(shape) != 0) return Fail(line, pos, "unbalanced brackets in shape");
  out->shape = std::string(shape);
  return true;
}

bool BufferAssignmentParser::Parse(std::vector<BufferAllocation>* allocations) {
  size_t i = 0;
  auto blank = [&](size_t k) { return Trim(LineText(k)).empty(); };
  while (i < lines_.size() && blank(i)) ++i;
  if (i == lines_.size()) {
    error_ = MakeDiagnostic(path_, text_, text_.size(),
                            "empty buffer-assignment dump: expected "
                            "'BufferAssignment:'");
    return false;
  }
  std::string_view first = Trim(LineText(i));
  if (first == "BufferAssignment:") {
    ++i;
  } else if (!first.starts_with("allocation ")) {
    error_ =
        MakeDiagnostic(path_, text_, lines_[i].begin + (LineText(i).size() - TrimLeft(LineText(i)).size()),
                       "not a buffer-assignment dump: expected 'BufferAssignment:' or "
                       "'allocation N: size S, ...:'");
    return false;
  }

  Section section = Section::kValues;
  std::unordered_map<int64_t, int64_t> line_of_allocation;  // index -> header line
  for (; i < lines_.size(); ++i) {
    std::string_view raw = LineText(i);
    std::string_view trimmed = Trim(raw);
    size_t indent = raw.size() - TrimLeft(raw).size();
    if (trimmed.empty()) {
      // The list ends at a blank line (older dumps continue with totals,
      // used values and live ranges) unless more allocations follow.
      size_t j = i;
      while (j < lines_.size() && blank(j)) ++j;
      if (j < lines_.size() && TrimLeft(LineText(j)).starts_with("allocation ")) {
        i = j - 1;
        continue;
      }
      break;
    }
    if (trimmed.starts_with("Total bytes used") || trimmed.starts_with("Used values:")) {
      break;
    }
    if (trimmed.starts_with("allocation ")) {
      BufferAllocation allocation;
      allocation.line = static_cast<int64_t>(i) + 1;
      LogicalLine line = Gather<HeaderCompletion>(&i);
      if (!ParseHeader(line, &allocation)) return false;
      // A hash lookup, not a scan of the allocations so far: a dump of
      // 10^6 allocations is read in linear time.
      auto [it, inserted] = line_of_allocation.try_emplace(allocation.index, allocation.line);
      if (!inserted) {
        return Fail(line, 0,
                    fmt::format("duplicate allocation {} (first at line {})", allocation.index, it->second));
      }
      allocations->push_back(std::move(allocation));
      section = Section::kValues;
      continue;
    }
    if (trimmed.starts_with("value:")) {
      LogicalLine line = Gather<ValueCompletion>(&i);
      if (allocations->empty()) {
        return Fail(line, 0, "'value:' line before any 'allocation' header");
      }
      BufferValue value;
      if (!ParseValue(line, section, &value)) return false;
      BufferAllocation& a = allocations->back();
      (section == Section::kValues ? a.values : a.cross_color_values).push_back(std::move(value));
      continue;
    }
    if (trimmed == kCrossColorHeader) {
      if (allocations->empty()) {
        error_ = MakeDiagnostic(path_, text_, lines_[i].begin + indent,
                                "cross-color list before any 'allocation' header");
        return false;
      }
      section = Section::kCrossColor;
      continue;
    }
    error_ = MakeDiagnostic(path_, text_, lines_[i].begin + indent,
                            "unexpected line in the allocation list; expected "
                            "'allocation', 'value:' or a blank line");
    return false;
  }
  return true;
}

}  // namespace

const BufferAllocation* BufferAssignment::FindAllocation(int64_t index) const {
  // XLA numbers allocations 0..n-1 in order; fall back to a scan otherwise.
  if (index >= 0 && static_cast<size_t>(index) < allocations_.size() && allocations_[index].index == index) {
    return &allocations_[index];
  }
  for (const BufferAllocation& a : allocations_) {
    if (a.index == index) return &a;
  }
  return nullptr;
}

const BufferValue* BufferAssignment::FindValue(std::string_view instruction, const ShapeIndex& index) const {
  auto it = by_instruction_.find(instruction);
  if (it == by_instruction_.end()) return nullptr;
  for (const ValueRef& ref : it->second) {
    if (ref.index == index) return &allocations_[ref.allocation].values[ref.value];
  }
  return nullptr;
}

std::optional<Slice> BufferAssignment::SliceOf(std::string_view instruction, const ShapeIndex& index) const {
  auto it = by_instruction_.find(instruction);
  if (it == by_instruction_.end()) return std::nullopt;
  for (const ValueRef& ref : it->second) {
    if (ref.index != index) continue;
    const BufferAllocation& a = allocations_[ref.allocation];
    const BufferValue& v = a.values[ref.value];
    return Slice{a.index, v.offset, v.size};
  }
  return std::nullopt;
}

std::optional<bool> BufferAssignment::SameSlice(std::string_view a, const ShapeIndex& ai, std::string_view b,
                                                const ShapeIndex& bi) const {
  std::optional<Slice> sa = SliceOf(a, ai);
  std::optional<Slice> sb = SliceOf(b, bi);
  if (!sa || !sb) return std::nullopt;
  return sa->allocation == sb->allocation && sa->offset == sb->offset;
}

int64_t BufferAssignment::total_bytes() const {
  int64_t total = 0;
  for (const BufferAllocation& a : allocations_) total += a.size;
  return total;
}

Result<BufferAssignment> ParseBufferAssignment(std::string_view text, std::string_view path) {
  BufferAssignmentParser parser(text, path);
  BufferAssignment result;
  if (!parser.Parse(&result.allocations_)) return std::move(parser.error());
  // An instruction with many values (a huge tuple, or a crafted dump that
  // names one instruction a million times) gets a set of its indices, so
  // that dropping duplicates stays O(n log n) instead of O(n^2).
  constexpr size_t kScanLimit = 16;
  std::unordered_map<const std::vector<BufferAssignment::ValueRef>*, std::set<ShapeIndex>> many;
  for (size_t a = 0; a < result.allocations_.size(); ++a) {
    const std::vector<BufferValue>& values = result.allocations_[a].values;
    for (size_t v = 0; v < values.size(); ++v) {
      auto& refs = result.by_instruction_[values[v].instruction];
      const ShapeIndex& index = values[v].index;
      // A value has one slice; should a dump list it twice, the first wins.
      bool seen;
      if (refs.size() < kScanLimit) {
        seen = std::any_of(refs.begin(), refs.end(), [&](const auto& r) { return r.index == index; });
      } else {
        auto [it, fresh] = many.try_emplace(&refs);
        if (fresh)
          for (const auto& r : refs) it->second.insert(r.index);
        seen = !it->second.insert(index).second;
      }
      if (!seen) refs.push_back({index, a, v});
    }
  }
  return result;
}

}  // namespace hloscope
