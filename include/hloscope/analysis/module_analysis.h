// ModuleAnalysis: every analysis of one module, each built once, and only
// when a command needs it (the app layer's Session and commands build
// them; the report layer only reads them).
//
// The check findings are always there; the source index (every
// instruction's line: where, annotate, explain, fusions) is built by
// EnsureSources, because on a large module it costs as much as the check
// itself and `check` does not need it. Kernel summaries (fusion_summary.h)
// are made one at a time by the commands that show them.
#ifndef HLOSCOPE_ANALYSIS_MODULE_ANALYSIS_H_
#define HLOSCOPE_ANALYSIS_MODULE_ANALYSIS_H_

#include <cassert>
#include <memory>
#include <optional>

#include "hloscope/analysis/check.h"
#include "hloscope/analysis/execution_counts.h"
#include "hloscope/analysis/fusion_summary.h"
#include "hloscope/analysis/source_index.h"

namespace hloscope {

class ModuleAnalysis {
 public:
  ModuleAnalysis(const HloModule& m, const CheckOptions& options = {})
      : module(m),
        counts(ExecutionCounts::Run(m)),
        check(CheckModule(m, counts, options)),
        source_options_(options.source) {}
  ModuleAnalysis(const ModuleAnalysis&) = delete;
  ModuleAnalysis& operator=(const ModuleAnalysis&) = delete;

  const HloModule& module;
  ExecutionCounts counts;  // before check, which is computed from it
  ModuleCheck check;

  // Builds the source index (once).
  const SourceIndex& EnsureSources() {
    if (!sources_) sources_ = std::make_unique<SourceIndex>(module, &check, source_options_);
    return *sources_;
  }

  bool has_sources() const { return sources_ != nullptr; }
  // The source index; EnsureSources must have run.
  const SourceIndex& sources() const {
    assert(sources_);
    return *sources_;
  }

 private:
  SourceOptions source_options_;
  std::unique_ptr<SourceIndex> sources_;
};

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_MODULE_ANALYSIS_H_
