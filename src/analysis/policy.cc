#include "hloscope/analysis/policy.h"

#include <algorithm>
#include <unordered_set>

#include "hloscope/analysis/source_origin.h"
#include "hloscope/ir/name_index.h"
#include "hloscope/support/saturating.h"

namespace hloscope {
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

bool Contains(const std::vector<const UpdateFinding*>& v, const UpdateFinding* u) {
  return std::find(v.begin(), v.end(), u) != v.end();
}

}  // namespace

bool GateOptions::any() const {
  return fail_on_copies_in_loops || fail_on_out_of_place || fail_on_contradiction || max_copy_bytes ||
         max_copies || max_copies_in_loops || max_copy_bytes_in_loops;
}

bool CountsForGates(const CopyFinding& copy, const GateOptions& options) {
  if (copy.minor && !options.count_scalar_copies) return false;
  if (copy.total_bytes && *copy.total_bytes < options.min_bytes) return false;
  return options.count_library || !OriginOf(copy.source).library;
}

bool IsInPlace(const UpdateFinding& u) {
  bool claim = u.verdict == UpdateVerdict::kInPlace || u.verdict == UpdateVerdict::kNotMaterialized;
  return claim && u.confirmation.confirmed != false;
}

namespace {

// One module's violations; adds whether the selection chose any update.
void EvaluateModule(const ModuleCheck& m, const GateOptions& o, std::vector<Violation>* all,
                    bool* any_selected) {
  std::vector<Violation> out;
  Selection sel = Resolve(m, o);
  for (auto& [name, matches] : sel.ambiguous) {
    Violation v;
    v.kind = Violation::Kind::kAmbiguousName;
    v.selected_names = {name};
    v.candidates = matches;
    out.push_back(std::move(v));
  }
  std::vector<const UpdateFinding*> chosen;
  for (const UpdateFinding& u : m.updates) {
    if (!o.selective() && !o.count_library && OriginOf(u.source).library) continue;
    if (SelectedUpdate(u, o, sel)) chosen.push_back(&u);
  }
  *any_selected |= !chosen.empty();

  // Updates that are not in place (with the copy they run on).
  std::vector<const CopyFinding*> shown;
  std::vector<const UpdateFinding*> reported;
  if (o.fail_on_out_of_place) {
    for (const UpdateFinding* u : chosen) {
      if (IsInPlace(*u)) continue;
      reported.push_back(u);
      Violation v;
      v.kind = Violation::Kind::kUpdateNotInPlace;
      v.update = u;
      if (u->runs_on) v.copy = m.FindCopy(*u->runs_on);
      if (v.copy) shown.push_back(v.copy);
      out.push_back(v);
    }
  }

  // Copies inside loops: with a selection, only those that serve a selected
  // update or come from a selected line; a copy already shown under its
  // update is not repeated.
  if (o.fail_on_copies_in_loops) {
    for (const CopyFinding& c : m.copies) {
      if (c.enclosing_loops.empty() || !CountsForGates(c, o)) continue;
      if (std::find(shown.begin(), shown.end(), &c) != shown.end()) continue;
      if (o.selective()) {
        bool serves = false;
        for (const UpdateFinding* u : chosen) serves |= u->runs_on && *u->runs_on == c.copy;
        for (const CopyFeed& f : c.feeds)
          if (f.kind == CopyFeed::Kind::kUpdate)
            if (const UpdateFinding* u = m.FindUpdate(f.update); u && Contains(chosen, u)) serves = true;
        if (c.source)
          for (const LineSpec& spec : o.lines) serves |= spec.Matches(*c.source);
        if (!serves) continue;
      }
      Violation v;
      v.kind = Violation::Kind::kCopyInLoop;
      v.copy = &c;
      out.push_back(v);
    }
  }

  // Contradictions of the selected updates, except those already reported
  // as not in place (a contradicted in-place verdict is both).
  if (o.fail_on_contradiction) {
    for (const UpdateFinding* u : chosen) {
      if (u->confirmation.confirmed != false || Contains(reported, u)) continue;
      Violation v;
      v.kind = Violation::Kind::kContradiction;
      v.update = u;
      out.push_back(v);
    }
  }

  std::vector<const CopyFinding*> counted, in_loops;
  for (const CopyFinding& c : m.copies) {
    if (!CountsForGates(c, o)) continue;
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
  bytes(o.max_copy_bytes, counted, Violation::Kind::kCopyBytes);
  count(o.max_copies, counted, Violation::Kind::kCopyCount);
  count(o.max_copies_in_loops, in_loops, Violation::Kind::kCopiesInLoops);
  bytes(o.max_copy_bytes_in_loops, in_loops, Violation::Kind::kCopyBytesInLoops);
  for (Violation& v : out) {
    v.module = &m;
    all->push_back(std::move(v));
  }
}

}  // namespace

std::vector<Violation> EvaluateGates(const std::vector<const ModuleCheck*>& modules, const GateOptions& o) {
  std::vector<Violation> out;
  bool any_selected = false;
  for (const ModuleCheck* m : modules) EvaluateModule(*m, o, &out, &any_selected);
  bool update_gates = o.fail_on_out_of_place || o.fail_on_copies_in_loops || o.fail_on_contradiction;
  if (update_gates && o.selective() && !any_selected) {
    Violation v;
    v.kind = Violation::Kind::kNothingSelected;
    v.selected_names = o.update_names;
    for (const LineSpec& spec : o.lines) v.selected_lines.push_back(spec.text);
    out.push_back(v);
  }
  return out;
}

}  // namespace hloscope
