// replica_groups, source_target_pairs and group modes (XLA's
// collective_device_list.cc, replica_group.cc, the collective parts of
// hlo_parser.cc, collective_ops_utils.cc GetCollectiveOpGroupMode).
#include "hloscope/ir/collective_device_list.h"

#include <fmt/format.h>

#include "hloscope/support/saturating.h"
#include "ir/sharding_text.h"

namespace hloscope {

namespace {

using ir_internal::DecodeCursor;
using ir_internal::DecodeFailure;

// `{` [id (, id)*] `}` of non-negative ids.
std::vector<int64_t> IdList(DecodeCursor& c, std::string_view what) {
  c.Expect('{', fmt::format("to open a {}", what));
  std::vector<int64_t> ids;
  if (c.Consume('}')) return ids;
  while (true) {
    c.SkipSpace();
    size_t at = c.pos();
    int64_t id = c.Int(fmt::format("a device id in a {}", what));
    if (id < 0) c.Fail(at, fmt::format("device id {} is negative", id));
    ids.push_back(id);
    if (c.Consume(',')) continue;
    c.Expect('}', fmt::format("to close a {}", what));
    return ids;
  }
}

}  // namespace

int64_t CollectiveDeviceList::num_groups() const {
  switch (form) {
    case DeviceListForm::kExplicit:
      return static_cast<int64_t>(groups.size());
    case DeviceListForm::kIota:
      return iota.dims.size() == 2 ? iota.dims[0] : 0;
    case DeviceListForm::kMeshAxes: {
      int64_t size = group_size();
      return size > 0 ? mesh.num_devices() / size : 0;
    }
  }
  return 0;
}

int64_t CollectiveDeviceList::group_size() const {
  switch (form) {
    case DeviceListForm::kExplicit:
      return groups.empty() ? 0 : static_cast<int64_t>(groups[0].size());
    case DeviceListForm::kIota:
      return iota.dims.size() == 2 ? iota.dims[1] : 0;
    case DeviceListForm::kMeshAxes: {
      int64_t size = 1;
      for (const AxisRef& r : axes) size = SatMul(size, AxisRefSize(r, mesh));
      return size;
    }
  }
  return 0;
}

bool CollectiveDeviceList::uniform() const {
  if (form != DeviceListForm::kExplicit) return true;
  for (const std::vector<int64_t>& g : groups)
    if (g.size() != groups[0].size()) return false;
  return true;
}

Result<CollectiveDeviceList> ParseCollectiveDeviceList(std::string_view text) {
  DecodeCursor c(text);
  try {
    CollectiveDeviceList list;
    char first = c.Peek();
    if (first == '{') {
      list.form = DeviceListForm::kExplicit;
      c.Expect('{', "to open the replica groups");
      if (!c.Consume('}')) {
        while (true) {
          list.groups.push_back(IdList(c, "replica group"));
          if (c.Consume(',')) continue;
          c.Expect('}', "to close the replica groups");
          break;
        }
      }
    } else if (first == '[') {
      list.form = DeviceListForm::kIota;
      size_t at = c.pos();
      list.iota = ir_internal::ParseTileAssignmentAt(c, /*allow_explicit=*/false);
      if (list.iota.dims.size() != 2)
        c.Fail(at, fmt::format("iota replica groups have 2 dimensions [groups,size], found {}",
                               list.iota.dims.size()));
    } else if (c.PeekWord() == "mesh") {
      list.form = DeviceListForm::kMeshAxes;
      list.mesh = ir_internal::ParseMeshAt(c);
      c.SkipSpace();
      size_t at = c.pos();
      if (!c.AtEnd()) list.axes = ir_internal::ParseAxisRefListAt(c, list.mesh);
      ir_internal::SplitMesh(list.mesh, list.axes, at, c);  // overlapping axes fail here
    } else {
      c.FailExpected("'{', '[' or 'mesh' to start the replica groups");
    }
    if (!c.AtEnd()) c.FailExpected("the end of the replica groups");
    return list;
  } catch (const DecodeFailure& f) {
    return ir_internal::FailureDiagnostic(text, f);
  }
}

Result<std::vector<std::vector<int64_t>>> ExpandDeviceGroups(const CollectiveDeviceList& list,
                                                             int64_t max_ids) {
  switch (list.form) {
    case DeviceListForm::kExplicit: {
      int64_t total = 0;
      for (const std::vector<int64_t>& g : list.groups) total = SatAdd(total, static_cast<int64_t>(g.size()));
      if (total > max_ids)
        return InputDiagnostic(
            "",
            fmt::format("the replica groups hold {} device ids, more than the limit of {}", total, max_ids));
      return list.groups;
    }
    case DeviceListForm::kIota: {
      if (list.iota.dims.size() != 2) return InputDiagnostic("", "iota replica groups need 2 dimensions");
      Result<std::vector<int64_t>> ids = list.iota.Devices(max_ids);
      if (!ids.ok()) return ids.error();
      const int64_t groups = list.iota.dims[0];
      const int64_t size = list.iota.dims[1];
      std::vector<std::vector<int64_t>> out(static_cast<size_t>(groups));
      for (int64_t g = 0; g < groups; ++g)
        out[g].assign(ids->begin() + g * size, ids->begin() + (g + 1) * size);
      return out;
    }
    case DeviceListForm::kMeshAxes:
      return DeviceGroupsAlongAxes(list.mesh, list.axes, max_ids);
  }
  return InputDiagnostic("", "unknown replica group form");
}

Result<int64_t> CountDeviceIds(const CollectiveDeviceList& list, int64_t max_ids) {
  switch (list.form) {
    case DeviceListForm::kExplicit: {
      int64_t total = 0;
      for (const std::vector<int64_t>& g : list.groups) total = SatAdd(total, static_cast<int64_t>(g.size()));
      if (total > max_ids)
        return InputDiagnostic(
            "",
            fmt::format("the replica groups hold {} device ids, more than the limit of {}", total, max_ids));
      return total;
    }
    case DeviceListForm::kIota: {
      if (list.iota.dims.size() != 2) return InputDiagnostic("", "iota replica groups need 2 dimensions");
      const int64_t n = list.iota.num_elements();
      // Devices() checks the count before it allocates: its error, unallocated.
      if (n > max_ids) return list.iota.Devices(max_ids).error();
      return n;
    }
    case DeviceListForm::kMeshAxes: {
      if (list.mesh.maximal_device) return 1;
      const int64_t n = list.mesh.num_devices();
      // Likewise DeviceGroupsAlongAxes: the mesh's size first. (Its other
      // checks, SplitMesh's, passed when the list was parsed.)
      if (n > max_ids) return DeviceGroupsAlongAxes(list.mesh, list.axes, max_ids).error();
      return n;
    }
  }
  return InputDiagnostic("", "unknown replica group form");
}

std::vector<std::string> MeshAxisNames(const CollectiveDeviceList& list) {
  std::vector<std::string> names;
  if (list.form != DeviceListForm::kMeshAxes) return names;
  for (const AxisRef& r : list.axes) names.push_back(AxisRefToString(r, list.mesh));
  return names;
}

Result<std::vector<SourceTargetPair>> ParseSourceTargetPairs(std::string_view text) {
  DecodeCursor c(text);
  try {
    std::vector<SourceTargetPair> pairs;
    c.Expect('{', "to open the source-target pairs");
    if (!c.Consume('}')) {
      while (true) {
        c.SkipSpace();
        size_t at = c.pos();
        std::vector<int64_t> ids = IdList(c, "source-target pair");
        if (ids.size() != 2)
          c.Fail(at, fmt::format("a source-target pair has {} ids; it needs exactly 2", ids.size()));
        pairs.push_back({ids[0], ids[1]});
        if (c.Consume(',')) continue;
        c.Expect('}', "to close the source-target pairs");
        break;
      }
    }
    if (!c.AtEnd()) c.FailExpected("the end of the source-target pairs");
    return pairs;
  } catch (const DecodeFailure& f) {
    return ir_internal::FailureDiagnostic(text, f);
  }
}

std::string_view CollectiveGroupModeName(CollectiveGroupMode mode) {
  switch (mode) {
    case CollectiveGroupMode::kCrossReplica:
      return "cross-replica";
    case CollectiveGroupMode::kCrossPartition:
      return "cross-partition";
    case CollectiveGroupMode::kCrossReplicaAndPartition:
      return "cross-replica-and-partition";
    case CollectiveGroupMode::kFlattenedId:
      return "flattened-id";
  }
  return "unknown";
}

Result<CollectiveGroupMode> GroupModeFor(bool has_channel_id, std::optional<bool> use_global_device_ids) {
  if (!has_channel_id) {
    if (use_global_device_ids.value_or(false))
      return InputDiagnostic("", "Invalid combination of has_channel_id and use_global_device_ids");
    return CollectiveGroupMode::kCrossReplica;
  }
  if (!use_global_device_ids) return CollectiveGroupMode::kCrossPartition;
  return *use_global_device_ids ? CollectiveGroupMode::kFlattenedId
                                : CollectiveGroupMode::kCrossReplicaAndPartition;
}

Result<CollectiveGroupMode> GroupModeOf(const HloInstruction& instr) {
  std::optional<std::string_view> channel = instr.attribute("channel_id");
  if (channel) {
    DecodeCursor c(*channel);
    try {
      c.Int("an integer channel_id");
      if (!c.AtEnd()) c.FailExpected("the end of channel_id");
    } catch (const DecodeFailure& f) {
      return ir_internal::FailureDiagnostic(*channel, f);
    }
  }
  // XLA keeps use_global_device_ids as a bool on all-reduce, all-gather and
  // reduce-scatter (absent = false) and has none on the other collectives.
  std::optional<bool> global;
  switch (instr.opcode()) {
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kReduceScatter: {
      global = false;
      std::optional<std::string_view> v = instr.attribute("use_global_device_ids");
      if (v && *v == "true") {
        global = true;
      } else if (v && *v != "false") {
        return MakeDiagnostic(
            "", *v, 0, fmt::format("expected 'true' or 'false' for use_global_device_ids, found '{}'", *v));
      }
      break;
    }
    default:
      break;
  }
  return GroupModeFor(channel.has_value(), global);
}

}  // namespace hloscope
