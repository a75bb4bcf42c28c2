// `hloscope where`: the line facts for a location or scope, and — when
// nothing matches — what does exist nearby, so the user can ask again.
#ifndef HLOSCOPE_ANALYSIS_WHERE_QUERY_H_
#define HLOSCOPE_ANALYSIS_WHERE_QUERY_H_

#include <optional>
#include <string>
#include <vector>

#include "hloscope/analysis/line_facts.h"

namespace hloscope {

struct WhereQuery {
  std::optional<LineSpec> spec;  // nullopt: every line (with a scope)
  std::string scope;
};

struct WhereResult {
  std::vector<LineFacts> lines;
  // The asked-for file matched only by its name (a path from another
  // machine): the name used. Empty otherwise.
  std::string matched_by_name;
  // Nothing matched a function name (or a line without a file): the
  // functions that do have instructions (at most 12, sorted).
  bool suggest_functions = false;
  std::vector<std::string> functions;
  // Nothing matched lines of a file: the lines of that file that do.
  bool suggest_lines = false;
  std::vector<FileLines> file_lines;
};

WhereResult FindWhere(const SourceIndex& index, const ExecutionCounts& counts, const ModuleCheck& check,
                      const WhereQuery& query);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_WHERE_QUERY_H_
