// Session: the one way from a request to analysed modules, used by the
// CLI, the Python extension and the tests.
//
// It opens the input (a file, stdin, or text handed over), finds and reads
// XLA's buffer-assignment dump (given, or the one beside a dump file),
// applies it — a dump describes one module, so only when the input holds
// exactly one — and builds each module's analyses on first use.
#ifndef HLOSCOPE_APP_SESSION_H_
#define HLOSCOPE_APP_SESSION_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hloscope/analysis/module_analysis.h"
#include "hloscope/analysis/session_note.h"
#include "hloscope/analysis/source_map.h"
#include "hloscope/parser/buffer_assignment.h"
#include "hloscope/parser/parser.h"
#include "hloscope/parser/thunk_metadata.h"
#include "hloscope/support/result.h"

namespace hloscope {

struct SessionRequest {
  // The HLO input: a path ("-" for stdin), or `text` (then `path` only
  // names it in diagnostics and reports).
  std::string path;
  std::optional<std::string> text;
  // XLA's buffer-assignment dump: a path, or its text (then the path only
  // names it). Without either, the dump beside `path` is used if there is
  // one (XLA's naming; see FindBufferAssignmentBeside), unless
  // `find_buffer_assignment` is false.
  std::string buffer_assignment_path;
  std::optional<std::string> buffer_assignment_text;
  bool find_buffer_assignment = true;
  bool use_buffer_assignment = true;  // false: --no-buffer-assignment
  // XLA:GPU's thunk dump (thunk_metadata.txt): a path, else the one beside
  // `path` if there is one (FindThunkMetadataBeside) and `find_thunk_metadata`.
  std::string thunk_metadata_path;
  bool find_thunk_metadata = true;
  // The module before SPMD partitioning (analysis/reshard_origin.h): a
  // path, or its text (then the path only names it), else the dump beside
  // `path` (FindPrePartitionBeside) if `find_pre_partition`.
  std::string pre_partition_path;
  std::optional<std::string> pre_partition_text;
  bool find_pre_partition = true;
  // pre_partition_path was found (a dump folder's listing), not named: like
  // one found beside `path`, a dump that does not read is a note quoting
  // none of it, not an error.
  bool pre_partition_found = false;
  // The donation the program asked for, one flag per entry parameter (Python
  // passes JAX's donate_argnums), else the input_output_alias and
  // buffer_donor of the module before optimization beside `path`
  // (FindBeforeOptimizationsBeside) if `find_donation_request`.
  std::optional<std::vector<bool>> donation_requested;
  bool find_donation_request = true;
  // The module before optimization (its header is enough: Python passes
  // the first line of its dump), else the file beside `path` if
  // `find_before_optimizations`: the donation asked for (above) and the
  // user's mesh axis names (analysis/mesh_names.h).
  std::optional<std::string> before_optimizations_text;
  bool find_before_optimizations = true;
  // Refuse HLO before optimization (parser/input_kind.h): what `check`,
  // `diff` and Python's analyze() need; off for the exploring commands
  // (print, stats) and for hand-written HLO in tests. --allow-unoptimized.
  bool require_optimized = false;
  SourceOptions source;
  // How files are read: the size limit (--max-input-bytes) and whether
  // regular files are mapped (support/input_file.h).
  InputOptions input;
};

class Session {
 public:
  // Takes the request by value: HLO text handed over is moved into the
  // session, not copied.
  static Result<std::unique_ptr<Session>> Open(SessionRequest request);
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  size_t module_count() const { return group_.modules.size(); }
  const HloModule& module(size_t i) const { return *group_.modules[i]; }
  std::vector<const HloModule*> modules() const;
  // The dump the verdicts are checked against ("" if none applies).
  const std::string& buffer_assignment_path() const { return applied_path_; }
  // A dump was found or given, but the input holds several modules.
  bool buffer_assignment_ignored() const { return ba_ && applied_path_.empty(); }

  // Module i's analyses, built on first use.
  ModuleAnalysis& Analysis(size_t i);
  // Every module's analyses (built now), and their check findings.
  std::vector<ModuleAnalysis*> Analyses();
  std::vector<const ModuleCheck*> Checks();

  // The notes of this session (session_note.h): those of opening it, and of
  // the analyses built so far.
  std::vector<SessionNote> Notes() const;

 private:
  Session() = default;

  HloModuleGroup group_;
  std::optional<BufferAssignment> ba_;
  std::string applied_path_;
  std::optional<ThunkMetadata> thunks_;
  std::optional<HloModuleGroup> pre_partition_;  // the module before SPMD partitioning
  CheckOptions check_options_;
  std::vector<SessionNote> notes_;
  std::vector<std::unique_ptr<ModuleAnalysis>> analyses_;
};

}  // namespace hloscope

#endif  // HLOSCOPE_APP_SESSION_H_
