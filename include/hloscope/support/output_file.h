// Writing a file the user named (`report -o`, `run --html`) without
// harming what is there: a regular file (or a new one) is replaced whole,
// through a temporary created exclusively beside it and renamed over it,
// so a failed run never leaves half a page and a symbolic link planted at
// a predictable temporary name is never followed; a device, a FIFO or a
// socket is written straight into and never replaced (`-o /dev/null`
// leaves /dev/null a device); a symbolic link is resolved and its target
// written the same way; a directory is an error.
#ifndef HLOSCOPE_SUPPORT_OUTPUT_FILE_H_
#define HLOSCOPE_SUPPORT_OUTPUT_FILE_H_

#include <string>
#include <string_view>

namespace hloscope {

// "" when `content` is in `path`, else why not ("Is a directory", strerror).
std::string WriteOutputFile(const std::string& path, std::string_view content);

}  // namespace hloscope

#endif  // HLOSCOPE_SUPPORT_OUTPUT_FILE_H_
