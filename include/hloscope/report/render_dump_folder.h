// `hloscope check DIR`: what a dump folder holds, before the checks of its
// optimized modules — so that several compilations of one function are
// told apart by file and entry signature.
#ifndef HLOSCOPE_REPORT_RENDER_DUMP_FOLDER_H_
#define HLOSCOPE_REPORT_RENDER_DUMP_FOLDER_H_

#include <ostream>
#include <string>

#include "hloscope/ir/module.h"
#include "hloscope/parser/dump_folder.h"

namespace hloscope {

// Every module: its id, name, HLO files with their sizes, which are
// optimized (checked) and which have a buffer assignment beside them.
void RenderDumpFolderText(const DumpFolder& folder, std::ostream& out);
// The line above one module's check: "== module_0003 jit_step
// (f32[8], s32[]) -> f32[8]  (module_0003.jit_step.cpu_after_optimizations.txt)".
std::string DumpModuleTitle(const DumpModule& dump, const DumpHloFile& file, const HloModule& module);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_RENDER_DUMP_FOLDER_H_
