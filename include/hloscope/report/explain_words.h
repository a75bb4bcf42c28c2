// Plain words for what HLO text says, for `hloscope explain`: what an
// opcode does, how to read a shape and its layout, what a fusion kind
// means, what an op_name tells about the user's code.
#ifndef HLOSCOPE_REPORT_EXPLAIN_WORDS_H_
#define HLOSCOPE_REPORT_EXPLAIN_WORDS_H_

#include <string>
#include <string_view>
#include <vector>

#include "hloscope/ir/shape.h"

namespace hloscope {

// One plain-language sentence for an opcode ("dynamic-update-slice" ->
// "writes a smaller array (the update) into ..."); empty when unknown.
std::string_view DescribeOpcode(std::string_view opcode);

// How to read a shape: element type and count, bytes, and each part of the
// layout ({1,0} minor-to-major order, T(8,128) tiles, E(4) element bits,
// S(1) memory space). One sentence per line.
std::vector<std::string> DescribeShape(const Shape& shape);

// What a fusion kind means ("kLoop": ...); backend_kind refines kCustom.
std::string DescribeFusionKind(std::string_view kind, std::string_view backend_kind = "");

// What an op_name says: the jitted function, the user's named scopes, the
// JAX transformations around them, and the primitive.
std::vector<std::string> DescribeOpName(std::string_view op_name);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_EXPLAIN_WORDS_H_
