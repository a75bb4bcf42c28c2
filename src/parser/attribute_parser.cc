// Instruction attributes: `, name=value` after the operands. Every value is
// kept verbatim; called computations, get-tuple-element's index, fusion kind,
// control predecessors and metadata are also decoded.
#include <fmt/format.h>

#include <charconv>

#include "parser/parser_impl.h"

namespace hloscope {

namespace {

bool IsInlineCallAttribute(std::string_view name) {
  return name == "calls" || name == "to_apply" || name == "body" || name == "condition";
}

CallRole InlineCallRole(std::string_view name) {
  return name == "calls"      ? CallRole::kCalls
         : name == "to_apply" ? CallRole::kToApply
         : name == "body"     ? CallRole::kBody
                              : CallRole::kCondition;
}

}  // namespace

// attributes ::= (',' NAME '=' value)*
// value      ::= '{' instruction+ '}'        (calls/to_apply/body/condition)
//              | shape literal               (literal=)
//              | balanced group | string | bare text
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
    p_ = IdentEnd(s_.data(), p_);
    if (p_ == name_start) ErrorExpected("an attribute name");
    std::string_view name = s_.substr(name_start, p_ - name_start);
    if (Peek() != '=') ErrorExpected(fmt::format("'=' after attribute '{}'", name));
    ++p_;
    SkipSpace();
    size_t v_start = p_;
    if (Peek() == '{' && IsInlineCallAttribute(name) && ParseInlineComputation(instr, name, v_start))
      continue;
    if (name == "literal" && Peek() != '(') {
      // custom-call literal=s32[] 1: a shape, then the literal after a space.
      // (A tuple literal `( s32[2] {1, 2}, ... )` is one balanced group.)
      ParseShape();
      SkipSpace();
    }
    size_t v_end = ScanAttributeValue();
    HloAttribute attr{name, s_.substr(v_start, v_end - v_start)};
    if (attr.value.view().find('\n') != std::string_view::npos) {
      multiline_value_ = v_start;
      multiline_attribute_ = name;
    }
    p_ = v_end;
    attribute_scratch_.push_back(attr);
    DecodeAttribute(instr, attr, v_start);
  }
  instr->attributes_ = module_->arena_.CopyOf<HloAttribute>(std::span<const HloAttribute>(
      attribute_scratch_.data() + attr_base, attribute_scratch_.size() - attr_base));
  attribute_scratch_.resize(attr_base);
  if (call_scratch_.size() > call_base) {
    std::span<CalledComputation> calls =
        module_->arena_.CopyOf<CalledComputation>(std::span<const CalledComputation>(
            call_scratch_.data() + call_base, call_scratch_.size() - call_base));
    for (size_t i = 0; i < calls.size(); ++i) {
      if (calls[i].computation == nullptr)
        pending_calls_.push_back({&calls[i], call_names_[call_base + i], call_offsets_[call_base + i]});
    }
    instr->called_ = calls;
    call_sites_.push_back(instr);
    call_scratch_.resize(call_base);
    call_names_.resize(call_base);
    call_offsets_.resize(call_base);
  }
  if (control_scratch_.size() > ctrl_base) {
    std::vector<HloInstruction*> preds(control_scratch_.size() - ctrl_base, nullptr);
    std::span<HloInstruction*> span = module_->arena_.CopyOf<HloInstruction*>(preds);
    for (size_t i = ctrl_base; i < control_scratch_.size(); ++i)
      body_->pending_operands.push_back(
          {&span[i - ctrl_base], control_scratch_[i].first, control_scratch_[i].second});
    RareOf(instr)->control_predecessors = span;
    control_scratch_.resize(ctrl_base);
  }
}

// Hand-written text may define a called computation in place:
//   fusion(...), kind=kLoop, calls={ p = f32[] parameter(0) ROOT ... }
// It becomes a computation of the module with a made-up name, placed before
// the computation that calls it; the attribute's value is that name, so
// printing gives ordinary HLO. Returns false when the braces do not hold
// instructions (calls={%a, %b}).
bool HloParserImpl::ParseInlineComputation(HloInstruction* instr, std::string_view name,
                                           size_t value_offset) {
  size_t k = p_ + 1;
  while (k < s_.size() && (s_[k] == ' ' || s_[k] == '\n' || s_[k] == '\t' || s_[k] == '\r')) ++k;
  size_t n = k;
  if (PeekAt(n) == '%') ++n;
  n = IdentEnd(s_.data(), n);
  while (n < s_.size() && s_[n] == ' ') ++n;
  bool looks_like_instruction =
      n > k && (PeekAt(n) == '=' || (s_.substr(k, 4) == "ROOT" && !IsIdentChar(PeekAt(k + 4))));
  if (!looks_like_instruction) return false;

  HloComputation* comp = module_->arena_.New<HloComputation>();
  comp->id_ = next_computation_id_++;
  comp->name_ = Synthesize(fmt::format("{}.inline.{}", instr->opcode_text(), next_id_));
  comp->parent_ = module_;
  comp->offset_ = p_;
  ParseComputationBody(comp, p_);
  if (computation_names_.Find(comp->name_))
    Error(value_offset, fmt::format("inline computation name '{}' is already taken", comp->name_));
  computation_names_.Insert(comp->name_, comp);
  computations_.push_back(comp);  // before the computation that calls it

  attribute_scratch_.push_back({name, comp->name_});
  call_scratch_.push_back({InlineCallRole(name), comp});
  call_names_.push_back(comp->name_);
  call_offsets_.push_back(value_offset);
  return true;
}

void HloParserImpl::AddCall(CallRole role, std::string_view name, size_t offset) {
  if (!name.empty() && name[0] == '%') name.remove_prefix(1);
  call_scratch_.push_back({role, nullptr});
  call_names_.push_back(name);
  call_offsets_.push_back(offset);
}

// computation_ref  ::= ['%'] NAME
// computation_list ::= '{' [computation_ref (',' computation_ref)*] '}'
void HloParserImpl::DecodeAttribute(HloInstruction* instr, const HloAttribute& attr, size_t offset) {
  std::string_view n = attr.name;
  std::string_view v = attr.value;
  auto calls = [&](CallRole role) {
    if (!v.empty() && v[0] == '{') {
      // branch_computations={%a, %b} (async wrappers may list several calls)
      std::string_view inner = v.substr(1, v.size() - 2);
      size_t i = 0;
      while (i < inner.size()) {
        while (i < inner.size() && (inner[i] == ' ' || inner[i] == ',' || inner[i] == '\n' ||
                                    inner[i] == '\r' || inner[i] == '\t' || inner[i] == '%'))
          ++i;
        size_t st = i;
        if (i < inner.size() && IsIdentStart(inner[i]))
          while (i < inner.size() && IsIdentChar(inner[i])) ++i;
        if (i > st)
          AddCall(role, inner.substr(st, i - st), offset + 1 + st);
        else if (i < inner.size())
          Error(offset + 1 + i, "expected a computation name");
      }
      return;
    }
    std::string_view name = v;
    if (!name.empty() && name[0] == '%') name.remove_prefix(1);
    if (name.empty() || !IsIdentStart(name[0]))
      Error(offset, fmt::format("expected a computation name after '{}='", n));
    for (char c : name)
      if (!IsIdentChar(c)) Error(offset, fmt::format("expected a computation name after '{}='", n));
    AddCall(role, v, offset);
  };
  if (n == "metadata") {
    if (v.empty() || v[0] != '{') Error(offset, "expected '{' after metadata=");
    // Identical metadata text is parsed once per module and shared: most
    // instructions repeat a few op_name/stack_frame_id combinations.
    // Neighbouring instructions often come from the same source op: compare
    // with the previous text (in cache) before hashing.
    if (v != last_metadata_text_) {
      bool inserted;
      const OpMetadata** slot = metadata_pool_.FindOrInsert(v, &inserted, /*refresh=*/true);
      if (inserted) *slot = ParseMetadata(v, offset);  // inserts into no table
      last_metadata_ = *slot;
      last_metadata_text_ = v;
    }
    instr->metadata_ = last_metadata_;
  } else if (n == "calls") {
    calls(CallRole::kCalls);
  } else if (n == "to_apply") {
    calls(CallRole::kToApply);
  } else if (n == "body") {
    calls(CallRole::kBody);
  } else if (n == "condition") {
    calls(CallRole::kCondition);
  } else if (n == "branch_computations") {
    calls(CallRole::kBranch);
  } else if (n == "true_computation") {
    calls(CallRole::kTrueComputation);
  } else if (n == "false_computation") {
    calls(CallRole::kFalseComputation);
  } else if (n == "called_computations") {
    calls(CallRole::kCalledComputations);
  } else if (n == "select" && instr->opcode_ == HloOpcode::kSelectAndScatter) {
    calls(CallRole::kSelect);
  } else if (n == "scatter" && instr->opcode_ == HloOpcode::kSelectAndScatter) {
    calls(CallRole::kScatter);
  } else if (n == "index" && instr->opcode_ == HloOpcode::kGetTupleElement) {
    int64_t index = -1;
    auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), index);
    if (ec != std::errc() || ptr != v.data() + v.size() || index < 0)
      Error(offset, "expected a non-negative integer after 'index='");
    if (index > INT32_MAX)  // the IR keeps it in 32 bits
      Error(offset, fmt::format("tuple index {} out of range", index));
    instr->int_attr_ = static_cast<int32_t>(index);
  } else if (n == "kind" && instr->opcode_ == HloOpcode::kFusion) {
    instr->fusion_kind_ = v == "kLoop"     ? FusionKind::kLoop
                          : v == "kInput"  ? FusionKind::kInput
                          : v == "kOutput" ? FusionKind::kOutput
                          : v == "kCustom" ? FusionKind::kCustom
                                           : FusionKind::kOther;
  } else if (n == "control-predecessors") {
    // control-predecessors={%a, %b}
    if (v.empty() || v[0] != '{') Error(offset, "expected '{' after control-predecessors=");
    size_t i = 1;
    while (i + 1 < v.size()) {
      while (i + 1 < v.size() &&
             (v[i] == ' ' || v[i] == ',' || v[i] == '%' || v[i] == '\n' || v[i] == '\r' || v[i] == '\t'))
        ++i;
      size_t st = i;
      if (i + 1 < v.size() && IsIdentStart(v[i]))
        while (i + 1 < v.size() && IsIdentChar(v[i])) ++i;
      if (i > st)
        control_scratch_.push_back({v.substr(st, i - st), offset + st});
      else if (i + 1 < v.size())
        Error(offset + i, "expected an instruction name");
    }
  }
}

// metadata ::= '{' (KEY '=' (STRING | INT | WORD | '{' ... '}') [','])* '}'
const OpMetadata* HloParserImpl::ParseMetadata(std::string_view raw, size_t offset) {
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
      if (key == "op_name")
        md->op_name = str;
      else if (key == "op_type")
        md->op_type = str;
      else if (key == "source_file")
        md->source_file = str;
    } else if (c == '{') {
      p_ = ScanBalanced(p_);
    } else if (IsDigit(c) || c == '-') {
      int64_t v = ParseInt64();
      if (key == "source_line")
        md->source_line = v;
      else if (key == "source_end_line")
        md->source_end_line = v;
      else if (key == "source_column")
        md->source_column = v;
      else if (key == "source_end_column")
        md->source_end_column = v;
      else if (key == "stack_frame_id")
        md->stack_frame_id = v;
    } else {
      // true/false and other bare words (preserve_layout=true).
      std::string_view word = ScanIdentifier();
      if (word.empty()) ErrorExpected("a metadata value");
    }
    if (p_ > end) Error(end, "metadata value runs past the closing '}'");
  }
  p_ = save;
  return md;
}

}  // namespace hloscope
