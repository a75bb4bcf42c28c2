// Helpers the JSON renderers share (private to src/report).
#ifndef HLOSCOPE_REPORT_JSON_UTIL_H_
#define HLOSCOPE_REPORT_JSON_UTIL_H_

#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "hloscope/report/format.h"

namespace hloscope {

// Ordered: keys come out in the order the renderers write them, as
// documented in docs/json-format.md.
using Json = nlohmann::ordered_json;

// A value, or null when absent.
template <typename T>
Json Opt(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}

// The header of an exploring command's document:
//   {"schema_version": 1, "tool": "hloscope", "command": "<command>", ...}
inline Json JsonDocument(std::string_view command) {
  Json doc;
  doc["schema_version"] = kJsonSchemaVersion;
  doc["tool"] = "hloscope";
  doc["command"] = command;
  return doc;
}

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_JSON_UTIL_H_
