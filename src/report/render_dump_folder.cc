#include "hloscope/report/render_dump_folder.h"

#include <fmt/format.h>

#include "hloscope/report/render_check.h"
#include "hloscope/support/human_bytes.h"

namespace hloscope {

void RenderDumpFolderText(const DumpFolder& folder, std::ostream& out) {
  int64_t optimized = folder.optimized_files();
  out << fmt::format("dump folder {}: {} module{}, {} optimized HLO file{} checked below\n", folder.path,
                     folder.modules.size(), folder.modules.size() == 1 ? "" : "s", optimized,
                     optimized == 1 ? "" : "s");
  for (const DumpModule& m : folder.modules) {
    bool first = true;
    for (const DumpHloFile& f : m.files) {
      std::string what = !f.optimized                  ? "before optimization: not checked"
                         : f.buffer_assignment.empty() ? "optimized: checked, no buffer assignment beside it"
                                                       : "optimized: checked with its buffer assignment";
      out << fmt::format("  {:<6} {:<24} {:>9}  {}  ({})\n", first ? m.id : "", first ? m.name : "",
                         HumanBytes(f.bytes), f.file, what);
      first = false;
    }
  }
}

std::string DumpModuleTitle(const DumpModule& dump, const DumpHloFile& file, const HloModule& module) {
  return fmt::format("== module_{} {} {}  ({})", dump.id, module.name(), EntrySignature(module), file.file);
}

}  // namespace hloscope
