// Parameters: each entry argument's size, its donation, and the copies
// made of it (through loop state and chains of copies).
#include <unordered_map>

#include "check_context.h"
#include "hloscope/analysis/donation.h"
#include "hloscope/ir/hlo_sharding.h"
#include "hloscope/support/saturating.h"

namespace hloscope {
namespace {

// The parameter's sharding (an array parameter's `sharding=`; JAX 0.10's XLA
// keeps it after partitioning) and the global shape it is a shard of.
void DecodeSharding(const HloInstruction& p, ParameterFinding* pf) {
  std::optional<std::string_view> text = p.attribute("sharding");
  const Shape& shape = p.shape();
  if (!text || !shape.IsArray()) return;
  Result<HloSharding> sharding = ParseHloSharding(*text);
  if (!sharding.ok()) return;
  ParameterSharding s;
  s.text = std::string(*text);
  s.replicated = sharding->kind == ShardingKind::kReplicated;
  int64_t rank = static_cast<int64_t>(shape.dimensions.size());
  Result<std::vector<int64_t>> shards = ShardsPerDimension(*sharding, rank);
  if (shards.ok()) s.shards_per_dim = *shards;
  std::vector<int64_t> dims(shape.dimensions.begin(), shape.dimensions.end());
  Result<GlobalDimsRange> global = GlobalShapeRange(*sharding, dims);
  s.global_dims = global.ok() ? global->max : dims;
  // The global array's bytes: the shard's scaled by the number of tiles.
  std::optional<int64_t> global_bytes = pf->bytes;
  for (int64_t t : s.shards_per_dim) global_bytes = SatMul(global_bytes, std::optional<int64_t>(t));
  pf->global_bytes = global_bytes;
  pf->sharding = std::move(s);
}

}  // namespace

std::vector<ParameterFinding> FindParameters(const CheckContext& ctx) {
  std::vector<ParameterFinding> out;
  const HloModule& module = ctx.module();
  // One pass over the aliases, donors and copy sites, not one per
  // parameter: a train step has thousands of each, and a scan per
  // parameter made this quadratic in the model's depth.
  DonationTable donations(module);
  std::unordered_map<int64_t, std::vector<HloPosition>> copies;  // in site order
  for (const CopySite& s : ctx.sites())
    if (std::optional<HloPosition> origin = ctx.ParameterOrigin({s.source, s.source_index}))
      copies[origin->instruction->parameter_number()].push_back(s.copy);
  for (const HloInstruction* p : module.entry_computation()->parameters()) {
    if (!p) continue;
    ParameterFinding pf;
    pf.parameter = p;
    pf.number = p->parameter_number();
    pf.bytes = p->shape().IsTuple() ? TotalByteSizeOf(p->shape()) : ByteSizeOf(p->shape());
    pf.donation = donations.OfParameter(pf.number);
    DecodeSharding(*p, &pf);
    pf.aliased_outputs = donations.AliasedOutputs(pf.number);
    if (auto it = copies.find(pf.number); it != copies.end()) pf.copies = it->second;
    out.push_back(std::move(pf));
  }
  return out;
}

// Some leaf of the entry's result has `shape`'s dimensions and element type
// (layouts and memory spaces aside): what a donated buffer can be reused for.
bool HasOutputShaped(const HloModule& module, const Shape* shape) {
  if (!shape || !shape->IsArray()) return true;  // nothing to tell: do not withhold the hint
  for (const Shape* s : EntryOutputLeaves(module))
    if (s->element_type == shape->element_type && s->dimensions == shape->dimensions) return true;
  return false;
}

DonationRequest RequestedDonation(const HloModule& module, const ParameterFinding& p, bool requested) {
  DonationRequest r;
  // A buffer_donor left in the optimized module was asked for and not used.
  r.requested = requested || p.donation == DonationKind::kBufferDonor;
  if (!r.requested || p.donation == DonationKind::kInputOutputAlias) return r;
  // Another argument may have taken the only output of its shape; which one
  // XLA prefers is its pass's business, so name the shapes, not the winner.
  const Shape& shape = p.parameter->shape();
  bool shaped = !shape.IsTuple() && HasOutputShaped(module, &shape);
  r.dropped = shaped ? DroppedDonation::kOutputNotAliased : DroppedDonation::kNoOutputOfShape;
  return r;
}

}  // namespace hloscope
