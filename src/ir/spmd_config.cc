// The module header's replica_count and num_partitions; decode errors placed
// in the module's file.
#include "hloscope/ir/spmd_config.h"

#include <fmt/format.h>

#include <charconv>
#include <functional>

namespace hloscope {

Diagnostic AttributeDiagnostic(const HloModule& module, std::string_view value, const Diagnostic& error) {
  std::string_view source = module.source();
  std::less_equal<const char*> le;
  if (value.data() == nullptr || !le(source.data(), value.data()) ||
      !le(value.data() + value.size(), source.data() + source.size()))
    return error;
  // The decoder's line and column are within `value`: find that offset.
  size_t offset = 0;
  for (int64_t line = 1; line < error.line && offset < value.size(); ++offset)
    if (value[offset] == '\n') ++line;
  if (error.column > 0) offset += static_cast<size_t>(error.column - 1);
  offset = std::min(offset, value.size());
  size_t in_source = static_cast<size_t>(value.data() - source.data()) + offset;
  return MakeDiagnostic(module.path(), source, in_source, error.message);
}

Result<SpmdConfig> DecodeSpmdConfig(const HloModule& module) {
  SpmdConfig config;
  for (auto [name, field] :
       {std::pair<std::string_view, int64_t*>{"replica_count", &config.replica_count},
        std::pair<std::string_view, int64_t*>{"num_partitions", &config.num_partitions}}) {
    std::optional<std::string_view> v = module.attribute(name);
    if (!v) continue;
    int64_t n = 0;
    auto [ptr, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
    if (ec != std::errc() || ptr != v->data() + v->size() || n < 1) {
      Diagnostic d =
          MakeDiagnostic("", *v, 0, fmt::format("{} must be a positive integer, found '{}'", name, *v));
      return AttributeDiagnostic(module, *v, d);
    }
    *field = n;
  }
  return config;
}

}  // namespace hloscope
