#include "hloscope/parser/dump_folder.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <system_error>
#include <tuple>

#include "hloscope/parser/buffer_assignment.h"
#include "hloscope/parser/dump_naming.h"
#include "hloscope/support/input_file.h"

namespace hloscope {
int64_t DumpFolder::optimized_files() const {
  int64_t n = 0;
  for (const DumpModule& m : modules)
    for (const DumpHloFile& f : m.files) n += f.optimized;
  return n;
}

Result<DumpFolder> ListDumpFolder(const std::string& path) {
  namespace fs = std::filesystem;
  DumpFolder folder;
  folder.path = path;
  std::map<std::tuple<std::string, std::string, std::string>, DumpModule> by_id;
  // The modules before SPMD partitioning, by the "module_NNNN.NAME." they
  // start with (the first by name where the partitioner ran more than once):
  // matched to their modules below, in this one listing of the folder.
  std::map<std::string, std::string> pre_partition;
  std::error_code ec;
  for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code fec;
    if (!it->is_regular_file(fec)) continue;
    std::string file = it->path().filename().string();
    std::optional<DumpFileName> dump = ParseDumpFileName(file);
    if (!dump) {
      ++folder.other_files;
      if (std::optional<std::string> stem = PrePartitionModuleStem(file)) {
        std::string& best = pre_partition[*stem];
        if (best.empty() || file < fs::path(best).filename().string()) best = it->path().string();
      }
      continue;
    }
    DumpHloFile f;
    f.stage = dump->stage;
    f.path = it->path().string();
    f.file = file;
    f.bytes = static_cast<int64_t>(it->file_size(fec));
    f.optimized = dump->optimized;
    if (f.optimized)
      if (std::optional<std::string> ba = FindBufferAssignmentBeside(f.path)) f.buffer_assignment = *ba;
    // Two processes' modules of one number stay apart by their timestamps.
    DumpModule& m = by_id[{dump->id, dump->module, dump->timestamp}];
    m.id = dump->id;
    m.timestamp = dump->timestamp;
    m.name = dump->module;
    m.files.push_back(std::move(f));
  }
  if (ec) return CannotOpenFile(path, ec.message());
  for (auto& [key, m] : by_id) {
    auto pre = pre_partition.find(ModuleStem({m.id, m.name, "", false, m.timestamp}));
    if (pre != pre_partition.end())
      for (DumpHloFile& f : m.files)
        if (f.optimized) f.pre_partition = pre->second;
    std::sort(m.files.begin(), m.files.end(), [](const DumpHloFile& a, const DumpHloFile& b) {
      return std::pair(a.optimized, a.file) < std::pair(b.optimized, b.file);
    });
    folder.modules.push_back(std::move(m));
  }
  return folder;
}

}  // namespace hloscope
