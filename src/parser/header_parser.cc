// The module header and the source tables before the computations:
//   HloModule jit_f, is_scheduled=true, input_output_alias={ {}: (0, {}, may-alias) }, ...
//   FileNames / FunctionNames / FileLocations / StackFrames
#include <fmt/format.h>

#include <unordered_map>

#include "parser/parser_impl.h"

namespace hloscope {

// header ::= 'HloModule' NAME [':'] (',' NAME '=' value)*
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
    p_ = IdentEnd(s_.data(), p_);
    if (p_ == name_start) ErrorExpected("a module attribute name");
    std::string_view name = s_.substr(name_start, p_ - name_start);
    if (Peek() != '=') ErrorExpected(fmt::format("'=' after '{}'", name));
    ++p_;
    SkipSpace();
    size_t v_start = p_;
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
    if (Peek() == ',')
      ++p_;
    else if (Peek() != '}')
      ErrorExpected("',' or '}' in the shape index");
    SkipSpace();
  }
  ++p_;
  *pos = p_;
  p_ = save;
  return index;
}

// input_output_alias ::= '{' [alias (',' alias)*] '}'
// alias ::= shape_index ':' '(' INT ',' shape_index [',' ('may-alias'|'must-alias')] ')'
void HloParserImpl::ParseInputOutputAlias(std::string_view value, size_t offset) {
  if (value.empty() || value[0] != '{') Error(offset, "expected '{' after input_output_alias=");
  size_t save = p_;
  p_ = offset + 1;
  size_t close = offset + value.size() - 1;
  while (true) {
    SkipSpace();
    if (p_ >= close) break;
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
      size_t kind_at = p_;
      std::string_view kind = ScanIdentifier();
      if (kind == "must-alias") {
        alias.kind = AliasKind::kMustAlias;
      } else if (kind != "may-alias") {
        p_ = kind_at;
        ErrorExpected("'may-alias' or 'must-alias'");
      }
    }
    Expect(')', "to close the alias entry");
    module_->aliases_.push_back(std::move(alias));
    if (!Consume(',')) {
      SkipSpace();
      if (p_ != close) ErrorExpected("',' or '}' in input_output_alias");
    }
  }
  p_ = save;
}

// buffer_donor ::= '{' [ '(' INT ',' shape_index ')' (',' ...)* ] '}'
void HloParserImpl::ParseBufferDonor(std::string_view value, size_t offset) {
  if (value.empty() || value[0] != '{') Error(offset, "expected '{' after buffer_donor=");
  size_t save = p_;
  p_ = offset + 1;
  size_t close = offset + value.size() - 1;
  while (true) {
    SkipSpace();
    if (p_ >= close) break;
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
    if (!Consume(',')) {
      SkipSpace();
      if (p_ != close) ErrorExpected("',' or '}' in buffer_donor");
    }
  }
  p_ = save;
}

// tables ::= 'FileNames' (INT? STRING)*
//          | 'FunctionNames' (INT? STRING)*
//          | 'FileLocations' (INT? '{' (KEY '=' INT)* '}')*
//          | 'StackFrames' (INT? '{' 'file_location_id=' INT 'parent_frame_id=' INT '}')*
// Row numbers are positional: the printed one is skipped unchecked.
void HloParserImpl::ParseStackFrameTable(std::string_view table) {
  StackFrameIndex& index = module_->stack_frames_;
  std::vector<int64_t> raw_parents;
  while (true) {
    SkipSpace();
    size_t row_start = p_;
    if (IsDigit(Peek())) {
      ParseInt64();
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
      (table == "FileNames" ? index.file_names : index.function_names).push_back(name);
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
    auto get = [&](std::string_view key, bool required) -> int64_t {
      auto it = fields.find(key);
      if (it != fields.end()) return it->second;
      if (required) Error(row_start, fmt::format("{} row lacks '{}'", table, key));
      return 0;
    };
    if (table == "FileLocations") {
      FileLocation loc;
      loc.file_name_id = get("file_name_id", true);
      loc.function_name_id = get("function_name_id", true);
      loc.line = get("line", true);
      loc.end_line = get("end_line", false);
      loc.column = get("column", false);
      loc.end_column = get("end_column", false);
      index.file_locations.push_back(loc);
    } else {
      StackFrameRow row;
      row.file_location_id = get("file_location_id", true);
      int64_t parent = get("parent_frame_id", true);
      if (parent < 0)
        Error(row_start, fmt::format("StackFrames row has a negative parent_frame_id {}", parent));
      raw_parents.push_back(parent);
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
      index.stack_frames[first + i].parent_frame_id = shifted ? raw_parents[i] - 1 : raw_parents[i];
  }
}

}  // namespace hloscope
