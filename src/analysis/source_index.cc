#include "hloscope/analysis/source_index.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "hloscope/analysis/call_graph.h"
#include "hloscope/analysis/scope_filter.h"

namespace hloscope {

int32_t SourceIndex::Intern(const std::string& key, SourceLocation loc) {
  auto it = entry_by_key_.find(key);
  if (it != entry_by_key_.end()) return it->second;
  int32_t id = static_cast<int32_t>(entries_.size());
  entries_.push_back({std::move(loc)});
  entry_by_key_.emplace(key, id);
  return id;
}

SourceIndex::SourceIndex(const HloModule& module, const ModuleCheck* check, const SourceOptions& options)
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
        fl.function_name_id < 1 || fl.function_name_id > static_cast<int64_t>(tables.function_names.size()))
      continue;
    function_at.emplace(
        std::make_tuple(CUnescape(tables.file_names[fl.file_name_id - 1]), fl.line, fl.column),
        CUnescape(tables.function_names[fl.function_name_id - 1]));
  }

  // Own metadata, resolved once per distinct frame / inline location.
  for (const HloInstruction* instr : instrs_) {
    const OpMetadata* md = instr->metadata();
    if (!md) continue;
    std::string key =
        fmt::format("m:{}|{}|{}|{}", md->stack_frame_id, md->source_file, md->source_line, md->source_column);
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

  // Copies: `check`'s attribution (their own line, or — where they have
  // none, or one inherited from their operand or loop, as newer XLA gives
  // them — the update that needed the copy, the copied value, the loop), so
  // that check, where, annotate, the report and SARIF put every copy on one
  // line (check.cc AttributeCopy is the one function that chooses it).
  if (check) {
    for (const CopyFinding& c : check->copies) {
      const HloInstruction* instr = c.copy.instruction;
      if (!c.source || c.source->file.empty()) continue;
      entry_of_[instr->id()] = Intern(fmt::format("c:{}", instr->id()), *c.source);
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

SourceLocation LocationOf(const SourceLocation& interned, const HloInstruction& instr) {
  SourceLocation loc = interned;
  if (loc.via == SourceVia::kMetadata && instr.metadata()) loc.op_name = CUnescape(instr.metadata()->op_name);
  return loc;
}

std::optional<SourceLocation> SourceIndex::Of(const HloInstruction& instr) const {
  const SourceLocation* loc = Location(instr);
  if (!loc) return std::nullopt;
  return LocationOf(*loc, instr);
}

const SourceLocation* SourceIndex::Location(const HloInstruction& instr) const {
  if (instr.id() >= entry_of_.size() || entry_of_[instr.id()] < 0) return nullptr;
  return &entries_[entry_of_[instr.id()]].loc;
}

bool SourceIndex::HasLine(const HloInstruction& instr) const {
  if (instr.id() >= entry_of_.size() || entry_of_[instr.id()] < 0) return false;
  const SourceLocation& loc = entries_[entry_of_[instr.id()]].loc;
  return !loc.file.empty() && loc.line > 0;
}

std::string SourceIndex::OpNameOf(const HloInstruction& instr) const {
  if (instr.metadata() && !instr.metadata()->op_name.empty()) return CUnescape(instr.metadata()->op_name);
  if (instr.id() < entry_of_.size() && entry_of_[instr.id()] >= 0)
    return entries_[entry_of_[instr.id()]].loc.op_name;
  return "";
}

const HloInstruction* SourceIndex::KernelOf(const HloInstruction& instr) const {
  auto it = kernel_caller_.find(instr.parent());
  return it == kernel_caller_.end() ? &instr : it->second;
}

std::vector<const HloInstruction*> SourceIndex::Find(const LineSpec& spec, std::string_view scope) const {
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

}  // namespace hloscope
