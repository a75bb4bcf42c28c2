#include "hloscope/analysis/line_facts.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "hloscope/analysis/scope_filter.h"
#include "hloscope/support/saturating.h"

namespace hloscope {
namespace {

bool IsTrivialKernel(const HloInstruction* i) {
  switch (i->opcode()) {
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kTuple:
    case HloOpcode::kBitcast:
      return true;
    default:
      return false;
  }
}

// Does `copy` run on behalf of an update that `reader` performs (the
// reader is the update itself, or the fusion that runs it)?
bool IsUpdateOf(const CopyFinding& copy, const HloInstruction* reader) {
  for (const CopyFeed& f : copy.feeds)
    if (f.kind == CopyFeed::Kind::kUpdate && f.update.owner() == reader) return true;
  return false;
}

}  // namespace

std::vector<LineFacts> CollectLineFacts(const SourceIndex& index, const ExecutionCounts& counts,
                                        const ModuleCheck& check, const LineQuery& query) {
  LineSpec all;
  const LineSpec& spec = query.spec ? *query.spec : all;
  ScopeMatcher scope(query.scope);

  std::map<std::pair<std::string, int64_t>, LineFacts> by_line;
  auto bucket = [&](const SourceLocation& loc) -> LineFacts& {
    LineFacts& f = by_line[{loc.file, loc.line}];
    f.file = loc.file;
    f.line = loc.line;
    return f;
  };

  // The kernels already listed for a line, hashed: one line of an unrolled
  // model carries thousands of kernels, and a scan of the list for each of
  // its instructions made `annotate` quadratic (128 s for a 1 GB module).
  std::unordered_map<const LineFacts*, std::unordered_set<const HloInstruction*>> listed;
  for (const HloInstruction* instr : index.Find(spec, query.scope)) {
    const SourceLocation* loc = index.Location(*instr);
    LineFacts& f = bucket(*loc);
    LineInstruction li;
    li.instruction = instr;
    li.source = loc;
    const HloInstruction* kernel = index.KernelOf(*instr);
    li.kernel = kernel == instr ? nullptr : kernel;
    li.executions = counts.Of(instr);
    li.executions_upper_bound = counts.IsUpperBound(instr->parent());
    for (const UpdateFinding* u : check.UpdatesOf(instr))
      if (u->site.instruction == instr) li.updates.push_back(u);
    li.copies = check.CopiesOf(instr);
    f.copies.insert(f.copies.end(), li.copies.begin(), li.copies.end());
    if ((li.kernel || !IsTrivialKernel(instr)) && listed[&f].insert(kernel).second)
      f.kernels.push_back(kernel);
    ++f.instruction_count;
    if (query.list_instructions) f.instructions.push_back(std::move(li));
  }

  // Updates by the line check gives them (the updating instruction's own
  // line, or its fusion's).
  for (const UpdateFinding& u : check.updates) {
    if (!u.source || !spec.Matches(*u.source)) continue;
    if (!scope.empty() && !scope.Matches(u.source->op_name)) continue;
    bucket(*u.source).updates.push_back(&u);
  }

  // Reads that force a copy: the readers of the old contents the cause
  // names (copy_causes.cc), on the lines asked for — not the loops or the
  // update itself, which read the value to replace it.
  if (query.include_reads) {
    for (const CopyFinding& c : check.copies) {
      if (c.cause.cause != CopyCause::kReadAfterUpdate) continue;
      for (const InstructionAt& r : c.cause.readers) {
        const HloInstruction* reader = r.instruction;
        if (reader->opcode() == HloOpcode::kWhile || IsUpdateOf(c, reader)) continue;
        // The reading line the cause names (the fused instruction that
        // reads the old buffer, copy_causes.cc), else the reader's own.
        std::optional<SourceLocation> loc = r.source ? r.source : index.Of(*reader);
        if (!loc || loc->file.empty() || !spec.Matches(*loc)) continue;
        if (!scope.empty() && !scope.Matches(loc->op_name)) continue;
        bucket(*loc).reads.push_back({reader, &c, loc});
      }
    }
  }

  std::vector<LineFacts> out;
  out.reserve(by_line.size());
  for (auto& [key, f] : by_line) {
    for (const CopyFinding* c : f.copies) SatAccumulate(&f.copy_bytes_per_call, c->total_bytes);
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace hloscope
