// Why a re-shard, from the module as XLA's SPMD partitioner received it.
//
// The optimized module says what a collective moves, not which sharding
// asked for it. The module just before partitioning does: every
// instruction carries its sharding there (sharding propagation has run),
// and the partitioner inserts a collective where an operand's sharding
// differs from the one its user needs (xla/service/spmd/spmd_partitioner.cc,
// GetOperand -> Reshard), copying that user's metadata onto the
// collective. XLA writes that module with
//   --xla_dump_to=DIR --xla_dump_hlo_pass_re=spmd-partitioning
// as module_NNNN.NAME.NNNN.spmd-partitioner.after_<pass>.before_spmd-partitioning.txt
// (parser/dump_naming.h finds it beside the optimized dump).
//
// A collective is matched to the instructions of that module with its
// op_name and source line; of those, an instruction partitioned with its
// operand's sharding (element-wise, copy, select, clamp, with_sharding_
// constraint's Sharding custom-call; and, rank for rank, slice,
// dynamic-slice, pad, reverse, concatenate, dynamic-update-slice) whose
// operand is sharded otherwise is the re-shard. Only a single such pair is stated;
// with none, or several, the cause stays what the optimized module shows.
#ifndef HLOSCOPE_ANALYSIS_RESHARD_ORIGIN_H_
#define HLOSCOPE_ANALYSIS_RESHARD_ORIGIN_H_

#include "hloscope/analysis/findings.h"
#include "hloscope/analysis/source_map.h"
#include "hloscope/ir/module.h"

namespace hloscope {

// Fills `before_partitioning` of the re-shard, sharding-constraint and
// unexplained collectives of `check` from `pre` (the module before
// partitioning).
void FindReshardOrigins(const HloModule& pre, const SourceOptions& source, ModuleCheck* check);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_RESHARD_ORIGIN_H_
