#include "run_profile.h"

#include <fmt/format.h>

#include <map>
#include <memory>
#include <string>

#include "hloscope/analysis/execution_counts.h"
#include "hloscope/analysis/measured_cost.h"
#include "hloscope/analysis/module_cost.h"
#include "hloscope/app/session.h"
#include "hloscope/parser/profile_trace.h"
#include "hloscope/report/run_words.h"
#include "hloscope/support/found_file.h"

namespace hloscope {
namespace {

namespace fs = std::filesystem;

// jax.profiler writes plugins/profile/<run>/<host>.trace.json.gz; the newest
// (one run per program: the bootstrap starts one trace).
fs::path NewestTrace(const fs::path& dir) {
  fs::path newest;
  fs::file_time_type when{};
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.ends_with(".trace.json.gz") && !name.ends_with(".trace.json")) continue;
    std::error_code te;
    fs::file_time_type t = fs::last_write_time(it->path(), te);
    if (!te && (newest.empty() || t > when)) {
      newest = it->path();
      when = t;
    }
  }
  return newest;
}

}  // namespace

void AttachRunProfile(const fs::path& profile_dir, const fs::path& dump_dir, std::vector<RunRecord>& records,
                      std::ostream& err) {
  // One folder per process that compiled (the bootstrap names it by pid).
  std::vector<ProfileTrace> traces;
  std::error_code ec;
  // Found, not named (support/found_file.h): a regular file inside the
  // folder, and a trace that does not read is named by its place only.
  std::string profile_real = ResolvedFolder(profile_dir.string());
  for (fs::directory_iterator it(profile_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path path = NewestTrace(it->path());
    if (path.empty()) continue;
    if (FoundFile verdict = CheckFoundFile(path.string(), profile_real); verdict != FoundFile::kReadable) {
      if (verdict != FoundFile::kAbsent)
        err << RunMessage(RunEvent::kBadProfile, path.string(),
                          fmt::format("not read: {}", RefusalReason(verdict)))
            << "\n";
      continue;
    }
    Result<ProfileTrace> trace = ReadProfileTrace(path.string());
    if (!trace.ok()) {
      const Diagnostic& d = trace.error();
      err << RunMessage(RunEvent::kBadProfile, path.string(),
                        d.line == 0 ? d.message
                                    : fmt::format("it does not read at line {}, column {}", d.line, d.column))
          << "\n";
      continue;
    }
    traces.push_back(std::move(trace).value());
  }
  if (traces.empty()) {
    err << RunMessage(RunEvent::kNoProfile, profile_dir.string()) << "\n";
    return;
  }
  // Each dump once: a dump holds the modules of one compilation. It was
  // checked while the program ran; here only its kernels' costs are
  // needed (no check, no buffer assignment or other dumps beside it).
  std::map<std::string, std::unique_ptr<Session>> sessions;
  for (RunRecord& r : records) {
    std::unique_ptr<Session>& session = sessions[r.dump];
    if (!session) {
      SessionRequest request;
      request.path = (dump_dir / r.dump).string();
      request.require_optimized = true;
      request.use_buffer_assignment = false;
      request.find_thunk_metadata = false;
      request.find_pre_partition = false;
      request.find_donation_request = false;
      Result<std::unique_ptr<Session>> opened = Session::Open(request);
      if (!opened.ok()) continue;
      session = std::move(opened).value();
    }
    for (const HloModule* module : session->modules()) {
      if (module->name() != r.module) continue;
      const ExecutionCounts counts = ExecutionCounts::Run(*module);
      // The trace of the process that ran it: the one that names the module.
      for (const ProfileTrace& trace : traces) {
        if (!trace.HasModule(r.module)) continue;
        ModuleCost cost = CostModule(*module, counts, nullptr);
        AttachMeasuredCost(trace, cost);
        if (cost.measured && cost.measured->calls > 0) {
          r.measured_seconds = cost.measured->seconds_per_call;
          r.measured_calls = cost.measured->calls;
          break;
        }
      }
    }
  }
}

}  // namespace hloscope
