#include "hloscope/parser/dump_naming.h"

#include <algorithm>
#include <filesystem>

#include "hloscope/support/found_file.h"

namespace hloscope {
namespace {

constexpr std::string_view kPrefix = "module_";
constexpr std::string_view kTxt = ".txt";
constexpr std::string_view kOptimized = "after_optimizations";
constexpr std::string_view kOptimizedTxt = "after_optimizations.txt";
constexpr std::string_view kUnoptimized = "before_optimizations";
// hloscope's fixtures.
constexpr std::string_view kFixtureHlo[] = {"module.hlo.txt", "as_text.hlo.txt"};

bool IsFixtureHlo(std::string_view name) {
  return std::find(std::begin(kFixtureHlo), std::end(kFixtureHlo), name) != std::end(kFixtureHlo);
}

// A non-empty run of decimal digits: a module id, a timestamp, a pass counter.
bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// --xla_dump_include_timestamp (hloscope run sets it) puts the compile time
// before every file of the module: "TIMESTAMP.module_NNNN.…"; its length
// with the dot, or 0.
size_t TimestampLength(std::string_view file) {
  size_t dot = file.find('.');
  if (dot == std::string_view::npos || !file.substr(dot + 1).starts_with(kPrefix)) return 0;
  return AllDigits(file.substr(0, dot)) ? dot + 1 : 0;
}

}  // namespace

std::optional<DumpFileName> ParseDumpFileName(std::string_view file) {
  std::string_view timestamp = file.substr(0, TimestampLength(file));
  file.remove_prefix(timestamp.size());
  if (!file.starts_with(kPrefix) || !file.ends_with(kTxt)) return std::nullopt;
  std::string_view rest = file.substr(kPrefix.size(), file.size() - kPrefix.size() - kTxt.size());
  size_t dot = rest.find('.');
  if (dot == 0 || dot == std::string_view::npos) return std::nullopt;
  std::string_view digits = rest.substr(0, dot);
  if (!AllDigits(digits)) return std::nullopt;
  rest.remove_prefix(dot + 1);
  size_t name_end = rest.find('.');
  if (name_end == 0 || name_end == std::string_view::npos) return std::nullopt;
  std::string_view stage = rest.substr(name_end + 1);
  // Pass-by-pass dumps (--xla_dump_hlo_pass_re: ….0012.pass.after_x.before_y) are not whole stages.
  if (stage != kUnoptimized && !stage.ends_with(kOptimized)) return std::nullopt;
  return DumpFileName{std::string(digits), std::string(rest.substr(0, name_end)), std::string(stage),
                      stage.ends_with(kOptimized), std::string(timestamp)};
}

bool IsOptimizedDumpName(std::string_view file) {
  if (std::optional<DumpFileName> d = ParseDumpFileName(file)) return d->optimized;
  // hloscope run's own: PID.NNNN.NAME.after_optimizations.txt.
  return file.ends_with(kOptimizedTxt) && !file.starts_with(kPrefix) && file.find('.') < file.size();
}

bool AcceptFoundFile(const std::string& path, std::vector<RefusedFile>* refused) {
  FoundFile verdict = CheckFoundFile(path);
  if (verdict == FoundFile::kReadable) return true;
  if (verdict != FoundFile::kAbsent && refused) {
    RefusedFile r{path, std::string(RefusalReason(verdict))};
    if (std::find(refused->begin(), refused->end(), r) == refused->end()) refused->push_back(std::move(r));
  }
  return false;
}

std::vector<std::string> BufferAssignmentPathsFor(const std::string& hlo_path) {
  std::vector<std::string> out;
  if (std::string_view(hlo_path).ends_with(kTxt))
    out.push_back(hlo_path.substr(0, hlo_path.size() - kTxt.size()) + "-buffer-assignment.txt");
  std::filesystem::path p(hlo_path);
  if (IsFixtureHlo(p.filename().string()))
    out.push_back((p.parent_path() / "buffer-assignment.txt").string());
  return out;
}

std::vector<std::string> ThunkMetadataPathsFor(const std::string& hlo_path) {
  std::vector<std::string> out;
  std::filesystem::path p(hlo_path);
  std::string name = p.filename().string();
  if (IsFixtureHlo(name)) {
    out.push_back((p.parent_path() / "thunk_metadata.txt").string());
    return out;
  }
  // module_0001.jit_f.sm_9.0a_gpu_after_optimizations.txt: the thunk dump is
  // named by the part before the backend's, and the backend's may hold dots
  // itself (sm_9.0a): the longest prefix first.
  if (!std::string_view(name).ends_with(kOptimizedTxt)) return out;
  for (size_t dot = name.rfind('.', name.size() - kOptimizedTxt.size()); dot != std::string::npos && dot > 0;
       dot = name.rfind('.', dot - 1))
    out.push_back((p.parent_path() / (name.substr(0, dot) + ".thunk_metadata.txt")).string());
  return out;
}

bool IsPrePartitionDumpOf(std::string_view candidate, std::string_view hlo_file) {
  if (IsFixtureHlo(hlo_file)) return candidate == kFixturePrePartition;
  std::optional<DumpFileName> d = ParseDumpFileName(hlo_file);
  if (!d || !(candidate.ends_with(kPrePartitionSuffix) || candidate.ends_with(kTpuPrePartitionSuffix)))
    return false;
  std::string stem = ModuleStem(*d);
  if (!candidate.starts_with(stem)) return false;
  std::string_view rest = candidate.substr(stem.size());
  // TPU's build tag (cl_NNN.), as in its stage name.
  if (rest.starts_with("cl_")) {
    size_t dot = rest.find('.');
    if (dot == std::string_view::npos) return false;
    rest.remove_prefix(dot + 1);
  }
  // Then the pass dump's own counter: NNNN.
  size_t dot = rest.find('.');
  return dot != std::string_view::npos && AllDigits(rest.substr(0, dot));
}

std::string ModuleStem(const DumpFileName& module) {
  return module.timestamp + std::string(kPrefix) + module.id + "." + module.module + ".";
}

std::optional<std::string> PrePartitionModuleStem(std::string_view file) {
  size_t id_end = file.find('.', TimestampLength(file));
  size_t name_end = id_end == std::string_view::npos ? id_end : file.find('.', id_end + 1);
  if (name_end == std::string_view::npos) return std::nullopt;
  std::string stem(file.substr(0, name_end + 1));
  // Checked against an optimized dump name of the same module.
  if (!IsPrePartitionDumpOf(file, stem + std::string(kOptimizedTxt))) return std::nullopt;
  return stem;
}

std::optional<std::string> FindBeforeOptimizationsBeside(const std::string& hlo_path,
                                                         std::vector<RefusedFile>* refused) {
  namespace fs = std::filesystem;
  fs::path p(hlo_path);
  std::string name = p.filename().string();
  fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  fs::path f;
  if (IsFixtureHlo(name)) {
    f = dir / kFixtureBeforeOptimizations;
  } else {
    std::optional<DumpFileName> d = ParseDumpFileName(name);
    if (!d || !d->optimized) return std::nullopt;
    f = dir / (ModuleStem(*d) + std::string(kUnoptimized) + ".txt");
  }
  if (!AcceptFoundFile(f.string(), refused)) return std::nullopt;
  return f.string();
}

std::optional<std::string> FindPrePartitionBeside(const std::string& hlo_path,
                                                  std::vector<RefusedFile>* refused) {
  namespace fs = std::filesystem;
  fs::path p(hlo_path);
  std::string name = p.filename().string();
  fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  std::error_code ec;
  if (IsFixtureHlo(name)) {
    fs::path f = dir / kFixturePrePartition;
    if (AcceptFoundFile(f.string(), refused)) return f.string();
    return std::nullopt;
  }
  if (!ParseDumpFileName(name)) return std::nullopt;
  std::optional<std::string> best;
  // A dump folder holds a few files per module; bound the scan all the same.
  int64_t seen = 0;
  std::string dir_real = ResolvedFolder(dir.string());
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end && seen < 1'000'000;
       it.increment(ec), ++seen) {
    std::string f = it->path().filename().string();
    if (!IsPrePartitionDumpOf(f, name)) continue;
    if (best && f >= fs::path(*best).filename().string()) continue;
    FoundFile verdict = CheckFoundFile(it->path().string(), dir_real);
    if (verdict == FoundFile::kReadable) {
      best = it->path().string();
    } else if (verdict != FoundFile::kAbsent && refused) {
      refused->push_back({it->path().string(), std::string(RefusalReason(verdict))});
    }
  }
  return best;
}

}  // namespace hloscope
