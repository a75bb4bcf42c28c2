#include "hloscope/report/run_words.h"

#include <fmt/format.h>

#include <cstring>

#include "hloscope/report/run_summary.h"
#include "hloscope/report/wording.h"

namespace hloscope {

std::string RunMessage(RunEvent event, std::string_view what, std::string_view why) {
  std::string w = Shown(what);
  switch (event) {
    case RunEvent::kNoProgram:
      return "hloscope run: no program to run (hloscope run [options] -- python train.py ...)";
    case RunEvent::kCannotRun:
      return fmt::format("hloscope run: cannot run {}: {}", w, why);
    case RunEvent::kCannotWrite:
      return fmt::format("hloscope run: cannot write {}", w);
    case RunEvent::kCannotCreate:
      return fmt::format("hloscope run: cannot create {}: {}", w, why);
    case RunEvent::kNoTemporaryFolder:
      return fmt::format("hloscope run: cannot create a temporary folder: {}", why);
    case RunEvent::kKeepDumpsUnquotable:
      return fmt::format(
          "hloscope run: --keep-dumps {}: XLA_FLAGS cannot carry a path holding a double quote or a line "
          "break",
          w);
    case RunEvent::kKeepDumpsNotEmpty:
      return fmt::format("hloscope run: --keep-dumps {} is not empty: dumps of earlier runs would be counted",
                         w);
    case RunEvent::kKeepDumpsInUse:
      return fmt::format(
          "hloscope run: --keep-dumps {} is in use by another hloscope run (its {}; remove that file if no "
          "run is using the folder); each run needs a folder of its own, or each would count the other's "
          "modules",
          w, ".hloscope-run.lock");
    case RunEvent::kSkipped:
      return fmt::format("hloscope run: skipped {}: {}", w, why.substr(0, why.find('\n')));
    case RunEvent::kNotAFile:
      return fmt::format("hloscope run: skipped {}: not a regular file (not read: it could block)", w);
    case RunEvent::kUnchecked:
      return fmt::format(
          "hloscope run: failed: {} compilation{} could not be checked (skipped above), so --fail cannot "
          "vouch for {}",
          w, w == "1" ? "" : "s", w == "1" ? "it" : "them");
    case RunEvent::kBadProfile:
      return fmt::format(
          "hloscope run: --profile: cannot read the trace {}: {}; its process's time is not measured", w,
          Shown(why));
    case RunEvent::kNoProfile:
      return fmt::format(
          "hloscope run: --profile: no jax.profiler trace in {} (nothing compiled, or the profiler did not "
          "start): no measured time",
          w);
    case RunEvent::kNothingForHtml:
      return "hloscope run: --html: nothing was compiled, no page written";
    case RunEvent::kDumpsKept:
      return fmt::format("hloscope run: dumps kept in {}", w);
    case RunEvent::kInterrupted:
      return "hloscope run: interrupted: the summary covers the compilations checked before Ctrl-C";
    case RunEvent::kExited:
      return fmt::format("hloscope run: {}; the summary covers what it compiled", why);
  }
  return "";
}

std::string RunEndedText(bool signaled, int n) {
  if (signaled) return fmt::format("the program was killed by signal {} ({})", n, strsignal(n));
  return fmt::format("the program exited with {}", n);
}

std::string RunRaiseAnswer(const std::vector<const RunRecord*>& records) {
  std::string problems;
  for (const RunRecord* r : records)
    for (const std::string& p : r->problems)
      problems += fmt::format("{}{} ({}): {}\n", problems.empty() ? "hloscope run --raise: " : "  ",
                              r->function, r->where, p);
  return problems;
}

}  // namespace hloscope
