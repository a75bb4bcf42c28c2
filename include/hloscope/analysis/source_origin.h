// Whose code a finding comes from: the user's, or a library's internals.
//
// JAX attributes each instruction to the innermost frame that is the
// user's (source_map.h), so most findings land on a user line even when
// they are made deep inside a library. Two kinds are still a library's
// doing, with hints a user cannot act on: findings whose only location is
// library code (site-packages, jax/_src — old JAX without stack frames, or
// a program whose every frame is a library's), and findings inside one of
// JAX's private jitted helpers (`jit(_threefry_split)`, `jit(_normal)`: the
// jax.random internals that fill reports with 12-byte RNG-state copies).
// The HTML report and SARIF collapse them under their own heading.
#ifndef HLOSCOPE_ANALYSIS_SOURCE_ORIGIN_H_
#define HLOSCOPE_ANALYSIS_SOURCE_ORIGIN_H_

#include <optional>
#include <string>

#include "hloscope/analysis/source_map.h"

namespace hloscope {

struct SourceOrigin {
  bool library = false;
  // What the library is, for a heading: "jit(_threefry_split)", or the
  // file's package directory ("optax/_src/alias.py"); empty for user code.
  std::string library_part;
};

SourceOrigin OriginOf(const std::optional<SourceLocation>& source, const SourceOptions& options = {});

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_SOURCE_ORIGIN_H_
