// StackFrameIndex: the FileNames / FunctionNames / FileLocations /
// StackFrames tables newer XLA prints between the module header and the
// computations (xla/hlo/ir/stack_frames.h, HloModule::PrintStackFrameIndex).
//
// All ids are 1-based. In text, a frame's parent is printed as
// proto parent_frame_id + 1, so `parent_frame_id=1` means "no parent" and
// `parent_frame_id=k` means frame k-1. Rows are positional: row i (1-based)
// is id i whatever number is printed in front of it.
#ifndef HLOSCOPE_IR_STACK_FRAMES_H_
#define HLOSCOPE_IR_STACK_FRAMES_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace hloscope {

struct FileLocation {
  int64_t file_name_id = 0;
  int64_t function_name_id = 0;
  int64_t line = 0;
  int64_t end_line = 0;
  int64_t column = 0;
  int64_t end_column = 0;
};

struct StackFrameRow {
  int64_t file_location_id = 0;
  int64_t parent_frame_id = 0;  // already converted: 0 = root, else 1-based id
};

// One resolved frame: where it is, and its caller (0 = none).
struct SourceFrame {
  std::string_view file;      // C-escaped as printed
  std::string_view function;  // C-escaped as printed
  int64_t line = 0;
  int64_t column = 0;
  int64_t end_line = 0;
  int64_t end_column = 0;
  int64_t parent_id = 0;
};

struct StackFrameIndex {
  std::vector<std::string_view> file_names;
  std::vector<std::string_view> function_names;
  std::vector<FileLocation> file_locations;
  std::vector<StackFrameRow> stack_frames;

  bool empty() const {
    return stack_frames.empty() && file_names.empty() && function_names.empty() && file_locations.empty();
  }
  // Frame `id` (1-based) resolved through the tables; nullopt when any id on
  // the way is out of range.
  std::optional<SourceFrame> Frame(int64_t id) const;
};

}  // namespace hloscope

#endif  // HLOSCOPE_IR_STACK_FRAMES_H_
