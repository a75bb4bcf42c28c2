// Modules, computations, instructions and operands; the public API.
// The lexical layer, shapes, the module header and instruction attributes
// live in the other files of this directory (see parser_impl.h).
#include "hloscope/parser/parser.h"

#include <fmt/format.h>

#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "hloscope/parser/verifier.h"
#include "hloscope/support/input_file.h"
#include "parser/parser_impl.h"

namespace hloscope {

// --- modules -------------------------------------------------------------------

// input  ::= (module | '// -----')*
// module ::= [header] tables* computation+
//   A new module starts at 'HloModule', or after a `// -----` line once the
//   current one has a computation.
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
      if (options_.header_only) return std::move(group_);
      continue;
    }
    if (options_.header_only) Error(here, "expected the 'HloModule' header");
    if (!module_) StartModule(here);
    bool table = false;
    for (std::string_view kw : {"FileNames", "FunctionNames", "FileLocations", "StackFrames"}) {
      if (ConsumeKeyword(kw)) {
        ParseStackFrameTable(kw);
        table = true;
        break;
      }
    }
    if (table) continue;
    char c = Peek();
    if (c != '%' && !IsIdentStart(c)) ErrorExpected("'HloModule', 'ENTRY' or a computation");
    ParseComputation();
  }
  if (module_) FinishModule();
  if (group_.modules.empty()) Error(p_, "no HLO module in input");
  return std::move(group_);
}

void HloParserImpl::StartModule(size_t offset) {
  group_.modules.push_back(std::make_unique<HloModule>(source_, s_));
  module_ = group_.modules.back().get();
  module_->path_ = options_.path;
  module_offset_ = offset;
  module_has_header_ = false;
  computations_.clear();
  pending_calls_.clear();
  entry_candidates_.clear();
  call_sites_.clear();
  computation_names_.Clear();
  metadata_pool_ = {};
  last_metadata_text_ = {};
  last_metadata_ = nullptr;
  shape_pool_ = {};
  unknown_shape_ = nullptr;
  next_id_ = 0;
  next_computation_id_ = 0;
}

std::string_view HloParserImpl::Synthesize(std::string name) {
  module_->synthesized_.push_front(std::move(name));
  return module_->synthesized_.front();
}

void HloParserImpl::FinishModule() {
  HloModule* m = module_;
  // Resolve called computations by name (they may be defined later).
  for (const PendingCall& call : pending_calls_) {
    HloComputation** found = computation_names_.Find(call.name);
    if (!found) Error(call.offset, fmt::format("use of undefined computation '{}'", call.name));
    call.slot->computation = *found;
  }
  if (computations_.empty())
    Error(module_offset_, m->name_.empty() ? std::string("module has no computations")
                                           : fmt::format("module '{}' has no computations", m->name_));
  if (entry_candidates_.size() > 1)
    Error(entry_candidates_[1].second, "more than one ENTRY computation in module");
  // Without an ENTRY marker the last computation is the entry (XLA does the
  // same).
  m->entry_ = entry_candidates_.empty() ? computations_.back() : entry_candidates_[0].first;
  m->entry_->is_entry_ = true;
  if (m->name_.empty()) m->name_ = m->entry_->name_;
  m->computations_ = m->arena_.CopyOf<HloComputation*>(computations_);
  FillCallers();

  module_ = nullptr;
  computations_.clear();
  pending_calls_.clear();
  entry_candidates_.clear();
  call_sites_.clear();
  computation_names_.Clear();
  metadata_pool_ = {};
  last_metadata_text_ = {};
  last_metadata_ = nullptr;
  shape_pool_ = {};
  unknown_shape_ = nullptr;
  next_id_ = 0;
  next_computation_id_ = 0;
}

// callers(), visiting only the instructions that call something (a few
// percent of all).
void HloParserImpl::FillCallers() {
  for (HloComputation* c : computations_) c->callers_ = {};
  for (HloInstruction* instr : call_sites_)
    for (const CalledComputation& cc : instr->called_) ++cc.computation->callers_.len;
  for (HloComputation* c : computations_) AllocateCounted(c->callers_);
  for (HloInstruction* instr : call_sites_)
    for (const CalledComputation& cc : instr->called_) AppendOnce(cc.computation->callers_, instr);
}

// --- computations ------------------------------------------------------------------

// computation ::= ['ENTRY'] NAME [ '(' [NAME ':' shape (',' NAME ':' shape)*] ')'
//                 '->' shape ] '{' instruction+ '}' [',' 'execution_thread' '=' STRING]
void HloParserImpl::ParseComputation() {
  SkipSpace();
  size_t start = p_;
  bool is_entry = ConsumeKeyword("ENTRY");
  std::string_view name = ParseName("a computation name");
  HloComputation* comp = module_->arena_.New<HloComputation>();
  comp->id_ = next_computation_id_++;
  comp->name_ = name;
  comp->parent_ = module_;
  comp->offset_ = start;
  comp->is_entry_ = is_entry;
  SkipSpace();
  if (Peek() == '(') {
    // The signature is kept as text; the parameter instructions carry the
    // shapes that matter.
    size_t sig_start = p_;
    p_ = ScanBalanced(p_);
    SkipSpace();
    if (Peek() != '-' || PeekAt(p_ + 1) != '>') ErrorExpected("'->' after the computation's parameters");
    p_ += 2;
    ParseShape();
    comp->signature_ = s_.substr(sig_start, p_ - sig_start);
    SkipSpace();
  }
  if (Peek() != '{') ErrorExpected(fmt::format("'{{' to open computation '{}'", name));
  ParseComputationBody(comp, p_);

  // execution_thread="host" after the closing brace.
  size_t save = p_;
  SkipSpace();
  if (Peek() == ',') {
    ++p_;
    SkipSpace();
    if (!ConsumeKeyword("execution_thread")) ErrorExpected("'execution_thread' after ','");
    Expect('=', "after execution_thread");
    SkipSpace();
    if (Peek() != '"') ErrorExpected("a quoted thread name");
    size_t end = ScanString(p_);
    comp->execution_thread_ = s_.substr(p_ + 1, end - p_ - 2);
    p_ = end;
  } else {
    p_ = save;
  }

  bool inserted;
  HloComputation** slot = computation_names_.FindOrInsert(name, &inserted);
  if (!inserted)
    Error(start, fmt::format("duplicate computation name '{}' (first defined at line {})", name,
                             module_->LineOf((*slot)->offset_)));
  *slot = comp;
  computations_.push_back(comp);
  if (is_entry) entry_candidates_.emplace_back(comp, start);
}

// body ::= '{' instruction+ '}'   (the root is the ROOT one, else the last)
void HloParserImpl::ParseComputationBody(HloComputation* comp, size_t open) {
  p_ = open + 1;
  // Inside another computation's body: an inline computation (calls={...}).
  bool is_inline = body_ != nullptr;
  if (is_inline && ++computation_depth_ > options_.max_nesting_depth)
    ErrorTooDeep(open, "inline computations");
  // The enclosing computation's state stays untouched one level up (for
  // inline computations).
  BodyState* enclosing = body_;
  size_t level = static_cast<size_t>(computation_depth_);
  while (body_states_.size() <= level) body_states_.push_back(std::make_unique<BodyState>());
  body_ = body_states_[level].get();
  body_->names.Clear();
  body_->instructions.clear();
  body_->pending_operands.clear();

  HloInstruction* root = nullptr;
  while (true) {
    SkipSpace();
    if (AtEnd()) {
      if (multiline_value_ != std::string_view::npos && multiline_value_ > open)
        Error(multiline_value_, fmt::format("computation '{}' is not closed before end of input; "
                                            "the value of '{}' here spans lines and may lack its "
                                            "closing bracket",
                                            comp->name_, multiline_attribute_));
      Error(open, fmt::format("computation '{}' is not closed: expected '}}' "
                              "before end of input",
                              comp->name_));
    }
    if (Peek() == '}') {
      ++p_;
      break;
    }
    HloInstruction* instr = ParseInstruction(comp, /*nested=*/false);
    if (instr->is_root_) {
      if (root)
        Error(instr->offset_, fmt::format("computation '{}' has more than one ROOT "
                                          "(first: '{}')",
                                          comp->name_, root->name_));
      root = instr;
    }
  }
  if (body_->instructions.empty())
    Error(open, fmt::format("computation '{}' has no instructions", comp->name_));
  if (!root) {
    root = body_->instructions.back();  // XLA: the last instruction is the root
    root->is_root_ = true;
  }
  comp->root_ = root;
  comp->instructions_ = module_->arena_.CopyOf<HloInstruction*>(body_->instructions);
  ResolveComputation(comp);
  FillUsers(comp);

  body_ = enclosing;
  if (is_inline) --computation_depth_;
}

void HloParserImpl::ResolveComputation(HloComputation* comp) {
  // An instruction's name is entered only once it is complete, so an
  // operand found when it was read lies before its user: with nothing left
  // pending (no forward reference, no control predecessor), the operands
  // form no cycle.
  comp->operands_precede_users_ = body_->pending_operands.empty();
  for (const PendingOperand& pending : body_->pending_operands) {
    HloInstruction** found = body_->names.Find(pending.name);
    if (!found)
      Error(pending.offset,
            fmt::format("use of undefined instruction '{}' in computation '{}'", pending.name, comp->name_));
    *pending.slot = *found;
  }
  std::vector<HloInstruction*> params;
  for (HloInstruction* instr : body_->instructions) {
    if (instr->opcode_ == HloOpcode::kParameter) {
      int64_t n = instr->int_attr_;
      if (n < 0 || n > 1'000'000) Error(instr->offset_, fmt::format("parameter number {} out of range", n));
      if (static_cast<int64_t>(params.size()) <= n) params.resize(n + 1, nullptr);
      if (params[n])
        Error(instr->offset_,
              fmt::format("duplicate parameter number {} in computation '{}'", n, comp->name_));
      params[n] = instr;
    }
  }
  comp->parameters_ = module_->arena_.CopyOf<HloInstruction*>(params);
}

// users(), while the computation's instructions are still in cache
// (operands are always in the same computation). Done at the end of the
// module, this pass was a quarter of the parse time, nearly all of it cache
// misses.
void HloParserImpl::FillUsers(HloComputation* comp) {
  for (HloInstruction* instr : comp->instructions_)
    for (HloInstruction* op : instr->operands_) ++op->users_.len;
  for (HloInstruction* instr : comp->instructions_) AllocateCounted(instr->users_);
  for (HloInstruction* instr : comp->instructions_)
    for (HloInstruction* op : instr->operands_) AppendOnce(op->users_, instr);
}

// --- instructions --------------------------------------------------------------------

// instruction ::= ['ROOT'] NAME '=' [shape] opcode '(' operands ')' attributes
//   parameter(INT) and constant(LITERAL) keep the text between the parens.
HloInstruction* HloParserImpl::ParseInstruction(HloComputation* comp, bool nested,
                                                const Shape* nested_shape) {
  SkipSpace();
  HloInstruction* instr = module_->arena_.New<HloInstruction>();
  instr->parent_ = comp;
  if (!nested) {
    if (ConsumeKeyword("ROOT")) instr->is_root_ = true;
    SkipSpace();
    instr->offset_ = p_;
    instr->name_ = ParseName("an instruction name");
    SkipSpace();
    if (Peek() != '=') ErrorExpected(fmt::format("'=' after instruction name '{}'", instr->name_));
    ++p_;
    SkipSpace();
  } else {
    instr->offset_ = p_;
  }
  // Optional shape (hand-written text may omit it).
  if (nested_shape) {
    instr->shape_ = nested_shape;
  } else {
    char c = Peek();
    bool has_shape = c == '(';
    if (!has_shape && IsIdentStart(c)) {
      size_t i = p_;
      i = IdentEnd(s_.data(), i);
      has_shape = PeekAt(i) == '[' || (i == p_ + 1 && c == 'b' && PeekAt(i) == '(' && !nested);
    }
    instr->shape_ = has_shape ? ParseShape() : UnknownShape();
  }
  SkipSpace();
  std::string_view opcode = ScanIdentifier();
  if (opcode.empty()) ErrorExpected("an opcode");
  instr->opcode_ = StringToHloOpcode(opcode);
  if (instr->opcode_ == HloOpcode::kUnknown) RareOf(instr)->opcode_text = opcode;
  SkipSpace();
  if (Peek() != '(') ErrorExpected(fmt::format("'(' after opcode '{}'", opcode));

  HloOpcode op = instr->opcode_;
  if (op == HloOpcode::kParameter) {
    ++p_;
    SkipSpace();
    size_t num_start = p_;
    int64_t number = ParseInt64();
    // Checked before it is stored: the IR keeps it in 32 bits.
    if (number < 0 || number > 1'000'000)
      Error(num_start, fmt::format("parameter number {} out of range", number));
    instr->int_attr_ = static_cast<int32_t>(number);
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
  if (nested) {
    // Nested operand instructions get a made-up name, unique by the id.
    instr->name_ = Synthesize(fmt::format("{}.nested.{}", opcode, instr->id_));
  } else {
    bool inserted;
    HloInstruction** slot = body_->names.FindOrInsert(instr->name_, &inserted);
    if (!inserted)
      Error(instr->offset_, fmt::format("duplicate instruction name '{}' (first defined at line {})",
                                        instr->name_, module_->LineOf((*slot)->offset_)));
    *slot = instr;
  }
  body_->instructions.push_back(instr);
  return instr;
}

// operands ::= '(' [operand (',' operand)*] ')'
// operand  ::= [shape] NAME ('#' INT)*                   (compact GTE: %t#1)
//            | [shape] opcode operands                   (nested, hand-written)
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
      // A leading shape: '(' tuple, or TYPE '['.
      const Shape* shape = nullptr;
      char c = Peek();
      if (c == '(') {
        shape = ParseShape();
        SkipSpace();
      } else if (IsIdentStart(c)) {
        size_t i = p_;
        i = IdentEnd(s_.data(), i);
        if (PeekAt(i) == '[') {
          shape = ParseShape();
          SkipSpace();
        }
      }
      size_t at = p_;
      if (s_.substr(p_, 3) == "...")
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
        if (++operand_depth_ > options_.max_nesting_depth) ErrorTooDeep(at, "operands");
        p_ = at;
        HloInstruction* nested = ParseInstruction(instr->parent_, /*nested=*/true, shape);
        --operand_depth_;
        operand_scratch_.push_back(nested);
      } else if (Peek() == '#') {
        operand_scratch_.push_back(ParseCompactGte(instr, name, at));
      } else if (HloInstruction** found = body_->names.Find(name)) {
        operand_scratch_.push_back(*found);
      } else {
        unresolved.push_back({operand_scratch_.size() - base, name, at});
        operand_scratch_.push_back(nullptr);
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
      std::span<HloInstruction* const>(operand_scratch_.data() + base, operand_scratch_.size() - base));
  operand_scratch_.resize(base);
  for (const Unresolved& u : unresolved) body_->pending_operands.push_back({&ops[u.index], u.name, u.offset});
  instr->operands_ = ops;
}

// Compact GTE (`%p0#1`, --xla_dump_compact_gte): element 1 of p0. Each `#k`
// becomes a get-tuple-element instruction placed before the user.
HloInstruction* HloParserImpl::ParseCompactGte(HloInstruction* user, std::string_view name, size_t at) {
  HloInstruction** found = body_->names.Find(name);
  if (!found)
    Error(at,
          fmt::format("use of undefined instruction '{}' in computation '{}'", name, user->parent_->name_));
  HloInstruction* tuple = *found;
  while (Peek() == '#') {
    ++p_;
    size_t idx_at = p_;
    if (!IsDigit(Peek())) ErrorExpected("a tuple index after '#'");
    int64_t index = ParseInt64();
    const Shape& ts = tuple->shape();
    if (!ts.IsTuple() || index >= static_cast<int64_t>(ts.tuple_shapes.size()))
      Error(idx_at, fmt::format("'{}' has no tuple element {}", tuple->name_, index));
    HloInstruction* gte = module_->arena_.New<HloInstruction>();
    gte->parent_ = user->parent_;
    gte->offset_ = at;
    gte->opcode_ = HloOpcode::kGetTupleElement;
    gte->shape_ = ts.tuple_shapes[index];
    gte->int_attr_ = index;
    std::string_view index_text = Synthesize(fmt::format("{}", index));
    gte->attributes_ = module_->arena_.CopyOf<HloAttribute>(
        std::vector<HloAttribute>{{std::string_view("index"), index_text}});
    gte->id_ = next_id_++;
    gte->name_ = Synthesize(fmt::format("{}.gte{}.{}", tuple->name_, index, gte->id_));
    gte->operands_ = module_->arena_.CopyOf<HloInstruction*>(std::vector<HloInstruction*>{tuple});
    body_->instructions.push_back(gte);
    tuple = gte;
  }
  return tuple;
}

// --- API ------------------------------------------------------------------------

namespace {

Result<HloModuleGroup> ParseSource(std::shared_ptr<const void> source, std::string_view text,
                                   const ParseOptions& options) {
  HloParserImpl parser(std::move(source), text, options);
  Result<HloModuleGroup> group = [&]() -> Result<HloModuleGroup> {
    try {
      return parser.Run();
    } catch (const ParseFailure& f) {
      return MakeDiagnostic(options.path, text, f.offset, f.message);
    }
  }();
  if (group.ok() && options.verify && !options.header_only)
    for (const auto& m : group->modules)
      if (std::optional<Diagnostic> d = VerifyModule(*m, options.path)) return *d;
  return group;
}

}  // namespace

Result<HloModuleGroup> ParseHloText(std::shared_ptr<const std::string> text, const ParseOptions& options) {
  std::string_view view = *text;
  return ParseSource(std::move(text), view, options);
}

Result<HloModuleGroup> ParseHloText(std::string text, const ParseOptions& options) {
  return ParseHloText(std::make_shared<const std::string>(std::move(text)), options);
}

Result<std::shared_ptr<const std::string>> ReadFileOrStdin(const std::string& path,
                                                           const InputOptions& options) {
  InputOptions read = options;
  read.map_regular_files = false;  // into a string, as the caller asks
  Result<InputBytes> bytes = ReadInput(path, read);
  if (!bytes.ok()) return bytes.error();
  return std::static_pointer_cast<const std::string>(bytes->owner);
}

Result<HloModuleGroup> ParseHloFile(const std::string& path, const ParseOptions& options) {
  ParseOptions opts = options;
  opts.path = path == "-" ? "<stdin>" : path;
  // Mapped where it can be, read where not (see support/input_file.h).
  Result<InputBytes> bytes = ReadInput(path, options.input);
  if (!bytes.ok()) return bytes.error();
  std::string_view view = bytes->text;
  return ParseSource(std::move(bytes->owner), view, opts);
}

}  // namespace hloscope
