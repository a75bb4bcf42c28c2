// Layout of an array shape, as printed after the dimensions:
//   {1,0}                    minor_to_major
//   {1,0:T(8,128)(2,1)}      with tiles
//   {0:T(4)E(4)S(1)}         packed 4-bit elements in memory space 1
// Sub-attributes hloscope does not interpret (L, #, *, SC, P, M, D) are kept
// verbatim in `raw` so printing gives back what was read.
#ifndef HLOSCOPE_IR_LAYOUT_H_
#define HLOSCOPE_IR_LAYOUT_H_

#include <cstdint>
#include <string>
#include <vector>

namespace hloscope {

struct Layout {
  std::vector<int64_t> minor_to_major;
  std::string tiles;                 // "(8,128)(2,1)" without the T, or empty
  int64_t element_size_in_bits = 0;  // E(n); 0 = natural width
  int64_t memory_space = 0;          // S(n); 0 = default memory
  std::string raw;                   // text between the braces, verbatim

  // Physical equality for copy classification: same order, tiling, element
  // size and memory space.
  bool SameLayoutAs(const Layout& other) const {
    return minor_to_major == other.minor_to_major && tiles == other.tiles &&
           element_size_in_bits == other.element_size_in_bits && memory_space == other.memory_space;
  }
};

}  // namespace hloscope

#endif  // HLOSCOPE_IR_LAYOUT_H_
