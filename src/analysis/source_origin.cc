#include "hloscope/analysis/source_origin.h"

#include <string_view>

namespace hloscope {
namespace {

// The first `jit(_name)` / `pjit(_name)` component of an op_name path: a
// function JAX jitted for itself (a leading underscore is JAX's mark of a
// private helper; a user's jit(step) or a named scope does not count).
std::string PrivateJitComponent(std::string_view op_name) {
  size_t start = 0;
  while (start <= op_name.size()) {
    size_t end = op_name.find('/', start);
    if (end == std::string_view::npos) end = op_name.size();
    std::string_view part = op_name.substr(start, end - start);
    for (std::string_view prefix : {"jit(_", "pjit(_"})
      if (part.starts_with(prefix) && part.ends_with(")")) return std::string(part);
    start = end + 1;
  }
  return "";
}

// The last two components of a path, for the heading.
std::string ShortPath(std::string_view path) {
  size_t last = path.find_last_of('/');
  if (last == std::string_view::npos || last == 0) return std::string(path);
  size_t before = path.find_last_of('/', last - 1);
  return std::string(before == std::string_view::npos ? path : path.substr(before + 1));
}

}  // namespace

SourceOrigin OriginOf(const std::optional<SourceLocation>& source, const SourceOptions& options) {
  SourceOrigin origin;
  if (!source) return origin;
  std::string helper = PrivateJitComponent(source->op_name);
  if (!helper.empty()) {
    origin.library = true;
    origin.library_part = helper;
    return origin;
  }
  for (const std::string& fragment : options.library_path_fragments) {
    if (!source->file.empty() && source->file.find(fragment) != std::string::npos) {
      origin.library = true;
      origin.library_part = ShortPath(source->file);
      return origin;
    }
  }
  return origin;
}

}  // namespace hloscope
