// `hloscope check --format sarif`: SARIF 2.1.0 for code review (GitHub code
// scanning, GitLab, VS Code's SARIF viewer).
//
// One result per finding a reviewer should see, located at the user's
// source line:
//   * every array copy inside a loop (rule per cause: `copy/read-after-update`, ...);
//   * every array copy of an argument that is not donated (`copy/non-donated-parameter`);
//   * every update that is out of place or rewrites its whole buffer
//     (`update/out-of-place`, `update/full-rewrite`);
//   * every verdict XLA's buffer assignment contradicts (`verdict/contradicted`).
// Warnings: copies a loop reports as growing with a buffer, copies of
// arguments that are not donated, out-of-place updates and full rewrites,
// contradictions. Notes: fixed-size copies in loops (a carried row, a
// loop counter's neighbour) and anything made inside library code
// (source_origin.h). The hint is in the message ("Fix: …") and in
// properties.hint, not in a SARIF `fix`: SARIF fixes are byte edits of a
// file, and a hint such as "donate the argument" is not one.
#ifndef HLOSCOPE_REPORT_RENDER_SARIF_H_
#define HLOSCOPE_REPORT_RENDER_SARIF_H_

#include <ostream>
#include <string>
#include <vector>

#include "hloscope/analysis/findings.h"

namespace hloscope {

struct SarifOptions {
  std::string input_path;  // the HLO file: the location of findings without a source line
  // Source paths under the first of these directories are made relative
  // to it, with uriBaseId SRCROOT: a code-scanning upload wants paths
  // relative to the repository.
  std::vector<std::string> source_roots;
  // Array copies moving fewer bytes per call are left out.
  int64_t min_bytes = 1;
};

void WriteCheckSarif(const std::vector<const ModuleCheck*>& modules, const SarifOptions& options,
                     std::ostream& out);

// A path as a URI reference: percent-encoded bytes outside RFC 3986's
// unreserved set and '/', "file://" before an absolute path.
std::string PathToUri(std::string_view path);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_RENDER_SARIF_H_
