// Diff groups: one side of `hloscope diff` — a check document's findings
// grouped by identity (check_diff.h explains the identities). Internal to
// the diff analysis. The keys are structs, never strings to be parsed.
#ifndef HLOSCOPE_SRC_ANALYSIS_DIFF_GROUPS_H_
#define HLOSCOPE_SRC_ANALYSIS_DIFF_GROUPS_H_

#include <string>
#include <tuple>
#include <vector>

#include "hloscope/analysis/check_diff.h"

namespace hloscope::diff_internal {

struct SourceFacts {
  std::string text, function, op_name;
  std::string scope;  // op_name without jit(NAME)/ and JAX's call wrappers
};

// What a finding is matched by: its kind and what it is (kind-specific
// fields, compared as a tuple), then where it comes from, with as much of the
// location as the matching pass uses.
struct GroupKey {
  DiffKind kind = DiffKind::kCopy;
  // What it is: the copy kind, cause and shape pattern; the opcode and
  // fused; the kernel kind, opcode set and pattern; the parameter number;
  // the carry number (kCarry).
  std::string what_a, what_b, what_c;
  bool flag = false;
  int64_t number = -1;
  size_t depth = 0;
  // Where: the source text, the function, the op_name or its scope path.
  std::string where_a, where_b;

  auto Tied() const { return std::tie(kind, what_a, what_b, what_c, flag, number, depth, where_a, where_b); }
  bool operator<(const GroupKey& o) const { return Tied() < o.Tied(); }
  bool operator==(const GroupKey& o) const { return Tied() == o.Tied(); }
};

struct Group {
  // exact: with the line; loose: the line left out (it moved), by function;
  // scope: by the op_name's scope path (a renamed function, another JAX);
  // fallback: what it is and where it runs (another JAX attributing it to
  // another line), matched in order.
  GroupKey exact, loose, scope, fallback;
  DiffIdentity what;
  SourceFacts source;
  DiffSide side;
  bool matched = false;
};

// Every finding of one module, grouped.
std::vector<Group> GroupFindings(const DocModule& module, const FindingFilter& filter);

}  // namespace hloscope::diff_internal

#endif  // HLOSCOPE_SRC_ANALYSIS_DIFF_GROUPS_H_
