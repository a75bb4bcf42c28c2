// The buffer-assignment dump on disk: reading it, and finding the one that
// belongs to an HLO dump by XLA's file naming.
#include <filesystem>
#include <system_error>

#include "hloscope/parser/buffer_assignment.h"
#include "hloscope/parser/dump_naming.h"
#include "hloscope/support/input_file.h"

namespace hloscope {

Result<BufferAssignment> ReadBufferAssignmentFile(const std::string& path, const InputOptions& options) {
  // The dump is parsed into its own strings; the bytes need not outlive this.
  Result<InputBytes> bytes = ReadInput(path, options);
  if (!bytes.ok()) return bytes.error();
  return ParseBufferAssignment(bytes->text, path == "-" ? "<stdin>" : path);
}

std::optional<std::string> FindBufferAssignmentBeside(const std::string& hlo_path,
                                                      std::vector<RefusedFile>* refused) {
  for (const std::string& candidate : BufferAssignmentPathsFor(hlo_path))
    if (AcceptFoundFile(candidate, refused)) return candidate;
  return std::nullopt;
}

}  // namespace hloscope
