// Meshes and axis references (xla/hlo/ir/mesh_and_axis.cc, the mesh parts
// of xla/hlo/parser/hlo_parser.cc and replica_group.cc).
#include "hloscope/ir/mesh.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "hloscope/support/saturating.h"
#include "ir/sharding_text.h"

namespace hloscope {

namespace ir_internal {

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// XLA's CanonicalizeIotaDims: size-1 reshape dims dropped, dims that stay
// adjacent and in order after the transpose merged ([3,4,5]T(1,2,0) ->
// [3,20]T(1,0)), so the printed form reads like XLA's.
IotaTileAssignment Canonical(std::vector<int64_t> dims, std::vector<int64_t> perm) {
  while (true) {
    std::vector<int64_t> new_index(dims.size(), -1);
    std::vector<int64_t> kept;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] == 1) continue;
      new_index[i] = static_cast<int64_t>(kept.size());
      kept.push_back(dims[i]);
    }
    std::vector<int64_t> kept_perm;
    for (int64_t p : perm)
      if (new_index[p] >= 0) kept_perm.push_back(new_index[p]);
    dims = std::move(kept);
    perm = std::move(kept_perm);
    bool changed = false;
    for (size_t i = 1; i < perm.size(); ++i) {
      if (perm[i] == perm[i - 1] + 1) {
        dims[perm[i - 1]] *= dims[perm[i]];
        dims[perm[i]] = 1;
        changed = true;
        break;
      }
    }
    if (!changed) break;
  }
  if (dims.empty()) return {{1}, {0}};
  return {std::move(dims), std::move(perm)};
}

// True when device id = row-major mesh coordinate.
bool PlainIota(const TileAssignment& t) {
  if (!t.iota) return false;
  for (size_t i = 0; i < t.iota->transpose_perm.size(); ++i)
    if (t.iota->transpose_perm[i] != static_cast<int64_t>(i)) return false;
  return true;
}

}  // namespace

Mesh ParseMeshAt(DecodeCursor& c) {
  c.SkipSpace();
  size_t at = c.pos();
  std::string_view kind = c.Word();
  Mesh mesh;
  if (kind == "maximal_mesh" || kind == "single_device") {
    c.Expect('[', fmt::format("after '{}'", kind));
    if (!c.ConsumeWord("device_id")) c.FailExpected(fmt::format("'device_id=' in {}", kind));
    c.Expect('=', "after 'device_id'");
    c.SkipSpace();
    size_t id_at = c.pos();
    int64_t id = c.Int("a device id");
    if (id < 0) c.Fail(id_at, fmt::format("device id {} is negative", id));
    c.Expect(']', fmt::format("to close {}", kind));
    mesh.maximal_device = id;
    mesh.devices.devices = {id};
    return mesh;
  }
  if (kind != "mesh") {
    c.set_pos(at);
    c.FailExpected("'mesh', 'maximal_mesh' or 'single_device'");
  }
  c.Expect('[', "after 'mesh'");
  std::vector<int64_t> sizes;
  if (!c.Consume(']')) {
    while (true) {
      c.SkipSpace();
      size_t name_at = c.pos();
      std::string_view name = c.AxisName();
      if (name.empty()) c.FailExpected("a mesh axis name");
      if (mesh.AxisIndex(name)) c.Fail(name_at, fmt::format("mesh axis '{}' appears twice", name));
      c.Expect('=', fmt::format("after mesh axis '{}'", name));
      c.SkipSpace();
      size_t size_at = c.pos();
      int64_t size = c.Int("a mesh axis size");
      if (size < 1)
        c.Fail(size_at, fmt::format("mesh axis '{}' has size {}; sizes must be positive", name, size));
      if (mesh.axes.size() >= kMaxMeshAxes)
        c.Fail(name_at, fmt::format("the mesh has more than {} axes", kMaxMeshAxes));
      mesh.axes.push_back({std::string(name), size});
      sizes.push_back(size);
      if (c.Consume(',')) continue;
      c.Expect(']', "to close the mesh axes");
      break;
    }
  }
  int64_t n = 1;
  for (int64_t s : sizes) n = SatMul(n, s);
  if (IsSaturated(n)) c.Fail(at, "the mesh holds more than 2^63 devices");
  mesh.devices.dims = sizes;
  mesh.devices.iota = IotaTileAssignment{{n}, {0}};
  // `, device_ids=(...)`: the devices are not in iota order. A comma not
  // followed by device_ids belongs to the enclosing sharding.
  size_t save = c.pos();
  if (c.Consume(',') && c.ConsumeWord("device_ids")) {
    c.Expect('=', "after 'device_ids'");
    c.Expect('(', "to open the mesh device ids");
    c.SkipSpace();
    size_t ids_at = c.pos();
    if (c.Peek() == '[') {
      mesh.devices = ParseBareIotaAt(c, sizes);
    } else {
      if (n > kMaxExpandedDeviceIds)
        c.Fail(ids_at,
               fmt::format("the mesh holds {} devices, more than the limit of {}", n, kMaxExpandedDeviceIds));
      TileAssignment t;
      t.dims = sizes;
      std::vector<bool> seen(static_cast<size_t>(n), false);
      while (true) {
        c.SkipSpace();
        size_t id_at = c.pos();
        int64_t id = c.Int("a device id");
        if (id < 0 || id >= n) c.Fail(id_at, fmt::format("mesh device id {} is out of range [0, {})", id, n));
        if (seen[id]) c.Fail(id_at, fmt::format("mesh device id {} appears twice", id));
        seen[id] = true;
        t.devices.push_back(id);
        if (!c.Consume(',')) break;
      }
      if (static_cast<int64_t>(t.devices.size()) != n)
        c.Fail(ids_at, fmt::format("the mesh has {} devices but device_ids lists {}", n, t.devices.size()));
      t.iota.reset();
      mesh.devices = std::move(t);
    }
    c.Expect(')', "to close the mesh device ids");
  } else {
    c.set_pos(save);
  }
  return mesh;
}

AxisRef ParseAxisRefAt(DecodeCursor& c, const Mesh& mesh) {
  c.SkipSpace();
  size_t at = c.pos();
  AxisRef ref;
  const int64_t axes = static_cast<int64_t>(mesh.axes.size());
  if (IsDigit(c.Peek())) {
    ref.axis = c.Int("a mesh axis index");
    if (ref.axis >= axes)
      c.Fail(at, fmt::format("mesh axis index {} is out of range [0, {})", ref.axis, axes));
  } else {
    std::string_view name = c.AxisName();
    if (name.empty()) c.FailExpected("a mesh axis name");
    std::optional<int64_t> index = mesh.AxisIndex(name);
    if (!index) c.Fail(at, fmt::format("axis '{}' is not in the mesh", name));
    ref.axis = *index;
  }
  if (c.Peek() == ':') {
    c.set_pos(c.pos() + 1);
    c.Expect('(', "to open the sub-axis pre-size");
    SubAxis sub;
    sub.pre_size = c.Int("the sub-axis pre-size");
    c.Expect(')', "to close the sub-axis pre-size");
    sub.size = c.Int("the sub-axis size");
    const MeshAxis& axis = mesh.axes[ref.axis];
    int64_t span = SatMul(sub.pre_size, sub.size);
    if (sub.pre_size < 1 || sub.size < 2 || IsSaturated(span) || axis.size % span != 0 ||
        sub.size >= axis.size)
      c.Fail(at, fmt::format("sub-axis '{}':({}){} does not fit mesh axis '{}' of size {}", axis.name,
                             sub.pre_size, sub.size, axis.name, axis.size));
    ref.sub = sub;
  }
  return ref;
}

std::vector<AxisRef> ParseAxisRefListAt(DecodeCursor& c, const Mesh& mesh, bool* open) {
  c.Expect('{', "to open a list of mesh axes");
  std::vector<AxisRef> refs;
  if (c.Consume('}')) return refs;
  while (true) {
    if (open && c.Peek() == '?') {
      c.set_pos(c.pos() + 1);
      *open = true;
      c.Expect('}', "after '?' (it ends the list)");
      return refs;
    }
    refs.push_back(ParseAxisRefAt(c, mesh));
    if (c.Consume(',')) continue;
    c.Expect('}', "to close the list of mesh axes");
    return refs;
  }
}

MeshFactors SplitMesh(const Mesh& mesh, std::span<const AxisRef> refs, size_t offset, const DecodeCursor& c) {
  MeshFactors out;
  out.of_refs.resize(refs.size());
  std::vector<int64_t> owner;  // factor -> the ref using it, or -1
  for (const AxisRef& r : refs) {
    if (r.axis < 0 || r.axis >= static_cast<int64_t>(mesh.axes.size()))
      c.Fail(offset, fmt::format("mesh axis index {} is out of range [0, {})", r.axis, mesh.axes.size()));
    if (!r.sub) continue;
    const int64_t size = mesh.axes[r.axis].size;
    int64_t span = SatMul(r.sub->pre_size, r.sub->size);
    if (r.sub->pre_size < 1 || r.sub->size < 1 || IsSaturated(span) || size % span != 0)
      c.Fail(offset, fmt::format("sub-axis '{}' does not fit mesh axis '{}' of size {}",
                                 AxisRefToString(r, mesh), mesh.axes[r.axis].name, size));
  }
  // The references on each axis (linear in axes + refs, whatever the input).
  std::vector<std::vector<size_t>> on_axis(mesh.axes.size());
  for (size_t i = 0; i < refs.size(); ++i) on_axis[refs[i].axis].push_back(i);
  for (int64_t a = 0; a < static_cast<int64_t>(mesh.axes.size()); ++a) {
    const int64_t size = mesh.axes[a].size;
    std::set<int64_t> bounds = {1, size};
    for (size_t i : on_axis[a])
      if (refs[i].sub) {
        bounds.insert(refs[i].sub->pre_size);
        bounds.insert(refs[i].sub->pre_size * refs[i].sub->size);
      }
    std::vector<int64_t> b(bounds.begin(), bounds.end());
    for (size_t j = 0; j + 1 < b.size(); ++j)
      if (b[j + 1] % b[j] != 0)
        c.Fail(offset, fmt::format("sub-axes of mesh axis '{}' do not nest (boundaries {} and {})",
                                   mesh.axes[a].name, b[j], b[j + 1]));
    const int64_t first = static_cast<int64_t>(out.sizes.size());
    for (size_t j = 0; j + 1 < b.size(); ++j) {
      out.sizes.push_back(b[j + 1] / b[j]);
      AxisRef whole{a, std::nullopt};
      out.as_refs.push_back(b.size() == 2 ? whole : AxisRef{a, SubAxis{b[j], b[j + 1] / b[j]}});
      owner.push_back(-1);
    }
    for (size_t i : on_axis[a]) {
      const AxisRef& r = refs[i];
      int64_t lo = r.sub ? r.sub->pre_size : 1;
      int64_t hi = r.sub ? r.sub->pre_size * r.sub->size : size;
      for (size_t j = 0; j + 1 < b.size(); ++j) {
        if (b[j] < lo || b[j + 1] > hi) continue;
        int64_t f = first + static_cast<int64_t>(j);
        if (owner[f] >= 0)
          c.Fail(offset, fmt::format("mesh axis references overlap: '{}' and '{}'",
                                     AxisRefToString(refs[owner[f]], mesh), AxisRefToString(r, mesh)));
        owner[f] = static_cast<int64_t>(i);
        out.of_refs[i].push_back(f);
      }
    }
  }
  return out;
}

TileAssignment TransposedMeshDevices(const Mesh& mesh, const std::vector<int64_t>& factor_sizes,
                                     const std::vector<int64_t>& perm, std::vector<int64_t> dims,
                                     int64_t max_ids, size_t offset, const DecodeCursor& c) {
  TileAssignment t;
  t.dims = std::move(dims);
  if (mesh.maximal_device) {
    t.devices = {*mesh.maximal_device};
    return t;
  }
  if (PlainIota(mesh.devices)) {
    t.iota = Canonical(factor_sizes, perm);
    return t;
  }
  const int64_t n = mesh.devices.num_elements();
  if (n > max_ids)
    c.Fail(offset, fmt::format("the mesh holds {} devices, more than the limit of {}", n, max_ids));
  int64_t product = 1;
  for (int64_t f : factor_sizes) product = SatMul(product, f);
  if (product != n)
    c.Fail(offset, fmt::format("the mesh axes hold {} devices but its device order has {}", product, n));
  const size_t k = factor_sizes.size();
  std::vector<int64_t> stride(k, 1);
  for (size_t f = k; f-- > 1;) stride[f - 1] = stride[f] * factor_sizes[f];
  Result<std::vector<int64_t>> mesh_devices = mesh.devices.Devices(max_ids);
  if (!mesh_devices.ok()) c.Fail(offset, mesh_devices.error().message);
  t.devices.resize(static_cast<size_t>(n));
  for (int64_t linear = 0; linear < n; ++linear) {
    int64_t rest = linear;
    int64_t source = 0;
    for (size_t i = k; i-- > 0;) {
      int64_t f = perm[i];
      source += (rest % factor_sizes[f]) * stride[f];
      rest /= factor_sizes[f];
    }
    t.devices[linear] = (*mesh_devices)[source];
  }
  return t;
}

}  // namespace ir_internal

std::optional<int64_t> Mesh::AxisIndex(std::string_view name) const {
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i].name == name) return static_cast<int64_t>(i);
  return std::nullopt;
}

Mesh IotaMesh(std::vector<MeshAxis> axes) {
  Mesh mesh;
  int64_t n = 1;
  for (const MeshAxis& a : axes) {
    mesh.devices.dims.push_back(a.size);
    n = SatMul(n, a.size);
  }
  mesh.devices.iota = IotaTileAssignment{{n}, {0}};
  mesh.axes = std::move(axes);
  return mesh;
}

int64_t AxisRefSize(const AxisRef& ref, const Mesh& mesh) {
  if (ref.sub) return ref.sub->size;
  return ref.axis >= 0 && ref.axis < static_cast<int64_t>(mesh.axes.size()) ? mesh.axes[ref.axis].size : 1;
}

std::string AxisRefToString(const AxisRef& ref, const Mesh& mesh) {
  std::string name = ref.axis >= 0 && ref.axis < static_cast<int64_t>(mesh.axes.size())
                         ? mesh.axes[ref.axis].name
                         : std::to_string(ref.axis);
  if (ref.sub) name += fmt::format(":({}){}", ref.sub->pre_size, ref.sub->size);
  return name;
}

Result<Mesh> ParseMesh(std::string_view text) {
  ir_internal::DecodeCursor c(text);
  try {
    Mesh mesh = ir_internal::ParseMeshAt(c);
    if (!c.AtEnd()) c.FailExpected("the end of the mesh");
    return mesh;
  } catch (const ir_internal::DecodeFailure& f) {
    return ir_internal::FailureDiagnostic(text, f);
  }
}

Result<std::vector<std::vector<int64_t>>> DeviceGroupsAlongAxes(const Mesh& mesh,
                                                                std::span<const AxisRef> axes,
                                                                int64_t max_ids) {
  ir_internal::DecodeCursor c("");
  try {
    if (mesh.maximal_device) return std::vector<std::vector<int64_t>>{{*mesh.maximal_device}};
    const int64_t n = mesh.num_devices();
    if (n > max_ids)
      c.Fail(0, fmt::format("the mesh holds {} devices, more than the limit of {}", n, max_ids));
    ir_internal::MeshFactors split = ir_internal::SplitMesh(mesh, axes, 0, c);
    std::vector<bool> grouped(split.sizes.size(), false);
    std::vector<int64_t> perm;
    int64_t group_size = 1;
    for (const std::vector<int64_t>& fs : split.of_refs)
      for (int64_t f : fs) {
        grouped[f] = true;
        group_size *= split.sizes[f];
      }
    for (size_t f = 0; f < split.sizes.size(); ++f)
      if (!grouped[f]) perm.push_back(static_cast<int64_t>(f));
    for (const std::vector<int64_t>& fs : split.of_refs) perm.insert(perm.end(), fs.begin(), fs.end());
    const int64_t num_groups = n / group_size;
    TileAssignment t =
        ir_internal::TransposedMeshDevices(mesh, split.sizes, perm, {num_groups, group_size}, max_ids, 0, c);
    Result<std::vector<int64_t>> ids = t.Devices(max_ids);
    if (!ids.ok()) return ids.error();
    std::vector<std::vector<int64_t>> groups(static_cast<size_t>(num_groups));
    for (int64_t g = 0; g < num_groups; ++g)
      groups[g].assign(ids->begin() + g * group_size, ids->begin() + (g + 1) * group_size);
    return groups;
  } catch (const ir_internal::DecodeFailure& f) {
    return InputDiagnostic("", f.message);
  }
}

std::optional<std::vector<AxisRef>> MeshAxesOfGroups(std::span<const std::vector<int64_t>> groups,
                                                     const Mesh& mesh) {
  if (mesh.maximal_device) return std::nullopt;
  const int64_t n = mesh.num_devices();
  // Device id -> row-major mesh coordinate.
  std::vector<std::vector<int64_t>> coords;
  if (ir_internal::PlainIota(mesh.devices)) {
    for (const std::vector<int64_t>& g : groups)
      for (int64_t id : g)
        if (id < 0 || id >= n) return std::nullopt;
  } else {
    Result<std::vector<int64_t>> ids = mesh.devices.Devices();
    if (!ids.ok()) return std::nullopt;
    std::vector<int64_t> inverse(ids->size(), -1);
    for (size_t i = 0; i < ids->size(); ++i) {
      int64_t id = (*ids)[i];
      if (id < 0 || id >= static_cast<int64_t>(inverse.size())) return std::nullopt;
      inverse[id] = static_cast<int64_t>(i);
    }
    coords.reserve(groups.size());
    for (const std::vector<int64_t>& g : groups) {
      std::vector<int64_t>& out = coords.emplace_back();
      for (int64_t id : g) {
        if (id < 0 || id >= static_cast<int64_t>(inverse.size()) || inverse[id] < 0) return std::nullopt;
        out.push_back(inverse[id]);
      }
    }
    groups = coords;
  }
  std::optional<std::vector<DeviceIdFactor>> factors = InferDeviceIdFactors(groups);
  if (!factors) return std::nullopt;
  const int64_t rank = static_cast<int64_t>(mesh.axes.size());
  std::vector<int64_t> stride(rank, 1);
  for (int64_t a = rank; a-- > 1;) stride[a - 1] = SatMul(stride[a], mesh.axes[a].size);
  std::vector<AxisRef> out;
  for (const DeviceIdFactor& f : *factors) {
    if (f.stride <= 0) return std::nullopt;
    // The most minor axis the stride lands in.
    int64_t a = rank - 1;
    while (a >= 0 && (mesh.axes[a].size == 1 || f.stride >= SatMul(stride[a], mesh.axes[a].size))) --a;
    if (a < 0 || f.stride % stride[a] != 0) return std::nullopt;
    int64_t m = f.stride / stride[a];
    int64_t left = f.size;
    std::vector<AxisRef> minor_first;
    while (left > 1) {
      if (a < 0) return std::nullopt;
      const int64_t size = mesh.axes[a].size;
      if (size % m != 0) return std::nullopt;
      const int64_t avail = size / m;
      const int64_t take = std::min(left, avail);
      if (avail % take != 0 || left % take != 0) return std::nullopt;
      AxisRef r{a, std::nullopt};
      if (take != size) r.sub = SubAxis{size / (m * take), take};
      minor_first.push_back(r);
      left /= take;
      if (left > 1) {
        if (take != avail) return std::nullopt;  // a factor that skips part of an axis
        --a;
        while (a >= 0 && mesh.axes[a].size == 1) --a;
        m = 1;
      }
    }
    out.insert(out.end(), minor_first.rbegin(), minor_first.rend());
  }
  return out;
}

}  // namespace hloscope
