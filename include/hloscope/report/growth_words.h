// What grows with buffer size, in words: the loops whose copies, full
// rewrites, whole reads or collectives of their buffer grow with it
// (LoopScaling::grows_with_buffer), the one that moves the most per call,
// why, and what bounds it.
#ifndef HLOSCOPE_REPORT_GROWTH_WORDS_H_
#define HLOSCOPE_REPORT_GROWTH_WORDS_H_

#include <string>

#include "hloscope/analysis/findings.h"

namespace hloscope {

// What grows with buffer size and moves the most per call — a loop's copy,
// full rewrite, whole read or collective — with why and what bounds it;
// empty when no loop grows with its buffer.
std::string GrowthLine(const ModuleCheck& module);
// A loop's entries that grow with its buffer, the largest first ("dot reads
// carry 1 (...) whole every iteration (and 1 more growing with it), 64.0
// MiB per call together"); empty when none grows.
std::string LoopGrowthText(const LoopFinding& loop);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_GROWTH_WORDS_H_
