// Parsing optimized HLO text into HloModules.
//
// Accepts every printer variant XLA has used: names with or without '%',
// operands with or without shapes, metadata inline (source_file=) or through
// FileNames/.../StackFrames tables, backend_config as raw JSON or a quoted
// string, several modules in one input (back to back, or split by
// `// -----` lines), headerless modules, unknown opcodes and attributes
// (kept verbatim). Grammar: docs/grammar.md.
#ifndef HLOSCOPE_PARSER_PARSER_H_
#define HLOSCOPE_PARSER_PARSER_H_

#include <memory>
#include <string>
#include <vector>

#include "hloscope/ir/module.h"
#include "hloscope/support/input_file.h"
#include "hloscope/support/result.h"

namespace hloscope {

struct ParseOptions {
  // Shown in diagnostics.
  std::string path = "<input>";
  // Deepest nesting of tuple shapes, nested operands and inline
  // computations; deeper input is rejected instead of overflowing the stack.
  int max_nesting_depth = 512;
  // How ParseHloFile reads its input: size limit, mapping (input_file.h).
  InputOptions input;
  // Reject what XLA's verifier rejects and the analyses cannot survive
  // (parser/verifier.h): operand and call cycles, mismatched structure.
  bool verify = true;
  // Stop after the first module's `HloModule` header line: its attributes
  // (input_output_alias, buffer_donor, entry_computation_layout, ...) with
  // no computations, so a caller that needs only those neither reads nor
  // holds the whole module (the donation request of a module before
  // optimization). Not verified; a module without a header is an error.
  bool header_only = false;
};

// All modules of one input, in order.
struct HloModuleGroup {
  std::vector<std::unique_ptr<HloModule>> modules;
};

Result<HloModuleGroup> ParseHloText(std::string text, const ParseOptions& options = {});
// Shares `text` with the modules instead of copying it.
Result<HloModuleGroup> ParseHloText(std::shared_ptr<const std::string> text,
                                    const ParseOptions& options = {});
// Reads `path` ("-" = stdin) and parses it; I/O errors become diagnostics.
// A regular file is mapped (MappedFile), not copied, unless
// options.input.map_regular_files is false: the modules keep the mapping
// alive. Directories, oversized inputs and devices: see input_file.h.
Result<HloModuleGroup> ParseHloFile(const std::string& path, const ParseOptions& options = {});

// Reads a whole file ("-" = stdin) into a string, with the same checks.
Result<std::shared_ptr<const std::string>> ReadFileOrStdin(const std::string& path,
                                                           const InputOptions& options = {});

}  // namespace hloscope

#endif  // HLOSCOPE_PARSER_PARSER_H_
