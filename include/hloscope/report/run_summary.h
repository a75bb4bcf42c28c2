// `hloscope run`: what each compilation of a running program came to, and
// the summary printed when the program exits.
//
// A compilation is summarized as soon as it is checked (RunRecord: numbers
// and sentences only), so that a program compiling thousands of modules
// holds no parsed module past its own check. Compilations of one function
// (its module name: jit_step) are one row of the summary; rows are ranked
// user code first, then by bytes moved per call, largest first.
#ifndef HLOSCOPE_REPORT_RUN_SUMMARY_H_
#define HLOSCOPE_REPORT_RUN_SUMMARY_H_

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "hloscope/analysis/findings.h"
#include "hloscope/analysis/policy.h"
#include "hloscope/report/json_model.h"

namespace hloscope {

struct RunRecord {
  std::string dump;       // the after_optimizations file, as XLA named it
  std::string module;     // jit_step
  std::string function;   // step
  std::string signature;  // (f32[1024,128], s32[]) -> f32[1024,128]
  std::string headline;
  // The answer's first line (answer_words.h): the top finding of any kind.
  std::string answer;
  bool stands_out = false;      // some finding of any kind stands out (answer.h)
  std::string where;            // the user's line of the largest copy (else of the first out-of-place update)
  bool library = false;         // that line is library code (analysis/source_origin.h)
  int64_t array_copies = 0;     // non-scalar copy instructions
  int64_t copies_per_call = 0;  // their executions per call (saturated)
  std::optional<int64_t> bytes_per_call = 0;  // nullopt: a trip count is unknown
  int64_t copies_in_loops = 0;
  int64_t growing_loops = 0;      // loops that grow with a buffer
  int64_t out_of_place = 0;       // updates in the not-in-place or full-rewrites gates
  int64_t donation_problems = 0;  // arguments copied because they are not donated
  // Sharded modules: the collectives, and what they move per device per call
  // (nullopt: a trip count is unknown).
  int64_t collectives = 0;
  std::optional<int64_t> collective_bytes_per_call = 0;
  bool buffer_assignment = false;
  // The memory one call needs per device (XLA's buffer assignment), and
  // its parts in words; nullopt without the buffer assignment.
  std::optional<int64_t> peak_bytes;
  std::string memory;
  // The work of one call per device (check's cost, analysis/module_cost.h)
  // and its roofline estimate on `cost_target` (an estimate, not a timing).
  HloCost cost_per_call;
  double estimated_seconds = 0;
  std::string cost_target;
  // run --profile: the measured time per call in its kernels and the calls
  // the trace holds (analysis/measured_cost.h); nullopt: not measured.
  std::optional<double> measured_seconds;
  int64_t measured_calls = 0;
  // What broke the gates (the policy's violations, analysis/policy.h), one
  // line each.
  std::vector<std::string> problems;
  std::string report;  // `hloscope check` text, kept for the worst offenders
};

// One compilation: its numbers, and what breaks `gates` (with `filter`).
RunRecord SummarizeRun(const ModuleCheck& check, const std::string& dump, const GateOptions& gates,
                       const FindingFilter& filter);

// One line for --warn: "hloscope: step (train.py:42): copy.7 ... per call".
std::string RunWarning(const RunRecord& record);
// What `run --fail` prints when `broken` compilations broke the gates.
std::string RunFailureText(int broken, const GateOptions& gates, const FindingFilter& filter);

struct RunSummaryOptions {
  int worst_reports = 2;  // full reports of this many offenders
  std::string program;    // the command line, for the heading
};

// The compilation to show first: user code before library code, then the
// most bytes moved per call (an unknown total ranks highest); nullptr when
// there is none. The summary's rows are in the same order.
const RunRecord* WorstRecord(const std::vector<RunRecord>& records);

void RenderRunSummary(const std::vector<RunRecord>& records, const RunSummaryOptions& options,
                      std::ostream& out);
Json RunJson(const std::vector<RunRecord>& records, const std::vector<std::string>& command, int exit_code);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_RUN_SUMMARY_H_
