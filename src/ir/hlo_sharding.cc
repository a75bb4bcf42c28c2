// Shardings (xla/hlo/ir/hlo_sharding.cc Print/TileShape/EachTile, the
// sharding parts of xla/hlo/parser/hlo_parser.cc, named_sharding.cc).
#include "hloscope/ir/hlo_sharding.h"

#include <fmt/format.h>

#include <algorithm>

#include "hloscope/support/saturating.h"
#include "ir/sharding_text.h"

namespace hloscope {

namespace {

using ir_internal::DecodeCursor;
using ir_internal::DecodeFailure;

// Past the '}' that closes the sharding being read, whatever is in between
// (text of a newer XLA this version does not know).
void SkipToClosingBrace(DecodeCursor& c) {
  std::string_view s = c.text();
  while (true) {
    if (c.AtEnd()) c.FailExpected("'}' to close the sharding");
    char p = c.Peek();
    if (p == '}') {
      c.set_pos(c.pos() + 1);
      return;
    }
    if (p == '{' || p == '[' || p == '(') {
      c.BalancedGroup();
    } else if (p == '"') {
      size_t q = c.pos() + 1;
      while (q < s.size() && s[q] != '"') q += s[q] == '\\' ? 2 : 1;
      if (q >= s.size()) c.Fail(c.pos(), "unterminated string");
      c.set_pos(q + 1);
    } else {
      c.set_pos(c.pos() + 1);
    }
  }
}

// The tiled form of a named sharding (XLA's V3ToV2Sharding).
void NamedToTiled(DecodeCursor& c, size_t at, HloSharding& s) {
  const NamedShardingText& n = *s.named;
  std::vector<AxisRef> refs;
  for (const std::vector<AxisRef>& d : n.dim_axes) refs.insert(refs.end(), d.begin(), d.end());
  const size_t manual_from = refs.size();
  refs.insert(refs.end(), n.manual_axes.begin(), n.manual_axes.end());
  const size_t unreduced_from = refs.size();
  refs.insert(refs.end(), n.unreduced_axes.begin(), n.unreduced_axes.end());
  const size_t replicated_from = refs.size();
  refs.insert(refs.end(), n.replicated_axes.begin(), n.replicated_axes.end());
  ir_internal::MeshFactors split = ir_internal::SplitMesh(n.mesh, refs, at, c);

  // Each factor's role: a data dimension, or a subgroup (manual, unreduced,
  // replicated: explicitly, or because nothing uses it).
  enum Role { kData, kManual, kUnreduced, kReplicated };
  std::vector<Role> role(split.sizes.size(), kReplicated);
  std::vector<int64_t> perm;
  std::vector<int64_t> dims;
  size_t r = 0;
  for (const std::vector<AxisRef>& d : n.dim_axes) {
    int64_t shards = 1;
    for (size_t k = 0; k < d.size(); ++k, ++r)
      for (int64_t f : split.of_refs[r]) {
        role[f] = kData;
        perm.push_back(f);
        shards *= split.sizes[f];
      }
    dims.push_back(shards);
  }
  for (size_t i = manual_from; i < unreduced_from; ++i)
    for (int64_t f : split.of_refs[i]) role[f] = kManual;
  for (size_t i = unreduced_from; i < replicated_from; ++i)
    for (int64_t f : split.of_refs[i]) role[f] = kUnreduced;
  bool data_sharded = false;
  for (int64_t d : dims) data_sharded |= d > 1;
  std::vector<SubgroupKind> kinds;
  for (Role want : {kManual, kUnreduced, kReplicated}) {
    int64_t size = 1;
    for (size_t f = 0; f < split.sizes.size(); ++f)
      if (role[f] == want) {
        perm.push_back(static_cast<int64_t>(f));
        size *= split.sizes[f];
      }
    if (size == 1) continue;
    dims.push_back(size);
    kinds.push_back(want == kManual      ? SubgroupKind::kManual
                    : want == kUnreduced ? SubgroupKind::kUnreduced
                                         : SubgroupKind::kReplicated);
  }
  // One kind of subgroup and no data tiling is that kind of sharding
  // (XLA's HloSharding::Subgroup canonicalisation).
  if (!data_sharded && kinds.size() <= 1) {
    s.kind = kinds.empty() || kinds[0] == SubgroupKind::kReplicated ? ShardingKind::kReplicated
             : kinds[0] == SubgroupKind::kManual                    ? ShardingKind::kManual
                                                                    : ShardingKind::kUnreduced;
    return;
  }
  s.kind = ShardingKind::kTiled;
  s.tile_assignment = ir_internal::TransposedMeshDevices(n.mesh, split.sizes, perm, std::move(dims),
                                                         kMaxExpandedDeviceIds, at, c);
  if (kinds.size() == 1 && kinds[0] == SubgroupKind::kReplicated)
    s.replicate_on_last_tile_dim = true;
  else
    s.last_tile_dims = std::move(kinds);
}

// After `{` and a mesh: `, replicated`, `, [dims](, key={...})*`, metadata.
void ParseNamedBody(DecodeCursor& c, size_t at, HloSharding& s) {
  s.named.emplace();
  NamedShardingText& n = *s.named;
  n.mesh = ir_internal::ParseMeshAt(c);
  auto metadata = [&] {
    if (!c.Consume('=')) c.FailExpected("'=' after 'metadata'");
    if (c.Peek() != '{') c.FailExpected("'{' after 'metadata='");
    s.metadata = c.BalancedGroup();
  };
  if (n.mesh.maximal_device) {
    s.kind = ShardingKind::kMaximal;
    s.device = *n.mesh.maximal_device;
    if (c.Consume(',')) {
      if (!c.ConsumeWord("metadata")) c.FailExpected("'metadata=' after a maximal mesh");
      metadata();
    }
    c.Expect('}', "to close the sharding");
    return;
  }
  c.Consume(',');
  std::string_view word = c.PeekWord();
  if (word == "replicated" || word == "manual" || word == "unreduced") {
    c.Word();
    s.kind = word == "replicated" ? ShardingKind::kReplicated
             : word == "manual"   ? ShardingKind::kManual
                                  : ShardingKind::kUnreduced;
    if (c.Consume(',')) {
      if (!c.ConsumeWord("metadata")) c.FailExpected("'metadata=' after the sharding kind");
      metadata();
    }
    c.Expect('}', "to close the sharding");
    return;
  }
  c.Expect('[', "to open the dimension shardings (or 'replicated', 'manual', 'unreduced')");
  if (!c.Consume(']')) {
    while (true) {
      bool open = false;
      n.dim_axes.push_back(ir_internal::ParseAxisRefListAt(c, n.mesh, &open));
      n.dim_open.push_back(open);
      if (c.Consume(',')) continue;
      c.Expect(']', "to close the dimension shardings");
      break;
    }
  }
  while (c.Consume(',')) {
    std::string_view key = c.Word();
    if (key.empty()) c.FailExpected("an attribute of the named sharding");
    if (key == "metadata") {
      metadata();
      continue;
    }
    if (!c.Consume('=')) c.FailExpected(fmt::format("'=' after '{}'", key));
    if (key == "replicated") {
      n.replicated_axes = ir_internal::ParseAxisRefListAt(c, n.mesh);
    } else if (key == "unreduced") {
      n.unreduced_axes = ir_internal::ParseAxisRefListAt(c, n.mesh);
    } else if (key == "manual") {
      n.manual_axes = ir_internal::ParseAxisRefListAt(c, n.mesh);
    } else {
      // An attribute of a newer XLA: keep the text, decode nothing.
      SkipToClosingBrace(c);
      s.kind = ShardingKind::kOther;
      return;
    }
  }
  c.Expect('}', "to close the sharding");
  NamedToTiled(c, at, s);
}

void ParseTiledBody(DecodeCursor& c, size_t at, HloSharding& s) {
  bool replicated = false, manual = false, maximal = false, unknown_kind = false, unreduced = false;
  std::optional<int64_t> device;
  std::optional<TileAssignment> tiles;
  bool last_tile_dims = false;
  while (!c.Consume('}')) {
    if (c.AtEnd()) c.FailExpected("'}' to close the sharding");
    std::string_view word = c.Word();
    if (word.empty()) c.FailExpected("a sharding keyword");
    if (word == "replicated") {
      replicated = true;
    } else if (word == "manual") {
      manual = true;
    } else if (word == "maximal") {
      maximal = true;
    } else if (word == "unknown") {
      unknown_kind = true;
    } else if (word == "unreduced") {
      unreduced = true;
    } else if (word == "last_tile_dim_replicate") {
      s.replicate_on_last_tile_dim = true;
    } else if (word == "shard_as" || word == "shard_like") {
      int64_t id = c.Int(fmt::format("a shard group id after '{}'", word));
      (word == "shard_as" ? s.shard_as : s.shard_like) = id;
    } else if (word == "device") {
      c.Expect('=', "after 'device'");
      c.SkipSpace();
      size_t id_at = c.pos();
      int64_t id = c.Int("a device id after 'device='");
      if (id < 0) c.Fail(id_at, fmt::format("device id {} is negative", id));
      device = id;
    } else if (word == "devices") {
      c.Expect('=', "after 'devices'");
      tiles = ir_internal::ParseTileAssignmentAt(c, /*allow_explicit=*/true);
    } else if (word == "metadata") {
      c.Expect('=', "after 'metadata'");
      if (c.Peek() != '{') c.FailExpected("'{' after 'metadata='");
      s.metadata = c.BalancedGroup();
    } else if (word == "last_tile_dims") {
      last_tile_dims = true;
      c.Expect('=', "after 'last_tile_dims'");
      c.Expect('{', "to open last_tile_dims");
      while (!c.Consume('}')) {
        c.SkipSpace();
        size_t kind_at = c.pos();
        std::string_view kind = c.Word();
        if (kind == "replicated")
          s.last_tile_dims.push_back(SubgroupKind::kReplicated);
        else if (kind == "manual")
          s.last_tile_dims.push_back(SubgroupKind::kManual);
        else if (kind == "unreduced")
          s.last_tile_dims.push_back(SubgroupKind::kUnreduced);
        else if (kind == "maximal" || kind == "maximul")  // older XLA's spelling
          s.last_tile_dims.push_back(SubgroupKind::kMaximal);
        else if (kind.empty())
          c.FailExpected("a subgroup kind in last_tile_dims");
        else
          c.Fail(kind_at, fmt::format("unknown subgroup kind '{}' in last_tile_dims", kind));
        if (!c.Consume(',') && c.Peek() != '}') c.FailExpected("',' or '}' in last_tile_dims");
      }
    } else {
      // A keyword of a newer XLA: keep the text, decode nothing.
      SkipToClosingBrace(c);
      s.kind = ShardingKind::kOther;
      return;
    }
  }
  const bool has_devices = device.has_value() || tiles.has_value();
  if (replicated) {
    if (has_devices) c.Fail(at, "replicated shardings should not have any devices assigned");
    s.kind = ShardingKind::kReplicated;
  } else if (maximal) {
    if (!device || tiles) c.Fail(at, "maximal shardings should have exactly one device assigned");
    s.kind = ShardingKind::kMaximal;
    s.device = *device;
  } else if (manual) {
    if (has_devices) c.Fail(at, "manual shardings should not have any devices assigned");
    s.kind = ShardingKind::kManual;
  } else if (unknown_kind) {
    if (has_devices) c.Fail(at, "unknown shardings should not have any devices assigned");
    s.kind = ShardingKind::kUnknown;
  } else if (unreduced) {
    if (has_devices) c.Fail(at, "unreduced shardings should not have any devices assigned");
    s.kind = ShardingKind::kUnreduced;
  } else {
    if (!tiles) c.Fail(at, "non-maximal shardings must have a tile assignment list including dimensions");
    if (!tiles->iota && tiles->devices.size() <= 1)
      c.Fail(at, "non-maximal shardings must have more than one device assigned");
    if (s.replicate_on_last_tile_dim && last_tile_dims)
      c.Fail(at, "last_tile_dim_replicate and last_tile_dims= cannot both be given");
    if (s.last_tile_dims.size() > tiles->dims.size() ||
        (s.replicate_on_last_tile_dim && tiles->dims.size() < 1))
      c.Fail(at, fmt::format("the tile assignment has {} dimensions, fewer than its {} subgroups",
                             tiles->dims.size(), s.last_tile_dims.size()));
    s.kind = ShardingKind::kTiled;
    s.tile_assignment = std::move(*tiles);
  }
}

HloSharding ParseShardingAt(DecodeCursor& c, bool in_tuple) {
  HloSharding s;
  c.SkipSpace();
  size_t start = c.pos();
  c.Expect('{', "to open the sharding");
  char p = c.Peek();
  if (p == '{' || p == '}') {
    if (in_tuple) c.FailExpected("a sharding keyword (tuple shardings do not nest)");
    s.kind = ShardingKind::kTuple;
    if (!c.Consume('}')) {
      while (true) {
        s.tuple_elements.push_back(ParseShardingAt(c, /*in_tuple=*/true));
        if (c.Consume(',')) continue;
        c.Expect('}', "to close the tuple sharding");
        break;
      }
    }
  } else {
    std::string_view word = c.PeekWord();
    if (word == "mesh" || word == "maximal_mesh" || word == "single_device")
      ParseNamedBody(c, start, s);
    else
      ParseTiledBody(c, start, s);
  }
  s.text = c.text().substr(start, c.pos() - start);
  return s;
}

int64_t Product(std::span<const int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) n = SatMul(n, d);
  return n;
}

Diagnostic Error(std::string message) { return InputDiagnostic("", std::move(message)); }

std::string_view KindWord(ShardingKind kind) {
  switch (kind) {
    case ShardingKind::kTuple:
      return "a tuple sharding";
    case ShardingKind::kOther:
      return "a sharding this version does not understand";
    default:
      return "this sharding";
  }
}

}  // namespace

int64_t HloSharding::SubgroupDimCount() const {
  if (kind != ShardingKind::kTiled) return 0;
  return replicate_on_last_tile_dim ? 1 : static_cast<int64_t>(last_tile_dims.size());
}

int64_t HloSharding::TiledDataRank() const {
  if (kind != ShardingKind::kTiled) return 0;
  return std::max<int64_t>(0, static_cast<int64_t>(tile_assignment.dims.size()) - SubgroupDimCount());
}

int64_t HloSharding::ReplicasPerTile() const {
  if (kind != ShardingKind::kTiled) return 0;
  const int64_t rank = static_cast<int64_t>(tile_assignment.dims.size());
  if (replicate_on_last_tile_dim) return rank > 0 ? tile_assignment.dims[rank - 1] : 1;
  int64_t n = 1;
  const int64_t first = rank - static_cast<int64_t>(last_tile_dims.size());
  for (size_t i = 0; i < last_tile_dims.size(); ++i)
    if (last_tile_dims[i] == SubgroupKind::kReplicated) n = SatMul(n, tile_assignment.dims[first + i]);
  return n;
}

Result<HloSharding> ParseHloSharding(std::string_view text) {
  DecodeCursor c(text);
  try {
    HloSharding s = ParseShardingAt(c, /*in_tuple=*/false);
    if (!c.AtEnd()) c.FailExpected("the end of the sharding");
    return s;
  } catch (const DecodeFailure& f) {
    return ir_internal::FailureDiagnostic(text, f);
  }
}

Result<std::vector<int64_t>> ShardsPerDimension(const HloSharding& s, int64_t rank) {
  if (rank < 0) return Error(fmt::format("rank {} is negative", rank));
  switch (s.kind) {
    case ShardingKind::kTuple:
    case ShardingKind::kOther:
      return Error(fmt::format("{} has no shards per dimension", KindWord(s.kind)));
    case ShardingKind::kTiled: {
      const int64_t data = s.TiledDataRank();
      if (data != rank)
        return Error(fmt::format("the sharding tiles {} dimensions, the shape has {}", data, rank));
      return std::vector<int64_t>(s.tile_assignment.dims.begin(), s.tile_assignment.dims.begin() + data);
    }
    default:
      return std::vector<int64_t>(static_cast<size_t>(rank), 1);
  }
}

Result<std::vector<int64_t>> ShardShape(const HloSharding& s, std::span<const int64_t> global_dims) {
  Result<std::vector<int64_t>> shards = ShardsPerDimension(s, static_cast<int64_t>(global_dims.size()));
  if (!shards.ok()) return shards.error();
  std::vector<int64_t> out(global_dims.size());
  for (size_t i = 0; i < global_dims.size(); ++i) {
    if (global_dims[i] < 0) return Error(fmt::format("dimension {} has unknown size", i));
    out[i] = global_dims[i] / (*shards)[i] + (global_dims[i] % (*shards)[i] != 0 ? 1 : 0);
  }
  return out;
}

Result<GlobalDimsRange> GlobalShapeRange(const HloSharding& s, std::span<const int64_t> shard_dims) {
  Result<std::vector<int64_t>> shards = ShardsPerDimension(s, static_cast<int64_t>(shard_dims.size()));
  if (!shards.ok()) return shards.error();
  GlobalDimsRange r;
  for (size_t i = 0; i < shard_dims.size(); ++i) {
    const int64_t shard = shard_dims[i];
    const int64_t n = (*shards)[i];
    if (shard < 0) return Error(fmt::format("dimension {} has unknown size", i));
    r.max.push_back(SatMul(shard, n));
    r.min.push_back(shard == 0 || n == 1 ? shard : SatAdd(SatMul(shard - 1, n), 1));
  }
  return r;
}

Result<std::vector<TileDevices>> DevicesPerTile(const HloSharding& s, int64_t max_ids) {
  if (s.kind == ShardingKind::kMaximal) return std::vector<TileDevices>{{{}, {s.device}}};
  if (s.kind != ShardingKind::kTiled)
    return Error("only tiled and maximal shardings assign tiles to devices; every device holds the rest");
  Result<std::vector<int64_t>> devices = s.tile_assignment.Devices(max_ids);
  if (!devices.ok()) return devices.error();
  const int64_t rank = s.TiledDataRank();
  std::span<const int64_t> data(s.tile_assignment.dims.data(), static_cast<size_t>(rank));
  const int64_t tiles = Product(data);
  if (SatMul(tiles, std::max<int64_t>(rank, 1)) > max_ids)
    return Error(fmt::format("the sharding has {} tiles of rank {}, more than the limit of {} ids", tiles,
                             rank, max_ids));
  const int64_t per_tile = tiles > 0 ? static_cast<int64_t>(devices->size()) / tiles : 0;
  std::vector<TileDevices> out(static_cast<size_t>(tiles));
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);
  for (int64_t t = 0; t < tiles; ++t) {
    out[t].tile_index = index;
    out[t].devices.assign(devices->begin() + t * per_tile, devices->begin() + (t + 1) * per_tile);
    for (int64_t d = rank; d-- > 0;) {
      if (++index[d] < data[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

Result<std::vector<int64_t>> TileIndexOfDevice(const HloSharding& s, int64_t device, int64_t max_ids) {
  Result<std::vector<TileDevices>> tiles = DevicesPerTile(s, max_ids);
  if (!tiles.ok()) return tiles.error();
  for (const TileDevices& t : *tiles)
    if (std::find(t.devices.begin(), t.devices.end(), device) != t.devices.end()) return t.tile_index;
  return Error(fmt::format("device {} holds no tile of this sharding", device));
}

bool IsReplicatedOnSomeAxis(const HloSharding& s) {
  switch (s.kind) {
    case ShardingKind::kReplicated:
      return true;
    case ShardingKind::kTiled:
      return s.ReplicasPerTile() > 1;
    case ShardingKind::kTuple:
      for (const HloSharding& e : s.tuple_elements)
        if (IsReplicatedOnSomeAxis(e)) return true;
      return false;
    default:
      return false;
  }
}

std::optional<std::vector<AxisRef>> ReplicatedMeshAxes(const HloSharding& s, const Mesh* mesh) {
  if (s.named) {
    const NamedShardingText& n = *s.named;
    if (n.mesh.maximal_device || s.kind == ShardingKind::kOther) return std::vector<AxisRef>{};
    if (s.kind == ShardingKind::kManual || s.kind == ShardingKind::kUnreduced) return std::vector<AxisRef>{};
    std::vector<AxisRef> used;
    for (const std::vector<AxisRef>& d : n.dim_axes) used.insert(used.end(), d.begin(), d.end());
    used.insert(used.end(), n.manual_axes.begin(), n.manual_axes.end());
    used.insert(used.end(), n.unreduced_axes.begin(), n.unreduced_axes.end());
    DecodeCursor c("");
    try {
      ir_internal::MeshFactors split = ir_internal::SplitMesh(n.mesh, used, 0, c);
      std::vector<bool> taken(split.sizes.size(), false);
      for (const std::vector<int64_t>& fs : split.of_refs)
        for (int64_t f : fs) taken[f] = true;
      std::vector<AxisRef> out;
      for (size_t f = 0; f < split.sizes.size(); ++f)
        if (!taken[f]) out.push_back(split.as_refs[f]);
      return out;
    } catch (const DecodeFailure&) {
      return std::nullopt;
    }
  }
  if (s.kind == ShardingKind::kMaximal) return std::vector<AxisRef>{};
  if (!mesh) return std::nullopt;
  if (s.kind == ShardingKind::kReplicated) {
    std::vector<AxisRef> all;
    for (size_t a = 0; a < mesh->axes.size(); ++a)
      if (mesh->axes[a].size > 1) all.push_back({static_cast<int64_t>(a), std::nullopt});
    return all;
  }
  if (s.kind != ShardingKind::kTiled) return std::nullopt;
  const bool last_is_replicated =
      s.replicate_on_last_tile_dim ||
      (!s.last_tile_dims.empty() && s.last_tile_dims.back() == SubgroupKind::kReplicated);
  if (!last_is_replicated) return std::vector<AxisRef>{};
  Result<std::vector<int64_t>> devices = s.tile_assignment.Devices();
  if (!devices.ok() || s.tile_assignment.dims.empty()) return std::nullopt;
  const int64_t size = s.tile_assignment.dims.back();
  std::vector<std::vector<int64_t>> groups;
  for (size_t i = 0; i + size <= devices->size(); i += size)
    groups.emplace_back(devices->begin() + i, devices->begin() + i + size);
  return MeshAxesOfGroups(groups, *mesh);
}

const HloSharding* LeafSharding(const HloSharding& s, int64_t leaf) {
  if (leaf < 0) return nullptr;
  if (s.kind != ShardingKind::kTuple) return &s;
  return leaf < static_cast<int64_t>(s.tuple_elements.size()) ? &s.tuple_elements[leaf] : nullptr;
}

}  // namespace hloscope
