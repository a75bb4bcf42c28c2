// LineSpec: which lines of their code a user asks about —
// `train.py:42`, `train.py:42-50`, `:42`, `:42-50`, `42-50`, `train.py`
// (every line of it), or a function name (`rollout`, `loss.<locals>.body`).
#ifndef HLOSCOPE_ANALYSIS_LINE_SPEC_H_
#define HLOSCOPE_ANALYSIS_LINE_SPEC_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hloscope/analysis/source_map.h"

namespace hloscope {

struct LineSpec {
  std::string file;   // empty: any file
  int64_t first = 0;  // 0: any line
  int64_t last = 0;
  std::string function;  // non-empty: match by function instead of lines
  std::string text;      // as given

  bool Matches(const SourceLocation& loc) const;
};

// Lines of one source file.
struct FileLines {
  std::string file;            // metadata path
  std::vector<int64_t> lines;  // sorted, distinct
};

// Parses a line spec; nullopt (and *error) when malformed.
std::optional<LineSpec> ParseLineSpec(std::string_view text, std::string* error = nullptr);

// True when `spec_file` names `path`: its path components are a suffix of
// path's (`train.py`, `proj/train.py`, `./train.py`, the full path).
bool SourceFileMatches(std::string_view path, std::string_view spec_file);

// True when `function` (as in SourceLocation::function, e.g.
// "loss.<locals>.body") is `name`, ends with ".name", or is nested in it
// ("name.<locals>....").
bool FunctionMatches(std::string_view function, std::string_view name);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_LINE_SPEC_H_
