// CheckModule: runs the parts of the analysis in order and assembles the
// findings; ModuleCheck's lookups from the IR back to findings.
#include "hloscope/analysis/check.h"

#include <algorithm>
#include <unordered_map>

#include "check_context.h"
#include "hloscope/analysis/answer.h"
#include "hloscope/analysis/buffer_assignment_match.h"
#include "hloscope/analysis/call_graph.h"
#include "hloscope/analysis/collectives.h"
#include "hloscope/analysis/module_cost.h"
#include "hloscope/analysis/reshard_origin.h"
#include "hloscope/analysis/thunks.h"
#include "hloscope/support/saturating.h"

namespace hloscope {
namespace {

bool SameSource(const std::optional<SourceLocation>& a, const std::optional<SourceLocation>& b) {
  return a && b && a->file == b->file && a->line == b->line && a->column == b->column &&
         a->op_name == b->op_name;
}

// Copies carry no metadata of their own (except some GPU copy fusions):
// they are placed, in this order, at the update that needed them, at the
// value they copy, at the loop whose initial state they are, else at their
// loop. `where`, `annotate` and `check` all use this one attribution.
// Newer XLA (JAX 0.12) gives an inserted copy the metadata of its operand
// or of the while it serves (the `scan`/`fori_loop` line), which is no more
// the copy's line than on older XLA, where it has none: it is skipped the same.
bool InheritedSource(const CheckContext& ctx, const CopySite& site, const CopyFinding& f,
                     const HloPosition& src, const std::optional<SourceLocation>& own) {
  if (!own) return false;
  if (site.source && SameSource(own, ctx.Source(site.source))) return true;
  if (src.instruction && SameSource(own, ctx.Source(src.instruction))) return true;
  for (const CopyFeed& feed : f.feeds)
    if (feed.kind == CopyFeed::Kind::kLoopState && SameSource(own, ctx.Source(feed.loop))) return true;
  for (const HloInstruction* loop : f.enclosing_loops)
    if (SameSource(own, ctx.Source(loop))) return true;
  return false;
}

std::optional<SourceLocation> AttributeCopy(const CheckContext& ctx, const CopySite& site,
                                            const CopyFinding& f, const std::vector<UpdateFinding>& updates) {
  std::optional<SourceLocation> own = ctx.Source(site.copy.instruction);
  // The value behind a chain of copies (a copy of a copy of a constant): the
  // intermediate copies carry inherited metadata of their own on newer XLA.
  HloPosition src =
      f.copied_from.instruction ? f.copied_from : DefiningPosition(site.source, site.source_index);
  if (own && !own->file.empty() && !InheritedSource(ctx, site, f, src, own)) return own;
  auto via = [](std::optional<SourceLocation> loc, SourceVia how) -> std::optional<SourceLocation> {
    if (!loc || loc->file.empty()) return std::nullopt;
    loc->via = how;
    return loc;
  };
  for (const UpdateFinding& u : updates) {
    bool fed = u.runs_on && u.runs_on->instruction == site.copy.instruction;
    for (const CopyFeed& feed : f.feeds)
      fed |= feed.kind == CopyFeed::Kind::kUpdate && feed.update.instruction == u.site.instruction;
    if (fed)
      if (auto loc = via(u.source, SourceVia::kUpdate)) return loc;
  }
  if (auto loc = via(ctx.Source(src.instruction), SourceVia::kCopiedValue)) return loc;
  for (const CopyFeed& feed : f.feeds)
    if (feed.kind == CopyFeed::Kind::kLoopState)
      if (auto loc = via(ctx.Source(feed.loop), SourceVia::kLoop)) return loc;
  // The innermost loop, known from the call graph.
  for (const HloInstruction* loop : ctx.counts().EnclosingLoops(site.copy.instruction->parent()))
    if (auto loc = via(ctx.Source(loop), SourceVia::kLoop)) return loc;
  return own;
}

}  // namespace

CopyFinding DescribeCopy(const CheckContext& ctx, const CopySite& s,
                         const std::vector<UpdateFinding>& updates) {
  const ExecutionCounts& counts = ctx.counts();
  const HloComputation* comp = s.copy.instruction->parent();
  CopyFinding f;
  f.copy = s.copy;
  f.kind = s.kind;
  f.copy_class = ClassifyCopy(*s.src_shape, *s.dest_shape);
  f.shape = s.dest_shape;
  f.source_shape = s.src_shape;
  f.scalar = s.dest_shape->IsArray() && s.dest_shape->rank() == 0;
  f.bytes = ByteSizeOf(*s.dest_shape);
  f.executions = counts.Of(comp);
  f.executions_upper_bound = counts.IsUpperBound(comp);
  f.total_bytes = SatMul(f.bytes, f.executions);
  f.enclosing_loops = counts.EnclosingLoops(comp);
  f.feeds = ctx.FeedsOf(s.copy);
  ExplainCopy(ctx, s, &f);
  // Whatever its cause (TPU moves a loop's s32[2] bounds into S(1), and the
  // loop then overwrites them): a few hundred bytes of constant.
  f.minor = f.scalar || (f.copy_class == CopyClass::kMemorySpaceMove && f.copied_from.instruction &&
                         f.copied_from.instruction->opcode() == HloOpcode::kConstant && f.bytes &&
                         *f.bytes <= kSmallPrefetchBytes);
  f.source = AttributeCopy(ctx, s, f, updates);
  return f;
}

ModuleCheck CheckModule(const HloModule& module, const ExecutionCounts& counts, const CheckOptions& given) {
  ModuleCheck result;
  result.module = &module;
  result.buffer_assignment_path = given.buffer_assignment_path;
  // Another module's dump confirms nothing: it is not applied, and says why.
  CheckOptions options = given;
  // The user's mesh: given (the module before optimization's), else this
  // module's own (TPU keeps xla.sdy.meshes).
  if (!options.user_mesh) options.user_mesh = SdyMeshIn(module.attribute("frontend_attributes").value_or(""));
  // Every value of the dump resolved once: the foreign-dump test and the
  // memory analysis both read it.
  std::optional<BufferValueInstructions> instructions;
  if (options.buffer_assignment) {
    instructions.emplace(*options.buffer_assignment, module);
    if (std::optional<std::string> why =
            ForeignBufferAssignment(*options.buffer_assignment, module, *instructions)) {
      result.buffer_assignment_mismatch = std::move(*why);
      options.buffer_assignment = nullptr;
    }
  }
  result.buffer_assignment_applied = options.buffer_assignment != nullptr;
  CheckContext ctx(module, counts, options);
  // Updates first: copy causes and sources look at which updates a copy feeds.
  result.updates = FindUpdates(ctx);
  for (const CopySite& s : ctx.sites()) result.copies.push_back(DescribeCopy(ctx, s, result.updates));
  for (CopyFinding& c : result.copies) {
    if (c.total_bytes) continue;
    for (const HloInstruction* loop : c.enclosing_loops)
      if (!counts.TripCountOf(loop).count) {
        c.unknown_trip_loop = loop;
        c.bytes_per_unknown_trip_iteration =
            SatMul(c.bytes, counts.RunsPerIteration(c.enclosing_loops, loop));
        break;
      }
  }
  // By bytes per call where known; else by what one iteration of the loop
  // with the unknown trip count moves (a lower bound of the total). A copy
  // with no figure at all (a size unknowable) goes last.
  auto rank = [](const CopyFinding& c) -> int64_t {
    return c.total_bytes.value_or(c.bytes_per_unknown_trip_iteration.value_or(-1));
  };
  std::stable_sort(result.copies.begin(), result.copies.end(),
                   [&](const CopyFinding& a, const CopyFinding& b) { return rank(a) > rank(b); });
  // Collectives before loops: a loop adds up what its collectives move.
  FindCollectives(ctx, &result);
  // The user's names for the mesh axes, where the module before
  // optimization (or this one, on TPU) keeps the user's mesh.
  if (options.user_mesh) NameMeshAxes(*options.user_mesh, &result);
  // Which sharding asked for a re-shard: the module before partitioning,
  // when it is this module's (the same name).
  if (options.pre_partition) {
    result.pre_partition_path = options.pre_partition_path;
    result.pre_partition_applied = options.pre_partition->name() == module.name();
    if (result.pre_partition_applied) FindReshardOrigins(*options.pre_partition, options.source, &result);
  }
  for (const HloComputation* comp : module.computations()) {
    if (!IsSequentialRole(RoleOf(*comp))) continue;
    for (const HloInstruction* instr : comp->instructions())
      if (instr->opcode() == HloOpcode::kWhile)
        result.loops.push_back(AnalyzeLoop(ctx, instr, result.copies, result.collectives));
  }
  // An update a gather serves names it (its verdict is not a bare "in place").
  for (const CollectiveFinding& c : result.collectives) {
    if (c.cause.rule != CollectiveRule::kGatherForDynamicUpdate || !c.cause.consumer.instruction) continue;
    for (UpdateFinding& u : result.updates)
      if (u.site.instruction == c.cause.consumer.instruction ||
          u.site.fusion == c.cause.consumer.instruction ||
          (c.cause.consumer_fusion && u.site.fusion == c.cause.consumer_fusion))
        u.gathered_by = c.instruction;
  }
  // A copy grows with buffer size where any loop around it judged so (the
  // copy of an outer loop's buffer inside an inner loop that indexes
  // something else still grows with the outer loop's buffer).
  {
    std::unordered_map<const HloInstruction*, std::vector<const HloPosition*>> growing;
    for (const LoopFinding& l : result.loops)
      for (const LoopScaling& s : l.scaling)
        if (s.kind == LoopScaling::Kind::kCopy && s.grows_with_buffer)
          growing[s.copy.instruction].push_back(&s.copy);
    for (CopyFinding& c : result.copies)
      if (auto it = growing.find(c.copy.instruction); it != growing.end())
        for (const HloPosition* p : it->second) c.grows_with_buffer |= *p == c.copy;
  }
  // A collective grows with buffer size as its innermost loop judged it.
  for (const LoopFinding& l : result.loops)
    for (const LoopScaling& s : l.scaling) {
      if (s.kind != LoopScaling::Kind::kCollective || !s.grows_with_buffer) continue;
      for (CollectiveFinding& c : result.collectives)
        if (c.instruction == s.collective && !c.enclosing_loops.empty() &&
            c.enclosing_loops.front() == l.loop)
          c.grows_with_buffer = true;
    }
  result.parameters = FindParameters(ctx);
  // The donation asked for, where known: given, or a buffer_donor the
  // optimized module still carries (XLA removes each donor it aliases, so
  // one left is a donation it could not use).
  bool known = options.donation_requested && options.donation_requested->size() == result.parameters.size();
  if (known) result.donation_request_source = options.donation_request_source;
  for (ParameterFinding& p : result.parameters) {
    if (known) {
      p.request = RequestedDonation(module, p, (*options.donation_requested)[static_cast<size_t>(p.number)]);
    } else if (p.donation == DonationKind::kBufferDonor) {
      p.request = RequestedDonation(module, p, true);
      if (result.donation_request_source.empty()) result.donation_request_source = "buffer_donor";
    }
  }
  result.Reindex();
  // What donating each argument saves: the copies made only because it is
  // not donated (an unknown total leaves the saving unknown).
  for (ParameterFinding& p : result.parameters) {
    if (p.donated()) continue;
    std::optional<int64_t> saves;
    bool unknown = false;
    for (const HloPosition& pos : p.copies) {
      const CopyFinding* c = result.FindCopy(pos);
      if (!c || c->cause.cause != CopyCause::kNonDonatedParameter) continue;
      if (!c->total_bytes) unknown = true;
      saves = SatAdd(saves.value_or(0), c->total_bytes.value_or(0));
    }
    if (!unknown) p.donation_saves = saves;
  }
  if (options.thunk_metadata)
    CheckThunks(module, *options.thunk_metadata, options.thunk_metadata_path, &result);
  if (options.buffer_assignment) {
    MemoryOptions memory;
    memory.source = options.source;
    memory.instructions = &*instructions;
    result.memory = AnalyzeMemory(module, *options.buffer_assignment, result, memory);
  }
  // The work per call (no lines: those need the source index, which check
  // does not build).
  constexpr size_t kTop = 5;
  ModuleCostOptions cost_options;
  cost_options.ranked = kTop;
  ModuleCost cost = CostModule(module, counts, nullptr, cost_options);
  result.kernel_times.reserve(cost.kernels.size());
  for (const KernelCost& k : cost.kernels)
    result.kernel_times.emplace(
        k.kernel, ModuleCheck::KernelTime{k.seconds_per_call, k.per_call.bytes_accessed,
                                          k.enclosing_loops.empty() ? nullptr : k.enclosing_loops.front()});
  result.cost = SummarizeCost(cost, kTop);
  result.source_options = options.source;
  RankFindings(&result);
  return result;
}

// ---------------------------------------------------------------------------
// ModuleCheck lookups

void ModuleCheck::Reindex() {
  copies_by_instr_.clear();
  updates_by_instr_.clear();
  loop_by_instr_.clear();
  for (uint32_t i = 0; i < copies.size(); ++i) copies_by_instr_[copies[i].copy.instruction].push_back(i);
  for (uint32_t i = 0; i < updates.size(); ++i) {
    updates_by_instr_[updates[i].site.instruction].push_back(i);
    if (updates[i].site.fusion) updates_by_instr_[updates[i].site.fusion].push_back(i);
  }
  for (uint32_t i = 0; i < loops.size(); ++i) loop_by_instr_.emplace(loops[i].loop, i);
}

const CopyFinding* ModuleCheck::FindCopy(const HloPosition& position) const {
  auto it = copies_by_instr_.find(position.instruction);
  if (it == copies_by_instr_.end()) return nullptr;
  for (uint32_t i : it->second)
    if (copies[i].copy.index == position.index) return &copies[i];
  return nullptr;
}

std::vector<const CopyFinding*> ModuleCheck::CopiesOf(const HloInstruction* instr) const {
  std::vector<const CopyFinding*> out;
  auto it = copies_by_instr_.find(instr);
  if (it != copies_by_instr_.end())
    for (uint32_t i : it->second) out.push_back(&copies[i]);
  return out;
}

std::vector<const UpdateFinding*> ModuleCheck::UpdatesOf(const HloInstruction* instr) const {
  std::vector<const UpdateFinding*> out;
  auto it = updates_by_instr_.find(instr);
  if (it != updates_by_instr_.end())
    for (uint32_t i : it->second) out.push_back(&updates[i]);
  return out;
}

const UpdateFinding* ModuleCheck::FindUpdate(const UpdateSite& site) const {
  for (const UpdateFinding* u : UpdatesOf(site.instruction))
    if (u->site == site) return u;
  return nullptr;
}

const CollectiveFinding* ModuleCheck::FindCollective(const HloInstruction* instruction) const {
  for (const CollectiveFinding& c : collectives)
    if (c.instruction == instruction) return &c;
  return nullptr;
}

const ParameterFinding* ModuleCheck::FindParameter(int64_t number) const {
  // Parameters are listed by number: the direct look first (a module with
  // thousands of parameters asks for each).
  if (number >= 0 && static_cast<size_t>(number) < parameters.size() &&
      parameters[static_cast<size_t>(number)].number == number)
    return &parameters[static_cast<size_t>(number)];
  for (const ParameterFinding& p : parameters)
    if (p.number == number) return &p;
  return nullptr;
}

const LoopFinding* ModuleCheck::FindLoop(const HloInstruction* loop) const {
  auto it = loop_by_instr_.find(loop);
  return it == loop_by_instr_.end() ? nullptr : &loops[it->second];
}

}  // namespace hloscope
