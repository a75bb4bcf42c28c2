// The op a relayout kernel, or a kernel without a line, serves
// (analysis/served_op.h).
#include "hloscope/analysis/served_op.h"

#include <algorithm>
#include <vector>

#include "hloscope/analysis/copy_sites.h"
#include "hloscope/ir/computation.h"

namespace hloscope {
namespace {

bool Forwards(const HloInstruction& i) {
  return i.opcode() == HloOpcode::kTuple || i.opcode() == HloOpcode::kGetTupleElement;
}

// Downstream of `from` (breadth-first, in its computation, at most 64
// visited, tuples skipped): the first instruction `stop` accepts; `path`,
// when given, gets what was visited before it (`from` included).
template <typename Stop>
const HloInstruction* Downstream(const HloInstruction& from, Stop stop,
                                 std::vector<const HloInstruction*>* path = nullptr) {
  std::vector<const HloInstruction*> seen = {&from};
  const HloInstruction* found = nullptr;
  for (size_t i = 0; i < seen.size() && seen.size() < 64 && !found; ++i) {
    for (const HloInstruction* user : seen[i]->users()) {
      if (user->parent() != from.parent() || std::find(seen.begin(), seen.end(), user) != seen.end())
        continue;
      if (Forwards(*user)) continue;
      if (stop(*user)) {
        found = user;
        break;
      }
      seen.push_back(user);
    }
  }
  if (path) *path = std::move(seen);
  return found;
}

// Inside fusion `op`, the first fused instruction with a line that reads
// what arrives from `path` (behind bitcasts, reshapes and tuple elements):
// the code that consumes it (the einsum's scaling `/ sqrt(d)`, not the
// mask the fusion ends in); nullptr when none has one.
template <typename HasLine>
const HloInstruction* FusedReader(const HloInstruction& op, const std::vector<const HloInstruction*>& path,
                                  HasLine has_line) {
  const HloComputation* fused = op.fused_computation();
  if (!fused) return nullptr;
  std::vector<const HloInstruction*> pending;
  for (int64_t k = 0; k < op.operand_count(); ++k)
    if (std::find(path.begin(), path.end(), op.operand(k)) != path.end())
      if (const HloInstruction* p = fused->parameter(k)) pending.push_back(p);
  for (size_t i = 0; i < pending.size() && i < 64; ++i)
    for (const HloInstruction* user : pending[i]->users()) {
      HloOpcode code = user->opcode();
      if (code == HloOpcode::kBitcast || code == HloOpcode::kReshape || code == HloOpcode::kGetTupleElement) {
        pending.push_back(user);
        continue;
      }
      if (has_line(*user)) return user;
    }
  return nullptr;
}

}  // namespace

bool IsRelayout(const HloInstruction& kernel) {
  auto moves = [](HloOpcode op) {
    return op == HloOpcode::kCopy || op == HloOpcode::kTranspose || op == HloOpcode::kBitcast ||
           op == HloOpcode::kReshape || op == HloOpcode::kParameter;
  };
  const HloComputation* fused = kernel.fused_computation();
  if (!fused) return moves(kernel.opcode()) && kernel.opcode() != HloOpcode::kParameter;
  return std::all_of(fused->instructions().begin(), fused->instructions().end(),
                     [&](const HloInstruction* i) { return moves(i->opcode()); });
}

SourceOfFn IndexLines(const SourceIndex& index) {
  return [&index](const HloInstruction& i) -> std::optional<SourceLocation> {
    const SourceLocation* l = index.Location(i);
    if (!l || !l->has_line()) return std::nullopt;
    SourceLocation line;
    line.file = l->file;
    line.line = l->line;
    return line;
  };
}

ServedOp ServedOpOf(const HloInstruction& kernel, const SourceOfFn& source_of) {
  auto line = [&](const HloInstruction& i) {
    std::optional<SourceLocation> s = source_of(i);
    return s && s->has_line() ? std::optional<std::pair<std::string, int64_t>>({s->file, s->line})
                              : std::nullopt;
  };
  if (!IsRelayout(kernel) && line(kernel)) return {};
  // A copy (a `copy`, or a copy fusion such as XLA:GPU's protective
  // copies) is a copy finding: reported where `check` reports it.
  if (IsCopySite(kernel)) return {};
  // The line of the loop whose body this is: its bookkeeping's, no op's.
  std::optional<std::pair<std::string, int64_t>> loop_line;
  for (const HloInstruction* caller : kernel.parent()->callers())
    if (caller->opcode() == HloOpcode::kWhile) loop_line = line(*caller);
  auto has_line = [&](const HloInstruction& i) {
    auto l = line(i);
    return l && l != loop_line;
  };
  std::vector<const HloInstruction*> path;
  if (const HloInstruction* op = Downstream(
          kernel, [&](const HloInstruction& i) { return !IsRelayout(i) && has_line(i); }, &path)) {
    const HloInstruction* reader = FusedReader(*op, path, has_line);
    return {op, reader ? reader : op};
  }
  ServedOp served;
  served.op = Downstream(kernel, [](const HloInstruction& i) { return !IsRelayout(i); });
  // A kernel without a line that feeds nothing (the computation's result)
  // is the op itself, reported at its operands' line.
  if (!served.op && !IsRelayout(kernel)) served.op = &kernel;
  if (!served.op) return {};
  auto reaches_kernel = [&](const HloInstruction* o) {
    for (int step = 0; o && step < 8; ++step) {
      if (o == &kernel) return true;
      if (!IsRelayout(*o) || o->operand_count() != 1) return false;
      o = o->operand(0);
    }
    return false;
  };
  // The op's other operands (not the one on the way from the kernel),
  // behind relayouts, for a producer with a line: one that computes
  // something first (a relayout keeps its producer's line: the cache's),
  // any relayout's line only if none has.
  for (bool relayouts : {false, true}) {
    for (const HloInstruction* operand : served.op->operands()) {
      if (served.line_of) break;
      if (reaches_kernel(operand)) continue;
      for (const HloInstruction* o = operand; o && !served.line_of;) {
        if (!Forwards(*o) && has_line(*o) && (relayouts || !IsRelayout(*o))) served.line_of = o;
        o = IsRelayout(*o) && o->operand_count() == 1 ? o->operand(0) : nullptr;
      }
    }
  }
  // Without a line to report it at, naming the op adds nothing.
  return served.line_of ? served : ServedOp{};
}

}  // namespace hloscope
