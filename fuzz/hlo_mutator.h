// A structure-aware mutator for HLO text, beside libFuzzer's byte-level
// mutations. Byte flips rarely produce a module that still parses but is
// wrong in a way the analyses must survive; these edits do: an operand
// renamed to another instruction (or to itself), a shape changed, an
// attribute deleted, a line duplicated, deleted or moved, a called
// computation replaced (call-graph cycles, fusions calling the entry), a
// trip count made huge.
#ifndef HLOSCOPE_FUZZ_HLO_MUTATOR_H_
#define HLOSCOPE_FUZZ_HLO_MUTATOR_H_

#include <cstdint>
#include <string>

namespace hloscope::fuzz {

// Applies one to three structural edits to `text`, chosen by `seed`.
// Returns false when none applied (the text has no instruction lines).
bool MutateHloText(std::string& text, uint32_t seed);

}  // namespace hloscope::fuzz

#endif  // HLOSCOPE_FUZZ_HLO_MUTATOR_H_
