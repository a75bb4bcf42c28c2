// The annotated-source section of the HTML report (render_html.h), and the
// anchors of the lines it shows, for the tables to link to.
#ifndef HLOSCOPE_REPORT_HTML_SOURCE_H_
#define HLOSCOPE_REPORT_HTML_SOURCE_H_

#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "hloscope/analysis/findings.h"
#include "hloscope/analysis/line_facts.h"
#include "hloscope/analysis/source_files.h"

namespace hloscope {

// The anchor of every line with facts: (metadata path, line) -> "m0-src-1-40".
class SourceAnchors {
 public:
  SourceAnchors(size_t module_index, const std::vector<LineFacts>& lines);
  // "" when the line is not shown.
  std::string Of(const std::optional<SourceLocation>& source) const;
  size_t FileIndex(const std::string& file) const { return file_index_.at(file); }

 private:
  std::map<std::string, size_t> file_index_;
  std::map<std::pair<std::string, int64_t>, std::string> anchors_;
};

// Lines with findings (copies, reads forcing copies, updates) and `context`
// lines around them, file by file; lines without findings are left out.
void RenderSourceSection(size_t module_index, const ModuleCheck& check, const std::vector<LineFacts>& lines,
                         const SourceAnchors& anchors, int context, SourceFiles& files, std::ostream& out);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_HTML_SOURCE_H_
