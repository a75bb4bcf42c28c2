#include "hloscope/analysis/source_index.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <set>
#include <tuple>
#include <sys/stat.h>

#include <fmt/format.h>

#include "hloscope/analysis/call_graph.h"
#include "hloscope/analysis/dataflow.h"
#include "hloscope/analysis/scope_filter.h"

namespace hloscope {
namespace {

bool IsRegularFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::vector<std::string_view> Components(std::string_view path) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/' || path[i] == '\\') {
      std::string_view c = path.substr(start, i - start);
      if (!c.empty() && c != ".") out.push_back(c);
      start = i + 1;
    }
  }
  return out;
}

std::optional<int64_t> ParseInt(std::string_view s) {
  if (s.empty()) return std::nullopt;
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < 0) return std::nullopt;
  return v;
}

// "42" or "42-50" -> (first, last).
bool ParseRange(std::string_view s, int64_t* first, int64_t* last) {
  size_t dash = s.find('-');
  std::optional<int64_t> a = ParseInt(s.substr(0, dash));
  std::optional<int64_t> b = dash == std::string_view::npos ? a : ParseInt(s.substr(dash + 1));
  if (!a || !b || *a == 0 || *b < *a) return false;
  *first = *a;
  *last = *b;
  return true;
}

bool IsTrivialKernel(const HloInstruction* i) {
  switch (i->opcode()) {
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kTuple:
    case HloOpcode::kBitcast:
      return true;
    default:
      return false;
  }
}

}  // namespace

// ---------------------------------------------------------------------------
// SourceFiles

std::optional<std::string> SourceFiles::Locate(const std::string& metadata_path) const {
  if (metadata_path.empty() || metadata_path.front() == '<') return std::nullopt;
  std::vector<std::string_view> comps = Components(metadata_path);
  for (const std::string& root : roots_) {
    for (size_t start = 0; start < comps.size(); ++start) {
      std::string candidate = root.empty() ? "." : root;
      for (size_t i = start; i < comps.size(); ++i) {
        candidate += '/';
        candidate += comps[i];
      }
      if (IsRegularFile(candidate)) return candidate;
    }
  }
  if (IsRegularFile(metadata_path)) return metadata_path;
  return std::nullopt;
}

const std::vector<std::string>* SourceFiles::Lines(const std::string& metadata_path) {
  auto it = cache_.find(metadata_path);
  if (it == cache_.end()) {
    std::optional<std::vector<std::string>> lines;
    if (std::optional<std::string> path = Locate(metadata_path)) {
      std::ifstream in(*path, std::ios::binary);
      if (in) {
        lines.emplace();
        std::string line;
        while (std::getline(in, line)) {
          if (!line.empty() && line.back() == '\r') line.pop_back();
          lines->push_back(std::move(line));
        }
      }
    }
    it = cache_.emplace(metadata_path, std::move(lines)).first;
  }
  return it->second ? &*it->second : nullptr;
}

std::optional<std::string> SourceFiles::Line(const std::string& metadata_path, int64_t line) {
  const std::vector<std::string>* lines = Lines(metadata_path);
  if (!lines || line < 1 || line > static_cast<int64_t>(lines->size())) return std::nullopt;
  return (*lines)[line - 1];
}

// ---------------------------------------------------------------------------
// Line specs

bool SourceFileMatches(std::string_view path, std::string_view spec_file) {
  if (spec_file.empty()) return true;
  std::vector<std::string_view> want = Components(spec_file);
  std::vector<std::string_view> have = Components(path);
  if (want.empty() || want.size() > have.size()) return false;
  return std::equal(want.rbegin(), want.rend(), have.rbegin());
}

bool FunctionMatches(std::string_view function, std::string_view name) {
  if (name.empty() || function.empty()) return false;
  if (function == name) return true;
  if (function.size() > name.size() && function.ends_with(name) &&
      function[function.size() - name.size() - 1] == '.')
    return true;
  // Nested in it: "name.<locals>.inner" or "outer.<locals>.name.<locals>.inner".
  std::string nested = std::string(name) + ".<locals>.";
  size_t pos = function.find(nested);
  return pos != std::string_view::npos && (pos == 0 || function[pos - 1] == '.');
}

bool LineSpec::Matches(const SourceLocation& loc) const {
  if (loc.file.empty() || loc.line <= 0) return false;
  if (!function.empty()) {
    if (!file.empty() && !SourceFileMatches(loc.file, file)) return false;
    return FunctionMatches(loc.function, function);
  }
  if (!file.empty() && !SourceFileMatches(loc.file, file)) return false;
  if (first > 0 && (loc.line < first || loc.line > last)) return false;
  return true;
}

std::optional<LineSpec> ParseLineSpec(std::string_view text, std::string* error) {
  auto fail = [&](std::string msg) -> std::optional<LineSpec> {
    if (error) *error = std::move(msg);
    return std::nullopt;
  };
  LineSpec spec;
  spec.text = std::string(text);
  if (text.empty()) return fail("empty location");
  size_t colon = text.rfind(':');
  if (colon != std::string_view::npos) {
    spec.file = std::string(text.substr(0, colon));
    std::string_view rest = text.substr(colon + 1);
    if (rest.empty()) return spec;  // "train.py:" = the whole file
    if (!ParseRange(rest, &spec.first, &spec.last)) {
      // file:function
      if (rest.find_first_of("0123456789") == 0)
        return fail(fmt::format("bad line range '{}' (expected N or N-M)", rest));
      spec.function = std::string(rest);
    }
    return spec;
  }
  if (text.find_first_not_of("0123456789-") == std::string_view::npos) {
    if (!ParseRange(text, &spec.first, &spec.last))
      return fail(fmt::format("bad line range '{}' (expected N or N-M)", text));
    return spec;
  }
  if (text.find('/') != std::string_view::npos || text.ends_with(".py")) {
    spec.file = std::string(text);
    return spec;
  }
  spec.function = std::string(text);
  return spec;
}

std::string FormatLineSet(std::string_view file, const std::vector<int64_t>& lines) {
  std::string out = fmt::format("{}:", Basename(file));
  for (size_t i = 0; i < lines.size();) {
    size_t j = i;
    while (j + 1 < lines.size() && lines[j + 1] == lines[j] + 1) ++j;
    if (i) out += ',';
    out += j == i ? fmt::format("{}", lines[i]) : fmt::format("{}-{}", lines[i], lines[j]);
    i = j + 1;
  }
  return out;
}

// ---------------------------------------------------------------------------
// SourceIndex

int32_t SourceIndex::Intern(const std::string& key, SourceLocation loc) {
  auto it = entry_by_key_.find(key);
  if (it != entry_by_key_.end()) return it->second;
  int32_t id = static_cast<int32_t>(entries_.size());
  entries_.push_back({std::move(loc)});
  entry_by_key_.emplace(key, id);
  return id;
}

SourceIndex::SourceIndex(const HloModule& module, const ModuleCheck* check,
                         const SourceOptions& options)
    : module_(module) {
  size_t n = 0;
  for (const HloComputation* comp : module.computations())
    for (const HloInstruction* instr : comp->instructions()) n = std::max<size_t>(n, instr->id() + 1);
  instrs_.assign(n, nullptr);
  entry_of_.assign(n, -1);
  for (const HloComputation* comp : module.computations())
    for (const HloInstruction* instr : comp->instructions()) instrs_[instr->id()] = instr;
  instrs_.erase(std::remove(instrs_.begin(), instrs_.end(), nullptr), instrs_.end());

  // Inline source_file/source_line carry no function name; when the module
  // still prints its FileLocations table (as the inline-frames dump does),
  // the row with the same file, line and column names the function.
  std::map<std::tuple<std::string, int64_t, int64_t>, std::string> function_at;
  const StackFrameIndex& tables = module.stack_frames();
  for (const FileLocation& fl : tables.file_locations) {
    if (fl.file_name_id < 1 || fl.file_name_id > static_cast<int64_t>(tables.file_names.size()) ||
        fl.function_name_id < 1 ||
        fl.function_name_id > static_cast<int64_t>(tables.function_names.size()))
      continue;
    function_at.emplace(std::make_tuple(CUnescape(tables.file_names[fl.file_name_id - 1]), fl.line, fl.column),
                        CUnescape(tables.function_names[fl.function_name_id - 1]));
  }

  // Own metadata, resolved once per distinct frame / inline location.
  for (const HloInstruction* instr : instrs_) {
    const OpMetadata* md = instr->metadata();
    if (!md) continue;
    std::string key = fmt::format("m:{}|{}|{}|{}", md->stack_frame_id, md->source_file,
                                  md->source_line, md->source_column);
    auto it = entry_by_key_.find(key);
    int32_t id;
    if (it != entry_by_key_.end()) {
      id = it->second;
    } else {
      std::optional<SourceLocation> loc = ResolveSource(module, *instr, options);
      if (!loc) continue;
      loc->op_name.clear();
      if (loc->function.empty() && !loc->file.empty()) {
        auto fn = function_at.find(std::make_tuple(loc->file, loc->line, loc->column));
        if (fn != function_at.end()) loc->function = fn->second;
      }
      id = Intern(key, std::move(*loc));
    }
    entry_of_[instr->id()] = id;
  }

  // Copies without a line of their own: `check`'s attribution. A copy that
  // check could only place at its loop but that feeds an update is placed at
  // that update, the line that needs the copy.
  if (check) {
    std::map<std::string, const UpdateFinding*> update_by_feed_name;
    for (const UpdateFinding& u : check->updates) {
      std::string name = u.fusion ? fmt::format("{} (in {})", u.instruction, *u.fusion) : u.instruction;
      update_by_feed_name.emplace(name, &u);
    }
    for (const CopyFinding& c : check->copies) {
      const HloComputation* comp = module.GetComputation(c.computation);
      const HloInstruction* instr = comp ? comp->GetInstruction(c.instruction) : nullptr;
      if (!instr || HasLine(*instr)) continue;
      std::optional<SourceLocation> loc = c.source;
      if ((!loc || loc->via == "loop") && !c.feeds.empty()) {
        for (const std::string& f : c.feeds) {
          auto it = update_by_feed_name.find(f);
          if (it != update_by_feed_name.end() && it->second->source &&
              !it->second->source->file.empty()) {
            loc = it->second->source;
            loc->via = "update";
            break;
          }
        }
      }
      // The initial state of a loop that overwrites it: the loop's line.
      for (size_t f = 0; f < c.feeds.size() && (!loc || loc->file.empty()); ++f) {
        size_t cut = c.feeds[f].find(" (loop state");
        if (cut == std::string::npos) continue;
        const HloInstruction* w = nullptr;
        for (const HloComputation* comp2 : module.computations())
          if ((w = comp2->GetInstruction(c.feeds[f].substr(0, cut)))) break;
        if (!w) continue;
        if (std::optional<SourceLocation> wl = ResolveSource(module, *w, options); wl && !wl->file.empty()) {
          loc = wl;
          loc->via = "loop";
        }
      }
      if (!loc || loc->file.empty()) continue;
      entry_of_[instr->id()] = Intern("c:" + c.instruction, std::move(*loc));
    }
  }

  // Kernels: the outermost caller of each non-sequential computation.
  std::vector<const HloComputation*> pending;
  for (const HloComputation* comp : module.computations())
    if (!IsSequentialRole(RoleOf(*comp))) pending.push_back(comp);
  for (int round = 0; round < 64 && !pending.empty(); ++round) {
    std::vector<const HloComputation*> next;
    for (const HloComputation* comp : pending) {
      if (comp->callers().empty()) continue;
      const HloInstruction* caller = comp->callers()[0];
      const HloComputation* up = caller->parent();
      if (IsSequentialRole(RoleOf(*up))) {
        kernel_caller_[comp] = caller;
      } else if (auto it = kernel_caller_.find(up); it != kernel_caller_.end()) {
        kernel_caller_[comp] = it->second;
      } else {
        next.push_back(comp);
      }
    }
    if (next.size() == pending.size()) break;
    pending = std::move(next);
  }
}

std::optional<SourceLocation> SourceIndex::Of(const HloInstruction& instr) const {
  if (instr.id() >= entry_of_.size() || entry_of_[instr.id()] < 0) return std::nullopt;
  SourceLocation loc = entries_[entry_of_[instr.id()]].loc;
  if (loc.via == "metadata" && instr.metadata()) loc.op_name = CUnescape(instr.metadata()->op_name);
  return loc;
}

bool SourceIndex::HasLine(const HloInstruction& instr) const {
  if (instr.id() >= entry_of_.size() || entry_of_[instr.id()] < 0) return false;
  const SourceLocation& loc = entries_[entry_of_[instr.id()]].loc;
  return !loc.file.empty() && loc.line > 0;
}

std::string SourceIndex::OpNameOf(const HloInstruction& instr) const {
  if (instr.metadata() && !instr.metadata()->op_name.empty())
    return CUnescape(instr.metadata()->op_name);
  if (instr.id() < entry_of_.size() && entry_of_[instr.id()] >= 0)
    return entries_[entry_of_[instr.id()]].loc.op_name;
  return "";
}

const HloInstruction* SourceIndex::KernelOf(const HloInstruction& instr) const {
  auto it = kernel_caller_.find(instr.parent());
  return it == kernel_caller_.end() ? &instr : it->second;
}

std::vector<const HloInstruction*> SourceIndex::Find(const LineSpec& spec,
                                                     std::string_view scope) const {
  std::vector<char> entry_ok(entries_.size());
  for (size_t e = 0; e < entries_.size(); ++e) entry_ok[e] = spec.Matches(entries_[e].loc);
  std::vector<const HloInstruction*> out;
  ScopeMatcher matcher(scope);
  for (const HloInstruction* instr : instrs_) {
    int32_t e = instr->id() < entry_of_.size() ? entry_of_[instr->id()] : -1;
    if (e < 0 || !entry_ok[e]) continue;
    if (!matcher.empty() && !matcher.Matches(OpNameOf(*instr))) continue;
    out.push_back(instr);
  }
  return out;
}

std::vector<std::string> SourceIndex::Files() const {
  std::set<std::string> files;
  for (const Entry& e : entries_)
    if (!e.loc.file.empty()) files.insert(e.loc.file);
  return {files.begin(), files.end()};
}

// ---------------------------------------------------------------------------
// Line facts

namespace {

const HloInstruction* FindInstruction(const HloModule& module, std::string_view computation,
                                      std::string_view name) {
  if (const HloComputation* comp = module.GetComputation(computation))
    if (const HloInstruction* i = comp->GetInstruction(name)) return i;
  for (const HloComputation* comp : module.computations())
    if (const HloInstruction* i = comp->GetInstruction(name)) return i;
  return nullptr;
}

// "arg_tuple.6{1}" -> ("arg_tuple.6", {1}).
std::pair<std::string, ShapeIndex> ParsePosition(std::string_view text) {
  size_t brace = text.find('{');
  if (brace == std::string_view::npos) return {std::string(text), {}};
  ShapeIndex index;
  std::string_view rest = text.substr(brace + 1);
  while (!rest.empty() && rest.front() != '}') {
    size_t end = rest.find_first_of(",}");
    if (std::optional<int64_t> v = ParseInt(rest.substr(0, end))) index.push_back(*v);
    if (end == std::string_view::npos) break;
    rest = rest.substr(end + (rest[end] == ',' ? 1 : 0));
  }
  return {std::string(text.substr(0, brace)), index};
}

}  // namespace

std::vector<LineFacts> CollectLineFacts(const SourceIndex& index, const ExecutionCounts& counts,
                                        const ModuleCheck& check, const LineQuery& query) {
  const HloModule& module = index.module();
  LineSpec all;
  const LineSpec& spec = query.spec ? *query.spec : all;
  ScopeMatcher scope(query.scope);

  std::map<const HloInstruction*, std::vector<const UpdateFinding*>> updates_of;
  for (const UpdateFinding& u : check.updates)
    if (const HloInstruction* i = FindInstruction(module, u.computation, u.instruction))
      updates_of[i].push_back(&u);
  std::map<const HloInstruction*, const CopyFinding*> copy_of;
  for (const CopyFinding& c : check.copies)
    if (const HloInstruction* i = FindInstruction(module, c.computation, c.instruction))
      copy_of[i] = &c;

  std::map<std::pair<std::string, int64_t>, LineFacts> by_line;
  auto bucket = [&](const SourceLocation& loc) -> LineFacts& {
    LineFacts& f = by_line[{loc.file, loc.line}];
    f.file = loc.file;
    f.line = loc.line;
    return f;
  };

  for (const HloInstruction* instr : index.Find(spec, query.scope)) {
    std::optional<SourceLocation> loc = index.Of(*instr);
    LineFacts& f = bucket(*loc);
    LineInstruction li;
    li.instruction = instr;
    li.source = *loc;
    const HloInstruction* kernel = index.KernelOf(*instr);
    li.kernel = kernel == instr ? nullptr : kernel;
    li.loops = counts.EnclosingLoops(instr->parent());
    li.executions = counts.Of(instr);
    li.executions_upper_bound = counts.IsUpperBound(instr->parent());
    if (auto it = updates_of.find(instr); it != updates_of.end()) li.updates = it->second;
    if (auto it = copy_of.find(instr); it != copy_of.end()) {
      li.copy = it->second;
      f.copies.push_back(it->second);
    }
    if (std::find(f.kernels.begin(), f.kernels.end(), kernel) == f.kernels.end() &&
        (li.kernel || !IsTrivialKernel(instr)))
      f.kernels.push_back(kernel);
    f.instructions.push_back(std::move(li));
  }

  // Updates by the line check gives them (the updating instruction's own
  // line, or its fusion's).
  for (const UpdateFinding& u : check.updates) {
    if (!u.source || !spec.Matches(*u.source)) continue;
    if (!scope.empty() && !scope.Matches(u.source->op_name)) continue;
    bucket(*u.source).updates.push_back(&u);
  }

  // Reads that force a copy: readers of the value a read-after-update copy
  // protects.
  if (query.include_reads) {
    for (const CopyFinding& c : check.copies) {
      if (c.cause != CopyCause::kReadAfterUpdate || c.copied_from.empty()) continue;
      auto [name, idx] = ParsePosition(c.copied_from);
      const HloInstruction* value = FindInstruction(module, c.computation, name);
      if (!value) continue;
      // Non-copy readers of the value and of the copies made of it.
      std::set<const HloInstruction*> seen;
      std::vector<HloPosition> work = {{value, idx}};
      for (size_t w = 0; w < work.size() && w < 64; ++w) {
        for (const HloUse& use : UsesOf(work[w])) {
          const HloInstruction* reader = use.user;
          if (!seen.insert(reader).second) continue;
          if (reader->opcode() == HloOpcode::kCopy) {
            work.push_back({reader, {}});
            continue;
          }
          if (reader->opcode() == HloOpcode::kTuple || reader->opcode() == HloOpcode::kWhile) continue;
          bool is_update = false;
          for (const std::string& feed : c.feeds)
            if (feed == reader->name() || feed.find(fmt::format("(in {})", reader->name())) != std::string::npos)
              is_update = true;
          if (is_update) continue;
          std::optional<SourceLocation> loc = index.Of(*reader);
          if (!loc || loc->file.empty() || !spec.Matches(*loc)) continue;
          if (!scope.empty() && !scope.Matches(loc->op_name)) continue;
          bucket(*loc).reads.push_back({reader, &c});
        }
      }
    }
  }

  std::vector<LineFacts> out;
  out.reserve(by_line.size());
  for (auto& [key, f] : by_line) {
    for (const CopyFinding* c : f.copies) {
      if (!f.copy_bytes_per_call) break;
      if (!c->total_bytes) f.copy_bytes_per_call = std::nullopt;
      else *f.copy_bytes_per_call += *c->total_bytes;
    }
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace hloscope
