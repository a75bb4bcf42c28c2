#include "hloscope/analysis/where_query.h"

#include <map>
#include <set>

namespace hloscope {

WhereResult FindWhere(const SourceIndex& index, const ExecutionCounts& counts, const ModuleCheck& check,
                      const WhereQuery& query) {
  WhereResult w;
  LineQuery q;
  q.spec = query.spec;
  q.scope = query.scope;
  w.lines = CollectLineFacts(index, counts, check, q);
  if (w.lines.empty() && q.spec && Basename(q.spec->file) != q.spec->file) {
    q.spec->file = std::string(Basename(q.spec->file));
    w.lines = CollectLineFacts(index, counts, check, q);
    if (!w.lines.empty()) w.matched_by_name = q.spec->file;
  }
  if (!w.lines.empty() || !query.spec) return w;
  if (!query.spec->function.empty() || query.spec->file.empty()) {
    std::set<std::string> fns;
    for (const HloInstruction* i : index.instructions())
      if (auto loc = index.Of(*i); loc && !loc->function.empty()) fns.insert(loc->function);
    w.suggest_functions = true;
    w.functions.assign(fns.begin(), fns.end());
    if (w.functions.size() > 12) w.functions.resize(12);
    return w;
  }
  LineSpec file_only;
  file_only.text = query.spec->file;
  file_only.file = query.spec->file;
  std::map<std::string, std::set<int64_t>> lines;
  for (const HloInstruction* i : index.Find(file_only, query.scope))
    if (auto loc = index.Of(*i)) lines[loc->file].insert(loc->line);
  w.suggest_lines = true;
  for (auto& [f, s] : lines) w.file_lines.push_back({f, {s.begin(), s.end()}});
  return w;
}

}  // namespace hloscope
