#include "hloscope/parser/dump_folder.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <system_error>
#include <tuple>

#include "hloscope/parser/dump_naming.h"
#include "hloscope/support/found_file.h"
#include "hloscope/support/input_file.h"

namespace hloscope {
int64_t DumpFolder::optimized_files() const {
  int64_t n = 0;
  for (const DumpModule& m : modules)
    for (const DumpHloFile& f : m.files) n += f.optimized;
  return n;
}

DumpFolder GroupDumpFolder(const std::string& path, const std::vector<DumpFolderEntry>& entries) {
  namespace fs = std::filesystem;
  DumpFolder folder;
  folder.path = path;
  auto path_of = [&](const std::string& file) { return (fs::path(path) / file).string(); };
  // The buffer assignment beside a module is found in this listing, not by
  // a stat per module (a folder of 100,000 modules is one walk).
  std::set<std::string> listed;
  for (const DumpFolderEntry& e : entries) listed.insert(path_of(e.file));
  std::map<std::tuple<std::string, std::string, std::string>, DumpModule> by_id;
  // The modules before SPMD partitioning, by the "module_NNNN.NAME." they
  // start with (the first by name where the partitioner ran more than once):
  // matched to their modules below.
  std::map<std::string, std::string> pre_partition;
  for (const DumpFolderEntry& e : entries) {
    std::optional<DumpFileName> dump = ParseDumpFileName(e.file);
    if (!dump) {
      ++folder.other_files;
      if (std::optional<std::string> stem = PrePartitionModuleStem(e.file)) {
        std::string& best = pre_partition[*stem];
        if (best.empty() || e.file < fs::path(best).filename().string()) best = path_of(e.file);
      }
      continue;
    }
    DumpHloFile f;
    f.stage = dump->stage;
    f.path = path_of(e.file);
    f.file = e.file;
    f.bytes = e.bytes;
    f.optimized = dump->optimized;
    if (f.optimized)
      for (const std::string& candidate : BufferAssignmentPathsFor(f.path))
        if (listed.count(candidate)) {
          f.buffer_assignment = candidate;
          break;
        }
    // Two processes' modules of one number stay apart by their timestamps.
    DumpModule& m = by_id[{dump->id, dump->module, dump->timestamp}];
    m.id = dump->id;
    m.timestamp = dump->timestamp;
    m.name = dump->module;
    m.files.push_back(std::move(f));
  }
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

Result<DumpFolder> ListDumpFolder(const std::string& path) {
  namespace fs = std::filesystem;
  std::vector<DumpFolderEntry> entries;
  std::vector<RefusedFile> refused;
  std::error_code ec;
  // Every file is checked against the folder's own resolved path, found once.
  std::string real = ResolvedFolder(path);
  for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code fec;
    if (it->is_directory(fec)) continue;  // a folder, or a link to one: not a file of this dump
    FoundFile verdict = CheckFoundFile(it->path().string(), real);
    if (verdict == FoundFile::kAbsent) continue;
    if (verdict != FoundFile::kReadable) {
      refused.push_back({it->path().string(), std::string(RefusalReason(verdict))});
      continue;
    }
    uintmax_t bytes = it->file_size(fec);
    entries.push_back({it->path().filename().string(), fec ? 0 : static_cast<int64_t>(bytes)});
  }
  if (ec) return CannotOpenFile(path, ec.message());
  DumpFolder folder = GroupDumpFolder(path, entries);
  std::sort(refused.begin(), refused.end(),
            [](const RefusedFile& a, const RefusedFile& b) { return a.path < b.path; });
  folder.refused = std::move(refused);
  return folder;
}

}  // namespace hloscope
