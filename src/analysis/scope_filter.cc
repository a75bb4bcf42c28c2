#include "hloscope/analysis/scope_filter.h"

#include <algorithm>
#include <array>
#include <set>

#include "hloscope/analysis/answer.h"
#include "hloscope/analysis/jax_op_name.h"

namespace hloscope {
namespace {

// Segments JAX adds by itself around the user's scopes (analysis/jax_op_name.h).
bool IsJaxWrapperName(std::string_view s) { return JaxWrapperOf(s).has_value(); }

// `*` and `?` glob over one segment.
bool Glob(std::string_view pattern, std::string_view text) {
  size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

}  // namespace

std::vector<ScopeSegment> SplitOpName(std::string_view op_name) {
  std::vector<ScopeSegment> out;
  for (std::string_view raw : SplitOpNamePath(op_name)) {
    // Primitive parameters (reduce_sum[axes=(0,)]) and transformations
    // (vmap(jit(f))) unwrapped.
    UnwrappedSegment u = UnwrapSegment(raw);
    std::string_view seg = u.core;
    bool via_jit = false;
    for (std::string_view t : u.transforms)
      if (JaxTransformOf(t) == JaxTransform::kJit) via_jit = true;
    if (seg.empty()) continue;
    // A nested segment like jvp(a/b) cannot occur in practice; keep the text.
    out.push_back({std::string(seg), via_jit || IsJaxWrapperName(seg)});
  }
  return out;
}

std::string UserScopePath(std::string_view op_name) {
  std::vector<ScopeSegment> segs = SplitOpName(op_name);
  std::string out;
  // The last segment is the primitive (or, alone, an argument name).
  for (size_t i = 0; i + 1 < segs.size(); ++i) {
    if (segs[i].jax_wrapper) continue;
    if (!out.empty()) out += '/';
    out += segs[i].name;
  }
  return out;
}

ScopeMatcher::ScopeMatcher(std::string_view scope) : want_(SplitOpName(scope)) {}

bool MatchesScope(std::string_view op_name, std::string_view scope) {
  return ScopeMatcher(scope).Matches(op_name);
}

bool ScopeMatcher::Matches(std::string_view op_name) const {
  const std::vector<ScopeSegment>& want = want_;
  if (want.empty()) return true;
  if (op_name.empty()) return false;
  std::vector<ScopeSegment> have = SplitOpName(op_name);
  for (size_t start = 0; start < have.size(); ++start) {
    if (!Glob(want[0].name, have[start].name)) continue;
    size_t w = 1, h = start + 1;
    while (w < want.size() && h < have.size()) {
      if (Glob(want[w].name, have[h].name)) {
        ++w;
        ++h;
      } else if (have[h].jax_wrapper) {
        ++h;
      } else {
        break;
      }
    }
    if (w == want.size()) return true;
  }
  return false;
}

void FilterFindingsByScope(ModuleCheck* check, std::string_view scope) {
  if (scope.empty()) return;
  ScopeMatcher matcher(scope);
  auto in_scope = [&](const std::optional<SourceLocation>& s) { return s && matcher.Matches(s->op_name); };
  // A copy belongs to the scope of an update it feeds, too (copies have no
  // op_name of their own), and to the scope of a read that forces it (a
  // read-after-update copy is the reading scope's doing as much as the
  // writing one's: `--scope` on the stale read lists it).
  std::set<std::pair<const HloInstruction*, const HloInstruction*>> updates_in_scope;
  for (const UpdateFinding& u : check->updates)
    if (in_scope(u.source)) updates_in_scope.insert({u.site.instruction, u.site.fusion});
  std::erase_if(check->copies, [&](const CopyFinding& c) {
    if (in_scope(c.source)) return false;
    if (c.cause.cause == CopyCause::kReadAfterUpdate)
      for (const InstructionAt& r : c.cause.readers)
        if (in_scope(r.source)) return false;
    for (const CopyFeed& f : c.feeds)
      if (f.kind == CopyFeed::Kind::kUpdate &&
          updates_in_scope.count({f.update.instruction, f.update.fusion}))
        return false;
    return true;
  });
  std::erase_if(check->updates, [&](const UpdateFinding& u) { return !in_scope(u.source); });
  std::set<const HloInstruction*> loops;
  for (const CopyFinding& c : check->copies) loops.insert(c.enclosing_loops.begin(), c.enclosing_loops.end());
  std::erase_if(check->loops,
                [&](const LoopFinding& l) { return !in_scope(l.source) && !loops.count(l.loop); });
  check->Reindex();
  RankFindings(check);
}

}  // namespace hloscope
