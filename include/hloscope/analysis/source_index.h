// SourceIndex: every instruction of a module mapped to the user's source
// line, and the queries behind `hloscope where` and `hloscope annotate`.
//
// Each instruction's own metadata is resolved once per distinct stack frame
// (or inline source_file/source_line) with ResolveSource, which walks frames
// outward to the first one in the user's code. Instructions XLA created
// without metadata — the copies copy insertion adds — are attributed the way
// `hloscope check` attributes them: to the update that needed the copy, or
// to the value it copies (SourceLocation::via says which).
//
// Besides the line, an instruction belongs to a kernel: instructions of a
// fused computation run inside the fusion instruction that calls it (through
// nested fusions), instructions of a reducer inside the reduce/scatter/sort
// that applies it. KernelOf answers "which fusion did my line end up in".
#ifndef HLOSCOPE_ANALYSIS_SOURCE_INDEX_H_
#define HLOSCOPE_ANALYSIS_SOURCE_INDEX_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hloscope/analysis/check.h"
#include "hloscope/analysis/execution_counts.h"
#include "hloscope/analysis/findings.h"
#include "hloscope/analysis/source_map.h"
#include "hloscope/ir/module.h"

namespace hloscope {

// ---------------------------------------------------------------------------
// Source files on this machine.

// Metadata paths are absolute paths of the machine that traced the program
// (/home/u/proj/train.py). With roots, a path is looked up as root + each of
// its suffixes, longest first (root/home/u/proj/train.py, root/u/proj/train.py,
// ..., root/train.py), then as written.
class SourceFiles {
 public:
  explicit SourceFiles(std::vector<std::string> roots = {}) : roots_(std::move(roots)) {}

  // The readable file for a metadata path, or nullopt.
  std::optional<std::string> Locate(const std::string& metadata_path) const;
  // Its lines (1-based: Line(path, 1) is the first), read once; nullptr
  // when the file is not found.
  const std::vector<std::string>* Lines(const std::string& metadata_path);
  // Line `line` of the file, without the newline; nullopt when unknown.
  std::optional<std::string> Line(const std::string& metadata_path, int64_t line);

 private:
  std::vector<std::string> roots_;
  std::map<std::string, std::optional<std::vector<std::string>>> cache_;
};

// ---------------------------------------------------------------------------
// Which lines the user asks about.

// `train.py:42`, `train.py:42-50`, `:42`, `:42-50`, `42-50`, `train.py`
// (every line of it), or a function name (`rollout`, `loss.<locals>.body`).
struct LineSpec {
  std::string file;        // empty: any file
  int64_t first = 0;       // 0: any line
  int64_t last = 0;
  std::string function;    // non-empty: match by function instead of lines
  std::string text;        // as given

  bool Matches(const SourceLocation& loc) const;
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

// `loops.py:14-16,20` from a set of lines of one file (basename shown).
std::string FormatLineSet(std::string_view file, const std::vector<int64_t>& sorted_lines);

// ---------------------------------------------------------------------------
// The index.

class SourceIndex {
 public:
  // `check` (optional) supplies the attribution of copies without metadata.
  SourceIndex(const HloModule& module, const ModuleCheck* check = nullptr,
              const SourceOptions& options = {});

  const HloModule& module() const { return module_; }
  // Every instruction, ordered by id (text order).
  const std::vector<const HloInstruction*>& instructions() const { return instrs_; }

  // The source of `instr`: its own metadata, or attributed (via != "metadata");
  // nullopt when neither. The location may have an op_name but no file.
  std::optional<SourceLocation> Of(const HloInstruction& instr) const;
  // True when Of(instr) has a file and line.
  bool HasLine(const HloInstruction& instr) const;
  // op_name for scope filtering: the instruction's own, else the attributed one.
  std::string OpNameOf(const HloInstruction& instr) const;

  // The instruction in a sequential computation (entry, loop body, branch,
  // ...) that runs `instr`: the outermost fusion for fused instructions, the
  // reduce/sort/scatter for reducer instructions, `instr` itself otherwise.
  const HloInstruction* KernelOf(const HloInstruction& instr) const;

  // Instructions whose source matches `spec` and whose op_name lies in
  // `scope` (empty: any), in id order.
  std::vector<const HloInstruction*> Find(const LineSpec& spec, std::string_view scope = "") const;

  // Distinct source files (metadata paths) of resolved instructions, sorted.
  std::vector<std::string> Files() const;

 private:
  struct Entry {
    SourceLocation loc;  // op_name filled only for attributed entries
  };
  int32_t Intern(const std::string& key, SourceLocation loc);

  const HloModule& module_;
  std::vector<const HloInstruction*> instrs_;  // by id
  std::vector<int32_t> entry_of_;              // by id; -1 = none
  std::vector<Entry> entries_;
  std::map<std::string, int32_t> entry_by_key_;
  std::map<const HloComputation*, const HloInstruction*> kernel_caller_;
};

// ---------------------------------------------------------------------------
// What happens on a line: the facts `where` and `annotate` print.

// One instruction found on a line.
struct LineInstruction {
  const HloInstruction* instruction = nullptr;
  SourceLocation source;
  const HloInstruction* kernel = nullptr;  // fusion/reduce it runs in; nullptr if itself
  std::vector<const HloInstruction*> loops;  // enclosing while loops, innermost first
  std::optional<int64_t> executions;
  bool executions_upper_bound = false;
  std::vector<const UpdateFinding*> updates;  // update findings on this instruction
  const CopyFinding* copy = nullptr;          // when it is a copy `check` reports
};

// A reader of an array's old value that forces a copy (check's
// read-after-update cause): the line that reads, and the copy it causes.
struct LineRead {
  const HloInstruction* reader = nullptr;
  const CopyFinding* copy = nullptr;
};

struct LineFacts {
  std::string file;  // metadata path
  int64_t line = 0;
  std::vector<LineInstruction> instructions;  // id order
  std::vector<const CopyFinding*> copies;     // copies attributed to this line
  std::vector<const UpdateFinding*> updates;  // updates whose source is this line
  std::vector<LineRead> reads;                // old values read here, forcing copies
  // Bytes all copies of this line move per call; nullopt if any is unknown.
  std::optional<int64_t> copy_bytes_per_call = 0;
  // Distinct kernels (fusions, or top-level instructions) the line ended up in.
  std::vector<const HloInstruction*> kernels;
};

struct LineQuery {
  std::optional<LineSpec> spec;  // nullopt: every line
  std::string scope;             // named-scope filter; empty: any
  bool include_reads = true;     // add lines that read values forcing copies
};

// Facts per (file, line), sorted by file then line.
std::vector<LineFacts> CollectLineFacts(const SourceIndex& index, const ExecutionCounts& counts,
                                        const ModuleCheck& check, const LineQuery& query);

// Everything the exploring commands (where, annotate, fusions, explain)
// need for one module: check's findings, execution counts, the source index.
struct ModuleAnalysis {
  explicit ModuleAnalysis(const HloModule& m, const CheckOptions& options = {})
      : module(m),
        counts(ExecutionCounts::Run(m)),
        check(CheckModule(m, counts, options)),
        index(m, &check, options.source) {}
  ModuleAnalysis(const ModuleAnalysis&) = delete;
  ModuleAnalysis& operator=(const ModuleAnalysis&) = delete;

  const HloModule& module;
  ExecutionCounts counts;  // before check, which is computed from it
  ModuleCheck check;
  SourceIndex index;
};

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_SOURCE_INDEX_H_
