// Gate: the closed set of gates a finding can break, and a set of them —
// apart from the policy (policy.h) that classifies findings and decides
// what fails, so that a finding's header (finding_header.h) can name its
// gate without the policy.
#ifndef HLOSCOPE_ANALYSIS_GATE_H_
#define HLOSCOPE_ANALYSIS_GATE_H_

#include <cstdint>
#include <initializer_list>

namespace hloscope {

enum class Gate : uint8_t {
  kCopiesInLoops,
  kNotInPlace,
  kFullRewrites,
  kReshardsInLoops,
  kUndonated,
  kContradictions,
  // A copy inside a loop under kSmallLoopCopyBytes (policy.h) that does not
  // grow with buffer size: a loop-state slot copied every iteration (a
  // counter vector, a key, a small carry). Strict only.
  kSmallCopiesInLoops,
  // `diff` only: B against A.
  kNewCopies,              // an array copy only in B, or more of one
  kNewNotInPlace,          // an update not in place in B that was in place in A
  kMoreBytesPerIteration,  // a loop copies or rewrites more per iteration in B
  kMorePeakBytes,          // B needs more memory per device than A
};

// A set of gates.
class GateSet {
 public:
  constexpr GateSet() = default;
  constexpr GateSet(std::initializer_list<Gate> gates) {
    for (Gate g : gates) Add(g);
  }
  constexpr void Add(Gate g) { bits_ |= Bit(g); }
  constexpr void Add(GateSet s) { bits_ |= s.bits_; }
  constexpr bool Has(Gate g) const { return bits_ & Bit(g); }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr bool operator==(const GateSet&) const = default;

 private:
  static constexpr uint32_t Bit(Gate g) { return 1u << static_cast<unsigned>(g); }
  uint32_t bits_ = 0;
};

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_GATE_H_
