// The answer: findings headed and ranked (analysis/answer.h).
#include "hloscope/analysis/answer.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "hloscope/analysis/copy_sites.h"
#include "hloscope/analysis/donation.h"
#include "hloscope/analysis/policy.h"
#include "hloscope/analysis/roofline.h"
#include "hloscope/analysis/served_op.h"
#include "hloscope/analysis/source_origin.h"
#include "hloscope/ir/computation.h"
#include "hloscope/support/saturating.h"

namespace hloscope {
// Named apart: the layer is a unity build, where anonymous namespaces merge.
namespace answer_internal {
namespace {

double Share(double part, double whole) { return whole > 0 ? std::min(1.0, std::max(0.0, part / whole)) : 0; }

const Roofline& TargetOf(const ModuleCheck& m) {
  if (m.cost.target) return *m.cost.target;
  return Rooflines().front();
}

void SetOrigin(FindingHeader& h) {
  SourceOrigin o = OriginOf(h.source);
  h.library = o.library;
  h.library_part = std::move(o.library_part);
}

std::string LineKey(const std::optional<SourceLocation>& s) {
  return s && s->has_line() ? s->file + ":" + std::to_string(s->line) : std::string();
}

// A kernel's estimated seconds per call, or the bytes' time when the cost
// model has no figure for it (a copy it did not count).
double KernelSeconds(const ModuleCheck& m, const HloInstruction* kernel,
                     std::optional<int64_t> bytes_per_call) {
  auto it = m.kernel_times.find(kernel);
  if (it != m.kernel_times.end() && it->second.seconds > 0) return it->second.seconds;
  // A copy reads and writes its bytes.
  return EstimateSeconds(TargetOf(m), 0, 0, SatMul(bytes_per_call.value_or(0), int64_t{2}));
}

// The header of a group of findings (copies, collectives) from its first:
// counted and summed as the others join it (Count).
template <typename Finding>
FindingHeader OpenGroup(FindingKind kind, std::optional<Gate> gate, const HloInstruction* instruction,
                        const Finding& first) {
  FindingHeader h;
  h.kind = kind;
  h.gate = gate;
  h.instruction = instruction;
  h.count = 0;
  h.source = first.source;
  SetOrigin(h);
  h.enclosing_loops = first.enclosing_loops;
  h.executions = first.executions;
  h.bytes = first.bytes;
  h.bytes_per_call = 0;
  return h;
}

// One more finding in `h`: its bytes per call join the sum (unknown once
// any is unknown).
void Count(FindingHeader& h, std::optional<int64_t> total_bytes) {
  ++h.count;
  h.bytes_per_call =
      total_bytes && h.bytes_per_call ? SatAdd(*h.bytes_per_call, *total_bytes) : std::optional<int64_t>();
}

void AddCopies(const ModuleCheck& m, std::vector<FindingHeader>* out) {
  // Copies with the same cause, loop, line and shape are one header (a
  // read-after-update copies the buffer twice): the text's COPIES rows.
  std::map<std::tuple<int, int, const HloInstruction*, std::string, std::string, int64_t>, size_t> index;
  for (const CopyFinding& c : m.copies) {
    if (c.minor) continue;
    auto key =
        std::make_tuple(static_cast<int>(c.cause.cause), static_cast<int>(c.cause.rule),
                        c.enclosing_loops.empty() ? nullptr : c.enclosing_loops.front(), LineKey(c.source),
                        c.shape ? c.shape->ToString() : std::string(), c.bytes.value_or(-1));
    auto [it, fresh] = index.try_emplace(key, out->size());
    if (fresh) out->push_back(OpenGroup(FindingKind::kCopy, GateOf(c), c.instruction(), c));
    FindingHeader& h = (*out)[it->second];
    Count(h, c.total_bytes);
    h.copies.push_back(&c);
    h.grows_with_buffer = h.grows_with_buffer || c.grows_with_buffer;
    h.impact.seconds += KernelSeconds(m, c.instruction(), c.total_bytes);
    h.impact.bytes = SatAdd(h.impact.bytes, c.total_bytes.value_or(0));
  }
}

void AddCollectives(const ModuleCheck& m, std::vector<FindingHeader>* out) {
  std::map<std::tuple<int, int, int, std::string>, size_t> index;
  for (const CollectiveFinding& c : m.collectives) {
    auto key = std::make_tuple(static_cast<int>(c.cause.cause), static_cast<int>(c.cause.rule),
                               static_cast<int>(c.family), LineKey(c.source));
    auto [it, fresh] = index.try_emplace(key, out->size());
    if (fresh) {
      out->push_back(OpenGroup(FindingKind::kCollective, GateOf(c), c.instruction, c));
      // A re-shard a with_sharding_constraint asked for is edited there,
      // not at the op XLA's metadata names (the dot it re-shards for).
      if (const auto& o = c.cause.before_partitioning; o && o->consumer_is_constraint && o->consumer.source) {
        out->back().source = o->consumer.source;
        SetOrigin(out->back());
      }
    }
    FindingHeader& h = (*out)[it->second];
    Count(h, c.total_bytes);
    h.collectives.push_back(&c);
    h.grows_with_buffer = h.grows_with_buffer || c.grows_with_buffer;
    h.impact.seconds += EstimateCollectiveSeconds(TargetOf(m), c.total_bytes.value_or(0));
    h.impact.bytes = SatAdd(h.impact.bytes, c.total_bytes.value_or(0));
  }
}

// Iterations of `l`'s body per call.
std::optional<int64_t> IterationsPerCall(const LoopFinding& l) {
  if (!l.trip_count || !l.executions) return std::nullopt;
  return SatMul(*l.trip_count, *l.executions);
}

void AddLoopScaling(const ModuleCheck& m, std::vector<FindingHeader>* out) {
  for (const LoopFinding& l : m.loops)
    for (const LoopScaling& s : l.scaling) {
      if (!s.grows_with_buffer) continue;
      FindingHeader h;
      if (s.kind == LoopScaling::Kind::kWholeRead && s.kernel) {
        h.kind = FindingKind::kGrowingRead;
        h.instruction = s.kernel;
        h.kernels = {s.kernel};
      } else if (s.kind == LoopScaling::Kind::kCarryRewritten && s.rewritten_by.instruction) {
        h.kind = FindingKind::kCarryRewrite;
        h.instruction = s.rewritten_by.instruction;
      } else {
        continue;  // copies and collectives are headed as such
      }
      h.gate = GateOf(s);
      // A rewrite at the body line that rewrites (the carry's update), not
      // at the loop's call; a whole read at the kernel's (or its op's) line.
      h.source = s.source;
      if (!h.source && s.kind == LoopScaling::Kind::kCarryRewritten && s.carry >= 0 &&
          s.carry < static_cast<int64_t>(l.carries.size()))
        h.source = l.carries[static_cast<size_t>(s.carry)].update.source;
      if (!h.source) h.source = l.source;
      SetOrigin(h);
      h.enclosing_loops = {l.loop};
      h.enclosing_loops.insert(h.enclosing_loops.end(), l.enclosing_loops.begin(), l.enclosing_loops.end());
      h.executions = IterationsPerCall(l);
      h.bytes = s.bytes;
      h.bytes_per_call =
          h.executions && s.bytes ? std::optional<int64_t>(SatMul(*s.bytes, *h.executions)) : std::nullopt;
      h.grows_with_buffer = true;
      h.loop = &l;
      h.scaling = &s;
      // A rewrite reads and writes the carry; a whole read reads it: the
      // kernel's own estimate where the cost model has one.
      h.impact.seconds = KernelSeconds(m, h.instruction, h.bytes_per_call);
      h.impact.bytes = h.bytes_per_call.value_or(0);
      out->push_back(std::move(h));
    }
}

// A kernel that changes a layout: a transpose or a layout copy in it. A
// bare reshape or bitcast (TPU's re-tiling of a reshape is one) is left
// to the collective or op it serves.
bool Transposes(const HloInstruction& kernel) {
  auto moves = [](HloOpcode op) { return op == HloOpcode::kTranspose || op == HloOpcode::kCopy; };
  if (moves(kernel.opcode())) return true;
  if (const HloComputation* fused = kernel.fused_computation())
    for (const HloInstruction* i : fused->instructions())
      if (moves(i->opcode())) return true;
  return false;
}

// Kernels that only re-lay data (transposes, copies of a layout) and are no
// copy finding: one header per innermost loop, when they take a noticeable
// share of the time (a decode step re-laying its whole cache per token).
void AddRelayouts(const ModuleCheck& m, double total_seconds, std::vector<FindingHeader>* out) {
  std::map<const HloInstruction*, FindingHeader> by_loop;
  for (const auto& [kernel, t] : m.kernel_times) {
    if (t.seconds <= 0 || !IsRelayout(*kernel) || IsCopySite(*kernel) || !Transposes(*kernel)) continue;
    FindingHeader& h = by_loop[t.loop];
    h.kind = FindingKind::kRelayout;
    h.kernels.push_back(kernel);
    h.impact.seconds += t.seconds;
    h.impact.bytes = SatAdd(h.impact.bytes, t.bytes);
  }
  for (auto& [loop, h] : by_loop) {
    if (Share(h.impact.seconds, total_seconds) < kRelayoutShare) continue;
    // The largest first, by name on ties: output independent of hashing.
    std::sort(h.kernels.begin(), h.kernels.end(), [&](const HloInstruction* a, const HloInstruction* b) {
      double sa = m.kernel_times.at(a).seconds, sb = m.kernel_times.at(b).seconds;
      if (sa != sb) return sa > sb;
      return a->name() < b->name();
    });
    h.instruction = h.kernels.front();
    h.count = static_cast<int64_t>(h.kernels.size());
    // The line of the op the largest relayout serves (served_op.h).
    SourceOfFn source_of = [&](const HloInstruction& i) {
      return ResolveSource(*m.module, i, m.source_options);
    };
    ServedOp served = ServedOpOf(*h.instruction, source_of);
    const HloInstruction* at = served.line_of ? served.line_of : h.instruction;
    h.source = ResolveSource(*m.module, *at, m.source_options);
    SetOrigin(h);
    if (loop) {
      h.enclosing_loops.push_back(loop);
      if (const LoopFinding* l = m.FindLoop(loop)) {
        h.loop = l;
        h.enclosing_loops.insert(h.enclosing_loops.end(), l->enclosing_loops.begin(),
                                 l->enclosing_loops.end());
      }
    }
    h.bytes_per_call = h.impact.bytes;
    out->push_back(std::move(h));
  }
}

// The last segment of an op_name: "jit(f)/vmap(vmap())/scatter" → "scatter".
std::string_view LastOpSegment(std::string_view op_name) {
  size_t slash = op_name.rfind('/');
  return slash == std::string_view::npos ? op_name : op_name.substr(slash + 1);
}

// Loops XLA made, not the program: JAX lowers every loop it writes
// (lax.while_loop, fori_loop, scan, map) to its `while` primitive, whose
// op_name ends in "while"; a while named after another op (XLA's scatter
// expander on TPU turns a vmapped dynamic_update_slice into one) runs that
// op one step at a time. Loops without metadata (hand-written HLO) are not
// judged.
void AddSerialLoops(const ModuleCheck& m, std::vector<FindingHeader>* out) {
  for (const LoopFinding& l : m.loops) {
    const OpMetadata* md = l.loop->metadata();
    if (!md || md->op_name.empty()) continue;
    std::string_view last = LastOpSegment(md->op_name);
    if (last.rfind("while", 0) == 0 || last == "scan" || last == "fori_loop" || last == "map") continue;
    if (!l.trip_count || *l.trip_count < 2) continue;
    FindingHeader h;
    h.kind = FindingKind::kSerialLoop;
    h.instruction = l.loop;
    h.source = l.source;
    SetOrigin(h);
    h.enclosing_loops = l.enclosing_loops;
    h.executions = l.executions;
    h.loop = &l;
    // The loop's work: every kernel whose innermost loop is it.
    for (const auto& [kernel, t] : m.kernel_times)
      if (t.loop == l.loop) {
        h.impact.seconds += t.seconds;
        h.impact.bytes = SatAdd(h.impact.bytes, t.bytes);
      }
    h.bytes_per_call = h.impact.bytes;
    out->push_back(std::move(h));
  }
}

// The shape XLA matches a donation by: element type and per-device
// dimensions.
std::string MatchKey(const Shape& s) { return s.ToString(/*print_layout=*/false); }

void AddDonations(const ModuleCheck& m, int64_t peak, bool peak_known, std::vector<FindingHeader>* out) {
  FindingHeader dropped;
  dropped.kind = FindingKind::kDroppedDonation;
  dropped.count = 0;
  dropped.impact.measure = ImpactMeasure::kMemory;
  for (const ParameterFinding& p : m.parameters) {
    if (!p.request || !p.request->dropped) continue;
    ++dropped.count;
    dropped.parameters.push_back(&p);
    dropped.impact.bytes = SatAdd(dropped.impact.bytes, p.bytes.value_or(0));
  }
  if (dropped.count > 0) {
    dropped.instruction = dropped.parameters.front()->parameter;
    dropped.bytes_per_call = dropped.impact.bytes;
    // Both the argument and its output stay live: keeping the donation
    // would alias their bytes.
    if (peak_known) {
      dropped.peak_before = peak;
      dropped.peak_after = std::max<int64_t>(0, peak - dropped.impact.bytes);
    }
    out->push_back(std::move(dropped));
  }
  // Arguments that are not donated while an output of their shape is made
  // that no donation took: donating them lets XLA write those outputs into
  // their buffers (a train step's parameters and optimizer state). Copies
  // of undonated arguments are copy findings already (their cause says
  // so), and an argument passed through unchanged is no new buffer.
  std::map<std::string, int64_t> free_outputs;
  for (const Shape* s : EntryOutputLeaves(*m.module)) ++free_outputs[MatchKey(*s)];
  const Shape& result = m.module->entry_computation()->root_instruction()->shape();
  for (const ParameterFinding& p : m.parameters)
    for (const ShapeIndex& o : p.aliased_outputs)
      if (const Shape* s = result.Subshape(o); s && s->IsArray()) --free_outputs[MatchKey(*s)];
  std::vector<const HloInstruction*> passed_through;
  const HloInstruction* root = m.module->entry_computation()->root_instruction();
  if (root->opcode() == HloOpcode::kTuple) {
    for (const HloInstruction* o : root->operands())
      if (o->opcode() == HloOpcode::kParameter) passed_through.push_back(o);
  } else if (root->opcode() == HloOpcode::kParameter) {
    passed_through.push_back(root);
  }
  for (const HloInstruction* p : passed_through) --free_outputs[MatchKey(p->shape())];
  FindingHeader undonated;
  undonated.kind = FindingKind::kUndonated;
  undonated.count = 0;
  undonated.impact.measure = ImpactMeasure::kMemory;
  for (const ParameterFinding& p : m.parameters) {
    if (p.donated() || (p.request && p.request->requested) || p.copied() || !p.bytes || *p.bytes <= 0)
      continue;
    if (!p.parameter->shape().IsArray()) continue;
    if (std::find(passed_through.begin(), passed_through.end(), p.parameter) != passed_through.end())
      continue;
    auto it = free_outputs.find(MatchKey(p.parameter->shape()));
    if (it == free_outputs.end() || it->second <= 0) continue;
    --it->second;
    ++undonated.count;
    undonated.parameters.push_back(&p);
    undonated.impact.bytes = SatAdd(undonated.impact.bytes, *p.bytes);
  }
  if (undonated.count > 0) {
    undonated.instruction = undonated.parameters.front()->parameter;
    undonated.gate = Gate::kUndonated;
    undonated.bytes_per_call = undonated.impact.bytes;
    if (peak_known) {
      undonated.peak_before = peak;
      undonated.peak_after = std::max<int64_t>(0, peak - undonated.impact.bytes);
    }
    out->push_back(std::move(undonated));
  }
}

void AddPeakTemporaries(const ModuleCheck& m, int64_t peak, std::vector<FindingHeader>* out) {
  if (!m.memory || !m.memory->temp_peak || peak <= 0) return;
  // A collective's result live at the peak (the whole array an update
  // gathered) is that collective's finding: its bytes count there.
  // Indices, not pointers: the loop below appends to `out`.
  std::map<const HloInstruction*, size_t> collective_of;
  for (size_t i = 0; i < out->size(); ++i)
    if ((*out)[i].kind == FindingKind::kCollective)
      for (const CollectiveFinding* c : (*out)[i].collectives) {
        collective_of[c->instruction] = i;
        collective_of[c->collective] = i;
      }
  // One buffer is one finding: a loop's state and the value it starts from
  // (a scan's stacked output and its zeros) share their bytes in the heap.
  // (offset, size) in the heap -> its header; nullopt: a collective's bytes.
  std::map<std::pair<int64_t, int64_t>, std::optional<size_t>> headed;
  for (const LiveValue& v : m.memory->temp_peak->live) {
    if (v.kind == LiveValueKind::kCopy || !v.value.instruction) continue;  // copies are copy findings
    std::optional<std::pair<int64_t, int64_t>> range;
    if (v.listed) range = std::make_pair(v.listed->offset, v.listed->size);
    if (auto at = range ? headed.find(*range) : headed.end(); at != headed.end()) {
      // The value that says more names the buffer: the one a loop fills
      // or a temporary, over the loop's state that carries it.
      if (at->second) {
        FindingHeader& h = (*out)[*at->second];
        if (h.live && h.live->kind == LiveValueKind::kLoopCarry && v.kind != LiveValueKind::kLoopCarry) {
          h.instruction = v.value.instruction;
          h.source = v.source;
          SetOrigin(h);
          h.live = &v;
        }
      }
      continue;
    }
    const HloInstruction* def = v.value.instruction;
    // An async collective's value is defined by its -done (or -start).
    auto it = collective_of.find(def);
    if (it == collective_of.end() && def->operand_count() == 1)
      it = collective_of.find(def->operands().front());
    if (it != collective_of.end()) {
      FindingHeader& c = (*out)[it->second];
      c.live_at_peak = SatAdd(c.live_at_peak, v.bytes);
      if (range) headed[*range] = std::nullopt;
      continue;
    }
    if (Share(static_cast<double>(v.bytes), static_cast<double>(peak)) < kPeakTemporaryShare) break;
    FindingHeader h;
    h.kind = FindingKind::kPeakTemporary;
    h.instruction = v.value.instruction;
    h.source = v.source;
    SetOrigin(h);
    h.bytes = v.bytes;
    h.live = &v;
    h.impact.measure = ImpactMeasure::kMemory;
    h.impact.bytes = v.bytes;
    out->push_back(std::move(h));
    if (range) headed[*range] = out->size() - 1;
  }
}

// The entry computes nothing: it returns no array, or only constants (an
// `.at[].set()` whose result is dropped compiles to nothing). A function
// that returns an argument unchanged is not this: what XLA does with that
// buffer (a copy, or the donation it keeps) is the finding.
bool ComputesNothing(const HloModule& module) {
  const HloInstruction* root = module.entry_computation()->root_instruction();
  std::vector<const HloInstruction*> work = {root};
  for (size_t i = 0; i < work.size() && i < 100000; ++i) {
    const HloInstruction* x = work[i];
    switch (x->opcode()) {
      case HloOpcode::kTuple:
        for (const HloInstruction* o : x->operands()) work.push_back(o);
        break;
      case HloOpcode::kBitcast:
      case HloOpcode::kCopy:
        work.push_back(x->operands().front());
        break;
      case HloOpcode::kConstant:
        break;
      default:
        return false;
    }
  }
  return true;
}

void AddNoOutputs(const ModuleCheck& m, std::vector<FindingHeader>* out) {
  if (!ComputesNothing(*m.module)) return;
  FindingHeader h;
  h.kind = FindingKind::kNoOutputs;
  h.instruction = m.module->entry_computation()->root_instruction();
  h.source = ResolveSource(*m.module, *h.instruction, m.source_options);
  h.impact.share = 1;
  h.stands_out = true;
  out->push_back(std::move(h));
}

void Rank(ModuleCheck* check) {
  const ModuleCheck& m = *check;
  Answer answer;
  AnswerBasis& basis = answer.basis;
  basis.copies = static_cast<int64_t>(
      std::count_if(m.copies.begin(), m.copies.end(), [](const CopyFinding& c) { return !c.minor; }));
  basis.collectives = static_cast<int64_t>(m.collectives.size());
  basis.loops = static_cast<int64_t>(m.loops.size());
  basis.arguments = static_cast<int64_t>(m.parameters.size());
  for (const auto& [kernel, t] : m.kernel_times)
    if (t.seconds > basis.top_kernel_seconds || (t.seconds == basis.top_kernel_seconds && basis.top_kernel &&
                                                 kernel->name() < basis.top_kernel->name())) {
      basis.top_kernel = kernel;
      basis.top_kernel_seconds = t.seconds;
    }
  basis.seconds = m.cost.estimated_seconds;
  for (const CollectiveFinding& c : m.collectives)
    basis.seconds += EstimateCollectiveSeconds(TargetOf(m), c.total_bytes.value_or(0));
  if (m.memory && m.memory->device_peak_bytes() > 0) {
    basis.peak_bytes = m.memory->device_peak_bytes();
    basis.peak_from_buffer_assignment = true;
  } else {
    // Without the buffer assignment, the peak is at least the arguments
    // and the outputs (per device).
    int64_t floor = 0;
    for (const ParameterFinding& p : m.parameters) floor = SatAdd(floor, p.bytes.value_or(0));
    for (const Shape* s : EntryOutputLeaves(*m.module)) floor = SatAdd(floor, ByteSizeOf(*s).value_or(0));
    basis.peak_bytes = floor;
  }

  std::vector<FindingHeader>& r = answer.ranked;
  AddNoOutputs(m, &r);
  AddCopies(m, &r);
  AddCollectives(m, &r);
  AddLoopScaling(m, &r);
  AddRelayouts(m, basis.seconds, &r);
  AddSerialLoops(m, &r);
  AddDonations(m, basis.peak_bytes, basis.peak_from_buffer_assignment, &r);
  AddPeakTemporaries(m, basis.peak_bytes, &r);

  GateSet defaults = DefaultGates();
  for (FindingHeader& h : r) {
    if (h.kind == FindingKind::kNoOutputs) continue;
    h.impact.share = h.impact.measure == ImpactMeasure::kTime
                         ? Share(h.impact.seconds, basis.seconds)
                         : Share(static_cast<double>(h.impact.bytes), static_cast<double>(basis.peak_bytes));
    if (h.live_at_peak > 0) {
      double memory = Share(static_cast<double>(h.live_at_peak), static_cast<double>(basis.peak_bytes));
      if (memory > h.impact.share) {
        h.impact.measure = ImpactMeasure::kMemory;
        h.impact.share = memory;
        h.impact.bytes = h.live_at_peak;
      }
    }
    bool serious = h.grows_with_buffer || (h.gate && defaults.Has(*h.gate)) ||
                   h.kind == FindingKind::kDroppedDonation || h.kind == FindingKind::kSerialLoop;
    double floor = kStandsOut;
    // The communication the program asks for (a psum it wrote, the partial
    // sums of a sharded contraction: a data-parallel step's gradients) is
    // named only when it dominates; re-shards and gathers are not asked for.
    if (h.kind == FindingKind::kCollective) {
      CollectiveCause cause = h.collectives.front()->cause.cause;
      if (cause == CollectiveCause::kExplicit || cause == CollectiveCause::kReduction) {
        floor = kStandsOutExpected;
        serious = false;
      } else if (h.collectives.front()->cause.rule == CollectiveRule::kReshardForConsumer &&
                 h.enclosing_loops.empty()) {
        // Gathering a sharded operand for its consumer once per call is how
        // FSDP works: named by its size only.
        serious = false;
      } else {
        serious = true;
      }
    }
    // A move between memory spaces that XLA chose (a TPU prefetch, an
    // offload) is traffic it scheduled, not a copy the program forced:
    // named only when it dominates.
    if (h.kind == FindingKind::kCopy && h.copies.front()->cause.cause == CopyCause::kMemorySpaceMove &&
        !h.grows_with_buffer) {
      floor = kStandsOutExpected;
      serious = false;
    }
    // Memory advice on a small peak is noise: a function's argument is half
    // of any element-wise function's peak.
    if ((h.kind == FindingKind::kUndonated || h.kind == FindingKind::kPeakTemporary) &&
        h.impact.bytes < kMemoryFloorBytes)
      floor = 2;  // never
    // One argument not donated is any element-wise function's (JAX's eager
    // helpers too: jnp.ones(...) * 0.01 compiles to jit_multiply); a train
    // state is several.
    if (h.kind == FindingKind::kUndonated && h.count < 2) floor = 2;
    // Made inside library code: its fix is not the user's, so it leads only
    // by its size, never by a gate.
    if (h.library) serious = h.grows_with_buffer;
    h.stands_out = h.impact.share >= floor || (serious && h.impact.share >= kStandsOutGrowing);
  }
  // Standing out first, then by share; ties by bytes, then by the
  // finding's place (kind order, then the order found): deterministic.
  std::stable_sort(r.begin(), r.end(), [](const FindingHeader& a, const FindingHeader& b) {
    if (a.stands_out != b.stands_out) return a.stands_out;
    // A function that computes nothing, then donations the program asked
    // for and XLA refused (the request names what the user expected; an
    // out_shardings mistake drops every one and re-gathers the outputs,
    // and the gathers follow), then by share.
    auto first = [](const FindingHeader& h) {
      return h.kind == FindingKind::kNoOutputs ? 0 : h.kind == FindingKind::kDroppedDonation ? 1 : 2;
    };
    if (first(a) != first(b)) return first(a) < first(b);
    if (a.impact.share != b.impact.share) return a.impact.share > b.impact.share;
    return a.impact.bytes > b.impact.bytes;
  });
  check->answer = std::move(answer);
}

}  // namespace
}  // namespace answer_internal

void RankFindings(ModuleCheck* check) { answer_internal::Rank(check); }

}  // namespace hloscope
