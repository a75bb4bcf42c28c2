// CheckModule: the analysis behind `hloscope check` — every copy with its
// bytes, executions and cause; every update with its in-place verdict; every
// loop with what it moves per iteration; every parameter with its donation.
// With XLA's buffer-assignment dump it also confirms or contradicts each
// update verdict (same allocation and offset <=> same memory).
//
// Parts, in the order they run: copy_sites (where copies are), updates.cc
// (verdicts), copy_causes (why each copy exists), loops.cc, parameters.cc.
// Rules and their XLA sources: docs/analysis.md.
#ifndef HLOSCOPE_ANALYSIS_CHECK_H_
#define HLOSCOPE_ANALYSIS_CHECK_H_

#include <string>

#include "hloscope/analysis/execution_counts.h"
#include "hloscope/analysis/findings.h"
#include "hloscope/analysis/mesh_names.h"
#include "hloscope/analysis/source_map.h"
#include "hloscope/ir/module.h"
#include "hloscope/parser/buffer_assignment.h"
#include "hloscope/parser/thunk_metadata.h"

namespace hloscope {

struct CheckOptions {
  // XLA's buffer assignment for this module, or nullptr.
  const BufferAssignment* buffer_assignment = nullptr;
  // The dump's path; set without `buffer_assignment` when a dump was given
  // but not applied (it describes one module, the input holds several).
  std::string buffer_assignment_path;
  // XLA:GPU's thunk dump for this module (thunk_metadata.txt), or nullptr;
  // its path for the reports.
  const ThunkMetadata* thunk_metadata = nullptr;
  std::string thunk_metadata_path;
  // The module as XLA's SPMD partitioner received it (every instruction's
  // sharding; analysis/reshard_origin.h), or nullptr; its path.
  const HloModule* pre_partition = nullptr;
  std::string pre_partition_path;
  // The donation the program asked for, one flag per entry parameter (JAX's
  // donate_argnums, or the input_output_alias and buffer_donor of the module
  // before optimization), and where it comes from; applied only when it has
  // one flag per parameter.
  std::optional<std::vector<bool>> donation_requested;
  std::string donation_request_source;
  // The user's mesh (analysis/mesh_names.h: the module before
  // optimization's xla.sdy.meshes); else the module's own attribute is read.
  std::optional<UserMesh> user_mesh;
  SourceOptions source;
};

// `counts` are the module's execution counts (ExecutionCounts::Run).
ModuleCheck CheckModule(const HloModule& module, const ExecutionCounts& counts,
                        const CheckOptions& options = {});

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_CHECK_H_
