// Tile assignments (xla/hlo/ir/tile_assignment.cc): decoding, one device at
// a time, bounded expansion; device-id factors of groups.
#include "hloscope/ir/tile_assignment.h"

#include <fmt/format.h>

#include <algorithm>

#include "hloscope/support/saturating.h"
#include "ir/sharding_text.h"

namespace hloscope {

namespace ir_internal {

namespace {

// `[a,b,...]` of positive integers (non-empty), each checked.
std::vector<int64_t> PositiveList(DecodeCursor& c, std::string_view what) {
  c.Expect('[', fmt::format("to open the {}", what));
  std::vector<int64_t> dims;
  while (true) {
    c.SkipSpace();
    size_t at = c.pos();
    int64_t d = c.Int(fmt::format("an integer in the {}", what));
    if (d < 1) c.Fail(at, fmt::format("{} {} is not positive", what, d));
    dims.push_back(d);
    if (c.Consume(',')) continue;
    c.Expect(']', fmt::format("to close the {}", what));
    return dims;
  }
}

int64_t CheckedProduct(DecodeCursor& c, size_t at, std::span<const int64_t> dims, std::string_view what) {
  int64_t n = 1;
  for (int64_t d : dims) n = SatMul(n, d);
  if (IsSaturated(n)) c.Fail(at, fmt::format("the {} hold more than 2^63 devices", what));
  return n;
}

}  // namespace

TileAssignment ParseBareIotaAt(DecodeCursor& c, std::vector<int64_t> dims) {
  TileAssignment t;
  t.dims = std::move(dims);
  c.SkipSpace();
  size_t at = c.pos();
  IotaTileAssignment iota;
  iota.reshape_dims = PositiveList(c, "iota reshape dimensions");
  int64_t n = static_cast<int64_t>(iota.reshape_dims.size());
  if (c.Peek() == 'T') {
    c.set_pos(c.pos() + 1);
    size_t perm_at = c.pos();
    c.Expect('(', "after 'T' to open the iota transpose permutation");
    std::vector<bool> seen(iota.reshape_dims.size(), false);
    while (true) {
      c.SkipSpace();
      size_t p_at = c.pos();
      int64_t p = c.Int("an integer in the iota transpose permutation");
      if (p < 0 || p >= n)
        c.Fail(p_at, fmt::format("iota transpose dimension {} is out of range [0, {})", p, n));
      if (seen[p]) c.Fail(p_at, fmt::format("iota transpose dimension {} appears twice", p));
      seen[p] = true;
      iota.transpose_perm.push_back(p);
      if (c.Consume(',')) continue;
      c.Expect(')', "to close the iota transpose permutation");
      break;
    }
    if (static_cast<int64_t>(iota.transpose_perm.size()) != n)
      c.Fail(perm_at, fmt::format("the iota transpose permutation has {} dimensions, the reshape {}",
                                  iota.transpose_perm.size(), n));
  } else {
    // XLA prints T(...) only for more than one reshape dimension; a missing
    // one means no transpose.
    for (int64_t i = 0; i < n; ++i) iota.transpose_perm.push_back(i);
  }
  int64_t total = CheckedProduct(c, at, t.dims, "tile assignment dimensions");
  int64_t reshape_total = CheckedProduct(c, at, iota.reshape_dims, "iota reshape dimensions");
  if (total != reshape_total)
    c.Fail(at, fmt::format("the iota has {} devices but the tile assignment dimensions need {}",
                           reshape_total, total));
  t.iota = std::move(iota);
  return t;
}

TileAssignment ParseTileAssignmentAt(DecodeCursor& c, bool allow_explicit) {
  c.SkipSpace();
  size_t at = c.pos();
  std::vector<int64_t> dims = PositiveList(c, "tile assignment dimensions");
  int64_t total = CheckedProduct(c, at, dims, "tile assignment dimensions");
  c.SkipSpace();
  if (c.text().substr(c.pos(), 2) == "<=") {
    c.set_pos(c.pos() + 2);
    return ParseBareIotaAt(c, std::move(dims));
  }
  if (!allow_explicit) c.FailExpected("'<=' after the iota dimensions");
  TileAssignment t;
  t.dims = std::move(dims);
  std::string_view s = c.text();
  while (true) {
    c.SkipSpace();
    size_t id_at = c.pos();
    int64_t id = c.Int("a device id");
    if (id < 0) c.Fail(id_at, fmt::format("device id {} is negative", id));
    t.devices.push_back(id);
    // Ids are joined by bare commas; a comma followed by anything else ends
    // the list (the next tuple element of a sharding).
    size_t k = c.pos();
    if (k < s.size() && s[k] == ',') {
      size_t j = k + 1;
      while (j < s.size() && (s[j] == ' ' || s[j] == '\t')) ++j;
      if (j < s.size() && ((s[j] >= '0' && s[j] <= '9') || s[j] == '-')) {
        c.set_pos(k + 1);
        continue;
      }
    }
    break;
  }
  if (static_cast<int64_t>(t.devices.size()) != total)
    c.Fail(at, fmt::format("the tile assignment [{}] needs {} device ids, found {}", fmt::join(t.dims, ","),
                           total, t.devices.size()));
  return t;
}

}  // namespace ir_internal

namespace {

// Row-major strides of the iota's reshape dims, for DeviceAt.
struct IotaIndexer {
  const IotaTileAssignment& iota;
  std::vector<int64_t> strides;

  explicit IotaIndexer(const IotaTileAssignment& i) : iota(i), strides(i.reshape_dims.size(), 1) {
    for (size_t d = strides.size(); d-- > 1;) strides[d - 1] = strides[d] * iota.reshape_dims[d];
  }
  // xla::IotaTileAssignment::value_at: the linear index read in the
  // transposed order, written back in the reshape order.
  int64_t At(int64_t linear) const {
    int64_t value = 0;
    for (size_t i = iota.transpose_perm.size(); i-- > 0;) {
      int64_t d = iota.transpose_perm[i];
      int64_t size = iota.reshape_dims[d];
      value += (linear % size) * strides[d];
      linear /= size;
    }
    return value;
  }
};

Diagnostic PlainError(std::string message) { return InputDiagnostic("", std::move(message)); }

}  // namespace

int64_t TileAssignment::num_elements() const {
  int64_t n = 1;
  for (int64_t d : dims) n = SatMul(n, d);
  return n;
}

int64_t TileAssignment::DeviceAt(int64_t linear) const {
  if (!iota) return linear >= 0 && linear < static_cast<int64_t>(devices.size()) ? devices[linear] : -1;
  return IotaIndexer(*iota).At(linear);
}

int64_t TileAssignment::DeviceAt(std::span<const int64_t> index) const {
  int64_t linear = 0;
  for (size_t i = 0; i < dims.size() && i < index.size(); ++i) linear = linear * dims[i] + index[i];
  return DeviceAt(linear);
}

Result<std::vector<int64_t>> TileAssignment::Devices(int64_t max_ids) const {
  int64_t n = num_elements();
  if (n > max_ids)
    return PlainError(
        fmt::format("the tile assignment holds {} devices, more than the limit of {}", n, max_ids));
  if (!iota) return devices;
  std::vector<int64_t> out(static_cast<size_t>(n));
  IotaIndexer indexer(*iota);
  for (int64_t i = 0; i < n; ++i) out[i] = indexer.At(i);
  return out;
}

Result<TileAssignment> ParseTileAssignment(std::string_view text) {
  ir_internal::DecodeCursor c(text);
  try {
    TileAssignment t = ir_internal::ParseTileAssignmentAt(c, /*allow_explicit=*/true);
    if (!c.AtEnd()) c.FailExpected("the end of the tile assignment");
    return t;
  } catch (const ir_internal::DecodeFailure& f) {
    return ir_internal::FailureDiagnostic(text, f);
  }
}

std::string TileAssignmentToString(const TileAssignment& t) {
  std::string out = fmt::format("[{}]", fmt::join(t.dims, ","));
  if (!t.iota) return out + fmt::format("{}", fmt::join(t.devices, ","));
  out += fmt::format("<=[{}]", fmt::join(t.iota->reshape_dims, ","));
  if (t.iota->reshape_dims.size() > 1) out += fmt::format("T({})", fmt::join(t.iota->transpose_perm, ","));
  return out;
}

std::optional<std::vector<DeviceIdFactor>> InferDeviceIdFactors(
    std::span<const std::vector<int64_t>> groups) {
  if (groups.empty() || groups[0].empty()) return std::nullopt;
  const std::vector<int64_t>& g0 = groups[0];
  const int64_t s = static_cast<int64_t>(g0.size());
  std::vector<int64_t> off(g0.size());
  for (int64_t k = 0; k < s; ++k)
    if (__builtin_sub_overflow(g0[k], g0[0], &off[k])) return std::nullopt;
  std::vector<DeviceIdFactor> minor_first;
  int64_t block = 1;
  while (block < s) {
    const int64_t d = off[block];
    if (d == 0) return std::nullopt;  // a device twice
    // Blocks a = 1, 2, ... that repeat block 0 shifted by a*d.
    int64_t n = 1;
    for (int64_t a = 1; a * block < s; ++a) {
      int64_t shift;
      if (__builtin_mul_overflow(a, d, &shift)) break;
      bool same = true;
      for (int64_t b = 0; b < block && same; ++b) {
        int64_t want;
        same = !__builtin_add_overflow(shift, off[b], &want) && off[a * block + b] == want;
      }
      if (!same) break;
      n = a + 1;
    }
    // The largest run that divides what is left.
    const int64_t rest = s / block;
    while (n > 1 && rest % n != 0) --n;
    if (n < 2) return std::nullopt;
    minor_first.push_back({d, n});
    block *= n;
  }
  if (block != s) return std::nullopt;
  for (const std::vector<int64_t>& g : groups) {
    if (static_cast<int64_t>(g.size()) != s) return std::nullopt;
    for (int64_t k = 0; k < s; ++k) {
      int64_t o;
      if (__builtin_sub_overflow(g[k], g[0], &o) || o != off[k]) return std::nullopt;
    }
  }
  return std::vector<DeviceIdFactor>(minor_first.rbegin(), minor_first.rend());
}

}  // namespace hloscope
