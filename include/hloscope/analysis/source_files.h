// SourceFiles: the user's source files on this machine, for printing the
// lines findings point at (`where`, `annotate`).
//
// Metadata paths are absolute paths of the machine that traced the program
// (/home/u/proj/train.py). A path is looked up as root + each of its
// suffixes, longest first (root/home/u/proj/train.py, root/u/proj/train.py,
// ..., root/train.py), then as written.
//
// The HLO names the files, so the HLO decides what would be read: a file is
// read only when it is a regular file inside one of the roots (the current
// directory when none is given) after resolving symbolic links, outside
// /proc, /sys and /dev, and at most kMaxSourceFileBytes long. Anything else
// is "not found" and the line is listed from the metadata alone.
#ifndef HLOSCOPE_ANALYSIS_SOURCE_FILES_H_
#define HLOSCOPE_ANALYSIS_SOURCE_FILES_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hloscope {

// 16 MiB: no source file of a Python program is larger.
inline constexpr int64_t kMaxSourceFileBytes = int64_t{16} << 20;

class SourceFiles {
 public:
  // No roots: the current directory.
  explicit SourceFiles(std::vector<std::string> roots = {});

  // The readable file for a metadata path, or nullopt.
  std::optional<std::string> Locate(const std::string& metadata_path) const;
  // Its lines (1-based: Line(path, 1) is the first), read once; nullptr
  // when the file is not found.
  const std::vector<std::string>* Lines(const std::string& metadata_path);
  // Line `line` of the file, without the newline; nullopt when unknown.
  std::optional<std::string> Line(const std::string& metadata_path, int64_t line);
  // The roots as given ("." when none was).
  const std::vector<std::string>& roots() const { return roots_; }

 private:
  // A regular file inside a root, within the size limit.
  bool Readable(const std::string& candidate) const;

  std::vector<std::string> roots_;
  std::vector<std::string> real_roots_;  // resolved, each ending in '/'
  std::map<std::string, std::optional<std::vector<std::string>>> cache_;
};

// The components of a path ('/' or '\\' separated, "." dropped).
std::vector<std::string_view> PathComponents(std::string_view path);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_SOURCE_FILES_H_
