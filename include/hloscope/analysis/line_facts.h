// What happens on a line of the user's code: the facts `where` and
// `annotate` show — the instructions that came from it (with the kernel and
// loop they run in), the copies and update verdicts attributed to it, and
// the reads of old values there that force copies.
#ifndef HLOSCOPE_ANALYSIS_LINE_FACTS_H_
#define HLOSCOPE_ANALYSIS_LINE_FACTS_H_

#include <optional>
#include <string>
#include <vector>

#include "hloscope/analysis/execution_counts.h"
#include "hloscope/analysis/findings.h"
#include "hloscope/analysis/line_spec.h"
#include "hloscope/analysis/source_index.h"

namespace hloscope {

// One instruction found on a line.
struct LineInstruction {
  const HloInstruction* instruction = nullptr;
  // Interned in the SourceIndex (never null here; op_name only when
  // attributed): every instruction of a module can be a line fact
  // (annotate), so each is a few pointers, not a copy of its location.
  const SourceLocation* source = nullptr;
  const HloInstruction* kernel = nullptr;  // fusion/reduce it runs in; nullptr if itself
  std::optional<int64_t> executions;
  bool executions_upper_bound = false;
  std::vector<const UpdateFinding*> updates;  // update findings of this very instruction
  std::vector<const CopyFinding*> copies;     // when it is a copy `check` reports
};

// A reader of an array's old value that forces a copy (check's
// read-after-update cause): the instruction that reads, and the copy it causes.
struct LineRead {
  const HloInstruction* reader = nullptr;
  const CopyFinding* copy = nullptr;
  // The reading line the copy's cause names (inside a fusion: the fused
  // instruction that reads the old buffer).
  std::optional<SourceLocation> source;
};

struct LineFacts {
  std::string file;  // metadata path
  int64_t line = 0;
  std::vector<LineInstruction> instructions;  // id order; empty unless LineQuery::list_instructions
  int64_t instruction_count = 0;
  std::vector<const CopyFinding*> copies;     // copies attributed to this line
  std::vector<const UpdateFinding*> updates;  // updates whose source is this line
  std::vector<LineRead> reads;                // old values read here, forcing copies
  // Bytes all copies of this line move per call: 0 without copies, nullopt
  // if any copy's total is unknown.
  std::optional<int64_t> copy_bytes_per_call = 0;
  // Distinct kernels (fusions, or top-level instructions) the line ended up in.
  std::vector<const HloInstruction*> kernels;
};

struct LineQuery {
  std::optional<LineSpec> spec;  // nullopt: every line
  std::string scope;             // named-scope filter; empty: any
  bool include_reads = true;     // add lines that read values forcing copies
  // List each line's instructions (where). Without (annotate, which shows
  // a mark and a count per line) a line costs its findings only, not a
  // record for every instruction of the module.
  bool list_instructions = true;
};

// Facts per (file, line), sorted by file then line.
std::vector<LineFacts> CollectLineFacts(const SourceIndex& index, const ExecutionCounts& counts,
                                        const ModuleCheck& check, const LineQuery& query);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_LINE_FACTS_H_
