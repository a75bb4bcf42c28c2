// The buffer-assignment dump on disk: reading it, and finding the one that
// belongs to an HLO dump by XLA's file naming.
#include <filesystem>
#include <system_error>

#include "hloscope/parser/buffer_assignment.h"
#include "hloscope/support/input_file.h"

namespace hloscope {

Result<BufferAssignment> ReadBufferAssignmentFile(const std::string& path, const InputOptions& options) {
  // The dump is parsed into its own strings; the bytes need not outlive this.
  Result<InputBytes> bytes = ReadInput(path, options);
  if (!bytes.ok()) return bytes.error();
  return ParseBufferAssignment(bytes->text, path == "-" ? "<stdin>" : path);
}

std::optional<std::string> FindBufferAssignmentBeside(const std::string& hlo_path) {
  namespace fs = std::filesystem;
  auto is_file = [](const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec);
  };
  constexpr std::string_view kTxt = ".txt";
  if (std::string_view(hlo_path).ends_with(kTxt)) {
    std::string candidate = hlo_path.substr(0, hlo_path.size() - kTxt.size()) + "-buffer-assignment.txt";
    if (is_file(candidate)) return candidate;
  }
  fs::path p(hlo_path);
  std::string name = p.filename().string();
  if (name == "module.hlo.txt" || name == "as_text.hlo.txt") {
    fs::path candidate = p.parent_path() / "buffer-assignment.txt";
    if (is_file(candidate)) return candidate.string();
  }
  return std::nullopt;
}

}  // namespace hloscope
