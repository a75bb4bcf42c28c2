#include "hloscope/ir/shape.h"

#include <fmt/format.h>

#include <charconv>

namespace hloscope {

std::string ShapeIndexToString(const ShapeIndex& index) {
  return fmt::format("{{{}}}", fmt::join(index, ","));
}

bool Shape::IsDynamic() const {
  for (DimensionKind k : dimension_kinds)
    if (k != DimensionKind::kStatic) return true;
  return false;
}

std::optional<int64_t> Shape::ElementCount() const {
  int64_t n = 1;
  for (size_t i = 0; i < dimensions.size(); ++i) {
    if (!dimension_kinds.empty() && dimension_kinds[i] == DimensionKind::kUnbounded) return std::nullopt;
    int64_t d = dimensions[i];
    if (d < 0) return std::nullopt;
    if (d != 0 && n > INT64_MAX / d) return std::nullopt;
    n *= d;
  }
  return n;
}

const Shape* Shape::Subshape(const ShapeIndex& index) const {
  const Shape* s = this;
  for (int64_t i : index) {
    if (!s->IsTuple() || i < 0 || i >= static_cast<int64_t>(s->tuple_shapes.size())) return nullptr;
    s = s->tuple_shapes[i];
  }
  return s;
}

int64_t Shape::LeafCount() const {
  if (!IsTuple()) return 1;
  int64_t n = 0;
  for (const Shape* e : tuple_shapes) n += e->LeafCount();
  return n;
}

std::string Shape::ToString(bool print_layout) const {
  if (IsTuple()) {
    std::string out = "(";
    for (size_t i = 0; i < tuple_shapes.size(); ++i) {
      if (i) out += ", ";
      out += tuple_shapes[i]->ToString(print_layout);
    }
    return out + ")";
  }
  if (is_buffer)
    return "b(" + (tuple_shapes.empty() ? std::string() : tuple_shapes[0]->ToString(print_layout)) + ")";
  std::string out = type_name;
  out += '[';
  for (size_t i = 0; i < dimensions.size(); ++i) {
    if (i) out += ',';
    DimensionKind k = dimension_kinds.empty() ? DimensionKind::kStatic : dimension_kinds[i];
    if (k == DimensionKind::kUnbounded) {
      out += '?';
      continue;
    }
    if (k == DimensionKind::kBounded) out += "<=";
    out += std::to_string(dimensions[i]);
  }
  out += ']';
  if (print_layout && layout) out += "{" + layout->raw + "}";
  return out;
}

namespace {

// The first tile of "(8,128)(2,1)": (8, 128). Empty when it has a combined
// (`*`) or unreadable dimension, which then pads nothing.
std::vector<int64_t> FirstTile(std::string_view tiles) {
  std::vector<int64_t> dims;
  if (tiles.empty() || tiles[0] != '(') return dims;
  size_t end = tiles.find(')');
  if (end == std::string_view::npos) return dims;
  std::string_view body = tiles.substr(1, end - 1);
  while (!body.empty()) {
    size_t comma = body.find(',');
    std::string_view part = body.substr(0, comma);
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (ec != std::errc() || ptr != part.data() + part.size() || v <= 0 || v > (int64_t{1} << 30)) return {};
    dims.push_back(v);
    if (comma == std::string_view::npos) break;
    body.remove_prefix(comma + 1);
  }
  return dims;
}

}  // namespace

// Tiled layouts (TPU's `T(8,128)`) store whole tiles: the tile covers the
// most-minor physical dimensions (those beyond the rank count as 1) and each
// is padded up to a multiple of its tile dimension, as
// xla::ShapeUtil::ArraySize does. The buffer-assignment dump's sizes are
// these: `f32[100]{0:T(128)}` is 512 bytes, a TPU scalar `f32[]{:T(128)}` too.
// Later tiles subdivide the first and add nothing.
std::optional<int64_t> TiledElementCount(const Shape& shape, int64_t elements) {
  std::vector<int64_t> tile = FirstTile(shape.layout->tiles);
  if (tile.empty()) return elements;
  const std::vector<int64_t>& m2m = shape.layout->minor_to_major;
  size_t rank = shape.dimensions.size();
  if (m2m.size() != rank) return elements;
  // Physical dimensions, major to minor.
  std::vector<int64_t> physical(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t d = m2m[rank - 1 - i];
    if (d < 0 || static_cast<size_t>(d) >= rank) return elements;
    physical[i] = shape.dimensions[d];
  }
  size_t k = tile.size();
  std::vector<int64_t> padded = physical;
  if (k > rank) padded.insert(padded.begin(), k - rank, 1);
  for (size_t j = 0; j < k; ++j) {
    int64_t& d = padded[padded.size() - k + j];
    int64_t t = tile[j];
    if (d > INT64_MAX - t) return std::nullopt;
    d = (d + t - 1) / t * t;
  }
  int64_t n = 1;
  for (int64_t d : padded) {
    if (d != 0 && n > INT64_MAX / d) return std::nullopt;
    n *= d;
  }
  return n;
}

std::optional<int64_t> ByteSizeOf(const Shape& shape, const ByteSizeOptions& options) {
  if (shape.IsTuple()) return options.pointer_size * static_cast<int64_t>(shape.tuple_shapes.size());
  if (shape.is_buffer)
    return shape.tuple_shapes.empty() ? std::nullopt : ByteSizeOf(*shape.tuple_shapes[0], options);
  if (shape.element_type == PrimitiveType::kToken) return 0;
  if (shape.element_type == PrimitiveType::kOpaque) return options.pointer_size;
  std::optional<int64_t> elements = shape.ElementCount();
  if (!elements) return std::nullopt;
  if (shape.layout && !shape.layout->tiles.empty()) elements = TiledElementCount(shape, *elements);
  if (!elements) return std::nullopt;
  int64_t packed_bits = shape.layout ? shape.layout->element_size_in_bits : 0;
  if (packed_bits > 0) {
    // ceil(elements * bits / 8) without overflowing on absurd E(n).
    int64_t q = *elements / 8, r = *elements % 8;
    if (packed_bits > INT64_MAX / 8 || q > INT64_MAX / packed_bits) return std::nullopt;
    int64_t whole = q * packed_bits;
    int64_t rest = (r * packed_bits + 7) / 8;
    if (whole > INT64_MAX - rest) return std::nullopt;
    return whole + rest;
  }
  std::optional<int> width = ByteWidth(shape.element_type);
  if (!width && shape.element_type == PrimitiveType::kUnknown) {
    std::optional<int> bits = GuessBitWidthFromName(shape.type_name);
    if (bits) width = (*bits + 7) / 8;
  }
  if (!width) return std::nullopt;
  if (*elements > INT64_MAX / *width) return std::nullopt;
  return *elements * *width;
}

namespace {
std::optional<int64_t> SumByteSizes(const Shape& shape, const ByteSizeOptions& options, bool index_tables) {
  if (!shape.IsTuple()) return ByteSizeOf(shape, options);
  int64_t total = index_tables ? options.pointer_size * static_cast<int64_t>(shape.tuple_shapes.size()) : 0;
  for (const Shape* e : shape.tuple_shapes) {
    std::optional<int64_t> b = SumByteSizes(*e, options, index_tables);
    if (!b || *b > INT64_MAX - total) return std::nullopt;
    total += *b;
  }
  return total;
}
}  // namespace

std::optional<int64_t> TotalByteSizeOf(const Shape& shape, const ByteSizeOptions& options) {
  return SumByteSizes(shape, options, /*index_tables=*/true);
}

std::optional<int64_t> LeafByteSizeOf(const Shape& shape, const ByteSizeOptions& options) {
  return SumByteSizes(shape, options, /*index_tables=*/false);
}

bool ShapesCompatible(const Shape& a, const Shape& b) {
  if (a.IsTuple() || b.IsTuple()) {
    if (!a.IsTuple() || !b.IsTuple() || a.tuple_shapes.size() != b.tuple_shapes.size()) return false;
    for (size_t i = 0; i < a.tuple_shapes.size(); ++i)
      if (!ShapesCompatible(*a.tuple_shapes[i], *b.tuple_shapes[i])) return false;
    return true;
  }
  return a.type_name == b.type_name && a.dimensions == b.dimensions;
}

bool ShapesEqualWithLayout(const Shape& a, const Shape& b) {
  if (!ShapesCompatible(a, b)) return false;
  if (a.IsTuple()) {
    for (size_t i = 0; i < a.tuple_shapes.size(); ++i)
      if (!ShapesEqualWithLayout(*a.tuple_shapes[i], *b.tuple_shapes[i])) return false;
    return true;
  }
  if (a.layout.has_value() != b.layout.has_value()) {
    // A missing layout means the default (major-to-minor) one.
    const Shape& with = a.layout ? a : b;
    const Layout& l = *with.layout;
    if (!l.tiles.empty() || l.element_size_in_bits || l.memory_space) return false;
    for (size_t i = 0; i < l.minor_to_major.size(); ++i)
      if (l.minor_to_major[i] != static_cast<int64_t>(l.minor_to_major.size() - 1 - i)) return false;
    return true;
  }
  return !a.layout || a.layout->SameLayoutAs(*b.layout);
}

}  // namespace hloscope
