#include "hloscope/support/found_file.h"

#include <fmt/format.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>

namespace hloscope {
namespace {

bool Under(std::string_view real, std::string_view tree) {
  return real == tree || (real.size() > tree.size() && real.substr(0, tree.size()) == tree &&
                          (tree.back() == '/' || real[tree.size()] == '/'));
}

// /dev is left to the other rules: a device is not a regular file, and a
// link into /dev leaves the folder; a dump written to /dev/shm is read.
bool UnderProcOrSys(std::string_view real) { return Under(real, "/proc") || Under(real, "/sys"); }

}  // namespace

bool UnderSystemTree(std::string_view real) {
  return Under(real, "/proc") || Under(real, "/sys") || Under(real, "/dev");
}

std::string RealPath(const std::string& path) {
  char buf[PATH_MAX];
  if (!::realpath(path.c_str(), buf)) return "";
  return buf;
}

std::string ResolvedFolder(const std::string& folder) { return RealPath(folder.empty() ? "." : folder); }

FoundFile CheckFoundFile(const std::string& file, const std::string& folder_real) {
  struct stat st;
  if (::lstat(file.c_str(), &st) != 0) return FoundFile::kAbsent;
  if (folder_real.empty()) return FoundFile::kAbsent;  // the folder went away
  if (S_ISLNK(st.st_mode)) {
    std::string real = RealPath(file);
    if (real.empty()) return FoundFile::kAbsent;  // a link that leads nowhere
    if (UnderProcOrSys(real)) return FoundFile::kSystem;
    if (!Under(real, folder_real) || real == folder_real) return FoundFile::kOutside;
    if (::stat(real.c_str(), &st) != 0) return FoundFile::kAbsent;
  } else if (UnderProcOrSys(folder_real)) {
    return FoundFile::kSystem;
  }
  if (!S_ISREG(st.st_mode)) return FoundFile::kNotRegular;
  return FoundFile::kReadable;
}

FoundFile CheckFoundFile(const std::string& file) {
  std::filesystem::path parent = std::filesystem::path(file).parent_path();
  return CheckFoundFile(file, ResolvedFolder(parent.empty() ? "." : parent.string()));
}

std::string_view RefusalReason(FoundFile verdict) {
  switch (verdict) {
    case FoundFile::kOutside:
      return "it is a link to a file outside its folder (hloscope reads only the files inside a dump "
             "folder; name the file itself to read it)";
    case FoundFile::kSystem:
      return "it resolves into /proc or /sys";
    case FoundFile::kNotRegular:
      return "it is not a regular file";
    case FoundFile::kAbsent:
    case FoundFile::kReadable:
      break;
  }
  return "";
}

Diagnostic UnquotedFoundFileError(Diagnostic d, std::string_view what) {
  if (d.line == 0 || (d.caret == 0 && d.line_text.empty())) return d;  // no position, or unquoted already
  d.message = fmt::format(
      "{} does not read at line {}, column {} (its text is not quoted: hloscope found this file, you did not "
      "name it; pass it by name to see the line)",
      what, d.line, d.column);
  d.line_text.clear();
  d.caret = 0;
  return d;
}

}  // namespace hloscope
