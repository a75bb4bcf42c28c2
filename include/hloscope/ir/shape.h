// Shape: the type of an HLO value. Arrays (`f32[8,128]{1,0}`), tuples
// (`(f32[], s32[4]{0})`), tokens, opaque handles and buffer shapes `b(...)`.
//
// Shapes are interned per module: every distinct shape text is parsed once
// and instructions point at the shared, immutable Shape (HloModule owns them).
#ifndef HLOSCOPE_IR_SHAPE_H_
#define HLOSCOPE_IR_SHAPE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hloscope/ir/layout.h"
#include "hloscope/ir/primitive_type.h"

namespace hloscope {

// Path to a subshape of a tuple: {} is the whole value, {1,0} element 0 of
// element 1. Printed like XLA's ShapeIndex::ToString.
using ShapeIndex = std::vector<int64_t>;
std::string ShapeIndexToString(const ShapeIndex& index);

enum class DimensionKind : uint8_t {
  kStatic,
  kBounded,    // "<=N": dynamic, at most N
  kUnbounded,  // "?"
};

class Shape {
 public:
  PrimitiveType element_type = PrimitiveType::kInvalid;
  std::string type_name;                       // spelling; differs for kUnknown
  std::vector<int64_t> dimensions;             // bound for <=N, -1 for ?
  std::vector<DimensionKind> dimension_kinds;  // empty when all static
  std::optional<Layout> layout;
  std::vector<const Shape*> tuple_shapes;  // interned elements
  bool is_buffer = false;                  // b(...) wraps tuple_shapes[0]

  bool IsTuple() const { return element_type == PrimitiveType::kTuple; }
  bool IsArray() const {
    return !IsTuple() && !is_buffer && element_type != PrimitiveType::kToken &&
           element_type != PrimitiveType::kOpaque;
  }
  bool IsDynamic() const;
  int64_t rank() const { return static_cast<int64_t>(dimensions.size()); }
  // Product of dimensions (bounds for <=N); nullopt for unbounded or overflow.
  std::optional<int64_t> ElementCount() const;
  // Subshape at `index`; nullptr if the index does not exist.
  const Shape* Subshape(const ShapeIndex& index) const;
  // Number of array leaves (a tuple of tuples counts its leaves).
  int64_t LeafCount() const;

  // "f32[8,128]{1,0}" (or without the layout).
  std::string ToString(bool print_layout = true) const;
};

struct ByteSizeOptions {
  int pointer_size = 8;
};

// Bytes of one buffer of this shape, as xla::ShapeUtil::ByteSizeOf: arrays
// elements × byte width (E(n) packs bits), tuples only their index table
// (pointer_size × elements), token 0, opaque pointer_size, b(...) its inner
// array. A tiled layout (`T(8,128)`) counts its padded elements
// (TiledElementCount), as the buffer assignment does on TPU. nullopt when
// unknowable (unknown type, unbounded dimension).
std::optional<int64_t> ByteSizeOf(const Shape& shape, const ByteSizeOptions& options = {});
// The elements a tiled array stores: its dimensions padded to whole tiles of
// the layout's first tile (xla::ShapeUtil::ArraySize). `elements` when the
// layout has no usable tile; nullopt on overflow. Requires shape.layout.
std::optional<int64_t> TiledElementCount(const Shape& shape, int64_t elements);
// Sum of ByteSizeOf over all array leaves, plus tuple index tables.
std::optional<int64_t> TotalByteSizeOf(const Shape& shape, const ByteSizeOptions& options = {});
// Sum of ByteSizeOf over all leaves, without tuple index tables: what a user
// means by "how big are my arguments".
std::optional<int64_t> LeafByteSizeOf(const Shape& shape, const ByteSizeOptions& options = {});

// True when both shapes have equal type, dimensions and physical layout.
bool ShapesEqualWithLayout(const Shape& a, const Shape& b);
// True when both are arrays of the same type and dimensions (layout ignored).
bool ShapesCompatible(const Shape& a, const Shape& b);

}  // namespace hloscope

#endif  // HLOSCOPE_IR_SHAPE_H_
