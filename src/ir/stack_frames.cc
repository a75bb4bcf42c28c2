#include "hloscope/ir/stack_frames.h"

namespace hloscope {

std::optional<SourceFrame> StackFrameIndex::Frame(int64_t id) const {
  if (id < 1 || id > static_cast<int64_t>(stack_frames.size())) return std::nullopt;
  const StackFrameRow& row = stack_frames[id - 1];
  int64_t loc_id = row.file_location_id;
  if (loc_id < 1 || loc_id > static_cast<int64_t>(file_locations.size())) return std::nullopt;
  const FileLocation& loc = file_locations[loc_id - 1];
  SourceFrame frame;
  if (loc.file_name_id >= 1 && loc.file_name_id <= static_cast<int64_t>(file_names.size()))
    frame.file = file_names[loc.file_name_id - 1];
  if (loc.function_name_id >= 1 && loc.function_name_id <= static_cast<int64_t>(function_names.size()))
    frame.function = function_names[loc.function_name_id - 1];
  frame.line = loc.line;
  frame.column = loc.column;
  frame.end_line = loc.end_line;
  frame.end_column = loc.end_column;
  // A parent pointing at itself or forward would loop; treat it as root.
  frame.parent_id = (row.parent_frame_id > 0 && row.parent_frame_id < id) ? row.parent_frame_id : 0;
  return frame;
}

}  // namespace hloscope
