// The regression gate of `diff` (declared in analysis/policy.h): the same
// classification as a live check's (CopyGate, UpdateGate, RewriteGate), on
// the facts of B's matched findings.
#include "hloscope/analysis/check_diff.h"
#include "hloscope/analysis/policy.h"
#include "hloscope/support/saturating.h"

namespace hloscope {
namespace {

FindingFacts FactsOf(const DiffItem& it, const DiffSide& s) {
  return {s.scalar || it.what.scalar_copies, s.library, s.in_loop, s.bytes_per_call};
}

Violation::Kind KindOf(Gate g) {
  switch (g) {
    case Gate::kCopiesInLoops:
    case Gate::kSmallCopiesInLoops:
      return Violation::Kind::kCopyInLoop;
    case Gate::kNotInPlace:
      return Violation::Kind::kUpdateNotInPlace;
    case Gate::kFullRewrites:
      return Violation::Kind::kFullRewrite;
    case Gate::kReshardsInLoops:
      return Violation::Kind::kReshardInLoop;
    case Gate::kUndonated:
      return Violation::Kind::kUndonatedCopy;
    case Gate::kContradictions:
      return Violation::Kind::kContradiction;
    case Gate::kNewCopies:
      return Violation::Kind::kNewCopy;
    case Gate::kNewNotInPlace:
      return Violation::Kind::kNewNotInPlace;
    case Gate::kMoreBytesPerIteration:
      return Violation::Kind::kMoreBytesPerIteration;
    case Gate::kMorePeakBytes:
      return Violation::Kind::kMorePeakBytes;
  }
  return Violation::Kind::kCopyInLoop;
}

bool NotInPlace(const DiffSide& s) {
  return s.state.verdict == UpdateVerdict::kOutOfPlace || s.state.verdict == UpdateVerdict::kInPlaceOnCopy;
}

void EvaluateModule(const ModuleDiff& m, const GateOptions& o, const FindingFilter& filter,
                    std::vector<Violation>* out) {
  auto add = [&](Gate g, const DiffItem& it) {
    Violation v;
    v.kind = KindOf(g);
    v.gate = g;
    v.diff_item = &it;
    v.diff_module = &m;
    out->push_back(std::move(v));
  };
  for (const DiffItem& it : m.items) {
    if (!it.b) continue;
    const DiffSide& b = *it.b;
    const DiffSide* a = it.a ? &*it.a : nullptr;
    bool counts = Counts(filter, FactsOf(it, b));
    // The finding gates: findings of B in a gate asked for that A does not
    // have in that gate, or has fewer of. A contradicted update reported as
    // not in place is not reported again as a contradiction.
    bool not_in_place = o.gates.Has(Gate::kNotInPlace) && b.gates.Has(Gate::kNotInPlace);
    for (Gate g : {Gate::kNotInPlace, Gate::kCopiesInLoops, Gate::kSmallCopiesInLoops, Gate::kFullRewrites,
                   Gate::kReshardsInLoops, Gate::kUndonated, Gate::kContradictions}) {
      if (!o.gates.Has(g) || !b.gates.Has(g) || !counts) continue;
      if (g == Gate::kContradictions && not_in_place) continue;
      if (!a || !a->gates.Has(g) || b.count > a->count) add(g, it);
    }
    // The diff's own gates.
    if (o.gates.Has(Gate::kNewCopies) && it.kind == DiffKind::kCopy && !it.what.scalar_copies && counts) {
      int64_t before = a ? a->count : 0;
      if (b.count > before) add(Gate::kNewCopies, it);
    }
    if (o.gates.Has(Gate::kNewNotInPlace) && it.kind == DiffKind::kUpdate && counts && NotInPlace(b) &&
        (!a || !NotInPlace(*a)))
      add(Gate::kNewNotInPlace, it);
    if (o.gates.Has(Gate::kMoreBytesPerIteration) && it.kind == DiffKind::kLoop && b.bytes) {
      int64_t before = a ? a->bytes.value_or(0) : 0;
      int64_t more = *b.bytes - before;
      std::optional<int64_t> more_per_call =
          SatMul(SatMul(std::optional<int64_t>(more), b.trip_count), b.executions);
      FindingFacts facts{false, b.library, b.in_loop, more > 0 ? more_per_call : std::optional<int64_t>(0)};
      if (more > 0 && static_cast<double>(*b.bytes) > static_cast<double>(before) * 1.01 &&
          Counts(filter, facts))
        add(Gate::kMoreBytesPerIteration, it);
    }
  }
  // The peak: B against A when A's is known (a baseline without its buffer
  // assignment has nothing to regress from); B's unknown fails, as an
  // unknown peak fails a budget.
  if (o.gates.Has(Gate::kMorePeakBytes) && m.memory && m.memory->a_peak) {
    const MemoryDiff& d = *m.memory;
    if (!d.b_peak || static_cast<double>(*d.b_peak) > static_cast<double>(*d.a_peak) * 1.01) {
      Violation v;
      v.kind = Violation::Kind::kMorePeakBytes;
      v.gate = Gate::kMorePeakBytes;
      v.diff_module = &m;
      v.limit = *d.a_peak;
      v.amount = d.b_peak.value_or(0);
      v.amount_unknown = !d.b_peak;
      out->push_back(std::move(v));
    }
  }
}

}  // namespace

std::vector<Violation> EvaluateDiffGates(const DiffResult& result, const GateOptions& o,
                                         const FindingFilter& filter) {
  std::vector<Violation> out;
  if (o.gates.empty()) return out;
  for (const ModuleDiff& m : result.modules) EvaluateModule(m, o, filter, &out);
  for (const ModuleDiff& m : result.new_modules) EvaluateModule(m, o, filter, &out);
  return out;
}

}  // namespace hloscope
