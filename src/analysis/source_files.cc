#include "hloscope/analysis/source_files.h"

#include <sys/stat.h>

#include <fstream>

namespace hloscope {
namespace {

bool IsRegularFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

std::vector<std::string_view> PathComponents(std::string_view path) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/' || path[i] == '\\') {
      std::string_view c = path.substr(start, i - start);
      if (!c.empty() && c != ".") out.push_back(c);
      start = i + 1;
    }
  }
  return out;
}

std::optional<std::string> SourceFiles::Locate(const std::string& metadata_path) const {
  if (metadata_path.empty() || metadata_path.front() == '<') return std::nullopt;
  std::vector<std::string_view> comps = PathComponents(metadata_path);
  for (const std::string& root : roots_) {
    for (size_t start = 0; start < comps.size(); ++start) {
      std::string candidate = root.empty() ? "." : root;
      for (size_t i = start; i < comps.size(); ++i) {
        candidate += '/';
        candidate += comps[i];
      }
      if (IsRegularFile(candidate)) return candidate;
    }
  }
  if (IsRegularFile(metadata_path)) return metadata_path;
  return std::nullopt;
}

const std::vector<std::string>* SourceFiles::Lines(const std::string& metadata_path) {
  auto it = cache_.find(metadata_path);
  if (it == cache_.end()) {
    std::optional<std::vector<std::string>> lines;
    if (std::optional<std::string> path = Locate(metadata_path)) {
      std::ifstream in(*path, std::ios::binary);
      if (in) {
        lines.emplace();
        std::string line;
        while (std::getline(in, line)) {
          if (!line.empty() && line.back() == '\r') line.pop_back();
          lines->push_back(std::move(line));
        }
      }
    }
    it = cache_.emplace(metadata_path, std::move(lines)).first;
  }
  return it->second ? &*it->second : nullptr;
}

std::optional<std::string> SourceFiles::Line(const std::string& metadata_path, int64_t line) {
  const std::vector<std::string>* lines = Lines(metadata_path);
  if (!lines || line < 1 || line > static_cast<int64_t>(lines->size())) return std::nullopt;
  return (*lines)[line - 1];
}

}  // namespace hloscope
