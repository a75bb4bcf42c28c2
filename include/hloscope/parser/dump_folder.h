// An XLA dump folder (--xla_dump_to): its modules and their HLO files, by
// XLA's file naming, so that `check DIR` and `diff DIR DIR` can check
// every optimized module with the buffer assignment dumped beside it.
//
// XLA's file naming is parser/dump_naming.h's.
#ifndef HLOSCOPE_PARSER_DUMP_FOLDER_H_
#define HLOSCOPE_PARSER_DUMP_FOLDER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hloscope/parser/dump_naming.h"
#include "hloscope/support/result.h"

namespace hloscope {

struct DumpHloFile {
  std::string path;   // the folder joined with the file name
  std::string file;   // the file name
  std::string stage;  // "before_optimizations", "cpu_after_optimizations", …
  int64_t bytes = 0;
  bool optimized = false;         // STAGE ends in after_optimizations
  std::string buffer_assignment;  // the -buffer-assignment.txt beside it, or empty
  std::string pre_partition;      // its module before SPMD partitioning (dump_naming.h), or empty
};

struct DumpModule {
  std::string id;                  // NNNN as XLA wrote it ("0003")
  std::string name;                // "jit_f"
  std::string timestamp;           // "1796406983002625." (--xla_dump_include_timestamp) or ""
  std::vector<DumpHloFile> files;  // before_optimizations first, then optimized
};

struct DumpFolder {
  std::string path;
  std::vector<DumpModule> modules;  // by id
  int64_t other_files = 0;          // files that are not a module's HLO text
  // Files of the folder not read (support/found_file.h: a link out of it,
  // into /proc, a FIFO); folders in it are skipped without a word.
  std::vector<RefusedFile> refused;

  int64_t optimized_files() const;
};

// One regular file of a folder's listing.
struct DumpFolderEntry {
  std::string file;  // the file name, no directory
  int64_t bytes = 0;
};

// The listing of folder `path` grouped into modules by XLA's file naming:
// pure (no file is opened or stat'ed), so any listing a folder could hold
// is fuzzed (fuzz/dump_folder_fuzzer.cc). The buffer assignment beside a
// module is looked up in the same listing.
DumpFolder GroupDumpFolder(const std::string& path, const std::vector<DumpFolderEntry>& entries);

// Lists the folder (not recursively; only regular files inside it, so a
// FIFO, a device or a link out of the folder is never opened: those are in
// `refused`) and groups it. An unreadable folder is an error;
// a folder without module dumps is not (`modules` is empty).
Result<DumpFolder> ListDumpFolder(const std::string& path);

}  // namespace hloscope

#endif  // HLOSCOPE_PARSER_DUMP_FOLDER_H_
