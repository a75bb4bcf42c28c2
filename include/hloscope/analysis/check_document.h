// A check document as data: what `hloscope check --format json` writes,
// read back (report/check_document_reader.h is the inverse of the JSON
// model) into typed fields — enums for every closed set, names and source
// text as plain strings (they are what the document holds; there is no IR
// behind a saved baseline). `diff` compares two of these
// (analysis/check_diff.h) and the gate policy judges their findings with
// the rules it judges a live check with (analysis/policy.h).
//
// Every field may be missing in a hand-edited or older baseline: missing
// reads as unknown (nullopt), never as an error.
#ifndef HLOSCOPE_ANALYSIS_CHECK_DOCUMENT_H_
#define HLOSCOPE_ANALYSIS_CHECK_DOCUMENT_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hloscope/analysis/cause_catalog.h"
#include "hloscope/analysis/execution_counts.h"
#include "hloscope/analysis/findings.h"

namespace hloscope {

struct DocSource {
  std::string text;  // "train.py:42" as the document shows it
  std::string file;
  int64_t line = 0;
  std::string function;
  std::string op_name;
};

struct DocCopy {
  std::string instruction, computation;
  std::optional<CopyKind> kind;
  std::string kind_text;  // as written (a newer kind this reader does not know)
  std::string shape;
  std::optional<int64_t> bytes, executions, total_bytes;
  bool minor = false;  // scalar copies and small prefetches
  size_t loop_depth = 0;
  bool grows_with_buffer = false;  // absent from older documents: read as true (never small)
  std::optional<CopyCause> cause;
  std::string cause_text;  // as written
  std::optional<DocSource> source;
};

struct DocCollective {
  std::string instruction, computation;
  std::string family;  // "all-gather", as written
  std::string shape;
  std::optional<CollectiveCause> cause;
  std::string cause_text;                                 // as written
  std::optional<int64_t> bytes, executions, total_bytes;  // per device
  size_t loop_depth = 0;
  bool grows_with_buffer = false;
  std::optional<DocSource> source;
};

struct DocUpdate {
  std::string instruction, computation, opcode;
  bool fused = false;
  std::optional<UpdateVerdict> verdict;
  std::string verdict_text;  // as written
  std::optional<bool> confirmed;
  bool full_rewrite = false;
  std::optional<int64_t> bytes_written, executions, buffer_bytes;
  size_t loop_depth = 0;
  std::string runs_on;  // the copy it runs on (instruction), if any
  std::optional<DocSource> source;
};

struct DocScaling {
  std::optional<LoopScaling::Kind> kind;
  std::optional<int64_t> carry;
  std::string shape;
  std::optional<int64_t> bytes;
  bool grows_with_buffer = false;
  std::optional<bool> confirmed;  // the rewrite claim, by XLA's buffer assignment
  std::string rewritten_by;       // instruction
};

struct DocLoop {
  std::string instruction, computation;
  std::optional<int64_t> trip_count;
  std::optional<TripCountSource> trip_count_source;
  std::string trip_count_source_text;
  std::optional<int64_t> executions, copy_bytes_per_iteration, rewrite_bytes_per_iteration;
  size_t loop_depth = 0;
  std::vector<DocScaling> scaling;
  std::optional<DocSource> source;
};

struct DocParameter {
  std::optional<int64_t> number;
  std::string name, shape;
  std::optional<int64_t> bytes;
  bool donated = false;
  bool copied = false;
  std::vector<std::pair<std::string, std::string>> copies;  // (instruction, computation)
};

struct DocKernel {
  std::string instruction, kind, shape;
  std::vector<std::string> opcodes;  // sorted
  std::optional<int64_t> bytes_read, bytes_written, bytes_per_call, executions;
  std::optional<int64_t> flops;  // per run, transcendentals included (older documents: none)
  size_t loop_depth = 0;
  std::optional<DocSource> source;
  // The op the kernel serves (a relayout's, or a kernel's without a line:
  // analysis/served_op.h): the line the diff reports the kernel at.
  std::optional<DocSource> serves_source;
};

// A buffer of the MEMORY part: an allocation (argument, output, temp heap)
// or a value live where the temporaries peak.
struct DocMemoryBuffer {
  std::string role;  // allocation: its role ("argument", "output", ...); live value: its kind
  std::string shape;
  std::optional<int64_t> bytes;
  std::string instruction, computation;  // the value that made it (detail, never matched)
  std::optional<int64_t> parameter_number;
  std::string argument_memory;  // arguments: "donated-reused", "kept", ...
  std::string value_kind;       // outputs: "loop-update" (a stacked output), "copy", ...
  std::optional<DocSource> source;
};

// The MEMORY part of a module (check JSON `memory`): device memory only
// (memory space 0), as the gates and the diff judge it.
struct DocMemory {
  std::optional<int64_t> peak_bytes, argument_bytes, output_bytes, alias_bytes, temp_bytes;
  std::optional<int64_t> temp_live_bytes;    // live at the temporaries' fullest moment
  std::vector<DocMemoryBuffer> allocations;  // largest first, those the document lists
  std::optional<int64_t> allocation_count;   // all of them (the list may be cut)
  std::vector<DocMemoryBuffer> live;         // at the temp peak, largest first
  std::optional<int64_t> live_count;
};

struct DocModule {
  std::string name, entry, path, entry_signature;
  int64_t devices = 1;  // spmd.devices: over 1, every byte figure is per device
  std::vector<DocParameter> parameters;
  std::vector<DocCopy> copies;
  std::vector<DocUpdate> updates;
  std::vector<DocLoop> loops;
  std::vector<DocCollective> collectives;
  std::vector<DocKernel> kernels;
  bool has_kernels = false;         // written with --kernels
  std::optional<DocMemory> memory;  // with XLA's buffer assignment only
  // The module's answer (false and 0 in documents from before it): whether
  // a finding stands out, and the call's estimated time — what orders
  // modules in `diff`, the user's first.
  bool stands_out = false;
  double estimated_seconds = 0;

  // The copy named `instruction` in `computation` (an update's runs_on).
  const DocCopy* FindCopy(const std::string& instruction) const;
};

struct CheckDocument {
  std::vector<DocModule> modules;
};

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_CHECK_DOCUMENT_H_
