#include "hloscope/analysis/source_origin.h"

#include <string_view>

#include "hloscope/analysis/jax_op_name.h"

namespace hloscope {
namespace {

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
  // A helper JAX jitted for itself, under any transformation (vmap, jvp,
  // checkpoint...): jax_op_name.h has the one list.
  std::string helper(PrivateJitHelper(source->op_name));
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
