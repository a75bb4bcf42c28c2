// libFuzzer target for the whole pipeline: parse → verify → every analysis
// → every renderer, text and JSON, as the commands run them. Any input must
// end in a diagnostic or in output, without crashing, hanging, leaking or
// tripping a sanitizer; every JSON document must parse (valid UTF-8, no
// NaN); escaped text must hold no control character.
//
// An input may carry a buffer-assignment dump after a line
// "BufferAssignment:" (how XLA's dumps begin): the part before is the HLO,
// the rest the dump, applied when it parses — so the fuzzer also reaches
// the verdict checks against XLA.
//
// Beside libFuzzer's byte mutations, LLVMFuzzerCustomMutator applies
// structural edits half of the time (hlo_mutator.h).
//
// Build and run: fuzz/run_fuzz.sh [SECONDS] pipeline_fuzzer
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "hlo_mutator.h"
#include "hloscope/analysis/line_spec.h"
#include "hloscope/app/commands.h"
#include "hloscope/app/session.h"
#include "hloscope/report/check_document_reader.h"
#include "hloscope/report/loop_graph.h"
#include "hloscope/report/render_diff.h"
#include "hloscope/support/terminal_text.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

using hloscope::OutputFormat;

[[noreturn]] void Fail(const char* what, const std::string& detail) {
  fprintf(stderr, "pipeline_fuzzer: %s\n%.4000s\n", what, detail.c_str());
  std::abort();
}

void CheckExit(int code, const char* command) {
  if (code < 0 || code > 2) Fail("exit code out of {0,1,2}", command);
}

// The CLI's filter: what it lets through must hold no control character
// but newline and tab, and be valid UTF-8.
void CheckText(const std::string& raw) {
  std::ostringstream filtered;
  hloscope::TerminalSafeStreambuf buf(filtered.rdbuf(), {.keep_newlines = true});
  std::ostream os(&buf);
  os << raw;
  if (!buf.Finish()) Fail("filter failed", raw);
  if (!hloscope::IsTerminalSafe(filtered.str(), {.keep_newlines = true}))
    Fail("filtered text is not terminal-safe", filtered.str());
}

void CheckJson(const std::string& raw, const char* command) {
  if (raw.empty()) return;
  try {
    (void)nlohmann::json::parse(raw);
  } catch (const nlohmann::json::exception& e) {
    Fail(command, std::string(e.what()) + "\n" + raw);
  }
}

template <typename Run>
void Both(const char* command, Run run) {
  for (OutputFormat format : {OutputFormat::kText, OutputFormat::kJson}) {
    std::ostringstream out, err;
    CheckExit(run(format, out, err), command);
    if (format == OutputFormat::kJson)
      CheckJson(out.str(), command);
    else
      CheckText(out.str());
    CheckText(err.str());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string input(reinterpret_cast<const char*>(data), size);
  hloscope::SessionRequest request;
  request.path = "<fuzz>.hlo.txt";
  request.find_buffer_assignment = false;
  size_t ba = input.find("BufferAssignment:");
  if (ba != std::string::npos && (ba == 0 || input[ba - 1] == '\n')) {
    request.buffer_assignment_text = input.substr(ba);
    request.buffer_assignment_path = "<fuzz>.buffer-assignment.txt";
    input.resize(ba);
  }
  request.text = std::move(input);
  auto session = hloscope::Session::Open(std::move(request));
  if (!session.ok()) {
    std::string message = session.error().Format();
    if (message.empty()) std::abort();
    CheckText(message);
    return 0;
  }
  hloscope::Session& s = **session;

  Both("check", [&](OutputFormat f, std::ostream& out, std::ostream& err) {
    hloscope::CheckRequest req;
    req.format = f;
    req.gates.budgets.max_copy_bytes = 100;
    req.gates.gates = *hloscope::GatesNamed("strict");
    return hloscope::RunCheckCommand(s, req, out, err);
  });
  {
    // The check document read back (the inverse of the JSON model) and
    // diffed against itself and against nothing, with every gate.
    std::string json = hloscope::CheckJsonText(s.Checks());
    hloscope::CheckDocument doc = hloscope::ReadCheckDocument(hloscope::Json::parse(json));
    hloscope::GateOptions gates;
    gates.gates = *hloscope::GatesNamed("strict");
    gates.gates.Add(*hloscope::GatesNamed("regressions"));
    for (const hloscope::CheckDocument& a : {doc, hloscope::CheckDocument{}}) {
      hloscope::DiffResult diff = hloscope::DiffDocuments(a, doc);
      std::vector<hloscope::Violation> regressions = hloscope::EvaluateDiffGates(diff, gates, {});
      if (!a.modules.empty() && !regressions.empty()) std::abort();  // nothing is new against itself
      std::ostringstream text;
      hloscope::RenderDiffText(diff, {"A", "B"}, text);
      CheckText(text.str());
      CheckJson(hloscope::DiffJsonText(diff, {"A", "B"}, &regressions), "diff");
    }
  }
  {
    // SARIF (JSON) and the HTML page: the page escapes every input string,
    // so it passes the terminal filter unchanged too.
    std::ostringstream sarif, err, page;
    hloscope::CheckRequest req;
    req.format = OutputFormat::kSarif;
    CheckExit(hloscope::RunCheckCommand(s, req, sarif, err), "check --format sarif");
    CheckJson(sarif.str(), "check --format sarif");
    hloscope::ReportRequest report;
    report.source_roots = {"/nonexistent-hloscope-fuzz-root"};
    // The loop picture for one input in 16 (by its bytes, so a finding
    // reproduces): Graphviz is slow, and not ours to fuzz; every page
    // still gets its DOT graph built and its tables written.
    size_t h = 0;
    for (uint8_t b : std::string_view(reinterpret_cast<const char*>(data), size)) h = h * 31 + b;
    report.html.picture = h % 16 == 0;
    for (size_t i = 0; i < s.module_count() && !report.html.picture; ++i)
      CheckText(hloscope::LoopGraphDot(s.Analysis(i).check, {}));
    CheckExit(hloscope::RunReportCommand(s, report, page, err), "report");
    CheckText(page.str());
    CheckText(err.str());
  }
  Both("stats", [&](OutputFormat f, std::ostream& out, std::ostream&) {
    return hloscope::RunStatsCommand(s, f, out);
  });
  Both("fusions", [&](OutputFormat f, std::ostream& out, std::ostream&) {
    hloscope::FusionsRequest req;
    req.format = f;
    return hloscope::RunFusionsCommand(s, req, out);
  });
  // Source roots that do not exist: the fuzzer must not read files its
  // input names.
  const std::vector<std::string> no_roots = {"/nonexistent-hloscope-fuzz-root"};
  Both("where", [&](OutputFormat f, std::ostream& out, std::ostream&) {
    hloscope::WhereRequest req;
    req.format = f;
    req.query.spec = hloscope::ParseLineSpec(":1-1000000");
    req.source_roots = no_roots;
    return hloscope::RunWhereCommand(s, req, out);
  });
  Both("annotate", [&](OutputFormat f, std::ostream& out, std::ostream&) {
    hloscope::AnnotateRequest req;
    req.format = f;
    req.source_roots = no_roots;
    return hloscope::RunAnnotateCommand(s, req, out);
  });
  Both("explain", [&](OutputFormat f, std::ostream& out, std::ostream& err) {
    hloscope::ExplainRequest req;
    req.format = f;
    req.input_name = "<fuzz>";
    return hloscope::RunExplainCommand(s, req, out, err);
  });
  // One instruction explained: the entry's root, and one inside a fusion.
  if (s.module_count() > 0) {
    const hloscope::HloModule& m = s.module(0);
    std::vector<std::string> names;
    if (const auto* entry = m.entry_computation(); entry && entry->root_instruction())
      names.emplace_back(entry->root_instruction()->name());
    for (const auto* instr : m.entry_computation() ? m.entry_computation()->instructions()
                                                   : std::span<hloscope::HloInstruction* const>{})
      if (instr->opcode() == hloscope::HloOpcode::kFusion && !instr->called_computations().empty()) {
        const auto* fused = instr->called_computations().front().computation;
        if (fused && !fused->instructions().empty()) {
          names.emplace_back(std::string(fused->name()) + "/" +
                             std::string(fused->instructions().front()->name()));
          break;
        }
      }
    for (const std::string& name : names)
      Both("explain INSTRUCTION", [&](OutputFormat f, std::ostream& out, std::ostream& err) {
        hloscope::ExplainRequest req;
        req.format = f;
        req.instruction = name;
        req.input_name = "<fuzz>";
        return hloscope::RunExplainCommand(s, req, out, err);
      });
  }
  std::ostringstream printed;
  CheckExit(hloscope::RunPrintCommand(s, printed), "print");
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  if (seed % 2 == 0) return LLVMFuzzerMutate(data, size, max_size);
  std::string text(reinterpret_cast<const char*>(data), size);
  if (!hloscope::fuzz::MutateHloText(text, seed / 2) || text.size() > max_size)
    return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, text.data(), text.size());
  return text.size();
}
