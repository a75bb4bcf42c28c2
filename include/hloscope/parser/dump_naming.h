// XLA's naming of the files --xla_dump_to writes, and hloscope's own
// fixture naming: the one home of both (the dump-folder listing, the
// buffer-assignment and thunk dumps found beside a module, `hloscope run`,
// and the Python package through its binding all ask here).
//
// XLA names each file module_NNNN.NAME.STAGE.txt (debug_options_flags.cc,
// dump.cc): NNNN is the module's unique id, NAME its name (jit_f), STAGE
// `before_optimizations`, `<backend>_after_optimizations` (cpu_,
// sm_9.0a_gpu_) or `cl_<build>.after_optimizations` (TPU). The same stem
// with -buffer-assignment.txt, -memory-usage-report.txt, .ll, .o,
// thunk_sequence.txt … are other dumps of the module, not HLO. XLA:GPU's
// thunk dump is named by the stem before the backend's part
// (module_0001.jit_f.thunk_metadata.txt). hloscope's fixtures (and
// tools/gen_fixtures.py) use module.hlo.txt with buffer-assignment.txt and
// thunk_metadata.txt beside it.
#ifndef HLOSCOPE_PARSER_DUMP_NAMING_H_
#define HLOSCOPE_PARSER_DUMP_NAMING_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hloscope {

struct DumpFileName {
  std::string id;      // NNNN as XLA wrote it ("0003")
  std::string module;  // "jit_f"
  std::string stage;   // "before_optimizations", "cpu_after_optimizations", …
  bool optimized = false;
  // "1796406983002625.": the compile time --xla_dump_include_timestamp puts
  // before every file of the module (hloscope run sets it), or "".
  std::string timestamp;
};

// A whole-module HLO dump's name, split; nullopt for every other file of a
// dump folder (the buffer assignment, pass-by-pass dumps, LLVM IR, …).
std::optional<DumpFileName> ParseDumpFileName(std::string_view file);
// True if `file` (a file name) is an optimized module's HLO: XLA's
// module_NNNN.NAME.*after_optimizations.txt, or what `hloscope run
// --no-buffer-assignment` writes (RunHloFileName).
bool IsOptimizedDumpName(std::string_view file);

// A file found beside a module or in a dump folder that was not read
// (support/found_file.h: a link out of its folder, /proc, a FIFO): its path
// and why, never its contents.
struct RefusedFile {
  std::string path;
  std::string reason;
  bool operator==(const RefusedFile&) const = default;
};
// True if the found file `path` may be read (support/found_file.h); a file
// refused is added to `refused` (if given). Absent files are neither.
bool AcceptFoundFile(const std::string& path, std::vector<RefusedFile>* refused);

// Every Find*Beside below returns only a file that passes AcceptFoundFile
// and adds those it refused to `refused`.

// Where the buffer-assignment dump of the HLO file `hlo_path` would be, in
// the order to try: XLA's X-buffer-assignment.txt, and a fixture's
// buffer-assignment.txt.
std::vector<std::string> BufferAssignmentPathsFor(const std::string& hlo_path);
// Where XLA:GPU's thunk dump of `hlo_path` would be, in the order to try.
std::vector<std::string> ThunkMetadataPathsFor(const std::string& hlo_path);

// The module as XLA's SPMD partitioner received it, every instruction with
// its sharding (analysis/reshard_origin.h): XLA writes it with
// --xla_dump_hlo_pass_re=spmd-partitioning as
// module_NNNN.NAME.NNNN.<pipeline>.after_<pass>.before_spmd-partitioning.txt
// (TPU: module_NNNN.NAME.cl_<build>.NNNN.xla-partitioner.after_<pass>.
// before_tpu-spmd-partitioning.txt); a fixture keeps it as
// before-partitioning.hlo.txt beside module.hlo.txt.
inline constexpr std::string_view kPrePartitionSuffix = ".before_spmd-partitioning.txt";
inline constexpr std::string_view kTpuPrePartitionSuffix = ".before_tpu-spmd-partitioning.txt";
inline constexpr std::string_view kFixturePrePartition = "before-partitioning.hlo.txt";
// True if the file named `candidate` is that dump of the module whose HLO
// file is named `hlo_file` (the same NNNN and NAME; file names, not paths).
bool IsPrePartitionDumpOf(std::string_view candidate, std::string_view hlo_file);
// "module_NNNN.NAME.": what every file XLA dumps for that module starts with.
std::string ModuleStem(const DumpFileName& module);
// The stem of the module whose pre-partitioning dump `file` is, or nullopt
// when it is no such dump (what a folder listing files it under).
std::optional<std::string> PrePartitionModuleStem(std::string_view file);
// The pre-partitioning dump beside `hlo_path`, if the folder has one (the
// first by name when the partitioner ran more than once).
std::optional<std::string> FindPrePartitionBeside(const std::string& hlo_path,
                                                  std::vector<RefusedFile>* refused = nullptr);

// The module before optimization beside `hlo_path`: XLA's
// module_NNNN.NAME.before_optimizations.txt of the same module, or a
// fixture's before-optimizations.hlo.txt. Its input_output_alias and
// buffer_donor are the donation the program asked for; XLA drops those it
// cannot alias (optimize_input_output_buffer_alias.cc).
inline constexpr std::string_view kFixtureBeforeOptimizations = "before-optimizations.hlo.txt";
std::optional<std::string> FindBeforeOptimizationsBeside(const std::string& hlo_path,
                                                         std::vector<RefusedFile>* refused = nullptr);

// The name `hloscope run --no-buffer-assignment` gives a module's HLO that
// the program itself writes: PID.NNNN.NAME.after_optimizations.txt (the
// %-format for its Python bootstrap, and the name for given values).
inline constexpr std::string_view kRunHloFileFormat = "%d.%04d.%s.after_optimizations.txt";

}  // namespace hloscope

#endif  // HLOSCOPE_PARSER_DUMP_NAMING_H_
