// Collective traffic per device (conventions in collective_traffic.h).
#include "hloscope/analysis/collective_traffic.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "hloscope/ir/computation.h"
#include "hloscope/support/saturating.h"

namespace hloscope {

namespace {

std::optional<CollectiveFamily> FamilyFromName(std::string_view name) {
  if (name == "all-gather") return CollectiveFamily::kAllGather;
  if (name == "all-reduce") return CollectiveFamily::kAllReduce;
  if (name == "reduce-scatter") return CollectiveFamily::kReduceScatter;
  if (name == "all-to-all") return CollectiveFamily::kAllToAll;
  if (name == "ragged-all-to-all") return CollectiveFamily::kRaggedAllToAll;
  if (name == "collective-permute") return CollectiveFamily::kCollectivePermute;
  if (name == "collective-broadcast") return CollectiveFamily::kCollectiveBroadcast;
  return std::nullopt;
}

// `reduce-scatter-start` -> (reduce-scatter, kStart): the sugared async forms
// this version parses as unknown opcodes.
std::optional<std::pair<CollectiveFamily, CollectivePart>> SugaredAsync(std::string_view text) {
  for (auto [suffix, part] : {std::pair<std::string_view, CollectivePart>{"-start", CollectivePart::kStart},
                              {"-update", CollectivePart::kUpdate},
                              {"-done", CollectivePart::kDone}}) {
    if (text.size() > suffix.size() && text.substr(text.size() - suffix.size()) == suffix) {
      std::optional<CollectiveFamily> f = FamilyFromName(text.substr(0, text.size() - suffix.size()));
      if (f) return std::pair{*f, part};
    }
  }
  return std::nullopt;
}

// The family of a plain (sync) collective opcode.
std::optional<CollectiveFamily> SyncFamily(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAllGather:
      return CollectiveFamily::kAllGather;
    case HloOpcode::kAllReduce:
      return CollectiveFamily::kAllReduce;
    case HloOpcode::kReduceScatter:
      return CollectiveFamily::kReduceScatter;
    case HloOpcode::kAllToAll:
      return CollectiveFamily::kAllToAll;
    case HloOpcode::kRaggedAllToAll:
      return CollectiveFamily::kRaggedAllToAll;
    case HloOpcode::kCollectivePermute:
      return CollectiveFamily::kCollectivePermute;
    case HloOpcode::kCollectiveBroadcast:
      return CollectiveFamily::kCollectiveBroadcast;
    default:
      return std::nullopt;
  }
}

// The collective an async-start's computation wraps: its root when that is
// one, else the first collective in it.
const HloInstruction* WrappedCollective(const HloInstruction& start) {
  const HloComputation* c = start.called(CallRole::kCalls);
  if (!c) return nullptr;
  if (c->root_instruction() && SyncFamily(c->root_instruction()->opcode())) return c->root_instruction();
  for (const HloInstruction* i : c->instructions())
    if (SyncFamily(i->opcode())) return i;
  return nullptr;
}

struct Resolved {
  CollectiveFamily family;
  CollectivePart part;
  const HloInstruction* collective;
  const HloInstruction* counted_at;
};

// A start instruction (own opcode, sugared or wrapped), resolved.
std::optional<Resolved> ResolveStart(const HloInstruction& i) {
  switch (i.opcode()) {
    case HloOpcode::kAllGatherStart:
      return Resolved{CollectiveFamily::kAllGather, CollectivePart::kStart, &i, &i};
    case HloOpcode::kAllReduceStart:
      return Resolved{CollectiveFamily::kAllReduce, CollectivePart::kStart, &i, &i};
    case HloOpcode::kCollectivePermuteStart:
      return Resolved{CollectiveFamily::kCollectivePermute, CollectivePart::kStart, &i, &i};
    case HloOpcode::kAsyncStart: {
      const HloInstruction* w = WrappedCollective(i);
      if (!w) return std::nullopt;
      return Resolved{*SyncFamily(w->opcode()), CollectivePart::kStart, w, &i};
    }
    case HloOpcode::kUnknown: {
      auto sugared = SugaredAsync(i.opcode_text());
      if (!sugared || sugared->second != CollectivePart::kStart) return std::nullopt;
      return Resolved{sugared->first, CollectivePart::kStart, &i, &i};
    }
    default:
      return std::nullopt;
  }
}

// Follows operand 0 of -update/-done instructions back to their start
// (bounded: async chains are a start, a few updates, a done).
std::optional<Resolved> ResolveFromDone(const HloInstruction& i, CollectivePart part) {
  const HloInstruction* p = &i;
  for (int step = 0; step < 64; ++step) {
    if (p->operand_count() < 1) return std::nullopt;
    p = p->operand(0);
    if (std::optional<Resolved> start = ResolveStart(*p)) {
      start->part = part;
      return start;
    }
    bool chain = p->opcode() == HloOpcode::kAsyncUpdate ||
                 (p->opcode() == HloOpcode::kUnknown && SugaredAsync(p->opcode_text()) &&
                  SugaredAsync(p->opcode_text())->second == CollectivePart::kUpdate);
    if (!chain) return std::nullopt;
  }
  return std::nullopt;
}

std::optional<Resolved> Resolve(const HloInstruction& i) {
  if (std::optional<CollectiveFamily> f = SyncFamily(i.opcode()))
    return Resolved{*f, CollectivePart::kSync, &i, &i};
  if (std::optional<Resolved> start = ResolveStart(i)) return start;
  switch (i.opcode()) {
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kAllReduceDone:
    case HloOpcode::kCollectivePermuteDone:
    case HloOpcode::kAsyncDone:
      return ResolveFromDone(i, CollectivePart::kDone);
    case HloOpcode::kAsyncUpdate:
      return ResolveFromDone(i, CollectivePart::kUpdate);
    case HloOpcode::kUnknown: {
      auto sugared = SugaredAsync(i.opcode_text());
      if (!sugared) return std::nullopt;
      return ResolveFromDone(i, sugared->second);
    }
    default:
      return std::nullopt;
  }
}

// Bytes of every array leaf of `shape`: as the buffer assignment counts them
// (tile padding included), or by their elements only.
std::optional<int64_t> LeafBytes(const Shape& shape, bool padded) {
  std::optional<int64_t> total = 0;
  std::vector<const Shape*> stack = {&shape};  // explicit: no recursion on nested tuples
  while (!stack.empty()) {
    const Shape* s = stack.back();
    stack.pop_back();
    if (s->IsTuple()) {
      for (const Shape* e : s->tuple_shapes) stack.push_back(e);
      continue;
    }
    if (padded || !s->layout || s->layout->tiles.empty()) {
      SatAccumulate(&total, ByteSizeOf(*s));
      continue;
    }
    Shape untiled = *s;
    untiled.layout->tiles.clear();
    SatAccumulate(&total, ByteSizeOf(untiled));
  }
  return total;
}

// B*(G-1)/G, rounded down, without overflowing on the way (a saturated B
// stays saturated).
int64_t AllButOwnShare(int64_t bytes, int64_t g) {
  if (g <= 1) return 0;
  if (IsSaturated(bytes)) return kSaturated;
  return SatAdd(SatMul(bytes / g, g - 1), SatMul(bytes % g, g - 1) / g);
}

// The result the collective delivers, when its shape shows it: the sync op's
// (or wrapped op's) shape, element 1 of a start's (operands, results, ...)
// tuple, all-reduce-start's own shape.
const Shape* ResultShape(const HloInstruction& c, CollectiveFamily family) {
  const Shape& s = c.shape();
  switch (c.opcode()) {
    case HloOpcode::kAllReduceStart:
      return &s;
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kCollectivePermuteStart:
    case HloOpcode::kUnknown:  // sugared reduce-scatter-start and the like
      return s.IsTuple() && s.tuple_shapes.size() >= 2 ? s.tuple_shapes[1] : nullptr;
    default:
      // In-place collective-permutes (slice_sizes=) return more than the data.
      if (family == CollectiveFamily::kCollectivePermute && c.attribute("slice_sizes")) return nullptr;
      return &s;
  }
}

Diagnostic Error(std::string message) { return InputDiagnostic("", std::move(message)); }

}  // namespace

std::string_view CollectiveFamilyName(CollectiveFamily family) {
  switch (family) {
    case CollectiveFamily::kAllGather:
      return "all-gather";
    case CollectiveFamily::kAllReduce:
      return "all-reduce";
    case CollectiveFamily::kReduceScatter:
      return "reduce-scatter";
    case CollectiveFamily::kAllToAll:
      return "all-to-all";
    case CollectiveFamily::kRaggedAllToAll:
      return "ragged-all-to-all";
    case CollectiveFamily::kCollectivePermute:
      return "collective-permute";
    case CollectiveFamily::kCollectiveBroadcast:
      return "collective-broadcast";
  }
  return "collective";
}

bool IsCollectiveKernelOpcode(HloOpcode opcode) {
  return SyncFamily(opcode) || opcode == HloOpcode::kAllGatherStart || opcode == HloOpcode::kAllReduceStart ||
         opcode == HloOpcode::kCollectivePermuteStart;
}

std::optional<CollectiveFamily> CollectiveFamilyOf(const HloInstruction& instr) {
  std::optional<Resolved> r = Resolve(instr);
  if (!r) return std::nullopt;
  return r->family;
}

Result<CollectiveTraffic> AnalyzeCollective(const HloInstruction& instr, const SpmdConfig& config,
                                            const CollectiveTrafficOptions& options) {
  std::optional<Resolved> r = Resolve(instr);
  if (!r) return Error(fmt::format("'{}' ({}) is not a collective", instr.name(), instr.opcode_text()));
  const HloInstruction& c = *r->collective;
  CollectiveTraffic t;
  t.family = r->family;
  t.part = r->part;
  t.instruction = &instr;
  t.collective = &c;
  t.counted_at = r->counted_at;

  Result<CollectiveGroupMode> mode = GroupModeOf(c);
  if (!mode.ok()) return mode.error();
  t.mode = *mode;
  const int64_t devices = config.num_devices();

  // Who talks to whom.
  int64_t g = 0;
  if (t.family == CollectiveFamily::kCollectivePermute) {
    if (std::optional<std::string_view> v = c.attribute("source_target_pairs")) {
      Result<std::vector<SourceTargetPair>> pairs = ParseSourceTargetPairs(*v);
      if (!pairs.ok()) return pairs.error();
      t.pairs = std::move(*pairs);
    }
  } else {
    CollectiveDeviceList list;
    std::string_view text = c.attribute("replica_groups").value_or("");
    if (c.attribute("replica_groups")) {
      Result<CollectiveDeviceList> decoded = ParseCollectiveDeviceList(text);
      if (!decoded.ok()) return decoded.error();
      list = std::move(*decoded);
    }
    // The sizes, from the form: nothing written out.
    int64_t ids = 0;  // the device ids the groups hold
    if (list.all_participants()) {
      // XLA's GetParticipatingDevicesGroups: partition ids cross-partition,
      // replica ids otherwise (global ids when flattened).
      ids = t.mode == CollectiveGroupMode::kCrossPartition ? config.num_partitions
            : t.mode == CollectiveGroupMode::kFlattenedId  ? devices
                                                           : config.replica_count;
      if (ids < 0 || ids > kMaxExpandedDeviceIds)
        return Error(fmt::format("the collective spans {} devices, more than the limit of {}", ids,
                                 kMaxExpandedDeviceIds));
      g = ids;
      t.num_groups = 1;
    } else {
      Result<int64_t> count = CountDeviceIds(list);
      if (!count.ok()) return count.error();
      ids = *count;
      if (list.form == DeviceListForm::kExplicit) {
        for (const std::vector<int64_t>& grp : list.groups) {
          if (grp.size() != list.groups[0].size()) t.max_over_devices = true;
          g = std::max(g, static_cast<int64_t>(grp.size()));
        }
        t.num_groups = static_cast<int64_t>(list.groups.size());
      } else if (list.form == DeviceListForm::kMeshAxes && list.mesh.maximal_device) {
        g = 1;
        t.num_groups = 1;
      } else {
        g = list.group_size();
        t.num_groups = list.num_groups();
      }
    }
    if (t.mode == CollectiveGroupMode::kCrossReplicaAndPartition) g = SatMul(g, config.num_partitions);
    t.group_size = g;
    t.spans_all_devices = t.num_groups == 1 && g == devices;

    // The groups' ids read against the caller's mesh (the mesh form names
    // its axes itself).
    const bool read_ids =
        list.form != DeviceListForm::kMeshAxes && config.mesh && config.replica_count == 1 &&
        config.mesh->num_devices() == config.num_partitions &&
        (t.mode == CollectiveGroupMode::kCrossPartition || t.mode == CollectiveGroupMode::kFlattenedId);
    std::pair<std::string, CollectiveGroupMode> key;
    std::optional<std::vector<std::string>>* known = nullptr;  // the budget's memo of these axes
    if (read_ids && options.budget) {
      key = {std::string(text), t.mode};
      auto it = options.budget->axes.find(key);
      if (it != options.budget->axes.end()) known = &it->second;
    }
    // Write the groups out (the explicit form's are the text's own).
    if (options.keep_groups || (read_ids && !known)) {
      if (list.form == DeviceListForm::kExplicit && !list.all_participants()) {
        t.groups = std::move(list.groups);
      } else if (options.budget && ids > options.budget->left) {
        t.groups_written = false;
        ++options.budget->refused;
      } else {
        if (options.budget) {
          options.budget->left -= ids;
          options.budget->written += ids;
        }
        if (list.all_participants()) {
          std::vector<int64_t> all(static_cast<size_t>(ids));
          for (int64_t k = 0; k < ids; ++k) all[k] = k;
          t.groups.push_back(std::move(all));
        } else {
          Result<std::vector<std::vector<int64_t>>> groups = ExpandDeviceGroups(list);
          if (!groups.ok()) return groups.error();
          t.groups = std::move(*groups);
        }
      }
    }

    // Mesh axes: from the text, or from the caller's mesh.
    if (list.form == DeviceListForm::kMeshAxes) {
      t.mesh_axes = MeshAxisNames(list);
      t.mesh_axes_known = true;
    } else if (config.mesh && config.replica_count == 1 &&
               config.mesh->num_devices() == config.num_partitions) {
      if (read_ids) {
        std::optional<std::vector<std::string>> names;
        if (known) {
          names = *known;
        } else if (t.groups_written) {
          if (std::optional<std::vector<AxisRef>> axes = MeshAxesOfGroups(t.groups, *config.mesh)) {
            names.emplace();
            for (const AxisRef& a : *axes) names->push_back(AxisRefToString(a, *config.mesh));
          }
          if (options.budget) options.budget->axes.emplace(key, names);
        }
        if (names) {
          t.mesh_axes = std::move(*names);
          t.mesh_axes_known = true;
        }
      } else if (t.mode == CollectiveGroupMode::kCrossReplicaAndPartition) {
        for (const MeshAxis& a : config.mesh->axes)
          if (a.size > 1) t.mesh_axes.push_back(a.name);
        t.mesh_axes_known = true;
      }
    }
    if (!options.keep_groups) t.groups = {};
  }

  // Bytes.
  const bool padded = options.padded_sizes;
  t.operand_count = c.operand_count();
  std::optional<int64_t> b = 0;
  const bool first_only = (t.family == CollectiveFamily::kCollectivePermute && c.attribute("slice_sizes")) ||
                          t.family == CollectiveFamily::kRaggedAllToAll;
  for (int64_t k = 0; k < c.operand_count() && (!first_only || k == 0); ++k)
    SatAccumulate(&b, LeafBytes(c.operand(k)->shape(), padded));
  if (c.operand_count() == 0) b.reset();
  t.operand_bytes = b;
  if (const Shape* result = ResultShape(c, t.family)) {
    t.result_shape = result;
    t.result_bytes = LeafBytes(*result, padded);
  }
  if (t.part == CollectivePart::kUpdate || t.part == CollectivePart::kDone) {
    t.bytes_sent = 0;
    t.bytes_received = 0;
    return t;
  }
  if (!b) return t;
  const int64_t peers = std::max<int64_t>(g - 1, 0);
  // What a device receives is counted in the result's type (XLA may move a
  // convert into the collective); the operand's when the result is unknown.
  const int64_t rb = t.result_bytes.value_or(*b);
  switch (t.family) {
    case CollectiveFamily::kAllGather:
      t.bytes_sent = SatMul(*b, peers);
      t.bytes_received = g <= 1 ? 0 : t.result_bytes ? std::max<int64_t>(rb - *b, 0) : SatMul(*b, peers);
      if (IsSaturated(rb)) t.bytes_received = kSaturated;
      break;
    case CollectiveFamily::kReduceScatter:
      t.bytes_sent = AllButOwnShare(*b, g);
      t.bytes_received = t.result_bytes ? SatMul(rb, peers) : AllButOwnShare(*b, g);
      break;
    case CollectiveFamily::kAllToAll:
      t.bytes_sent = AllButOwnShare(*b, g);
      t.bytes_received = AllButOwnShare(rb, g);
      break;
    case CollectiveFamily::kAllReduce:
      t.bytes_sent = AllButOwnShare(SatMul(*b, 2), g);
      t.bytes_received = AllButOwnShare(SatMul(rb, 2), g);
      break;
    case CollectiveFamily::kRaggedAllToAll:
      t.exact = false;
      t.bytes_sent = g > 1 ? *b : 0;
      t.bytes_received = g > 1 ? rb : 0;
      break;
    case CollectiveFamily::kCollectivePermute: {
      t.max_over_devices = true;
      std::map<int64_t, int64_t> sends, receives;
      int64_t most_sent = 0, most_received = 0;
      for (const SourceTargetPair& p : t.pairs) {
        if (p.source == p.target) continue;
        most_sent = std::max(most_sent, ++sends[p.source]);
        most_received = std::max(most_received, ++receives[p.target]);
      }
      t.bytes_sent = SatMul(*b, most_sent);
      t.bytes_received = SatMul(rb, most_received);
      break;
    }
    case CollectiveFamily::kCollectiveBroadcast:
      // The root (each group's first device) sends its operand to every peer.
      t.max_over_devices = true;
      t.bytes_sent = SatMul(*b, peers);
      t.bytes_received = g > 1 ? rb : 0;
      break;
  }
  return t;
}

}  // namespace hloscope
