// libFuzzer target for the JSON a user hands back to `diff` (a baseline
// saved from `check --format json`, Python's diff() documents): any byte
// string must parse to a document or to a Diagnostic that formats, and a
// document that parses, however it is shaped, must read back, diff against
// itself and against nothing, pass through every gate and render as text
// and JSON, without crashing, hanging, leaking or tripping a sanitizer.
// (A number like 1e999999 and 200,000 nested arrays were signals once.)
//
// Build and run: fuzz/run_fuzz.sh [SECONDS] check_json_fuzzer
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string_view>

#include "hloscope/analysis/check_diff.h"
#include "hloscope/analysis/policy.h"
#include "hloscope/report/check_document_reader.h"
#include "hloscope/report/json_input.h"
#include "hloscope/report/render_diff.h"
#include "hloscope/report/wording.h"
#include "hloscope/support/terminal_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace hloscope;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  Result<Json> parsed = ParseJsonInput(text, "<fuzz>", "a check document");
  if (!parsed.ok()) {
    std::string message = parsed.error().Format();
    if (message.empty() || !IsTerminalSafe(EscapeForTerminal(message))) std::abort();
    return 0;
  }
  // No check of "tool" or "schema_version" here (diff's loader does that):
  // the reader must hold against any shape behind a right header.
  CheckDocument doc = ReadCheckDocument(*parsed);
  CheckDocument empty;
  GateOptions gates;
  for (const GateEntry& e : GateCatalog()) gates.gates.Add(e.gate);
  gates.budgets.max_copies = 0;
  gates.budgets.max_copy_bytes = 0;
  DiffInputs inputs{"a.json", "b.json"};
  for (const DiffResult& result :
       {DiffDocuments(doc, doc), DiffDocuments(empty, doc), DiffDocuments(doc, empty)}) {
    std::vector<Violation> violations = EvaluateDiffGates(result, gates, {});
    std::ostringstream out;
    RenderDiffText(result, inputs, out);
    WriteDiffJson(result, inputs, &violations, out);
    for (const Violation& v : violations) out << ViolationText(v);
  }
  return 0;
}
