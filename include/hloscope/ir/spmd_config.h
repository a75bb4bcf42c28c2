// SpmdConfig: how many programs a module runs as, from its header
// (`HloModule m, ..., replica_count=2, num_partitions=8`; XLA's
// HloModule::PrintConfig prints each only when it is not 1, and the parser
// defaults both to 1).
//
// The device mesh is not in the text: after SPMD partitioning every shape is
// per device and the collectives name device ids, not axes (newer XLA writes
// a mesh into mesh-form replica groups, CollectiveDeviceList). A caller who
// knows the mesh (JAX does) may set `mesh`; then collectives in the iota and
// explicit forms get their mesh axes too (collective_traffic.h).
#ifndef HLOSCOPE_IR_SPMD_CONFIG_H_
#define HLOSCOPE_IR_SPMD_CONFIG_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "hloscope/ir/mesh.h"
#include "hloscope/ir/module.h"
#include "hloscope/support/result.h"
#include "hloscope/support/saturating.h"

namespace hloscope {

struct SpmdConfig {
  int64_t replica_count = 1;
  int64_t num_partitions = 1;
  // The devices in iota order over these axes, when the caller knows them;
  // DecodeSpmdConfig never sets it.
  std::optional<Mesh> mesh;

  // Every device the module runs on: replica_count * num_partitions (saturating).
  int64_t num_devices() const { return SatMul(replica_count, num_partitions); }
};

// The module's replica_count and num_partitions (1 when absent). An error,
// with the module's file position, when either is not a positive integer.
Result<SpmdConfig> DecodeSpmdConfig(const HloModule& module);

// `error`, from a decoder given `value` (a view of one of `module`'s
// attribute values), placed in the module's file: path, line and column of
// the offending character and its source line. `error` unchanged when
// `value` does not lie in the module's source text.
Diagnostic AttributeDiagnostic(const HloModule& module, std::string_view value, const Diagnostic& error);

}  // namespace hloscope

#endif  // HLOSCOPE_IR_SPMD_CONFIG_H_
