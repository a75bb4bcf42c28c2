// ModuleAnalysis: every analysis of one module, built once and shared by
// the commands that need them (the app layer's Session builds it; the
// report layer only reads it).
#ifndef HLOSCOPE_ANALYSIS_MODULE_ANALYSIS_H_
#define HLOSCOPE_ANALYSIS_MODULE_ANALYSIS_H_

#include <optional>

#include "hloscope/analysis/check.h"
#include "hloscope/analysis/execution_counts.h"
#include "hloscope/analysis/fusion_summary.h"
#include "hloscope/analysis/source_index.h"

namespace hloscope {

struct ModuleAnalysis {
  ModuleAnalysis(const HloModule& m, const CheckOptions& options = {})
      : module(m),
        counts(ExecutionCounts::Run(m)),
        check(CheckModule(m, counts, options)),
        sources(m, &check, options.source) {}
  ModuleAnalysis(const ModuleAnalysis&) = delete;
  ModuleAnalysis& operator=(const ModuleAnalysis&) = delete;

  // Every kernel, unfiltered; computed on first use by EnsureFusions.
  const ModuleFusions& EnsureFusions() {
    if (!fusions) fusions = SummarizeFusions(sources, counts, &check);
    return *fusions;
  }

  const HloModule& module;
  ExecutionCounts counts;  // before check, which is computed from it
  ModuleCheck check;
  SourceIndex sources;
  std::optional<ModuleFusions> fusions;
};

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_MODULE_ANALYSIS_H_
