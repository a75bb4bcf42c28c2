// The sentences of `hloscope run` (app/run_command.cc does the running):
// each message it prints on stderr, worded here like every other sentence
// a user reads.
#ifndef HLOSCOPE_REPORT_RUN_WORDS_H_
#define HLOSCOPE_REPORT_RUN_WORDS_H_

#include <string>
#include <string_view>
#include <vector>

namespace hloscope {

struct RunRecord;

// What happened, one line each, "hloscope run: " first.
enum class RunEvent : uint8_t {
  kNoProgram,            // nothing after the options
  kCannotRun,            // the program (`what`) could not be started (`why`)
  kCannotWrite,          // a file (`what`) could not be written
  kCannotCreate,         // a folder (`what`) could not be created (`why`)
  kNoTemporaryFolder,    // `why`
  kKeepDumpsUnquotable,  // --keep-dumps `what` holds a double quote or a line break (XLA_FLAGS cannot carry
                         // it)
  kKeepDumpsNotEmpty,    // --keep-dumps `what` has files already
  kKeepDumpsInUse,       // --keep-dumps `what` is another run's, still running
  kSkipped,              // a dump (`what`) that does not parse (`why`)
  kNotAFile,             // an entry of the dump folder (`what`) that is not a regular file (a FIFO)
  kUnchecked,            // --fail: `what` compilations could not be checked
  kNothingForHtml,       // --html with nothing compiled
  kDumpsKept,            // in `what`
  kExited,               // the program ended (`why`: how); the summary covers what it compiled
  kInterrupted,          // Ctrl-C while the last compilations were checked
  kBadProfile,           // --profile: a trace (`what`) that could not be read (`why`)
  kNoProfile,  // --profile: no trace under `what` (the program compiled nothing, or the profiler failed)
};
std::string RunMessage(RunEvent event, std::string_view what = "", std::string_view why = "");

// How the program ended: "the program exited with 3", "... killed by signal 9 (Killed)".
std::string RunEndedText(bool signaled, int code_or_signal);

// The --raise answer for the compiles a program waits on: every problem of
// the records, "hloscope run --raise: " first; "" when there is none.
std::string RunRaiseAnswer(const std::vector<const RunRecord*>& records);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_RUN_WORDS_H_
