// `hloscope run --profile`: the measured time of each compilation, read
// from the trace jax.profiler wrote while the program ran (the bootstrap
// starts it at the first compile, app/run_bootstrap.h) and joined to each
// checked module's kernels by name (analysis/measured_cost.h).
#ifndef HLOSCOPE_APP_RUN_PROFILE_H_
#define HLOSCOPE_APP_RUN_PROFILE_H_

#include <filesystem>
#include <ostream>
#include <vector>

#include "hloscope/report/run_summary.h"

namespace hloscope {

// Fills each record's measured time from the newest trace under
// `profile_dir`, re-reading each record's dump from `dump_dir`. A missing
// or unreadable trace is one line on `err`; the records stay unmeasured.
void AttachRunProfile(const std::filesystem::path& profile_dir, const std::filesystem::path& dump_dir,
                      std::vector<RunRecord>& records, std::ostream& err);

}  // namespace hloscope

#endif  // HLOSCOPE_APP_RUN_PROFILE_H_
