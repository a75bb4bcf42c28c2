// Reading XLA:GPU's `thunk_metadata.txt` dumps: the thunks the GPU executable
// runs, each with the HLO instruction it comes from (its profile annotation)
// and its kind. A `kCopy` thunk is a device-to-device memcpy that really runs.
//
//   thunk_metadata {
//     thunk_info {
//       profile_annotation: "copy.10"
//       thunk_id: 1
//     }
//     thunk_kind: "kCopy"
//   }
//
// The file is a protobuf text dump (xla.gpu.ThunkMetadataListProto); this
// reads its syntax generally, so fields a newer XLA adds are skipped, not
// rejected. Written by --xla_dump_to next to the HLO of every GPU module as
// `module_NNNN.jit_f.thunk_metadata.txt`.
#ifndef HLOSCOPE_PARSER_THUNK_METADATA_H_
#define HLOSCOPE_PARSER_THUNK_METADATA_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hloscope/parser/dump_naming.h"
#include "hloscope/support/input_file.h"
#include "hloscope/support/result.h"

namespace hloscope {

struct Thunk {
  std::string profile_annotation;  // the HLO instruction's name, without '%'
  int64_t id = 0;
  std::string kind;  // "kCopy", "kKernel", "kWhile", ... as XLA names it
  int64_t line = 0;  // 1-based line of its `thunk_metadata {` in the dump
};

struct ThunkMetadata {
  std::vector<Thunk> thunks;  // in file order
};

// Parses the text of a thunk_metadata.txt dump; `path` is used in
// diagnostics only. Malformed text yields a Diagnostic at the offending
// line and column.
Result<ThunkMetadata> ParseThunkMetadata(std::string_view text, std::string_view path);
Result<ThunkMetadata> ReadThunkMetadataFile(const std::string& path, const InputOptions& options = {});

// The thunk dump of an HLO dump, if it exists:
// `module_NNNN.jit_f.<backend>after_optimizations.txt` ->
// `module_NNNN.jit_f.thunk_metadata.txt`, and `module.hlo.txt` ->
// `thunk_metadata.txt` in the same folder (tests/fixtures/jax-gpu-*).
// Only a regular file inside the folder is taken (support/found_file.h).
std::optional<std::string> FindThunkMetadataBeside(const std::string& hlo_path,
                                                   std::vector<RefusedFile>* refused = nullptr);

}  // namespace hloscope

#endif  // HLOSCOPE_PARSER_THUNK_METADATA_H_
