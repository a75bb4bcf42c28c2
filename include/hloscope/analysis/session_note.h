// Notes: what a user should know about how a report was made but that is
// not a finding — a dump that was not applied, a sharding hloscope could not
// decode. One channel: the Session collects them (app/session.h), the CLI
// prints each once on stderr with one prefix ("hloscope: note: "), the
// Python Report lists them in `notes`; report/wording.h words them.
#ifndef HLOSCOPE_ANALYSIS_SESSION_NOTE_H_
#define HLOSCOPE_ANALYSIS_SESSION_NOTE_H_

#include <cstdint>
#include <string>

namespace hloscope {

struct SessionNote {
  enum class Kind : uint8_t {
    kBufferAssignmentNotApplied,  // one module's dump, an input of `count` modules
    kBufferAssignmentForeign,     // the dump describes another module (`detail`: why)
    kThunkMetadataNotApplied,     // one module's thunk dump, an input of `count` modules
    kUndecodedAttribute,          // an attribute hloscope could not decode (`detail`: the diagnostic)
    kPrePartitionNotApplied,      // the module before partitioning was not read or not this one's (`detail`)
    kFoundFileRefused,            // a file found beside the input or in its folder, not read (`detail`: why)
  };
  Kind kind = Kind::kBufferAssignmentNotApplied;
  std::string path;  // the dump or module concerned
  int64_t count = 0;
  std::string detail;

  bool operator==(const SessionNote&) const = default;
};

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_SESSION_NOTE_H_
