#include "hloscope/analysis/backend_config.h"

#include <nlohmann/json.hpp>

#include "hloscope/analysis/source_map.h"

namespace hloscope {
namespace {

// The config as JSON; nullopt when there is none or it is not JSON. `needle`:
// a key the caller needs, to skip parsing configs that cannot have it.
std::optional<nlohmann::json> Decode(const HloInstruction& instr, std::string_view needle) {
  std::optional<std::string_view> raw = instr.backend_config();
  if (!raw || raw->empty() || raw->find(needle) == std::string_view::npos) return std::nullopt;
  nlohmann::json j = nlohmann::json::parse(*raw, nullptr, /*allow_exceptions=*/false);
  if (j.is_string()) j = nlohmann::json::parse(j.get<std::string>(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    // A quoted string with C escapes (older printers).
    std::string text(*raw);
    if (text.size() >= 2 && text.front() == '"' && text.back() == '"') {
      j = nlohmann::json::parse(CUnescape(std::string_view(text).substr(1, text.size() - 2)), nullptr, false);
    }
  }
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  return j;
}

// An int64 field: a JSON string ("10") or number.
std::optional<int64_t> Int64(const nlohmann::json& v) {
  try {
    if (v.is_string()) return std::stoll(v.get<std::string>());
    if (v.is_number_integer()) return v.get<int64_t>();
  } catch (...) {
  }
  return std::nullopt;
}

}  // namespace

std::optional<int64_t> KnownTripCount(const HloInstruction& instr) {
  std::optional<nlohmann::json> j = Decode(instr, "known_trip_count");
  if (!j) return std::nullopt;
  auto ktc = j->find("known_trip_count");
  if (ktc == j->end() || !ktc->is_object() || !ktc->contains("n")) return std::nullopt;
  std::optional<int64_t> n = Int64(ktc->at("n"));
  if (!n) return std::nullopt;
  return *n < 0 ? 0 : *n;  // the annotator does not check max >= min
}

std::optional<std::vector<int64_t>> GemmLhsContractingDims(const HloInstruction& instr) {
  std::optional<nlohmann::json> j = Decode(instr, "gemm_backend_config");
  if (!j) return std::nullopt;
  auto gemm = j->find("gemm_backend_config");
  if (gemm == j->end() || !gemm->is_object()) return std::nullopt;
  auto dims = gemm->find("dot_dimension_numbers");
  if (dims == gemm->end() || !dims->is_object()) return std::nullopt;
  auto lhs = dims->find("lhs_contracting_dimensions");
  if (lhs == dims->end() || !lhs->is_array()) return std::nullopt;
  std::vector<int64_t> out;
  for (const nlohmann::json& d : *lhs) {
    std::optional<int64_t> n = Int64(d);
    if (!n) return std::nullopt;
    out.push_back(*n);
  }
  return out;
}

bool BackendConfigMentions(const HloInstruction& instr, std::string_view needle) {
  std::optional<std::string_view> config = instr.backend_config();
  return config && config->find(needle) != std::string_view::npos;
}

std::string FusionBackendKind(const HloInstruction& fusion) {
  std::optional<nlohmann::json> j = Decode(fusion, "kind");
  if (!j) return "";
  // GPU: fusion_backend_config.kind; CPU: fusion_config.kind.
  for (const char* key : {"fusion_backend_config", "fusion_config"}) {
    auto cfg = j->find(key);
    if (cfg == j->end() || !cfg->is_object()) continue;
    auto kind = cfg->find("kind");
    if (kind != cfg->end() && kind->is_string()) return kind->get<std::string>();
  }
  return "";
}

std::vector<std::vector<int64_t>> AliasingOperandLists(const HloInstruction& instr) {
  std::vector<std::vector<int64_t>> out;
  std::optional<nlohmann::json> j = Decode(instr, "\"aliasing_operands\"");
  if (!j) return out;
  auto ao = j->find("aliasing_operands");
  if (ao == j->end() || !ao->is_object()) return out;
  auto lists = ao->find("lists");
  if (lists == ao->end() || !lists->is_array()) return out;
  for (const nlohmann::json& group : *lists) {
    if (!group.is_object() || !group.contains("indices") || !group.at("indices").is_array()) return {};
    std::vector<int64_t> indices;
    for (const nlohmann::json& v : group.at("indices")) {
      std::optional<int64_t> k = Int64(v);
      if (!k) return {};
      indices.push_back(*k);
    }
    out.push_back(std::move(indices));
  }
  return out;
}

bool UsesNvshmem(const HloInstruction& instr) {
  std::optional<std::string_view> raw = instr.backend_config();
  return raw && raw->find("nvshmem") != std::string_view::npos;
}

}  // namespace hloscope
