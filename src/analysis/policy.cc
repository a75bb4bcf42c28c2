#include "hloscope/analysis/policy.h"

#include <algorithm>
#include <unordered_set>

#include "hloscope/ir/name_index.h"
#include "hloscope/support/saturating.h"

namespace hloscope {
namespace {

constexpr GateEntry kGates[] = {
    {Gate::kCopiesInLoops, "copies-in-loops",
     "an array copy of 4 KiB or more, or one that grows with buffer size, runs inside a loop (every "
     "iteration)",
     false},
    {Gate::kNotInPlace, "not-in-place",
     "an update is out of place, on a copy (other than a non-donated argument's), or contradicted by XLA",
     false},
    {Gate::kFullRewrites, "full-rewrites",
     "a buffer is rewritten in full every iteration of a loop (an update or a loop carry that grows with the "
     "buffer)",
     false},
    {Gate::kReshardsInLoops, "reshards-in-loops",
     "a collective the partitioner inserted in a loop moves a loop-carried buffer whole every iteration (a "
     "gather to read or update a sharded buffer at a run-time index, a re-shard of a carry)",
     false},
    {Gate::kUndonated, "undonated",
     "an argument that is not donated is copied once per call (and updated on the copy): advice by default",
     false},
    {Gate::kContradictions, "contradictions", "XLA's buffer assignment contradicts a verdict", false},
    {Gate::kSmallCopiesInLoops, "small-copies-in-loops",
     "a copy under 4 KiB that does not grow with buffer size runs inside a loop: small loop state copied "
     "every iteration, strict only",
     false},
    {Gate::kNewCopies, "new-copies", "diff: B has an array copy A does not have (or more of one)", true},
    {Gate::kNewNotInPlace, "new-not-in-place", "diff: an update is not in place in B but was in A", true},
    {Gate::kMoreBytesPerIteration, "more-bytes-per-iteration",
     "diff: a loop copies or rewrites more bytes per iteration in B than in A", true},
    {Gate::kMorePeakBytes, "more-peak-bytes",
     "diff: one call of B needs more than 1 % more memory per device than A (the peak by XLA's buffer "
     "assignment; not in `regressions`: at a larger size the peak grows by design)",
     true},
};

constexpr GatePreset kPresets[] = {
    {"default",
     "the costs that recur every iteration: copies-in-loops, not-in-place, full-rewrites, reshards-in-loops",
     GateSet{Gate::kCopiesInLoops, Gate::kNotInPlace, Gate::kFullRewrites, Gate::kReshardsInLoops}},
    {"strict", "every finding gate: the default ones, small-copies-in-loops, undonated and contradictions",
     GateSet{Gate::kCopiesInLoops, Gate::kNotInPlace, Gate::kFullRewrites, Gate::kReshardsInLoops,
             Gate::kUndonated, Gate::kContradictions, Gate::kSmallCopiesInLoops}},
    {"regressions",
     "diff: every regression of B against A: new-copies, new-not-in-place, more-bytes-per-iteration",
     GateSet{Gate::kNewCopies, Gate::kNewNotInPlace, Gate::kMoreBytesPerIteration}},
};

constexpr bool GatesInEnumOrder() {
  for (size_t i = 0; i < std::size(kGates); ++i)
    if (static_cast<size_t>(kGates[i].gate) != i) return false;
  return true;
}
static_assert(GatesInEnumOrder());

}  // namespace

std::span<const GateEntry> GateCatalog() { return kGates; }
const GateEntry& EntryOf(Gate gate) { return kGates[static_cast<size_t>(gate)]; }
std::span<const GatePreset> GatePresets() { return kPresets; }
GateSet DefaultGates() { return kPresets[0].gates; }

std::optional<GateSet> GatesNamed(std::string_view name) {
  std::string n(name);
  std::replace(n.begin(), n.end(), '_', '-');
  for (const GatePreset& p : kPresets)
    if (p.name == n) return p.gates;
  for (const GateEntry& g : kGates)
    if (g.name == n) return GateSet{g.gate};
  return std::nullopt;
}

bool IsInPlace(const UpdateFinding& u) {
  bool claim = u.verdict == UpdateVerdict::kInPlace || u.verdict == UpdateVerdict::kNotMaterialized;
  return claim && u.confirmation.confirmed != false;
}

std::optional<Gate> CopyGate(const CopyGateFacts& f) {
  if (f.in_loop) {
    bool small = f.bytes && *f.bytes < kSmallLoopCopyBytes && !f.grows_with_buffer;
    return small ? Gate::kSmallCopiesInLoops : Gate::kCopiesInLoops;
  }
  if (f.cause == CopyCause::kNonDonatedParameter) return Gate::kUndonated;
  return std::nullopt;
}

std::optional<Gate> UpdateGate(const UpdateGateFacts& f) {
  bool claims = f.verdict == UpdateVerdict::kInPlace || f.verdict == UpdateVerdict::kNotMaterialized;
  if (!claims || f.confirmed == false) {
    // On a copy of an argument the caller did not donate, made once per
    // call: the copy is the finding (undonated), the update itself is in
    // place on it.
    if (f.verdict == UpdateVerdict::kInPlaceOnCopy && f.confirmed != false &&
        f.runs_on_gate == Gate::kUndonated)
      return Gate::kUndonated;
    return Gate::kNotInPlace;
  }
  if (f.full_rewrite && f.in_loop) return Gate::kFullRewrites;
  return std::nullopt;
}

std::optional<Gate> RewriteGate(bool carry_rewritten, bool grows_with_buffer) {
  if (carry_rewritten && grows_with_buffer) return Gate::kFullRewrites;
  return std::nullopt;
}

std::optional<Gate> CollectiveGate(bool in_loop, bool grows_with_buffer,
                                   std::optional<CollectiveCause> cause) {
  // What the program wrote, and the sums a sharded contraction needs, are
  // the program's own costs; the rest the partitioner chose.
  if (!in_loop || !grows_with_buffer || cause == CollectiveCause::kExplicit ||
      cause == CollectiveCause::kReduction)
    return std::nullopt;
  return Gate::kReshardsInLoops;
}

std::optional<Gate> GateOf(const CollectiveFinding& c) {
  return CollectiveGate(!c.enclosing_loops.empty(), c.grows_with_buffer, c.cause.cause);
}

std::optional<Gate> GateOf(const CopyFinding& c) {
  return CopyGate({!c.enclosing_loops.empty(), c.cause.cause, c.bytes, c.grows_with_buffer});
}

std::optional<Gate> GateOf(const UpdateFinding& u, const ModuleCheck& m) {
  UpdateGateFacts f{u.verdict, u.confirmation.confirmed, u.full_rewrite, !u.enclosing_loops.empty(), {}};
  if (u.runs_on)
    if (const CopyFinding* c = m.FindCopy(*u.runs_on)) f.runs_on_gate = GateOf(*c);
  return UpdateGate(f);
}

std::optional<Gate> GateOf(const LoopScaling& s) {
  return RewriteGate(s.kind == LoopScaling::Kind::kCarryRewritten, s.grows_with_buffer);
}

namespace {

// The instructions the selection's names resolve to in one module (through
// the module's name index: `name`, `%name`, `computation/name`); a name that
// matches several instructions is ambiguous and selects none of them.
struct Selection {
  std::unordered_set<const HloInstruction*> instructions;
  std::vector<std::pair<std::string, std::vector<const HloInstruction*>>> ambiguous;
};

Selection Resolve(const ModuleCheck& m, const GateOptions& o) {
  Selection s;
  for (const std::string& name : o.update_names) {
    HloNameIndex::Lookup found = m.module->names().Resolve(name);
    if (found.instruction)
      s.instructions.insert(found.instruction);
    else if (found.matches.size() > 1)
      s.ambiguous.push_back({name, found.matches});
  }
  return s;
}

bool SelectedUpdate(const UpdateFinding& u, const GateOptions& o, const Selection& sel) {
  if (!o.selective()) return true;
  if (sel.instructions.count(u.site.instruction)) return true;
  if (u.site.fusion && sel.instructions.count(u.site.fusion)) return true;
  if (u.source)
    for (const LineSpec& spec : o.lines)
      if (spec.Matches(*u.source)) return true;
  return false;
}

bool OnLines(const std::optional<SourceLocation>& source, const GateOptions& o) {
  if (source)
    for (const LineSpec& spec : o.lines)
      if (spec.Matches(*source)) return true;
  return false;
}

template <typename T>
bool Contains(const std::vector<T>& v, const T& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// One module's violations; adds whether the selection chose any update.
void EvaluateModule(const ModuleCheck& m, const GateOptions& o, const FindingFilter& filter,
                    std::vector<Violation>* all, bool* any_selected) {
  std::vector<Violation> out;
  const GateSet& gates = o.gates;
  Selection sel = Resolve(m, o);
  for (auto& [name, matches] : sel.ambiguous) {
    Violation v;
    v.kind = Violation::Kind::kAmbiguousName;
    v.selected_names = {name};
    v.candidates = matches;
    out.push_back(std::move(v));
  }
  // The updates that count: the selected ones wherever they are, else those
  // the filter keeps.
  std::vector<const UpdateFinding*> chosen;
  for (const UpdateFinding& u : m.updates) {
    if (o.selective() ? SelectedUpdate(u, o, sel) : Counts(filter, FactsOf(u))) chosen.push_back(&u);
  }
  *any_selected |= !chosen.empty();
  // A copy counts when the filter keeps it; with a selection, only when it
  // serves a selected update or comes from a selected line.
  auto copy_counts = [&](const CopyFinding& c) {
    if (!Counts(filter, FactsOf(c))) return false;
    if (!o.selective()) return true;
    for (const UpdateFinding* u : chosen)
      if (u->runs_on && *u->runs_on == c.copy) return true;
    for (const CopyFeed& f : c.feeds)
      if (f.kind == CopyFeed::Kind::kUpdate)
        if (const UpdateFinding* u = m.FindUpdate(f.update); u && Contains(chosen, u)) return true;
    return OnLines(c.source, o);
  };

  // Updates not in place (with the copy they run on) and full rewrites.
  std::vector<const CopyFinding*> shown;
  std::vector<const UpdateFinding*> reported;
  for (const UpdateFinding* u : chosen) {
    std::optional<Gate> g = GateOf(*u, m);
    if (g != Gate::kNotInPlace || !gates.Has(Gate::kNotInPlace)) continue;
    reported.push_back(u);
    Violation v;
    v.kind = Violation::Kind::kUpdateNotInPlace;
    v.gate = Gate::kNotInPlace;
    v.update = u;
    if (u->runs_on) v.copy = m.FindCopy(*u->runs_on);
    if (v.copy) shown.push_back(v.copy);
    out.push_back(v);
  }
  for (Gate gate : {Gate::kCopiesInLoops, Gate::kSmallCopiesInLoops}) {
    if (!gates.Has(gate)) continue;
    for (const CopyFinding& c : m.copies) {
      if (GateOf(c) != gate || Contains(shown, &c) || !copy_counts(c)) continue;
      Violation v;
      v.kind = Violation::Kind::kCopyInLoop;
      v.gate = gate;
      v.copy = &c;
      out.push_back(v);
    }
  }
  if (gates.Has(Gate::kFullRewrites)) {
    for (const UpdateFinding* u : chosen) {
      if (GateOf(*u, m) != Gate::kFullRewrites) continue;
      Violation v;
      v.kind = Violation::Kind::kFullRewrite;
      v.gate = Gate::kFullRewrites;
      v.update = u;
      out.push_back(v);
    }
    for (const LoopFinding& l : m.loops)
      for (const LoopScaling& s : l.scaling) {
        if (GateOf(s) != Gate::kFullRewrites || !Counts(filter, FactsOf(s, l))) continue;
        if (o.selective() && !OnLines(l.source, o)) continue;
        Violation v;
        v.kind = Violation::Kind::kFullRewrite;
        v.gate = Gate::kFullRewrites;
        v.loop = &l;
        v.scaling = &s;
        out.push_back(v);
      }
  }
  if (gates.Has(Gate::kReshardsInLoops) && !o.selective()) {
    for (const CollectiveFinding& c : m.collectives) {
      if (GateOf(c) != Gate::kReshardsInLoops || !Counts(filter, FactsOf(c))) continue;
      Violation v;
      v.kind = Violation::Kind::kReshardInLoop;
      v.gate = Gate::kReshardsInLoops;
      v.collective = &c;
      out.push_back(v);
    }
  }
  if (gates.Has(Gate::kUndonated)) {
    for (const CopyFinding& c : m.copies) {
      if (GateOf(c) != Gate::kUndonated || !copy_counts(c)) continue;
      Violation v;
      v.kind = Violation::Kind::kUndonatedCopy;
      v.gate = Gate::kUndonated;
      v.copy = &c;
      for (const UpdateFinding* u : chosen)
        if (u->runs_on && *u->runs_on == c.copy) v.updates.push_back(u);
      out.push_back(v);
    }
  }
  // Contradictions, except of updates already reported as not in place (a
  // contradicted in-place verdict is both).
  if (gates.Has(Gate::kContradictions)) {
    for (const UpdateFinding* u : chosen) {
      if (u->confirmation.confirmed != false || Contains(reported, u)) continue;
      Violation v;
      v.kind = Violation::Kind::kContradiction;
      v.gate = Gate::kContradictions;
      v.update = u;
      out.push_back(v);
    }
    if (!o.selective())
      for (const LoopFinding& l : m.loops)
        for (const LoopScaling& s : l.scaling) {
          if (s.confirmation.confirmed != false) continue;
          Violation v;
          v.kind = Violation::Kind::kContradiction;
          v.gate = Gate::kContradictions;
          v.loop = &l;
          v.scaling = &s;
          out.push_back(v);
        }
  }

  // Budgets, over the copies the filter keeps (a selection does not apply).
  std::vector<const CopyFinding*> counted, in_loops;
  for (const CopyFinding& c : m.copies) {
    if (!Counts(filter, FactsOf(c))) continue;
    counted.push_back(&c);
    if (!c.enclosing_loops.empty()) in_loops.push_back(&c);
  }
  auto bytes = [&](std::optional<int64_t> limit, const std::vector<const CopyFinding*>& cs,
                   Violation::Kind kind) {
    if (!limit) return;
    Violation v;
    v.kind = kind;
    v.limit = *limit;
    v.copies = cs;
    for (const CopyFinding* c : cs) {
      if (!c->total_bytes)
        v.amount_unknown = true;
      else
        v.amount = SatAdd(v.amount, *c->total_bytes);
    }
    // An amount past INT64_MAX (saturated) is over every budget, even
    // INT64_MAX itself: "overflow" must never pass a gate.
    if (v.amount > *limit || v.amount == kSaturated || v.amount_unknown) out.push_back(std::move(v));
  };
  auto count = [&](std::optional<int64_t> limit, const std::vector<const CopyFinding*>& cs,
                   Violation::Kind kind) {
    if (!limit || static_cast<int64_t>(cs.size()) <= *limit) return;
    Violation v;
    v.kind = kind;
    v.limit = *limit;
    v.copies = cs;
    v.amount = static_cast<int64_t>(cs.size());
    out.push_back(std::move(v));
  };
  const Budgets& b = o.budgets;
  bytes(b.max_copy_bytes, counted, Violation::Kind::kCopyBytes);
  count(b.max_copies, counted, Violation::Kind::kCopyCount);
  count(b.max_copies_in_loops, in_loops, Violation::Kind::kCopiesInLoops);
  bytes(b.max_copy_bytes_in_loops, in_loops, Violation::Kind::kCopyBytesInLoops);
  if (b.max_peak_bytes) {
    Violation v;
    v.kind = Violation::Kind::kPeakBytes;
    v.limit = *b.max_peak_bytes;
    v.amount_unknown = !m.memory;
    if (m.memory) v.amount = m.memory->device_peak_bytes();
    if (v.amount > v.limit || v.amount == kSaturated || v.amount_unknown) out.push_back(std::move(v));
  }
  for (Violation& v : out) {
    v.module = &m;
    all->push_back(std::move(v));
  }
}

}  // namespace

std::vector<Violation> EvaluateGates(const std::vector<const ModuleCheck*>& modules, const GateOptions& o,
                                     const FindingFilter& filter) {
  std::vector<Violation> out;
  bool any_selected = false;
  for (const ModuleCheck* m : modules) EvaluateModule(*m, o, filter, &out, &any_selected);
  if (!o.gates.empty() && o.selective() && !any_selected) {
    Violation v;
    v.kind = Violation::Kind::kNothingSelected;
    v.selected_names = o.update_names;
    for (const LineSpec& spec : o.lines) v.selected_lines.push_back(spec.text);
    out.push_back(v);
  }
  return out;
}

}  // namespace hloscope
