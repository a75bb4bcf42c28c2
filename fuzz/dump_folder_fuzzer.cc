// libFuzzer target for the listing of an XLA dump folder (`check DIR`,
// `diff DIR DIR`): the input is a folder's listing, one file name per line,
// and any listing must group into modules by XLA's file naming without
// crashing or tripping a sanitizer, with every file counted exactly once
// and every buffer assignment named one the folder holds.
//
// Build and run: fuzz/run_fuzz.sh [SECONDS] dump_folder_fuzzer
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "hloscope/parser/dump_folder.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace hloscope;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<DumpFolderEntry> entries;
  std::set<std::string> paths;
  for (size_t start = 0; start <= text.size() && entries.size() < 4096;) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string name(text.substr(start, end - start));
    // A directory listing holds each name once, and never "", "." or "..".
    if (!name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos &&
        name.find('\0') == std::string::npos && paths.insert("dump/" + name).second)
      entries.push_back({name, static_cast<int64_t>(name.size())});
    start = end + 1;
  }
  DumpFolder folder = GroupDumpFolder("dump", entries);
  int64_t files = folder.other_files;
  std::string last_id;
  for (const DumpModule& m : folder.modules) {
    if (m.files.empty()) std::abort();
    for (const DumpHloFile& f : m.files) {
      ++files;
      if (!paths.count(f.path)) std::abort();
      if (!f.buffer_assignment.empty() && !paths.count(f.buffer_assignment)) std::abort();
      if (!f.pre_partition.empty() && !paths.count(f.pre_partition)) std::abort();
    }
  }
  if (files != static_cast<int64_t>(entries.size())) std::abort();
  return 0;
}
