// HloParserImpl: the HLO text parser's internal class, shared by the parser
// source files (not installed):
//   lexer.cc             whitespace, comments, names, integers, strings,
//                        balanced groups, attribute values
//   shape_parser.cc      shapes and layouts
//   header_parser.cc     `HloModule` header attributes, input_output_alias,
//                        buffer_donor, FileNames/.../StackFrames tables
//   attribute_parser.cc  instruction attributes, called computations,
//                        metadata
//   parser.cc            modules, computations, instructions, operands, the
//                        public API
//
// A hand-written recursive-descent reader over the input bytes. Each Parse*
// function carries its production as a comment; all of them are collected in
// docs/grammar.md.
//
// Speed comes from three choices: names, attribute values and metadata
// strings are views into the input (no copies); each distinct shape text is
// parsed once and interned; instructions, operand lists and attributes are
// bump-allocated in the module's arena. Attribute values are scanned as
// balanced text and decoded only for the attributes hloscope reads.
//
// Robustness: every loop advances or fails, nesting is bounded by
// ParseOptions::max_nesting_depth, integers are overflow-checked, and errors
// unwind through one exception type (ParseFailure) caught at the API
// boundary.
#ifndef HLOSCOPE_PARSER_PARSER_IMPL_H_
#define HLOSCOPE_PARSER_PARSER_IMPL_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "hloscope/parser/parser.h"
#include "parser/name_table.h"

namespace hloscope {

// Thrown by HloParserImpl::Error, turned into a Diagnostic by ParseHloText.
struct ParseFailure {
  size_t offset;
  std::string message;
};

// Character classes as a table: the identifier loop is the parser's
// hottest code after string scanning.
struct CharClasses {
  static constexpr uint8_t kIdentStart = 1, kIdentChar = 2;
  static constexpr uint8_t kSpaceOrSlash = 4;     // where SkipSpace has work
  static constexpr uint8_t kBalancedSpecial = 8;  // ()[]{}"/ for ScanBalanced
  static constexpr uint8_t kWhitespace = 16;      // ' ' \n \t \r
  uint8_t bits[256] = {};
  constexpr CharClasses() {
    for (int c = 0; c < 256; ++c) {
      bool start = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
      bool ident = start || (c >= '0' && c <= '9') || c == '.' || c == '-';
      bool space = c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '/';
      bool special =
          c == '(' || c == ')' || c == '[' || c == ']' || c == '{' || c == '}' || c == '"' || c == '/';
      bits[c] = (start ? kIdentStart : 0) | (ident ? kIdentChar : 0) | (space ? kSpaceOrSlash : 0) |
                (special ? kBalancedSpecial : 0) | (space && c != '/' ? kWhitespace : 0);
    }
  }
};
inline constexpr CharClasses kCharClasses{};
inline bool IsIdentStart(char c) {
  return kCharClasses.bits[static_cast<unsigned char>(c)] & CharClasses::kIdentStart;
}
inline bool IsIdentChar(char c) {
  return kCharClasses.bits[static_cast<unsigned char>(c)] & CharClasses::kIdentChar;
}
inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The end of the identifier characters from `i`. The input is a std::string,
// so data[size] is a '\0' sentinel that ends the loop without a bounds check
// (requires i <= size).
inline size_t IdentEnd(const char* data, size_t i) {
  while (kCharClasses.bits[static_cast<unsigned char>(data[i])] & CharClasses::kIdentChar) ++i;
  return i;
}

// "'x'", "end of line", "byte 0x01": a character for an error message.
std::string DescribeChar(char c);

class HloParserImpl {
 public:
  // `source` owns `text`, which must be followed by a '\0' byte (a
  // std::string's or a MappedFile's): see SkipSpace.
  HloParserImpl(std::shared_ptr<const void> source, std::string_view text, const ParseOptions& options)
      : source_(std::move(source)), s_(text), options_(options) {}

  HloModuleGroup Run();

 private:
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

  [[noreturn]] void Error(size_t offset, std::string message) {
    throw ParseFailure{offset, std::move(message)};
  }
  // "expected <what>, found <the character at p_>".
  [[noreturn]] void ErrorExpected(std::string_view what);

  // --- lexical (lexer.cc) ----------------------------------------------------
  bool AtEnd() const { return p_ >= s_.size(); }
  char Peek() const { return p_ < s_.size() ? s_[p_] : '\0'; }
  char PeekAt(size_t i) const { return i < s_.size() ? s_[i] : '\0'; }
  // Skips whitespace and comments. Inline fast paths: most calls land on a
  // token already or on the single space between two tokens. (p_ <= size
  // always holds; s_[size] is the string's '\0'.)
  void SkipSpace() {
    const unsigned char* d = reinterpret_cast<const unsigned char*>(s_.data());
    if (!(kCharClasses.bits[d[p_]] & CharClasses::kSpaceOrSlash)) return;
    if (d[p_] == ' ' && !(kCharClasses.bits[d[p_ + 1]] & CharClasses::kSpaceOrSlash)) {
      ++p_;
      return;
    }
    SkipSpaceSlow();
  }
  void SkipSpaceSlow();
  bool Consume(char c);
  void Expect(char c, std::string_view context);
  bool ConsumeKeyword(std::string_view kw);
  // [A-Za-z_][A-Za-z0-9_.-]* at p_, or empty.
  std::string_view ScanIdentifier() {
    size_t start = p_;
    if (!IsIdentStart(s_.data()[p_])) return {};
    p_ = IdentEnd(s_.data(), p_ + 1);
    return {s_.data() + start, p_ - start};
  }
  std::string_view ParseName(std::string_view what);  // ['%'] identifier
  int64_t ParseInt64();
  size_t ScanBalanced(size_t start);  // from an opening bracket to past its mate
  size_t ScanString(size_t start);    // from a quote to past its mate
  size_t ScanAttributeValue();        // from p_ to the end of one value

  // --- shapes (shape_parser.cc) ----------------------------------------------
  const Shape* ParseShape();
  size_t ScanShapeEnd(size_t start, int depth);
  const Shape* InternShape(size_t start, size_t end, int depth);
  const Shape* BuildShape(size_t start, size_t end, int depth);
  void ParseLayout(std::string_view raw, size_t offset, Layout* layout);
  const Shape* UnknownShape();
  [[noreturn]] void ErrorTooDeep(size_t offset, std::string_view what);

  // --- module header (header_parser.cc) --------------------------------------
  void ParseModuleHeader();
  ShapeIndex ParseShapeIndexAt(size_t* pos);
  void ParseInputOutputAlias(std::string_view value, size_t offset);
  void ParseBufferDonor(std::string_view value, size_t offset);
  void ParseStackFrameTable(std::string_view table);

  // --- instruction attributes (attribute_parser.cc) ---------------------------
  void ParseAttributes(HloInstruction* instr);
  bool ParseInlineComputation(HloInstruction* instr, std::string_view name, size_t value_offset);
  void DecodeAttribute(HloInstruction* instr, const HloAttribute& attr, size_t value_offset);
  void AddCall(CallRole role, std::string_view name, size_t offset);
  const OpMetadata* ParseMetadata(std::string_view raw, size_t offset);

  // --- computations and instructions (parser.cc) ------------------------------
  void ParseComputation();
  // From the '{' at `open` to past the matching '}': the instructions of
  // `comp`, resolved. The enclosing computation's state (one nesting level
  // up) stays untouched, so it also serves inline computations
  // (`calls={ ... }`).
  void ParseComputationBody(HloComputation* comp, size_t open);
  HloInstruction* ParseInstruction(HloComputation* comp, bool nested, const Shape* nested_shape = nullptr);
  void ParseOperands(HloInstruction* instr);
  HloInstruction* ParseCompactGte(HloInstruction* user, std::string_view name, size_t at);
  void ResolveComputation(HloComputation* comp);
  void FillUsers(HloComputation* comp);
  void FillCallers();
  // users() and callers() are built in three passes: count into `list.len`
  // (ptr still null), AllocateCounted, then AppendOnce for each entry.
  void AllocateCounted(PackedSpan<HloInstruction* const>& list) {
    if (list.len == 0) return;
    list.ptr = static_cast<HloInstruction**>(
        module_->arena_.Allocate(sizeof(HloInstruction*) * list.len, alignof(HloInstruction*)));
    list.len = 0;
  }
  // An instruction that uses an operand (or calls a computation) twice is
  // listed once; it visits its entries one after the other, so a repeat can
  // only be the last one added.
  static void AppendOnce(PackedSpan<HloInstruction* const>& list, HloInstruction* instr) {
    if (!list.empty() && list.back() == instr) return;
    const_cast<HloInstruction**>(list.ptr)[list.len++] = instr;
  }
  void StartModule(size_t offset);
  void FinishModule();
  std::string_view Synthesize(std::string name);
  HloInstruction::Rare* RareOf(HloInstruction* instr) {
    if (!instr->rare_) instr->rare_ = module_->arena_.New<HloInstruction::Rare>();
    return instr->rare_;
  }

  std::shared_ptr<const void> source_;
  std::string_view s_;
  const ParseOptions& options_;
  size_t p_ = 0;
  int operand_depth_ = 0;      // nested operand instructions
  int computation_depth_ = 0;  // inline computations (calls={...})
  // Start of the last attribute value that spans lines, and its name: when
  // a computation is not closed, that value may have swallowed its '}'.
  size_t multiline_value_ = std::string_view::npos;
  std::string_view multiline_attribute_;
  bool split_seen_ = false;  // a `// -----` line since the last computation

  HloModuleGroup group_;
  HloModule* module_ = nullptr;
  size_t module_offset_ = 0;
  bool module_has_header_ = false;
  std::vector<HloComputation*> computations_;
  std::vector<PendingCall> pending_calls_;
  std::vector<std::pair<HloComputation*, size_t>> entry_candidates_;
  NameTable<const OpMetadata*> metadata_pool_;  // metadata text -> parsed, per module
  std::string_view last_metadata_text_;         // the previous instruction's, and
  const OpMetadata* last_metadata_ = nullptr;   // its parse (this module's)
  NameTable<HloComputation*> computation_names_;
  NameTable<const Shape*> shape_pool_;  // shape text -> interned, per module
  const Shape* unknown_shape_ = nullptr;
  uint32_t next_id_ = 0;
  uint32_t next_computation_id_ = 0;  // HloComputation::id
  // Instructions with called computations, for filling callers().
  std::vector<HloInstruction*> call_sites_;

  // Per computation being parsed. Inline computations (`calls={...}`) nest,
  // so there is one state per nesting level, kept for reuse: most modules
  // have thousands of small fused computations, and starting each with fresh
  // tables and vectors cost a malloc/free cycle apiece.
  struct BodyState {
    NameTable<HloInstruction*> names;
    std::vector<HloInstruction*> instructions;
    std::vector<PendingOperand> pending_operands;
  };
  std::vector<std::unique_ptr<BodyState>> body_states_;
  BodyState* body_ = nullptr;  // the innermost computation's state

  // Scratch buffers reused across instructions.
  std::vector<HloInstruction*> operand_scratch_;
  std::vector<HloAttribute> attribute_scratch_;
  std::vector<CalledComputation> call_scratch_;
  std::vector<size_t> call_offsets_;
  std::vector<std::string_view> call_names_;
  std::vector<std::pair<std::string_view, size_t>> control_scratch_;
};

}  // namespace hloscope

#endif  // HLOSCOPE_PARSER_PARSER_IMPL_H_
