#include "hloscope/analysis/mesh_names.h"

#include <charconv>
#include <map>

#include "hloscope/analysis/findings.h"
#include "hloscope/ir/collective_device_list.h"

namespace hloscope {
namespace {

// The axes of one `#sdy.mesh<[...]>` body (`"x"=2, "y"=4`, quotes possibly
// escaped); nullopt on anything else.
std::optional<std::vector<MeshAxis>> Axes(std::string_view body) {
  std::vector<MeshAxis> axes;
  size_t i = 0;
  auto skip = [&] {
    while (i < body.size() && (body[i] == ' ' || body[i] == ',' || body[i] == '\\')) ++i;
  };
  while (true) {
    skip();
    if (i >= body.size()) return axes;
    if (body[i] != '"') return std::nullopt;
    size_t end = body.find('"', i + 1);
    if (end == std::string_view::npos) return std::nullopt;
    std::string name(body.substr(i + 1, end - i - 1));
    if (!name.empty() && name.back() == '\\') name.pop_back();
    i = end + 1;
    if (i >= body.size() || body[i] != '=') return std::nullopt;
    ++i;
    int64_t size = 0;
    auto [p, ec] = std::from_chars(body.data() + i, body.data() + body.size(), size);
    if (ec != std::errc() || size < 1 || name.empty()) return std::nullopt;
    i = static_cast<size_t>(p - body.data());
    axes.push_back({std::move(name), size});
    if (axes.size() > kMaxMeshAxes) return std::nullopt;
  }
}

}  // namespace

std::optional<UserMesh> SdyMeshIn(std::string_view text) {
  size_t at = text.find("xla.sdy.meshes=");
  if (at == std::string_view::npos) return std::nullopt;
  std::optional<UserMesh> found;
  constexpr std::string_view kOpen = "#sdy.mesh<[";
  for (size_t k = text.find(kOpen, at); k != std::string_view::npos; k = text.find(kOpen, k + 1)) {
    size_t body = k + kOpen.size();
    size_t close = text.find("]>", body);
    if (close == std::string_view::npos) return std::nullopt;
    std::optional<std::vector<MeshAxis>> axes = Axes(text.substr(body, close - body));
    if (!axes) return std::nullopt;
    if (axes->empty()) continue;     // empty_mesh: a single device
    if (found) return std::nullopt;  // several meshes: which one is not said
    found = UserMesh{std::move(*axes), "xla.sdy.meshes"};
  }
  return found;
}

namespace mesh_names_internal {

using Names = std::map<std::string, std::string, std::less<>>;

// Dump axis name -> user axis name, where `dump` and `user` agree axis for
// axis over the axes that split devices (size > 1), in order; nullopt else.
std::optional<Names> Match(const std::vector<std::pair<std::string, int64_t>>& dump,
                           const std::vector<MeshAxis>& user) {
  std::vector<size_t> dump_split, user_split;
  for (size_t i = 0; i < dump.size(); ++i)
    if (dump[i].second > 1) dump_split.push_back(i);
  for (size_t i = 0; i < user.size(); ++i)
    if (user[i].size > 1) user_split.push_back(i);
  if (dump_split.empty() || dump_split.size() != user_split.size()) return std::nullopt;
  Names names;
  for (size_t k = 0; k < dump_split.size(); ++k) {
    const auto& [name, size] = dump[dump_split[k]];
    if (size != user[user_split[k]].size) return std::nullopt;
    names[name] = user[user_split[k]].name;
  }
  return names;
}

// A collective's axis is `name` or a sub-axis `name:(pre)size`.
void Rename(const Names& names, std::vector<std::string>* axes) {
  for (std::string& axis : *axes) {
    size_t colon = axis.find(':');
    auto it = names.find(std::string_view(axis).substr(0, colon));
    if (it != names.end()) axis = it->second + (colon == std::string::npos ? "" : axis.substr(colon));
  }
}

// The mesh a collective's mesh-form replica groups name, as (name, size).
std::vector<std::pair<std::string, int64_t>> MeshOf(const CollectiveFinding& c) {
  std::vector<std::pair<std::string, int64_t>> axes;
  const HloInstruction* coll = c.collective ? c.collective : c.instruction;
  std::optional<std::string_view> groups = coll ? coll->attribute("replica_groups") : std::nullopt;
  if (!groups || !groups->starts_with("mesh")) return axes;
  Result<CollectiveDeviceList> list = ParseCollectiveDeviceList(*groups);
  if (list.ok())
    for (const MeshAxis& a : list->mesh.axes) axes.push_back({a.name, a.size});
  return axes;
}

}  // namespace mesh_names_internal

bool NameMeshAxes(const UserMesh& mesh, ModuleCheck* check) {
  using namespace mesh_names_internal;  // NOLINT(build/namespaces): this file's helpers
  int64_t devices = 1;
  for (const MeshAxis& a : mesh.axes) devices *= a.size;
  if (devices != check->spmd.devices()) return false;  // another mesh than this module runs on
  // Each collective by its own mesh: XLA writes one per collective
  // (mesh['axis_0'=8,'axis_1'=1] for one, ['axis_0'=1,'axis_1'=8] for the
  // next), each a view of the user's.
  bool renamed = false;
  for (CollectiveFinding& c : check->collectives)
    if (std::optional<Names> names = Match(MeshOf(c), mesh.axes)) {
      Rename(*names, &c.mesh_axes);
      renamed = true;
    }
  std::vector<std::pair<std::string, int64_t>>& dump = check->spmd.mesh_axes;
  if (!dump.empty() && !Match(dump, mesh.axes)) return renamed;
  dump.clear();
  for (const MeshAxis& a : mesh.axes) dump.push_back({a.name, a.size});
  check->spmd.mesh_names_from = mesh.source;
  return true;
}

}  // namespace hloscope
