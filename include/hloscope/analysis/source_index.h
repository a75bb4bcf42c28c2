// SourceIndex: every instruction of a module mapped to the user's source
// line, built once.
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
#include <unordered_map>
#include <vector>

#include "hloscope/analysis/findings.h"
#include "hloscope/analysis/line_spec.h"
#include "hloscope/analysis/source_map.h"
#include "hloscope/ir/module.h"
#include "hloscope/support/hash.h"

namespace hloscope {

// `loc` as the location of `instr`: a location from `instr`'s own metadata
// gets its op_name (interned locations leave it out, being shared).
SourceLocation LocationOf(const SourceLocation& loc, const HloInstruction& instr);

class SourceIndex {
 public:
  // `check` (optional) supplies the attribution of copies without metadata.
  SourceIndex(const HloModule& module, const ModuleCheck* check = nullptr, const SourceOptions& options = {});
  SourceIndex(const SourceIndex&) = delete;
  SourceIndex& operator=(const SourceIndex&) = delete;

  const HloModule& module() const { return module_; }
  // Every instruction, ordered by id (text order).
  const std::vector<const HloInstruction*>& instructions() const { return instrs_; }

  // The source of `instr`: its own metadata, or attributed (via !=
  // kMetadata); nullopt when neither. The location may have an op_name but
  // no file.
  std::optional<SourceLocation> Of(const HloInstruction& instr) const;
  // The same without a copy: the interned location many instructions share
  // (op_name filled only when attributed), or nullptr.
  const SourceLocation* Location(const HloInstruction& instr) const;
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
  std::unordered_map<std::string, int32_t, NameHash, std::equal_to<>> entry_by_key_;
  std::unordered_map<const HloComputation*, const HloInstruction*> kernel_caller_;
};

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_SOURCE_INDEX_H_
