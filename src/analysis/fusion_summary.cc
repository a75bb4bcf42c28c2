#include "hloscope/analysis/fusion_summary.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "hloscope/analysis/call_graph.h"
#include "hloscope/analysis/scope_filter.h"

namespace hloscope {
namespace {

// Every computation a kernel runs: the fused computation, nested fusions and
// the reducers/comparators of its instructions.
void KernelComputations(const HloComputation* comp, std::vector<const HloComputation*>* out,
                        int depth) {
  if (!comp || depth > 32 || std::find(out->begin(), out->end(), comp) != out->end()) return;
  out->push_back(comp);
  for (const HloInstruction* instr : comp->instructions())
    for (const CalledComputation& cc : instr->called_computations())
      KernelComputations(cc.computation, out, depth + 1);
}

}  // namespace

std::string FusionKindName(const HloInstruction& fusion) {
  switch (fusion.fusion_kind()) {
    case FusionKind::kLoop: return "kLoop";
    case FusionKind::kInput: return "kInput";
    case FusionKind::kOutput: return "kOutput";
    case FusionKind::kCustom: return "kCustom";
    case FusionKind::kNone: return "";
    case FusionKind::kOther: break;
  }
  if (std::optional<std::string_view> k = fusion.attribute("kind")) return std::string(*k);
  return "";
}

std::string FusionBackendKind(const HloInstruction& fusion) {
  std::optional<std::string_view> raw = fusion.backend_config();
  if (!raw || raw->empty()) return "";
  std::string text(*raw);
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"')
    text = CUnescape(std::string_view(text).substr(1, text.size() - 2));
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return "";
  // GPU: fusion_backend_config.kind; CPU: fusion_config.kind.
  for (const char* key : {"fusion_backend_config", "fusion_config"}) {
    auto cfg = j.find(key);
    if (cfg == j.end() || !cfg->is_object()) continue;
    auto kind = cfg->find("kind");
    if (kind != cfg->end() && kind->is_string()) return kind->get<std::string>();
  }
  return "";
}

bool IsInterestingFusedOpcode(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kDynamicUpdateSlice:
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kScatter:
    case HloOpcode::kGather:
    case HloOpcode::kReduce:
    case HloOpcode::kReduceWindow:
    case HloOpcode::kDot:
    case HloOpcode::kConvolution:
    case HloOpcode::kCopy:
    case HloOpcode::kTranspose:
    case HloOpcode::kConcatenate:
    case HloOpcode::kPad:
    case HloOpcode::kReverse:
    case HloOpcode::kSort:
    case HloOpcode::kCustomCall:
    case HloOpcode::kFft:
    case HloOpcode::kSelectAndScatter:
    case HloOpcode::kFusion:
      return true;
    default:
      return false;
  }
}

FusionSummary SummarizeFusion(const HloInstruction& fusion, const SourceIndex& index,
                              const ExecutionCounts& counts, const ModuleCheck* check) {
  FusionSummary s;
  s.name = std::string(fusion.name());
  s.computation = std::string(fusion.parent()->name());
  const HloComputation* fused = fusion.fused_computation();
  s.fused_computation = fused ? std::string(fused->name()) : "";
  s.kind = FusionKindName(fusion);
  s.backend_kind = FusionBackendKind(fusion);
  s.shape = fusion.shape().ToString();
  s.source = index.Of(fusion);
  s.executions = counts.Of(&fusion);
  s.executions_upper_bound = counts.IsUpperBound(fusion.parent());
  for (const HloInstruction* l : counts.EnclosingLoops(fusion.parent()))
    s.enclosing_loops.push_back(std::string(l->name()));

  std::optional<int64_t> read = 0;
  for (const HloInstruction* op : fusion.operands()) {
    std::optional<int64_t> b = LeafByteSizeOf(op->shape());
    if (!b || !read) read = std::nullopt;
    else *read += *b;
  }
  s.bytes_read = read;
  s.bytes_written = LeafByteSizeOf(fusion.shape());

  std::map<std::string, std::set<int64_t>> lines;
  auto add_line = [&](const std::optional<SourceLocation>& loc) {
    if (loc && !loc->file.empty() && loc->line > 0) lines[loc->file].insert(loc->line);
  };
  add_line(s.source);

  std::vector<const HloComputation*> comps;
  KernelComputations(fused, &comps, 0);
  std::map<std::string, int64_t> by_opcode;
  for (const HloComputation* comp : comps) {
    bool fused_body = RoleOf(*comp) == ComputationRole::kFused;
    for (const HloInstruction* instr : comp->instructions()) {
      if (instr->opcode() == HloOpcode::kParameter) continue;
      std::optional<SourceLocation> loc = index.Of(*instr);
      add_line(loc);
      if (!fused_body) continue;  // reducers: their lines count, their ops are the reduce's
      ++s.instruction_count;
      ++by_opcode[std::string(instr->opcode_text())];
      if (IsInterestingFusedOpcode(instr->opcode()))
        s.interesting.push_back({std::string(instr->name()), std::string(instr->opcode_text()),
                                 instr->shape().ToString(), loc});
    }
  }
  s.opcode_counts.assign(by_opcode.begin(), by_opcode.end());
  std::stable_sort(s.opcode_counts.begin(), s.opcode_counts.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::string> parts;
  for (auto& [file, set] : lines) {
    SourceLines sl{file, {set.begin(), set.end()}};
    parts.push_back(FormatLineSet(file, sl.lines));
    s.lines.push_back(std::move(sl));
  }
  s.lines_text = fmt::format("{}", fmt::join(parts, "; "));

  if (check) {
    for (const UpdateFinding& u : check->updates) {
      bool mine = (u.fusion && *u.fusion == s.name) || (!u.fusion && u.instruction == s.name);
      if (!mine) continue;
      std::string line = fmt::format("{} {}: {}", u.opcode, u.instruction, UpdateVerdictName(u.verdict));
      if (u.copy) line += fmt::format(" (on {})", *u.copy);
      if (u.full_rewrite) line += ", rewrites the whole buffer";
      s.findings.push_back(std::move(line));
    }
    for (const CopyFinding& c : check->copies)
      if (c.instruction == s.name)
        s.findings.push_back(fmt::format("copies {} ({}): {}", c.shape, CopyCauseName(c.cause),
                                         c.cause_detail));
  }
  return s;
}

ModuleFusions SummarizeFusions(const SourceIndex& index, const ExecutionCounts& counts,
                               const ModuleCheck* check, const FusionsOptions& options) {
  ModuleFusions out;
  const HloModule& module = index.module();
  out.name = std::string(module.name());
  ScopeMatcher scope(options.scope);
  for (const HloComputation* comp : module.computations()) {
    if (!IsSequentialRole(RoleOf(*comp))) continue;
    for (const HloInstruction* instr : comp->instructions()) {
      if (instr->opcode() != HloOpcode::kFusion) continue;
      ++out.kernels_total;
      if (!scope.empty()) {
        bool match = scope.Matches(index.OpNameOf(*instr));
        std::vector<const HloComputation*> comps;
        KernelComputations(instr->fused_computation(), &comps, 0);
        for (size_t c = 0; c < comps.size() && !match; ++c)
          for (const HloInstruction* inner : comps[c]->instructions())
            if (scope.Matches(index.OpNameOf(*inner))) {
              match = true;
              break;
            }
        if (!match) continue;
      }
      out.fusions.push_back(SummarizeFusion(*instr, index, counts, check));
    }
  }
  return out;
}

}  // namespace hloscope
