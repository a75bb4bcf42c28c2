// Files hloscope finds rather than is given: the files of a dump folder,
// and the buffer assignment, thunk dump and modules before partitioning
// and optimization beside a module. A dump folder comes from a tarball, a
// pull request or a colleague; a link in it must not make hloscope read
// (and quote, in a CI log or to an agent) a file outside it.
//
// The rule: a found file is read only if, with every link resolved, it is
// a regular file inside the folder it was found in (the folder's own
// resolved path), and not under /proc or /sys (whose files pass for regular
// ones). A link out of the folder, a link that leads into another dump, a
// FIFO, a device or /proc/self/environ is refused, and said so by its name
// alone. A file the user names (on the command line, as a tool's argument)
// is not subject to it.
#ifndef HLOSCOPE_SUPPORT_FOUND_FILE_H_
#define HLOSCOPE_SUPPORT_FOUND_FILE_H_

#include <string>
#include <string_view>

#include "hloscope/support/diagnostic.h"

namespace hloscope {

enum class FoundFile {
  kAbsent,      // no such file (or a link that leads nowhere): look further
  kReadable,    // a regular file inside the folder
  kOutside,     // a link whose target resolves outside the folder
  kSystem,      // resolves under /proc or /sys
  kNotRegular,  // a FIFO, a socket, a device, a folder
};

// `file` (a path in `folder`, as found) checked against the rule above.
// `folder_real` is the folder's resolved path (ResolvedFolder), computed
// once per folder by callers that check many files.
FoundFile CheckFoundFile(const std::string& file, const std::string& folder_real);
// The same, resolving the folder `file` is in (its parent; "." if none).
FoundFile CheckFoundFile(const std::string& file);

// `folder` with links resolved ("" if it does not exist).
std::string ResolvedFolder(const std::string& folder);

// The canonical path (symbolic links resolved), or "" if it does not exist.
std::string RealPath(const std::string& path);

// True for /proc, /sys and /dev and what is under them (a resolved path).
bool UnderSystemTree(std::string_view real);

// Why a found file was not read, for a note: "a link out of its folder", ...
std::string_view RefusalReason(FoundFile verdict);

// A diagnostic about a file hloscope found (not one the user named) that
// quotes none of its contents: the path and the position stay, the line,
// the caret and the parser's message (which may quote a token) go.
// `what` says what the file was taken for ("the buffer assignment found
// beside the module"). Diagnostics without a position are kept as they are
// (they are about the file, not its text).
Diagnostic UnquotedFoundFileError(Diagnostic d, std::string_view what);

}  // namespace hloscope

#endif  // HLOSCOPE_SUPPORT_FOUND_FILE_H_
