#include "hloscope/parser/profile_trace.h"

#include <zlib.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

namespace hloscope {
namespace {

bool IsGzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

// Inflates a gzip stream, refusing output past `limit` (a small file can
// claim gigabytes: the limit is the same as for any input).
Result<std::string> Gunzip(std::string_view in, uint64_t limit, const std::string& path) {
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
    return InputDiagnostic(path, "cannot start gzip decompression");
  std::string out;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(std::min<size_t>(in.size(), UINT32_MAX));
  char buf[1 << 16];
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof(buf);
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      inflateEnd(&z);
      return InputDiagnostic(path, "not a readable gzip file (it is cut short or corrupt)");
    }
    out.append(buf, sizeof(buf) - z.avail_out);
    if (out.size() > limit) {
      inflateEnd(&z);
      return InputDiagnostic(path,
                             "decompressed, the trace is larger than the input limit (--max-input-bytes " +
                                 std::to_string(limit) + ")");
    }
    if (rc == Z_OK && z.avail_in == 0 && z.avail_out != 0) {
      inflateEnd(&z);
      return InputDiagnostic(path, "not a readable gzip file (it is cut short or corrupt)");
    }
  }
  inflateEnd(&z);
  return out;
}

std::string StringArg(const nlohmann::json& args, const char* key) {
  auto it = args.find(key);
  if (it == args.end()) return "";
  if (it->is_string()) return it->get<std::string>();
  return "";
}

}  // namespace

const TracedOp* ProfileTrace::Find(std::string_view module, std::string_view op) const {
  auto it =
      std::lower_bound(ops.begin(), ops.end(), std::pair(module, op), [](const TracedOp& t, const auto& key) {
        return std::pair<std::string_view, std::string_view>(t.module, t.op) < key;
      });
  if (it == ops.end() || it->module != module || it->op != op) return nullptr;
  return &*it;
}

bool ProfileTrace::HasModule(std::string_view module) const {
  auto it = std::lower_bound(ops.begin(), ops.end(), module, [](const TracedOp& t, std::string_view m) {
    return std::string_view(t.module) < m;
  });
  return it != ops.end() && it->module == module;
}

Result<ProfileTrace> ParseProfileTrace(std::string_view json, std::string_view path) {
  nlohmann::json doc = nlohmann::json::parse(json.begin(), json.end(), nullptr, /*allow_exceptions=*/false);
  const std::string p(path);
  if (doc.is_discarded()) return InputDiagnostic(p, "not a trace: the file is not JSON");
  // {"traceEvents": [...]} or the bare array the format also allows.
  const nlohmann::json* events = nullptr;
  if (doc.is_object()) {
    auto it = doc.find("traceEvents");
    if (it != doc.end() && it->is_array()) events = &*it;
  } else if (doc.is_array()) {
    events = &doc;
  }
  if (!events)
    return InputDiagnostic(p,
                           "not a trace: no \"traceEvents\" array (expected the Chrome trace JSON that "
                           "jax.profiler writes, *.trace.json.gz)");
  ProfileTrace trace;
  trace.path = p;
  std::map<std::pair<std::string, std::string>, TracedOp> by_op;
  for (const nlohmann::json& e : *events) {
    if (!e.is_object()) continue;
    auto ph = e.find("ph");
    if (ph == e.end() || !ph->is_string() || *ph != "X") continue;
    auto dur = e.find("dur");
    if (dur == e.end() || !dur->is_number()) continue;
    ++trace.events;
    auto args = e.find("args");
    std::string op = args != e.end() && args->is_object() ? StringArg(*args, "hlo_op") : "";
    std::string module = args != e.end() && args->is_object() ? StringArg(*args, "hlo_module") : "";
    if (op.empty()) {
      ++trace.events_without_op;
      continue;
    }
    TracedOp& t = by_op[{module, op}];
    t.module = module;
    t.op = op;
    ++t.events;
    // Microseconds in the Chrome format; a negative or absurd duration is
    // the writer's bug, not time.
    double us = dur->get<double>();
    if (us > 0 && us < 1e15) t.total_seconds += us * 1e-6;
  }
  trace.ops.reserve(by_op.size());
  for (auto& [key, t] : by_op) trace.ops.push_back(std::move(t));
  return trace;
}

Result<ProfileTrace> ReadProfileTrace(const std::string& path, const InputOptions& options) {
  InputOptions read = options;
  read.map_regular_files = false;
  Result<InputBytes> bytes = ReadInput(path, read);
  if (!bytes.ok()) return bytes.error();
  const std::string shown = path == "-" ? "<stdin>" : path;
  if (!IsGzip(bytes->text)) return ParseProfileTrace(bytes->text, shown);
  Result<std::string> text = Gunzip(bytes->text, options.max_bytes, shown);
  if (!text.ok()) return text.error();
  return ParseProfileTrace(*text, shown);
}

}  // namespace hloscope
