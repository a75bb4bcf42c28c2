#include "hloscope/analysis/source_files.h"

#include <sys/stat.h>

#include <fstream>

#include "hloscope/support/found_file.h"

namespace hloscope {

SourceFiles::SourceFiles(std::vector<std::string> roots) : roots_(std::move(roots)) {
  if (roots_.empty()) roots_.push_back(".");
  for (const std::string& r : roots_) {
    std::string real = RealPath(r.empty() ? "." : r);
    if (real.empty() || UnderSystemTree(real)) continue;
    if (real.back() != '/') real += '/';
    real_roots_.push_back(std::move(real));
  }
}

bool SourceFiles::Readable(const std::string& candidate) const {
  std::string real = RealPath(candidate);
  if (real.empty() || UnderSystemTree(real)) return false;
  // Under a root, and not hidden there: a module someone sends you names
  // its files, and with suffix matching `.git/config` or `.env` under the
  // current directory would land in a page you then share.
  bool inside = false;
  for (const std::string& root : real_roots_) {
    if (real.compare(0, root.size(), root) != 0) continue;
    bool hidden = false;
    for (std::string_view c : PathComponents(std::string_view(real).substr(root.size())))
      hidden |= c[0] == '.';
    inside |= !hidden;
  }
  if (!inside) return false;
  struct stat st;
  return ::stat(real.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= kMaxSourceFileBytes;
}

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
      if (Readable(candidate)) return candidate;
    }
  }
  if (Readable(metadata_path)) return metadata_path;
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
