// Collectives of a sharded module as findings: every all-gather, all-reduce,
// reduce-scatter, all-to-all, ragged-all-to-all, collective-permute and
// collective-broadcast (sync, async pairs, async wrappers, fused into TPU
// kernels), with its traffic per device (analysis/collective_traffic.h),
// executions per call, loops and source line, and why it is there: the
// collective rows of the catalog (analysis/cause_catalog.def), tried in row
// order. Each row names a family (CollectiveRuleFamily) whose matcher below
// reads the evidence Explain finds once per collective (its op_name, the
// users of its result, whether it gathers) and names the rule of its family
// that matched, with the facts it states; the first match wins. Adding a
// rule is adding a row and teaching its family's matcher to name it; a new
// family is one more matcher in MatcherOf (HACKING.md, "Adding a cause").
#include "hloscope/analysis/collectives.h"

#include <algorithm>
#include <map>
#include <set>

#include "check_context.h"
#include "hloscope/analysis/call_graph.h"
#include "hloscope/analysis/scope_filter.h"
#include "hloscope/support/saturating.h"
#include "spmd_patterns.h"

namespace hloscope {
namespace {

// Ops that pass a collective's result on unchanged: bitcast, copy,
// get-tuple-element, the -done of an async collective.
bool PassesOn(const HloInstruction* u) {
  switch (u->opcode()) {
    case HloOpcode::kBitcast:
    case HloOpcode::kCopy:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kAllReduceDone:
    case HloOpcode::kCollectivePermuteDone:
    case HloOpcode::kAsyncDone:
      return true;
    default:
      return false;
  }
}

// The users of `i` through ops that pass it on, depth-bounded.
void CollectUsers(const HloInstruction* i, std::vector<std::pair<const HloInstruction*, int64_t>>* out,
                  int depth = 0) {
  if (depth > 8) return;
  for (const HloInstruction* u : i->users()) {
    for (int64_t k = 0; k < u->operand_count(); ++k) {
      if (u->operand(k) != i) continue;
      if (PassesOn(u))
        CollectUsers(u, out, depth + 1);
      else
        out->push_back({u, k});
    }
  }
}

// `i` or a value passed on from it (or a tuple holding it) is the root of
// `entry`: the program returns it.
bool Returned(const HloInstruction* i, const HloComputation* entry, int depth = 0) {
  if (!entry || depth > 8) return false;
  if (i == entry->root_instruction()) return true;
  for (const HloInstruction* u : i->users())
    if ((PassesOn(u) || u->opcode() == HloOpcode::kTuple) && Returned(u, entry, depth + 1)) return true;
  return false;
}

bool ConstantIndex(const HloInstruction* i) {
  i = Unwrap(i);
  return i && i->opcode() == HloOpcode::kConstant;
}

// A read or update of operand `k` of `user` at a run-time index: a
// dynamic-slice or gather of it, a dynamic-update-slice into it; inside a
// fusion, of the fused parameter. Returns the instruction that does it.
const HloInstruction* DynamicAccess(const HloInstruction* user, int64_t k, bool* update, int depth = 0) {
  if (depth > 4 || !user) return nullptr;
  switch (user->opcode()) {
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kDynamicUpdateSlice: {
      if (k != 0) return nullptr;
      int64_t first = user->opcode() == HloOpcode::kDynamicSlice ? 1 : 2;
      bool dynamic = false;
      for (int64_t j = first; j < user->operand_count(); ++j) dynamic |= !ConstantIndex(user->operand(j));
      if (!dynamic) return nullptr;
      *update = user->opcode() == HloOpcode::kDynamicUpdateSlice;
      return user;
    }
    case HloOpcode::kGather:
      if (k != 0) return nullptr;
      *update = false;
      return user;
    case HloOpcode::kFusion: {
      const HloComputation* fused = user->fused_computation();
      if (!fused || k >= static_cast<int64_t>(fused->parameters().size())) return nullptr;
      std::vector<std::pair<const HloInstruction*, int64_t>> inner;
      CollectUsers(fused->parameter(k), &inner);
      for (auto [u, j] : inner)
        if (const HloInstruction* a = DynamicAccess(u, j, update, depth + 1)) return a;
      return nullptr;
    }
    default:
      return nullptr;
  }
}

// The primitive an op_name ends in: ".../shard_map/psum[axes=('x',)]" -> "psum".
std::string LastPrimitive(std::string_view op_name) {
  size_t slash = op_name.rfind('/');
  std::string_view last = slash == std::string_view::npos ? op_name : op_name.substr(slash + 1);
  size_t bracket = last.find('[');
  if (bracket != std::string_view::npos) last = last.substr(0, bracket);
  return std::string(last);
}

bool IsCollectivePrimitive(std::string_view p) {
  static constexpr std::string_view kPrimitives[] = {
      "psum",           "pmax",           "pmin",       "pmean",    "all_gather", "all_gather_invariant",
      "psum_scatter",   "reduce_scatter", "all_to_all", "ppermute", "pbroadcast", "ragged_all_to_all",
      "psum_invariant", "pshuffle",       "pswapaxes"};
  return std::find(std::begin(kPrimitives), std::end(kPrimitives), p) != std::end(kPrimitives);
}

std::string OpName(const HloInstruction* i) {
  const OpMetadata* md = i ? i->metadata() : nullptr;
  return md ? CUnescape(md->op_name) : std::string();
}

// `access` (a read inside `fusion`) flows into the update value of a
// dynamic-update-slice in the same kernel that writes a fused parameter
// holding `value`: XLA:GPU reads the old row and writes the new one in one
// loop kernel (scatter's read-select-write), so the read serves the update.
const HloInstruction* FusedUpdateServed(const HloInstruction* fusion, const HloInstruction* access,
                                        const HloPosition& value) {
  if (!fusion || fusion->opcode() != HloOpcode::kFusion || !access) return nullptr;
  std::vector<const HloInstruction*> work{access};
  std::vector<const HloInstruction*> seen;
  while (!work.empty() && seen.size() < 256) {
    const HloInstruction* i = work.back();
    work.pop_back();
    if (std::find(seen.begin(), seen.end(), i) != seen.end()) continue;
    seen.push_back(i);
    for (const HloInstruction* u : i->users()) {
      if (u->opcode() == HloOpcode::kDynamicUpdateSlice && u->operand_count() > 1 && u->operand(1) == i) {
        const HloInstruction* target = u->operand(0);
        if (target->opcode() == HloOpcode::kParameter &&
            target->parameter_number() < fusion->operand_count() &&
            DefiningPosition(fusion->operand(target->parameter_number()), {}) == value)
          return u;
      }
      work.push_back(u);
    }
  }
  return nullptr;
}

// What the collective rules read, found once per collective.
struct CollectiveEvidence {
  const CheckContext& ctx;
  const CollectiveFinding& f;
  const HloInstruction* result_at;  // whose users read the result (a TPU chain's done kernel)
  HloPosition value;                // the defining position of its operand
  std::string op_name;
  // The users of its result (the async pair's -done's, the wrapper's).
  std::vector<std::pair<const HloInstruction*, int64_t>> users;
  // An all-gather, or an all-reduce of shards each placed at its own offset.
  bool gathers = false;
};

// A matcher's answer: the rule of its family that matched and the facts it
// states, set on the finding only when the rule is chosen.
struct CollectiveMatch {
  CollectiveRule rule = CollectiveRule::kNone;
  std::string primitive = {};
  InstructionAt consumer = {};
  const HloInstruction* consumer_fusion = nullptr;
  InstructionAt producer = {};
  bool from_scatter = false;
};
using CollectiveMatcher = std::optional<CollectiveMatch> (*)(const CollectiveEvidence&);

// Written by the program (shard_map, pmap).
std::optional<CollectiveMatch> Explicit(const CollectiveEvidence& e) {
  std::string primitive = LastPrimitive(e.op_name);
  if (!IsCollectivePrimitive(primitive)) return std::nullopt;
  return CollectiveMatch{.rule = CollectiveRule::kExplicitCollective, .primitive = std::move(primitive)};
}

// A gather of a sharded array to read or update it at a run-time index.
std::optional<CollectiveMatch> GatherForDynamicAccess(const CollectiveEvidence& e) {
  if (!e.gathers) return std::nullopt;
  for (auto [u, k] : e.users) {
    bool update = false;
    const HloInstruction* access = DynamicAccess(u, k, &update);
    if (!access) continue;
    CollectiveMatch m{.rule = CollectiveRule::kGatherForDynamicRead,
                      .consumer = e.ctx.At(access),
                      .consumer_fusion = u->opcode() == HloOpcode::kFusion ? u : nullptr};
    // The read feeds an in-place update of the local shard (scatter's
    // read of the old row): the gather serves the update.
    // A multi-output read kernel (one row per buffer of a KV-cache tuple)
    // passes each row on through a get-tuple-element; the update this
    // gather serves is the one that writes the shard it gathered.
    const HloInstruction* dus = nullptr;
    std::vector<std::pair<const HloInstruction*, int64_t>> readers_users;
    CollectUsers(u, &readers_users);
    for (auto [w, j] : readers_users) {
      if (w->opcode() != HloOpcode::kDynamicUpdateSlice || j != 1) continue;
      if (!dus || DefiningPosition(w->operand(0), {}) == e.value) dus = w;
    }
    const HloInstruction* fused_dus = update || dus ? nullptr : FusedUpdateServed(u, access, e.value);
    if (update || dus || fused_dus) {
      const HloInstruction* writer = dus ? dus : fused_dus ? fused_dus : access;
      m.rule = CollectiveRule::kGatherForDynamicUpdate;
      m.consumer = e.ctx.At(writer);
      if (dus) m.consumer_fusion = nullptr;
      m.from_scatter = LastPrimitive(OpName(writer)) == "scatter" || LastPrimitive(OpName(u)) == "scatter";
    }
    return m;
  }
  return std::nullopt;
}

// with_sharding_constraint.
std::optional<CollectiveMatch> Constraint(const CollectiveEvidence& e) {
  if (e.op_name.find("sharding_constraint") == std::string::npos) return std::nullopt;
  return CollectiveMatch{.rule = CollectiveRule::kConstraintReshard};
}

// A read or write at an index along a sharded dimension, by masking.
std::optional<CollectiveMatch> MaskedIndex(const CollectiveEvidence& e) {
  const HloInstruction* coll = e.f.collective;
  if (e.f.family != CollectiveFamily::kAllReduce || coll->operand_count() == 0) return std::nullopt;
  const HloInstruction* mask = nullptr;
  for (int64_t k = 0; k < coll->operand_count(); ++k) {
    const HloInstruction* m = DeviceMask(coll->operand(k));
    if (!m) return std::nullopt;
    if (!mask) mask = m;
  }
  return CollectiveMatch{.rule = CollectiveRule::kMaskedIndex, .producer = e.ctx.At(mask)};
}

// Partial sums of a sharded contraction. A combined all-reduce (several
// operands) sums several gradients: any operand made by a contraction
// explains it.
std::optional<CollectiveMatch> PartialSums(const CollectiveEvidence& e) {
  if (e.f.family != CollectiveFamily::kAllReduce && e.f.family != CollectiveFamily::kReduceScatter)
    return std::nullopt;
  const HloInstruction* coll = e.f.collective;
  for (int64_t k = 0; k < coll->operand_count(); ++k)
    if (const HloInstruction* p = PartialSumProducer(coll->operand(k)))
      return CollectiveMatch{.rule = CollectiveRule::kPartialSums, .producer = e.ctx.At(p)};
  return std::nullopt;
}

// A re-shard between a producer and a consumer, or for the output.
std::optional<CollectiveMatch> Reshard(const CollectiveEvidence& e) {
  if (!e.gathers && e.f.family != CollectiveFamily::kAllToAll &&
      e.f.family != CollectiveFamily::kCollectivePermute)
    return std::nullopt;
  for (auto [u, k] : e.users)
    if (u->opcode() != HloOpcode::kTuple)
      return CollectiveMatch{.rule = CollectiveRule::kReshardForConsumer, .consumer = e.ctx.At(u)};
  // Only in a loop's (or a call's, a branch's) initial state: re-sharded
  // for the loop.
  for (auto [u, k] : e.users) {
    if (u->opcode() != HloOpcode::kTuple) continue;
    for (const HloInstruction* w : u->users())
      if (w->opcode() == HloOpcode::kWhile || w->opcode() == HloOpcode::kCall ||
          w->opcode() == HloOpcode::kConditional)
        return CollectiveMatch{.rule = CollectiveRule::kReshardForConsumer, .consumer = e.ctx.At(w)};
  }
  // Only returned: the output's sharding asks for it.
  if (Returned(e.result_at, e.ctx.module().entry_computation()))
    return CollectiveMatch{.rule = CollectiveRule::kReshardForOutput};
  return std::nullopt;
}

// The matcher of each family. A switch, so that a family without one does
// not compile (-Werror=switch).
CollectiveMatcher MatcherOf(CollectiveRuleFamily family) {
  switch (family) {
    case CollectiveRuleFamily::kExplicit:
      return &Explicit;
    case CollectiveRuleFamily::kDynamicAccess:
      return &GatherForDynamicAccess;
    case CollectiveRuleFamily::kConstraint:
      return &Constraint;
    case CollectiveRuleFamily::kMaskedIndex:
      return &MaskedIndex;
    case CollectiveRuleFamily::kPartialSums:
      return &PartialSums;
    case CollectiveRuleFamily::kReshard:
      return &Reshard;
  }
  return nullptr;
}

// The cause of `f`: the catalog's collective rows in order; each family's
// matcher runs at most once (at its first row), and the first match wins.
void Explain(const CheckContext& ctx, CollectiveFinding* f, const HloInstruction* result_at) {
  CollectiveCauseFacts& c = f->cause;
  const HloInstruction* coll = f->collective;
  if (coll->operand_count() > 0) c.value = DefiningPosition(coll->operand(0), {});
  CollectiveEvidence e{ctx, *f, result_at, c.value, OpName(coll), {}, false};
  CollectUsers(result_at, &e.users);
  e.gathers = f->family == CollectiveFamily::kAllGather;
  if (f->family == CollectiveFamily::kAllReduce && coll->operand_count() > 0) {
    // (A combined all-reduce may also carry masked elements beside them.)
    bool placed = false, all = true;
    for (int64_t k = 0; k < coll->operand_count() && all; ++k) {
      bool p = PlacedByDevice(coll->operand(k));
      placed |= p;
      all = p || DeviceMask(coll->operand(k));
    }
    e.gathers = placed && all;
  }
  uint32_t tried = 0;
  for (const CollectiveRuleEntry& row : CollectiveRuleCatalog()) {
    uint32_t bit = 1u << static_cast<unsigned>(row.family);
    if (tried & bit) continue;
    tried |= bit;
    std::optional<CollectiveMatch> m = MatcherOf(row.family)(e);
    if (!m) continue;
    c.rule = m->rule;
    c.cause = CauseOf(m->rule);
    c.primitive = std::move(m->primitive);
    c.consumer = std::move(m->consumer);
    c.consumer_fusion = m->consumer_fusion;
    c.producer = std::move(m->producer);
    c.from_scatter = m->from_scatter;
    return;
  }
  c.rule = CollectiveRule::kNone;
  c.cause = CauseOf(CollectiveRule::kNone);
}

// The mesh the mesh-form replica groups name, when they all name the same.
void ModuleMesh(const std::vector<const HloInstruction*>& collectives, SpmdFacts* spmd) {
  std::optional<std::vector<std::pair<std::string, int64_t>>> mesh;
  for (const HloInstruction* collective : collectives) {
    if (!collective) continue;
    std::optional<std::string_view> groups = collective->attribute("replica_groups");
    if (!groups || !groups->starts_with("mesh")) continue;
    Result<CollectiveDeviceList> list = ParseCollectiveDeviceList(*groups);
    if (!list.ok() || list->mesh.axes.empty()) continue;
    std::vector<std::pair<std::string, int64_t>> axes;
    for (const MeshAxis& a : list->mesh.axes) axes.push_back({a.name, a.size});
    if (!mesh)
      mesh = axes;
    else if (*mesh != axes)
      return;  // several meshes: none is the module's
  }
  if (mesh) spmd->mesh_axes = *mesh;
}

// TPU's async collective fusions: one collective split into a start
// kernel (its fused computation ends in custom-call AsyncCollectiveStart),
// continuation kernels that overlap it with compute, and a done kernel
// (AsyncCollectiveDone). Each holds a copy of the collective instruction,
// tagged with the same frontend attribute chain_id. The data moves once:
// it is counted at the start kernel and the chain's other members are
// skipped (XLA's own cost models likewise charge an async collective at its
// start).
std::optional<std::string> ChainKey(const HloInstruction& instr) {
  std::optional<std::string_view> fa = instr.attribute("frontend_attributes");
  if (!fa) return std::nullopt;
  size_t at = fa->find("chain_id=");
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = fa->substr(at + 9);
  size_t end = rest.find_first_of(",}");
  std::string key(rest.substr(0, end));
  key += '/';
  key += std::string(instr.attribute("channel_id").value_or(""));
  return key;
}

bool CallsTarget(const HloComputation& comp, std::string_view target) {
  for (const HloInstruction* i : comp.instructions())
    if (i->opcode() == HloOpcode::kCustomCall) {
      std::optional<std::string_view> t = i->attribute("custom_call_target");
      if (t && t->find(target) != std::string_view::npos) return true;
    }
  return false;
}

// The carries (tuple indices of the body's parameter) whose data reaches
// `v` within the iteration: a bounded walk back over array operands (scalar
// operands are indices and counters), through fusions, collectives and
// get-tuple-elements. A fused or wrapped collective's operand is its
// caller's.
std::set<int64_t> CarriesOf(const HloInstruction* v, const HloComputation* body) {
  std::set<int64_t> carries;
  std::vector<const HloInstruction*> todo{v};
  std::set<const HloInstruction*> seen;
  while (!todo.empty() && seen.size() < 256) {
    const HloInstruction* i = todo.back();
    todo.pop_back();
    if (!i || !seen.insert(i).second) continue;
    if (i->opcode() == HloOpcode::kParameter) {
      if (i->parent() != body && i->parent()->callers().size() == 1) {
        const HloInstruction* caller = i->parent()->callers()[0];
        if (i->parameter_number() < caller->operand_count())
          todo.push_back(caller->operand(i->parameter_number()));
      }
      continue;
    }
    if (i->opcode() == HloOpcode::kGetTupleElement && i->operand_count() == 1 &&
        i->operand(0)->opcode() == HloOpcode::kParameter && i->operand(0)->parent() == body) {
      carries.insert(i->tuple_index());
      continue;
    }
    for (int64_t k = 0; k < i->operand_count(); ++k) {
      const HloInstruction* o = i->operand(k);
      if (!o->shape().IsTuple() && o->shape().dimensions.empty()) continue;  // a scalar: an index, a counter
      todo.push_back(o);
    }
  }
  return carries;
}

// Whether the value of `from` reaches element `carry` of the body's root
// tuple (the carry's next value) within the iteration: a bounded walk over
// users. A collective fused into a kernel or wrapped continues at its
// caller.
bool ReachesCarry(const HloInstruction* from, const HloComputation* body, int64_t carry) {
  const HloInstruction* root = body->root_instruction();
  std::vector<const HloInstruction*> todo{from};
  std::set<const HloInstruction*> seen;
  while (!todo.empty() && seen.size() < 512) {
    const HloInstruction* i = todo.back();
    todo.pop_back();
    if (!i || !seen.insert(i).second) continue;
    if (i->parent() != body) {
      if (i == i->parent()->root_instruction() && i->parent()->callers().size() == 1)
        todo.push_back(i->parent()->callers()[0]);
    }
    for (const HloInstruction* u : i->users()) {
      if (u == root) {
        if (carry < root->operand_count() && root->operand(carry) == i) return true;
        continue;
      }
      todo.push_back(u);
    }
  }
  return false;
}

}  // namespace

bool HasCollectiveMatcher(CollectiveRuleFamily family) { return MatcherOf(family) != nullptr; }

std::vector<int64_t> CarriesMovedWhole(const CollectiveFinding& c, const HloComputation* body) {
  std::vector<int64_t> out;
  if (!body || body->parameters().empty() || body->root_instruction()->opcode() != HloOpcode::kTuple)
    return out;
  const Shape& state = body->parameter(0)->shape();
  if (!state.IsTuple()) return out;
  // The operands' bytes by the carry whose data reaches them: the
  // collective moves a carry whole when they add up to at least half of it
  // (a row read at a run-time index and permuted does not) and what it
  // moves becomes that carry's next value (the carry travels around the
  // devices: a ring, a pipeline, a re-shard and back).
  std::map<int64_t, int64_t> bytes;
  const HloInstruction* coll = c.collective;
  for (int64_t k = 0; k < coll->operand_count(); ++k) {
    std::optional<int64_t> b = ByteSizeOf(coll->operand(k)->shape());
    for (int64_t carry : CarriesOf(coll->operand(k), body))
      bytes[carry] = SatAdd(bytes[carry], b.value_or(0));
  }
  for (auto [carry, moved] : bytes) {
    if (carry < 0 || carry >= static_cast<int64_t>(state.tuple_shapes.size())) continue;
    std::optional<int64_t> whole = ByteSizeOf(*state.tuple_shapes[carry]);
    if (whole && *whole > 0 && moved * 2 >= *whole && ReachesCarry(c.collective, body, carry))
      out.push_back(carry);
  }
  return out;
}

void FindCollectives(const CheckContext& ctx, ModuleCheck* out) {
  const HloModule& module = ctx.module();
  Result<SpmdConfig> config = DecodeSpmdConfig(module);
  SpmdConfig cfg;
  if (config.ok())
    cfg = *config;
  else
    out->undecoded.push_back(config.error().Format());
  // The user's mesh (analysis/mesh_names.h), devices in iota order (a
  // Shardy mesh with device_ids does not decode there): the axes of
  // replica groups written as device lists ({{0,1,2,3},{4,5,6,7}}), as a
  // shard_map's psum has them, are then named too.
  if (const std::optional<UserMesh>& mesh = ctx.options().user_mesh) {
    Mesh m = IotaMesh(mesh->axes);
    if (m.num_devices() == cfg.num_devices()) cfg.mesh = std::move(m);
  }
  out->spmd.replica_count = cfg.replica_count;
  out->spmd.num_partitions = cfg.num_partitions;
  // The collectives counted: their instructions only (what ModuleMesh
  // reads), never their groups written out.
  std::vector<const HloInstruction*> all;
  // One budget of device ids written out for the module's collectives
  // (only to read groups written as ids against the user's mesh).
  DeviceIdBudget budget;
  const ExecutionCounts& counts = ctx.counts();
  // The chains that have a start kernel; the chains already counted.
  std::set<std::string> started, counted_chains;
  std::map<std::string, const HloInstruction*> done_kernel;  // the chain's done kernel: its result
  for (const HloComputation* comp : module.computations()) {
    if (RoleOf(*comp) != ComputationRole::kFused || comp->callers().size() != 1) continue;
    bool start = CallsTarget(*comp, "AsyncCollectiveStart"), done = CallsTarget(*comp, "AsyncCollectiveDone");
    if (!start && !done) continue;
    for (const HloInstruction* instr : comp->instructions())
      if (CollectiveFamilyOf(*instr))
        if (std::optional<std::string> key = ChainKey(*instr)) {
          if (start) started.insert(*key);
          if (done) done_kernel[*key] = comp->callers()[0];
        }
  }
  for (const HloComputation* comp : module.computations()) {
    ComputationRole role = RoleOf(*comp);
    // Async computations are counted at their async-start; fused ones at the
    // fusion (TPU fuses collectives into kernels); reducers never hold one.
    if (role == ComputationRole::kAsync || role == ComputationRole::kEmbedded ||
        role == ComputationRole::kUnreachable)
      continue;
    for (const HloInstruction* instr : comp->instructions()) {
      if (!CollectiveFamilyOf(*instr)) continue;
      if (role == ComputationRole::kFused)
        if (std::optional<std::string> key = ChainKey(*instr)) {
          bool is_start = CallsTarget(*comp, "AsyncCollectiveStart");
          if (started.count(*key) && !is_start) continue;  // a continuation or the done kernel
          if (!counted_chains.insert(*key).second) continue;
        }
      // The data's bytes, not the TPU tiles' padding: what the collective
      // moves whatever its layout (and what the oracle counts).
      Result<CollectiveTraffic> t =
          AnalyzeCollective(*instr, cfg, {.padded_sizes = false, .keep_groups = false, .budget = &budget});
      if (!t.ok()) {
        out->undecoded.push_back(
            AttributeDiagnostic(module, instr->attribute("replica_groups").value_or(""), t.error()).Format());
        continue;
      }
      if (t->part == CollectivePart::kDone || t->part == CollectivePart::kUpdate) continue;
      all.push_back(t->collective);
      CollectiveFinding f;
      // A fused collective is counted at the fusion that runs it.
      const HloInstruction* counted = instr;
      if (role == ComputationRole::kFused && !comp->callers().empty()) {
        counted = comp->callers()[0];
        while (counted && RoleOf(*counted->parent()) == ComputationRole::kFused &&
               !counted->parent()->callers().empty())
          counted = counted->parent()->callers()[0];
      }
      f.instruction = counted;
      f.collective = t->collective ? t->collective : instr;
      f.family = t->family;
      f.group_size = t->group_size;
      f.num_groups = t->num_groups;
      f.spans_all_devices = t->spans_all_devices;
      f.mesh_axes = t->mesh_axes;
      f.bytes_sent = t->bytes_sent;
      f.bytes_received = t->bytes_received;
      if (t->bytes_sent && t->bytes_received)
        f.bytes = std::max(*t->bytes_sent, *t->bytes_received);
      else
        f.bytes = t->bytes_sent ? t->bytes_sent : t->bytes_received;
      f.exact = t->exact;
      const HloComputation* runs_in = counted->parent();
      f.executions = counts.Of(runs_in);
      f.executions_upper_bound = counts.IsUpperBound(runs_in);
      f.total_bytes = SatMul(f.bytes, f.executions);
      f.enclosing_loops = counts.EnclosingLoops(runs_in);
      if (f.collective->operand_count() > 0) f.operand_shape = &f.collective->operand(0)->shape();
      f.shape = t->result_shape ? t->result_shape : &f.collective->shape();
      f.source = ctx.Source(f.collective);
      if (!f.source) f.source = ctx.Source(counted);
      const HloInstruction* result_at = counted;
      if (role == ComputationRole::kFused)
        if (std::optional<std::string> key = ChainKey(*instr); key && done_kernel.count(*key))
          result_at = done_kernel[*key];
      Explain(ctx, &f, result_at);
      // XLA names the partitioner's collectives after the instruction they
      // were made for ("dynamic-slice.17"), not the user's line: borrow the
      // line of the instruction that needs the collective.
      if (!f.source || !f.source->has_line()) {
        if (f.cause.consumer.source && f.cause.consumer.source->has_line())
          f.source = f.cause.consumer.source;
        else if (f.cause.producer.source && f.cause.producer.source->has_line())
          f.source = f.cause.producer.source;
      }
      out->collectives.push_back(std::move(f));
    }
  }
  ModuleMesh(all, &out->spmd);
  out->collectives_past_id_budget = budget.refused;
  std::stable_sort(out->collectives.begin(), out->collectives.end(),
                   [](const CollectiveFinding& a, const CollectiveFinding& b) {
                     return a.total_bytes.value_or(INT64_MAX) > b.total_bytes.value_or(INT64_MAX);
                   });
}

}  // namespace hloscope
