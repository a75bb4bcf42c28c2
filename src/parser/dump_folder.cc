#include "hloscope/parser/dump_folder.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <system_error>

#include "hloscope/parser/buffer_assignment.h"
#include "hloscope/support/input_file.h"

namespace hloscope {
namespace {

constexpr std::string_view kPrefix = "module_";
constexpr std::string_view kTxt = ".txt";

// module_NNNN.NAME.STAGE.txt with STAGE one of the whole-module HLO
// stages; false for every other file of the folder (the buffer
// assignment, pass-by-pass dumps, LLVM IR, …).
bool SplitHloName(std::string_view file, std::string* id, std::string* name, std::string* stage) {
  if (!file.starts_with(kPrefix) || !file.ends_with(kTxt)) return false;
  std::string_view rest = file.substr(kPrefix.size(), file.size() - kPrefix.size() - kTxt.size());
  size_t dot = rest.find('.');
  if (dot == 0 || dot == std::string_view::npos) return false;
  std::string_view digits = rest.substr(0, dot);
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) return false;
  rest.remove_prefix(dot + 1);
  size_t name_end = rest.find('.');
  if (name_end == 0 || name_end == std::string_view::npos) return false;
  std::string_view st = rest.substr(name_end + 1);
  // Pass-by-pass dumps (--xla_dump_hlo_pass_re: ….0012.pass.after_x.before_y) are not whole stages.
  if (st != "before_optimizations" && !st.ends_with("after_optimizations")) return false;
  *id = std::string(digits);
  *name = std::string(rest.substr(0, name_end));
  *stage = std::string(st);
  return true;
}

}  // namespace

bool IsOptimizedDumpName(std::string_view file) {
  std::string id, name, stage;
  return SplitHloName(file, &id, &name, &stage) && stage.ends_with("after_optimizations");
}

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
  std::map<std::pair<std::string, std::string>, DumpModule> by_id;
  std::error_code ec;
  for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code fec;
    if (!it->is_regular_file(fec)) continue;
    std::string file = it->path().filename().string();
    DumpHloFile f;
    std::string id, name;
    if (!SplitHloName(file, &id, &name, &f.stage)) {
      ++folder.other_files;
      continue;
    }
    f.path = it->path().string();
    f.file = file;
    f.bytes = static_cast<int64_t>(it->file_size(fec));
    f.optimized = f.stage.ends_with("after_optimizations");
    if (f.optimized)
      if (std::optional<std::string> ba = FindBufferAssignmentBeside(f.path)) f.buffer_assignment = *ba;
    DumpModule& m = by_id[{id, name}];
    m.id = id;
    m.name = name;
    m.files.push_back(std::move(f));
  }
  if (ec) return CannotOpenFile(path, ec.message());
  for (auto& [key, m] : by_id) {
    std::sort(m.files.begin(), m.files.end(), [](const DumpHloFile& a, const DumpHloFile& b) {
      return std::pair(a.optimized, a.file) < std::pair(b.optimized, b.file);
    });
    folder.modules.push_back(std::move(m));
  }
  return folder;
}

}  // namespace hloscope
