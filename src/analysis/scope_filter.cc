#include "hloscope/analysis/scope_filter.h"

#include <algorithm>
#include <array>
#include <set>

#include "hloscope/analysis/jax_op_name.h"

namespace hloscope {
namespace {

// Segments JAX adds by itself around the user's scopes (analysis/jax_op_name.h).
bool IsJaxWrapperName(std::string_view s) { return JaxWrapperOf(s).has_value(); }

bool IsIdentChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
         c == '-';
}

// `name(inner)` spanning the whole text: returns true and sets fn/inner.
bool SplitCall(std::string_view s, std::string_view* fn, std::string_view* inner) {
  if (s.empty() || s.back() != ')') return false;
  size_t open = s.find('(');
  if (open == std::string_view::npos || open == 0) return false;
  for (size_t i = 0; i < open; ++i)
    if (!IsIdentChar(s[i])) return false;
  // The '(' at `open` must close at the very end.
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    if (s[i] == '(')
      ++depth;
    else if (s[i] == ')' && --depth == 0 && i + 1 != s.size())
      return false;
  }
  *fn = s.substr(0, open);
  *inner = s.substr(open + 1, s.size() - open - 2);
  return true;
}

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

std::vector<std::string_view> SplitTopLevel(std::string_view s) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '(' || c == '[' || c == '{')
      ++depth;
    else if ((c == ')' || c == ']' || c == '}') && depth > 0)
      --depth;
    else if (c == '/' && depth == 0) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  out.push_back(s.substr(start));
  return out;
}

}  // namespace

std::vector<ScopeSegment> SplitOpName(std::string_view op_name) {
  std::vector<ScopeSegment> out;
  for (std::string_view seg : SplitTopLevel(op_name)) {
    // Primitive parameters: reduce_sum[axes=(0,)] -> reduce_sum.
    if (size_t b = seg.find('['); b != std::string_view::npos && b > 0 && seg.back() == ']')
      seg = seg.substr(0, b);
    bool via_jit = false;
    std::string_view fn, inner;
    while (SplitCall(seg, &fn, &inner)) {
      if (fn == "jit" || fn == "pjit") via_jit = true;
      seg = inner;
    }
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
  // op_name of their own).
  std::set<std::pair<const HloInstruction*, const HloInstruction*>> updates_in_scope;
  for (const UpdateFinding& u : check->updates)
    if (in_scope(u.source)) updates_in_scope.insert({u.site.instruction, u.site.fusion});
  std::erase_if(check->copies, [&](const CopyFinding& c) {
    if (in_scope(c.source)) return false;
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
}

}  // namespace hloscope
