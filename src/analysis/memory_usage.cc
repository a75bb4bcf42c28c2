#include "hloscope/analysis/memory_usage.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "hloscope/analysis/call_graph.h"
#include "hloscope/analysis/donation.h"
#include "hloscope/analysis/findings.h"
#include "hloscope/support/saturating.h"

namespace hloscope {
namespace {

AllocationRole AllocationRoleOf(const BufferAllocation& a) {
  if (a.parameter_number)
    return a.maybe_live_out ? AllocationRole::kDonatedArgument : AllocationRole::kArgument;
  if (a.is_constant) return AllocationRole::kConstant;
  if (a.is_thread_local) return AllocationRole::kThreadLocal;
  if (a.maybe_live_out) return AllocationRole::kOutput;
  if (a.is_preallocated_temp) return AllocationRole::kTemporary;
  return AllocationRole::kOther;
}

MemorySpaceUsage& SpaceFor(std::vector<MemorySpaceUsage>& spaces, int64_t color) {
  for (MemorySpaceUsage& s : spaces)
    if (s.color == color) return s;
  MemorySpaceUsage s;
  s.color = color;
  s.host = color == kHostMemorySpace;
  spaces.push_back(s);
  return spaces.back();
}

ArgumentMemory ArgumentMemoryOf(const DonationTable& donations, const BufferAllocation& a,
                                const ParameterFinding* p) {
  DonationKind kind = donations.Of(*a.parameter_number, a.parameter_index);
  if (kind == DonationKind::kInputOutputAlias) return ArgumentMemory::kDonatedReused;
  if (p && p->request && p->request->requested && p->request->dropped)
    return ArgumentMemory::kDonatedNotReused;
  if (kind == DonationKind::kBufferDonor) return ArgumentMemory::kDonorOnly;
  return p && p->copied() ? ArgumentMemory::kKeptAndCopied : ArgumentMemory::kKept;
}

// The flattened schedule (HloLiveRange::FlattenSchedule): each sequential
// computation's instructions in text order, a called computation's
// (condition before body, branches in order) placed before the
// instruction that calls it. A computation is placed once, at its first
// caller; fused and embedded computations are parts of one kernel and own
// no buffers.
class Schedule {
 public:
  explicit Schedule(const HloModule& module) {
    if (module.entry_computation()) Place(*module.entry_computation(), 0);
  }
  std::optional<int64_t> TimeOf(const HloInstruction* instr) const {
    size_t id = instr->id();
    return id < time_.size() && time_[id] >= 0 ? std::optional<int64_t>(time_[id]) : std::nullopt;
  }
  const std::vector<const HloInstruction*>& sequence() const { return sequence_; }

 private:
  // Nesting deeper than this is hostile input, not a program.
  static constexpr int kMaxDepth = 256;

  void Place(const HloComputation& comp, int depth) {
    if (depth > kMaxDepth || !placed_.insert(&comp).second) return;
    for (const HloInstruction* instr : comp.instructions()) {
      // A fusion's computation is its kernel, a reducer's runs inside one:
      // neither is placed (and most instructions call nothing).
      if (!instr->called_computations().empty() && instr->opcode() != HloOpcode::kFusion)
        for (CallRole role :
             {CallRole::kCondition, CallRole::kBody, CallRole::kBranch, CallRole::kTrueComputation,
              CallRole::kFalseComputation, CallRole::kToApply, CallRole::kCalls})
          for (const CalledComputation& c : instr->called_computations())
            if (c.role == role && c.computation && !placed_.contains(c.computation) &&
                IsSequentialRole(RoleOf(*c.computation)))
              Place(*c.computation, depth + 1);
      // By dense id (ir/instruction.h): asked once per value and use.
      if (instr->id() >= time_.size()) time_.resize(instr->id() + 1, -1);
      time_[instr->id()] = static_cast<int64_t>(sequence_.size());
      sequence_.push_back(instr);
    }
  }

  std::unordered_set<const HloComputation*> placed_;
  std::vector<int64_t> time_;  // by instruction id; -1: not placed
  std::vector<const HloInstruction*> sequence_;
};

struct TimedValue {
  const BufferValue* value = nullptr;
  const HloInstruction* instruction = nullptr;
  int64_t start = 0;
  int64_t end = 0;
};

// Live from its definition to its last use (uses followed through
// forwarding instructions). Only temporaries are timed: a value reaching
// the entry's result is in an output allocation, never in the temp heap.
std::optional<TimedValue> LiveRange(const Schedule& schedule, const BufferValueInstructions& instructions,
                                    OperandNumbers& numbers, const BufferAllocation& heap,
                                    const BufferValue& v) {
  const HloInstruction* instr = instructions.Of(heap, v);
  if (!instr) return std::nullopt;
  std::optional<int64_t> start = schedule.TimeOf(instr);
  if (!start) return std::nullopt;
  TimedValue t{&v, instr, *start, *start};
  HloPosition position{instr, v.index};
  for (const HloUse& use : UsesOf(position, &numbers))
    if (std::optional<int64_t> u = schedule.TimeOf(use.user)) t.end = std::max(t.end, *u);
  return t;
}

// Bytes covered by the byte ranges [offset, offset + size), united.
int64_t UnitedBytes(std::vector<std::pair<int64_t, int64_t>> ranges) {
  std::sort(ranges.begin(), ranges.end());
  int64_t total = 0, end = -1;
  for (auto [begin, size] : ranges) {
    int64_t stop = SatAdd(begin, size);
    if (stop <= end) continue;
    total = SatAdd(total, stop - std::max(begin, end));
    end = stop;
  }
  return total;
}

LiveValueKind KindOf(const HloInstruction* instr, const ShapeIndex& index, const BufferValue& v,
                     const ModuleCheck& check, const CopyFinding** copy) {
  if (const CopyFinding* c = check.FindCopy(HloPosition{instr, index})) {
    *copy = c;
    return LiveValueKind::kCopy;
  }
  if (v.phi || instr->opcode() == HloOpcode::kWhile) return LiveValueKind::kLoopCarry;
  for (const UpdateFinding* u : check.UpdatesOf(instr))
    if (!u->enclosing_loops.empty()) return LiveValueKind::kLoopUpdate;
  // The value a loop starts a carry from, where the loop updates that carry
  // in place: a scan's stacked output is a broadcast of zeros that the loop
  // then fills row by row in the same buffer.
  for (const LoopFinding& l : check.loops)
    for (const LoopCarry& c : l.carries)
      if (c.init.instruction == instr && c.update.instruction &&
          !check.UpdatesOf(c.update.instruction).empty())
        return LiveValueKind::kLoopUpdate;
  return LiveValueKind::kTemporary;
}

std::optional<TempPeak> FindTempPeak(const HloModule& module, const BufferAllocation& heap,
                                     const BufferValueInstructions& instructions, const ModuleCheck& check,
                                     const MemoryOptions& options) {
  Schedule schedule(module);
  if (schedule.sequence().empty()) return std::nullopt;
  std::vector<TimedValue> values;
  OperandNumbers numbers;
  for (const BufferValue& v : heap.values)
    if (v.size > 0 && v.offset >= 0)
      if (std::optional<TimedValue> t = LiveRange(schedule, instructions, numbers, heap, v))
        values.push_back(*t);
  if (values.empty()) return std::nullopt;

  // Sweep the schedule: a chunk (offset, size) counts once however many
  // values of one buffer hold it at that time (a loop's carry and the
  // values it flows through share their chunk).
  // Each value's chunk numbered once, in the dump's order; the sweep then
  // reads only its events (in time order, a value's own fields would be a
  // cache miss per event on a deep step's heap).
  struct ChunkHash {
    size_t operator()(const std::pair<int64_t, int64_t>& c) const {
      // Unsigned: a hostile dump's offsets must not overflow a signed product.
      return std::hash<uint64_t>()(static_cast<uint64_t>(c.first) * 1000003u ^
                                   static_cast<uint64_t>(c.second));
    }
  };
  std::unordered_map<std::pair<int64_t, int64_t>, int32_t, ChunkHash> chunk_ids;
  chunk_ids.reserve(values.size());
  struct Event {
    int64_t time;
    int64_t size;
    int32_t chunk;
    int32_t delta;
  };
  std::vector<Event> events;
  events.reserve(values.size() * 2);
  for (const TimedValue& t : values) {
    const BufferValue& v = *t.value;
    int32_t chunk =
        chunk_ids.try_emplace({v.offset, v.size}, static_cast<int32_t>(chunk_ids.size())).first->second;
    events.push_back({t.start, v.size, chunk, +1});
    events.push_back({t.end + 1, v.size, chunk, -1});
  }
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    return a.time != b.time ? a.time < b.time : a.delta < b.delta;
  });
  // Live values per chunk: a chunk's bytes count while any is live.
  std::vector<int32_t> live_in_chunk(chunk_ids.size(), 0);
  int64_t bytes = 0, best = -1, best_time = 0;
  const int64_t length = static_cast<int64_t>(schedule.sequence().size());
  const int64_t buckets = std::min<int64_t>(kTimelineBuckets, std::max<int64_t>(length, 1));
  std::vector<int64_t> timeline(static_cast<size_t>(buckets), 0);
  auto bucket = [&](int64_t time) {
    return std::clamp<int64_t>(time * buckets / std::max<int64_t>(length, 1), 0, buckets - 1);
  };
  for (size_t i = 0; i < events.size();) {
    int64_t time = events[i].time;
    for (; i < events.size() && events[i].time == time; ++i) {
      const Event& e = events[i];
      int32_t& count = live_in_chunk[static_cast<size_t>(e.chunk)];
      if (e.delta > 0 && count++ == 0) bytes = SatAdd(bytes, e.size);
      if (e.delta < 0 && --count == 0) bytes -= e.size;
    }
    if (bytes > best) {
      best = bytes;
      best_time = time;
    }
    // These bytes hold until the next event: every bucket they span.
    int64_t until = i < events.size() ? events[i].time - 1 : time;
    if (time < length)
      for (int64_t b = bucket(time); b <= bucket(std::min(until, length - 1)); ++b)
        timeline[static_cast<size_t>(b)] = std::max(timeline[static_cast<size_t>(b)], bytes);
  }

  TempPeak peak;
  peak.color = heap.color;
  peak.time = best_time;
  peak.schedule_length = static_cast<int64_t>(schedule.sequence().size());
  peak.instruction = best_time < peak.schedule_length ? schedule.sequence()[best_time] : nullptr;
  peak.heap_bytes = heap.size;
  std::vector<std::pair<int64_t, int64_t>> ranges;
  std::vector<const TimedValue*> live;
  for (const TimedValue& t : values)
    if (t.start <= best_time && best_time <= t.end) {
      ranges.emplace_back(t.value->offset, t.value->size);
      live.push_back(&t);
    }
  peak.live_bytes = UnitedBytes(std::move(ranges));
  peak.live_count = static_cast<int64_t>(live.size());
  std::stable_sort(live.begin(), live.end(),
                   [](const TimedValue* a, const TimedValue* b) { return a->value->size > b->value->size; });
  for (const TimedValue* t : live) {
    if (peak.live.size() == kMaxLiveValues) break;
    LiveValue lv;
    lv.value = HloPosition{t->instruction, t->value->index};
    lv.listed = t->value;
    lv.bytes = t->value->size;
    lv.start = t->start;
    lv.end = t->end;
    const CopyFinding* copy = nullptr;
    lv.kind = KindOf(t->instruction, t->value->index, *t->value, check, &copy);
    if (copy) lv.copy = copy->copy;
    lv.source = copy && copy->source ? copy->source : ResolveSource(module, *t->instruction, options.source);
    peak.live.push_back(std::move(lv));
  }
  if (peak.instruction) peak.source = ResolveSource(module, *peak.instruction, options.source);
  peak.timeline = std::move(timeline);
  return peak;
}

// The value that made an allocation: the largest one an instruction
// defines (phi values, a loop's state, name no instruction that made the
// bytes; they are tried last). Only for the allocations shown: the temp
// heap holds thousands of values.
HloPosition MadeBy(const BufferValueInstructions& instructions, const BufferAllocation& a,
                   const BufferValue** listed) {
  // One pass: the first in (not phi, larger, earlier in the dump) order.
  const BufferValue* best = nullptr;
  const HloInstruction* best_instr = nullptr;
  for (const BufferValue& v : a.values) {
    if (best && (best->phi != v.phi ? !best->phi : best->size >= v.size)) continue;
    if (const HloInstruction* instr = instructions.Of(a, v)) {
      best = &v;
      best_instr = instr;
    }
  }
  if (!best) return {};
  *listed = best;
  return HloPosition{best_instr, best->index};
}

}  // namespace

const MemorySpaceUsage* MemoryUsage::Space(int64_t color) const {
  for (const MemorySpaceUsage& s : spaces)
    if (s.color == color) return &s;
  return nullptr;
}

int64_t MemoryUsage::device_peak_bytes() const {
  const MemorySpaceUsage* s = Space(0);
  return s ? s->peak_bytes : 0;
}

MemoryUsage AnalyzeMemory(const HloModule& module, const BufferAssignment& ba, const ModuleCheck& check,
                          const MemoryOptions& options) {
  MemoryUsage usage;
  // The check's resolution where it shares one (it resolved every value to
  // test the dump is this module's).
  std::optional<BufferValueInstructions> own;
  if (!options.instructions) own.emplace(ba, module);
  const BufferValueInstructions& instructions = options.instructions ? *options.instructions : *own;
  SpaceFor(usage.spaces, 0);
  std::vector<AllocationUsage> allocations;
  const BufferAllocation* device_heap = nullptr;
  DonationTable donations(module);
  for (const BufferAllocation& a : ba.allocations()) {
    MemorySpaceUsage& s = SpaceFor(usage.spaces, a.color);
    AllocationRole role = AllocationRoleOf(a);
    // An allocation counts in every total its flags name, as in XLA: a
    // donated parameter is argument, output and alias at once.
    if (a.parameter_number) s.argument_bytes = SatAdd(s.argument_bytes, a.size);
    if (a.maybe_live_out) s.output_bytes = SatAdd(s.output_bytes, a.size);
    if (a.parameter_number && a.maybe_live_out) s.alias_bytes = SatAdd(s.alias_bytes, a.size);
    if (a.is_preallocated_temp) s.temp_bytes = SatAdd(s.temp_bytes, a.size);
    if (role == AllocationRole::kConstant) s.constant_bytes = SatAdd(s.constant_bytes, a.size);
    if (role == AllocationRole::kThreadLocal) s.thread_local_bytes = SatAdd(s.thread_local_bytes, a.size);
    if (role == AllocationRole::kTemporary && a.color == 0 && (!device_heap || a.size > device_heap->size))
      device_heap = &a;
    if (role == AllocationRole::kConstant || role == AllocationRole::kThreadLocal) continue;

    AllocationUsage u;
    u.allocation = &a;
    u.role = role;
    u.bytes = a.size;
    if (a.parameter_number) {
      const HloComputation* entry = module.entry_computation();
      const HloInstruction* param = entry ? entry->parameter(*a.parameter_number) : nullptr;
      u.value = HloPosition{param, a.parameter_index};
      u.parameter_number = a.parameter_number;
      u.argument = ArgumentMemoryOf(donations, a, check.FindParameter(*a.parameter_number));
    }
    allocations.push_back(std::move(u));
  }
  for (MemorySpaceUsage& s : usage.spaces) {
    int64_t sum = SatAdd(SatAdd(s.argument_bytes, s.output_bytes), s.temp_bytes);
    s.peak_bytes = sum == kSaturated ? sum : std::max<int64_t>(0, sum - s.alias_bytes);
  }
  std::sort(usage.spaces.begin(), usage.spaces.end(),
            [](const MemorySpaceUsage& a, const MemorySpaceUsage& b) { return a.color < b.color; });
  // The largest first, ties in allocation order (a stable sort's order);
  // only the ones shown are sorted: a train step has thousands.
  usage.allocation_count = static_cast<int64_t>(allocations.size());
  size_t shown = std::min(allocations.size(), kMaxAllocations);
  std::partial_sort(allocations.begin(), allocations.begin() + static_cast<std::ptrdiff_t>(shown),
                    allocations.end(), [](const AllocationUsage& a, const AllocationUsage& b) {
                      return a.bytes != b.bytes ? a.bytes > b.bytes
                                                : a.allocation->index < b.allocation->index;
                    });
  allocations.resize(shown);
  // Lines only for the allocations shown.
  for (AllocationUsage& u : allocations) {
    if (!u.parameter_number) u.value = MadeBy(instructions, *u.allocation, &u.listed);
    if (!u.value.instruction) continue;
    const CopyFinding* copy = nullptr;
    if (u.role == AllocationRole::kOutput && u.listed)
      u.value_kind = KindOf(u.value.instruction, u.value.index, *u.listed, check, &copy);
    // A copy's line is its finding's (a copy XLA inserted has no metadata of its own).
    u.source =
        copy && copy->source ? copy->source : ResolveSource(module, *u.value.instruction, options.source);
  }
  usage.allocations = std::move(allocations);
  if (device_heap) usage.temp_peak = FindTempPeak(module, *device_heap, instructions, check, options);
  return usage;
}

}  // namespace hloscope
