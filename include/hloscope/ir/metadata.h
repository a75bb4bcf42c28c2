// OpMetadata: the `metadata={...}` of an instruction (xla OpMetadata).
//   metadata={op_type="add" op_name="jit(f)/add" source_file="f.py"
//             source_line=12 stack_frame_id=7}
// Strings are views of the input text, still C-escaped as printed; use
// Unescape() (parser/escape.h) to read them.
#ifndef HLOSCOPE_IR_METADATA_H_
#define HLOSCOPE_IR_METADATA_H_

#include <cstdint>
#include <string_view>

namespace hloscope {

struct OpMetadata {
  std::string_view op_type;
  std::string_view op_name;
  std::string_view source_file;
  int64_t source_line = 0;
  int64_t source_end_line = 0;
  int64_t source_column = 0;
  int64_t source_end_column = 0;
  int64_t stack_frame_id = 0;  // 0: none (ids are 1-based)
  std::string_view raw;        // text between the braces, verbatim
};

}  // namespace hloscope

#endif  // HLOSCOPE_IR_METADATA_H_
