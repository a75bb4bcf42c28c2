#include "hloscope/report/render_explain.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

#include "hloscope/analysis/source_map.h"
#include "hloscope/ir/printer.h"
#include "hloscope/report/collective_words.h"
#include "hloscope/report/donation_words.h"
#include "hloscope/report/enum_names.h"
#include "hloscope/report/explain_words.h"
#include "hloscope/report/render_fusions.h"
#include "hloscope/report/wording.h"
#include "hloscope/support/human_bytes.h"

namespace hloscope {
namespace {

std::string TimesText(std::optional<int64_t> n, bool upper) {
  if (!n) return "an unknown number of times (a loop around it has no known trip count)";
  return fmt::format("{}{} time{} per call", upper ? "at most " : "", *n, *n == 1 ? "" : "s");
}

std::string TripText(const TripCount& t) {
  return t.count ? fmt::format("{} iterations, {}", *t.count, TripCountSourceName(t.source))
                 : std::string("unknown trip count");
}

ExplainSection WhereItIs(const InstructionFacts& f) {
  const HloInstruction& instr = *f.instruction;
  const HloComputation* comp = instr.parent();
  ExplainSection where{"Where it is", {}};
  where.lines.push_back(fmt::format("computation {} ({}){}", comp->name(), ComputationRoleName(f.role),
                                    comp->is_entry() ? " — the program's main function" : ""));
  if (f.fusion) {
    where.lines.push_back(
        fmt::format("fused: it is part of the kernel of {} ({} fusion in {}); it has no buffer of its own{}",
                    f.fusion->name(), FusionKindText(*f.fusion), f.fusion->parent()->name(),
                    instr.is_root() ? ", but as the fused root its value is the fusion's output" : ""));
    if (f.kernel != f.fusion && f.kernel != &instr)
      where.lines.push_back(fmt::format("that fusion is itself nested in {}", f.kernel->name()));
  } else if (f.kernel != &instr) {
    where.lines.push_back(fmt::format("runs inside {} ({}), as part of its computation", f.kernel->name(),
                                      f.kernel->opcode_text()));
  }
  for (const LoopAround& l : f.loops) {
    std::string loc = SourceText(l.source);
    where.lines.push_back(fmt::format("inside loop {} ({}){}", l.loop->name(), TripText(l.trip_count),
                                      loc.empty() ? "" : " from " + loc));
  }
  where.lines.push_back(fmt::format("runs {}", TimesText(f.executions, f.executions_upper_bound)));
  return where;
}

ExplainSection WhatItDoes(const InstructionFacts& f) {
  const HloInstruction& instr = *f.instruction;
  const HloInstruction* fusion = f.fusion;
  ExplainSection what{"What it does", {}};
  std::string_view desc = DescribeOpcode(instr.opcode_text());
  what.lines.push_back(fmt::format("{}: {}", instr.opcode_text(),
                                   desc.empty() ? "an opcode hloscope has no description for." : desc));
  if (instr.opcode() == HloOpcode::kParameter && fusion &&
      instr.parameter_number() < fusion->operand_count()) {
    const HloInstruction* op = fusion->operand(instr.parameter_number());
    what.lines.push_back(fmt::format("here: operand {} of {}, i.e. {} = {} {}", instr.parameter_number(),
                                     fusion->name(), op->name(), op->shape().ToString(), op->opcode_text()));
  }
  for (int64_t k = 0; k < instr.operand_count(); ++k) {
    const HloInstruction* op = instr.operand(k);
    std::string from;
    if (op->opcode() == HloOpcode::kParameter && fusion && op->parameter_number() < fusion->operand_count())
      from = fmt::format(" = fusion operand {}", fusion->operand(op->parameter_number())->name());
    what.lines.push_back(fmt::format("operand {}: {} {} ({}){}", k, op->name(), op->shape().ToString(),
                                     op->opcode_text(), from));
  }
  for (const CalledComputation& cc : instr.called_computations())
    what.lines.push_back(fmt::format("calls {} ({} instructions)", cc.computation->name(),
                                     cc.computation->instruction_count()));
  return what;
}

ExplainSection TheKernel(const InstructionFacts& f) {
  const FusionSummary& fs = *f.kernel_summary;
  ExplainSection k{"The kernel (fusion)", {}};
  if (fs.fusion != f.instruction)
    k.lines.push_back(fmt::format("{} — the fusion this instruction is in", fs.fusion->name()));
  k.lines.push_back(DescribeFusionKind(FusionKindText(*fs.fusion), fs.backend_kind));
  std::vector<std::string> ops;
  for (auto& [op, n] : fs.opcode_counts) ops.push_back(fmt::format("{} {}", n, op));
  k.lines.push_back(fmt::format("{} fused instructions: {}", fs.instruction_count, fmt::join(ops, ", ")));
  std::string lines = FileLinesText(fs.lines);
  if (!lines.empty()) {
    std::string own = fs.source ? SourceText(*fs.source) : "";
    k.lines.push_back(
        own.empty()
            ? fmt::format("source lines fused into it: {} (the fusion itself carries no line)", lines)
            : fmt::format("source lines fused into it: {} (XLA keeps only {} on the fusion)", lines, own));
  }
  k.lines.push_back(fmt::format(
      "reads {}, writes {} per run (an in-place update writes only its update; slices read what they select)",
      HumanBytes(fs.bytes_read), HumanBytes(fs.bytes_written)));
  return k;
}

ExplainSection WhereItComesFrom(const InstructionFacts& f) {
  const HloInstruction& instr = *f.instruction;
  ExplainSection src{"Where it comes from", {}};
  const std::optional<SourceLocation>& loc = f.source;
  const OpMetadata* md = instr.metadata();
  if (md && !md->op_name.empty())
    for (const std::string& s : DescribeOpName(CUnescape(md->op_name))) src.lines.push_back(s);
  if (loc && !loc->file.empty()) {
    std::string via =
        loc->via == SourceVia::kMetadata
            ? ""
            : fmt::format(" (no metadata of its own: attributed via the {})", SourceViaName(loc->via));
    src.lines.push_back(fmt::format("{}:{}{}{}{}", loc->file, loc->line,
                                    loc->column ? fmt::format(":{}", loc->column) : "",
                                    loc->function.empty() ? "" : " in " + loc->function, via));
    if (loc->via != SourceVia::kMetadata && !loc->op_name.empty())
      src.lines.push_back(fmt::format("attributed op_name \"{}\"", loc->op_name));
    std::string prev;
    int shown = 0;
    for (const CallerFrame& frame : loc->stack) {
      std::string text = fmt::format("{}:{} {}", frame.file, frame.line, frame.function);
      if (text == prev || shown >= 6) continue;
      prev = text;
      ++shown;
      src.lines.push_back(fmt::format("  called from {}", text));
    }
    if (md && md->stack_frame_id > 0)
      src.lines.push_back(
          fmt::format("(metadata stack_frame_id={} → the module's StackFrames table; "
                      "hloscope shows the innermost frame in your code)",
                      md->stack_frame_id));
  } else if (!md && f.kernel_summary && !FileLinesText(f.kernel_summary->lines).empty()) {
    // A fusion of the user's code whose own metadata XLA's fusion passes
    // did not carry over: not something XLA made up.
    src.lines.push_back(fmt::format(
        "no metadata on the fusion itself (XLA's fusion passes do not always carry it over); the code fused "
        "into it comes from {}",
        FileLinesText(f.kernel_summary->lines)));
  } else if (!md) {
    src.lines.push_back(
        "no metadata: XLA created this instruction itself (copy insertion, layout "
        "assignment, loop canonicalization, ...).");
  } else {
    src.lines.push_back("metadata without a source line.");
  }
  return src;
}

ExplainSection InPlaceOrCopied(const ModuleAnalysis& a, const InstructionFacts& f) {
  const HloInstruction& instr = *f.instruction;
  ExplainSection ip{"In place or copied?", {}};
  for (const UpdateFinding* u : f.updates) {
    ip.lines.push_back(fmt::format("{} {}: {} — {}", u->site.instruction->opcode_text(),
                                   u->site.instruction->name(), UpdateVerdictName(u->verdict),
                                   UpdateReason(*u)));
    if (u->verdict == UpdateVerdict::kInPlaceOnCopy && u->runs_on)
      if (const CopyFinding* c = a.check.FindCopy(*u->runs_on))
        ip.lines.push_back(fmt::format("  the copy {} moves {} × {} ({}): {}", c->instruction()->name(),
                                       HumanBytes(c->bytes),
                                       ExecutionsText(c->executions, c->executions_upper_bound),
                                       CopyCauseName(c->cause.cause), CauseDetail(*c)));
    if (u->full_rewrite) ip.lines.push_back("  it shares the buffer but rewrites all of it every time");
    if (u->bytes_written)
      ip.lines.push_back(fmt::format("  writes {} per execution", HumanBytes(u->bytes_written)));
    if (u->confirmation.confirmed)
      ip.lines.push_back(fmt::format("  {} by XLA's buffer assignment: {}",
                                     *u->confirmation.confirmed ? "confirmed" : "CONTRADICTED",
                                     ConfirmationText(*u)));
  }
  for (const CopyFinding* c : f.copies) {
    ip.lines.push_back(fmt::format("this is a {} copy ({}): {} × {} = {} per call",
                                   CopyClassName(c->copy_class), CopyKindName(c->kind), HumanBytes(c->bytes),
                                   ExecutionsText(c->executions, c->executions_upper_bound),
                                   HumanBytes(c->total_bytes)));
    ip.lines.push_back(fmt::format("cause: {} — {}", CopyCauseName(c->cause.cause), CauseDetail(*c)));
    if (std::string hint = CauseHint(*c); !hint.empty()) ip.lines.push_back(fmt::format("hint: {}", hint));
    if (!c->feeds.empty()) {
      std::vector<std::string> feeds;
      for (const CopyFeed& feed : c->feeds) feeds.push_back(FeedText(feed));
      ip.lines.push_back(fmt::format("feeds: {}", fmt::join(feeds, ", ")));
    }
  }
  if (!f.updates.empty() || !f.copies.empty()) return ip;
  if (!f.pairs.empty()) {
    for (const InPlacePair& p : f.pairs)
      ip.lines.push_back(fmt::format("its output {} must share the buffer of operand {}{}",
                                     ShapeIndexToString(p.output_index), p.operand_number,
                                     ShapeIndexToString(p.operand_index)));
  } else if (f.fusion || f.role == ComputationRole::kEmbedded) {
    ip.lines.push_back(
        "not a buffer of its own: inside a kernel, intermediate values live in registers; only "
        "the kernel's output is written to memory. See the fusion for its verdict.");
  } else if (instr.opcode() == HloOpcode::kGetTupleElement || instr.opcode() == HloOpcode::kTuple ||
             instr.opcode() == HloOpcode::kBitcast || instr.opcode() == HloOpcode::kParameter ||
             instr.opcode() == HloOpcode::kWhile || instr.opcode() == HloOpcode::kCall) {
    ip.lines.push_back("moves no data: it names buffers that already exist.");
  } else {
    ip.lines.push_back(
        "not an update: XLA gives its result a buffer of its own. (The buffer assignment may "
        "still place it in the memory of an operand that dies here; only the "
        "-buffer-assignment.txt dump shows that.)");
  }
  return ip;
}

// A collective of a sharded module: what it moves per device, how often,
// over which devices, and why (docs/sharding.md).
std::optional<ExplainSection> WhatItMoves(const ModuleAnalysis& a, const HloInstruction* instr) {
  for (const CollectiveFinding& c : a.check.collectives) {
    if (c.instruction != instr && c.collective != instr) continue;
    ExplainSection s{"What it moves (a collective)", {}};
    if (c.instruction != instr)
      s.lines.push_back(fmt::format("counted at {}, which runs it", c.instruction->name()));
    s.lines.push_back(fmt::format("{} over {}; {}", CollectiveFamilyName(c.family), CollectiveGroupText(c),
                                  SpmdText(a.check.spmd)));
    s.lines.push_back(fmt::format("per device per execution: sends {}, receives {}{}",
                                  HumanBytes(c.bytes_sent), HumanBytes(c.bytes_received),
                                  c.exact ? "" : " (an upper bound)"));
    s.lines.push_back(fmt::format("{} × {} = {} per device per call{}", HumanBytes(c.bytes),
                                  ExecutionsText(c.executions, c.executions_upper_bound),
                                  HumanBytes(c.total_bytes),
                                  c.grows_with_buffer ? "; grows with the loop's buffer" : ""));
    s.lines.push_back(
        fmt::format("cause: {} — {}", CollectiveCauseName(c.cause.cause), CollectiveCauseDetail(c)));
    if (std::string hint = CollectiveCauseHint(c); !hint.empty()) s.lines.push_back("hint: " + hint);
    return s;
  }
  return std::nullopt;
}

// Explanations quote the input (op_names, paths, function names, the HLO
// line itself): every line is shown as one field (wording.h Shown), so
// nothing from the input can break a line or drive the terminal.
Explanation Finished(Explanation e) {
  e.text = Shown(e.text);
  for (ExplainSection& s : e.sections)
    for (std::string& line : s.lines) line = Shown(line);
  return e;
}

}  // namespace

Explanation ExplainInstruction(const ModuleAnalysis& a, const InstructionFacts& f) {
  Explanation e;
  e.module = &a.module;
  e.instruction = f.instruction;
  e.text = PrintInstruction(*f.instruction);
  e.sections.push_back(WhereItIs(f));
  e.sections.push_back(WhatItDoes(f));
  ExplainSection shape{"Reading its shape", DescribeShape(f.instruction->shape())};
  const Shape& s = f.instruction->shape();
  if (s.IsTuple())
    for (size_t k = 0; k < s.tuple_shapes.size() && k < 8; ++k)
      for (const std::string& line : DescribeShape(*s.tuple_shapes[k]))
        shape.lines.push_back(fmt::format("  {{{}}} {}", k, line));
  e.sections.push_back(std::move(shape));
  if (f.kernel_summary) e.sections.push_back(TheKernel(f));
  e.sections.push_back(WhereItComesFrom(f));
  if (std::optional<ExplainSection> moves = WhatItMoves(a, f.instruction)) e.sections.push_back(*moves);
  e.sections.push_back(InPlaceOrCopied(a, f));
  return Finished(std::move(e));
}

Explanation ExplainModule(const ModuleAnalysis& a) {
  const HloModule& module = a.module;
  const ModuleCheck& check = a.check;
  Explanation e;
  e.module = &module;
  const HloComputation* entry = module.entry_computation();
  e.text = fmt::format("HloModule {} — {} computations, {} instructions{}", module.name(),
                       module.computations().size(), module.instruction_count(),
                       module.is_scheduled() ? ", scheduled (text order is execution order)" : "");

  ExplainSection s1{"1. Start at ENTRY", {}};
  s1.lines.push_back(
      fmt::format("ENTRY {} is the program's main function; the other computations are called from it "
                  "(fused computations, loop bodies and conditions, branches, reducers). Each line is one "
                  "instruction: `name = shape opcode(operands), attributes`.",
                  entry->name()));
  for (const ParameterFinding& p : check.parameters) {
    std::string name = p.parameter->metadata() ? CUnescape(p.parameter->metadata()->op_name) : "";
    std::string donated(
        p.donation == DonationKind::kInputOutputAlias
            ? "donated (input_output_alias): XLA may write an output into it"
        : p.donation == DonationKind::kBufferDonor
            ? "donated (buffer_donor only: aliased with no output, so XLA still treats it as read-only)"
            : "not donated: XLA must not overwrite it");
    if (std::string why = DroppedDonationReason(check, p); !why.empty())
      donated = fmt::format("donation asked for ({}) but dropped by XLA, so XLA treats it as read-only: {}",
                            DonationRequestSourceText(check), why);
    s1.lines.push_back(fmt::format("argument {}: {} {}{} — {}", p.number, p.parameter->name(),
                                   p.parameter->shape().ToString(),
                                   name.empty() ? "" : fmt::format(" ({})", name), donated));
  }
  s1.lines.push_back(fmt::format("ROOT {} is the result ({}).", entry->root_instruction()->name(),
                                 entry->root_instruction()->shape().ToString()));
  e.sections.push_back(std::move(s1));

  std::map<std::string, int64_t> roles;
  for (const HloComputation* c : module.computations()) ++roles[std::string(ComputationRoleName(RoleOf(*c)))];
  ExplainSection s2{"2. The computations", {}};
  std::vector<std::string> parts;
  for (auto& [r, n] : roles) parts.push_back(fmt::format("{} {}", n, r));
  s2.lines.push_back(fmt::format("{}.", fmt::join(parts, ", ")));
  s2.lines.push_back(
      "A `fused` computation is the body of one kernel: everything between its braces runs in "
      "one pass and only its ROOT is written to memory. Its parameters are the fusion "
      "instruction's operands. A `reducer` is the small function a reduce/scatter/sort applies.");
  e.sections.push_back(std::move(s2));

  ExplainSection s3{"3. Loops", {}};
  for (const LoopFinding& l : check.loops) {
    std::string trips = l.trip_count ? fmt::format("{} iterations ({})", *l.trip_count,
                                                   TripCountSourceName(l.trip_count_source))
                                     : "unknown trip count";
    std::vector<std::string> outer;
    for (const HloInstruction* w : l.enclosing_loops) outer.push_back(std::string(w->name()));
    std::string nest = outer.empty() ? "" : fmt::format(", inside {}", fmt::join(outer, " < "));
    std::string where = SourceText(l.source);
    s3.lines.push_back(fmt::format("{} in {}: {}{}{}", l.loop->name(), l.loop->parent()->name(), trips, nest,
                                   where.empty() ? "" : " — " + where));
    const HloComputation* body = l.loop->while_body();
    const HloComputation* cond = l.loop->while_condition();
    s3.lines.push_back(fmt::format("  body {} ({} instructions), condition {}", body ? body->name() : "?",
                                   body ? body->instruction_count() : 0, cond ? cond->name() : "?"));
  }
  if (check.loops.empty())
    s3.lines.push_back("no while loops: every instruction runs once per call.");
  else
    s3.lines.push_back(
        "Everything in a loop body runs once per iteration: a copy there costs its "
        "bytes × the trip count.");
  e.sections.push_back(std::move(s3));

  // Kinds and traffic of every kernel; a full summary (source lines) for
  // the five shown only.
  const std::vector<const HloInstruction*> kernels = KernelsOf(a.module);
  ExplainSection s4{"4. Kernels (fusions and unfused work)", {}};
  std::map<std::string, int64_t> kinds;
  for (const HloInstruction* f : kernels) ++kinds[std::string(FusionKindText(*f))];
  parts.clear();
  for (auto& [k, n] : kinds) parts.push_back(fmt::format("{} {}", n, k));
  s4.lines.push_back(fmt::format("{} kernel{}{}{}", kernels.size(), kernels.size() == 1 ? "" : "s",
                                 parts.empty() ? "" : ": ", fmt::join(parts, ", ")));
  std::vector<std::pair<const HloInstruction*, int64_t>> top;
  for (const HloInstruction* f : kernels) top.push_back({f, KernelBytesPerCall(*f, a.counts).value_or(-1)});
  std::stable_sort(top.begin(), top.end(), [](const auto& x, const auto& y) { return x.second > y.second; });
  for (size_t k = 0; k < top.size() && k < 5; ++k) {
    const FusionSummary summary = SummarizeFusion(*top[k].first, a.sources(), a.counts, &a.check);
    const FusionSummary* f = &summary;
    std::string lines = FileLinesText(f->lines);
    s4.lines.push_back(fmt::format("{} ({}) ×{}: reads {}, writes {} per run — {}", f->fusion->name(),
                                   FusionKindText(*f->fusion), ExecutionsText(f->executions, false),
                                   HumanBytes(f->bytes_read), HumanBytes(f->bytes_written),
                                   lines.empty() ? "no source lines" : lines));
  }
  s4.lines.push_back("`hloscope fusions FILE` lists every kernel with its operations and source lines.");
  e.sections.push_back(std::move(s4));

  ExplainSection s5{"5. Copies and updates", {}};
  if (check.copies.empty()) s5.lines.push_back("no copies.");
  for (size_t k = 0; k < check.copies.size() && k < 5; ++k) {
    const CopyFinding& c = check.copies[k];
    std::string where = SourceText(a.sources().Of(*c.instruction()));
    s5.lines.push_back(fmt::format("{} {} {} × {} = {} ({}){}", c.instruction()->name(), c.shape->ToString(),
                                   HumanBytes(c.bytes), ExecutionsText(c.executions, false),
                                   HumanBytes(c.total_bytes), CopyCauseName(c.cause.cause),
                                   where.empty() ? "" : " — " + where));
  }
  if (check.copies.size() > 5) s5.lines.push_back(fmt::format("... and {} more", check.copies.size() - 5));
  std::map<std::string, int64_t> verdicts;
  for (const UpdateFinding& u : check.updates) ++verdicts[std::string(UpdateVerdictName(u.verdict))];
  parts.clear();
  for (auto& [v, n] : verdicts) parts.push_back(fmt::format("{} {}", n, v));
  s5.lines.push_back(
      fmt::format("updates: {}", parts.empty() ? "none" : fmt::format("{}", fmt::join(parts, ", "))));
  e.sections.push_back(std::move(s5));

  ExplainSection s6{"Next", {}};
  s6.lines.push_back("hloscope check FILE             every copy and update, with causes");
  s6.lines.push_back("hloscope where FILE file.py:42  the instructions of one line of your code");
  s6.lines.push_back("hloscope annotate FILE          your source with findings per line");
  s6.lines.push_back("hloscope explain FILE NAME      one instruction in plain words");
  e.sections.push_back(std::move(s6));
  return Finished(std::move(e));
}

void RenderExplanationText(const Explanation& e, std::ostream& out) {
  out << e.text << "\n";
  for (const ExplainSection& s : e.sections) {
    out << "\n" << s.title << "\n";
    for (const std::string& l : s.lines) out << "  " << l << "\n";
  }
}

namespace {

std::string_view CallRoleWords(CallRole role) {
  switch (role) {
    case CallRole::kCalls:
      return "the kernel (or async computation) it runs";
    case CallRole::kToApply:
      return "the function it applies";
    case CallRole::kBody:
      return "its loop body";
    case CallRole::kCondition:
      return "its loop condition";
    case CallRole::kBranch:
    case CallRole::kTrueComputation:
    case CallRole::kFalseComputation:
      return "a branch";
    case CallRole::kCalledComputations:
      return "a computation the custom call runs";
    case CallRole::kSelect:
    case CallRole::kScatter:
      return "its select/scatter function";
    case CallRole::kOther:
      break;
  }
  return "a called computation";
}

}  // namespace

Explanation ExplainComputation(const ModuleAnalysis& a, const HloComputation& comp) {
  Explanation e;
  e.module = &a.module;
  e.computation = &comp;
  std::vector<std::string> params;
  for (const HloInstruction* p : comp.parameters())
    if (p) params.push_back(p->shape().ToString(/*print_layout=*/false));
  e.text = fmt::format("computation {} ({}) — {} instructions, ({}) -> {}", comp.name(),
                       ComputationRoleName(RoleOf(comp)), comp.instructions().size(), fmt::join(params, ", "),
                       comp.root_instruction()->shape().ToString(/*print_layout=*/false));

  ExplainSection callers{"Who calls it", {}};
  for (const HloInstruction* caller : comp.callers()) {
    for (const CalledComputation& cc : caller->called_computations()) {
      if (cc.computation != &comp) continue;
      std::string where = SourceText(ResolveSource(a.module, *caller));
      callers.lines.push_back(fmt::format("{} ({}) in {} calls it as {}{}", caller->name(),
                                          HloOpcodeString(caller->opcode()), caller->parent()->name(),
                                          CallRoleWords(cc.role), where.empty() ? "" : ", at " + where));
    }
  }
  if (comp.is_entry()) callers.lines.push_back("It is the ENTRY computation: the program itself.");
  if (callers.lines.empty()) callers.lines.push_back("Nothing in this module calls it.");
  e.sections.push_back(std::move(callers));

  ExplainSection runs{"How often it runs", {}};
  std::optional<int64_t> n = a.counts.Of(&comp);
  runs.lines.push_back(n ? fmt::format("{} time{} per call of the program.", *n, *n == 1 ? "" : "s")
                         : "An unknown number of times per call (a loop around it has no known trip count).");
  e.sections.push_back(std::move(runs));

  ExplainSection inside{"What it does", {}};
  for (const HloInstruction* caller : comp.callers())
    if (const LoopFinding* l = caller->opcode() == HloOpcode::kWhile ? a.check.FindLoop(caller) : nullptr) {
      inside.lines.push_back(fmt::format("The body of {}: per iteration {} copied, {} rewritten{}.",
                                         caller->name(), HumanBytes(l->copy_bytes_per_iteration),
                                         HumanBytes(l->rewrite_bytes_per_iteration),
                                         l->scales_with_buffer ? " — grows with buffer size" : ""));
      for (const LoopCarry& c : l->carries)
        inside.lines.push_back(
            fmt::format("{} {}: {}", CarryLabel(c), c.shape->ToString(), CarryOriginText(c)));
    }
  for (const CopyFinding& c : a.check.copies)
    if (c.instruction()->parent() == &comp)
      inside.lines.push_back(fmt::format("copies {} ({}, {} per run): {}", c.instruction()->name(),
                                         c.shape->ToString(), HumanBytes(c.bytes), CauseDetail(c)));
  for (const UpdateFinding& u : a.check.updates)
    if (u.site.owner()->parent() == &comp || u.site.instruction->parent() == &comp)
      inside.lines.push_back(
          fmt::format("updates {}: {}", UpdateLabel(u.site), UpdateVerdictName(u.verdict)));
  if (inside.lines.empty()) inside.lines.push_back("No copies, updates or loops of its own.");
  e.sections.push_back(std::move(inside));
  return e;
}

Json ExplanationModuleJson(const Explanation& e) {
  Json jm = ModuleHeaderJson(*e.module);
  Json j;
  j["instruction"] = RefJson(e.instruction);
  j["computation"] = e.computation ? Json(std::string(e.computation->name())) : Json(nullptr);
  j["text"] = e.text;
  j["sections"] = Json::array();
  for (const ExplainSection& s : e.sections) {
    Json js;
    js["title"] = s.title;
    js["lines"] = s.lines;
    j["sections"].push_back(std::move(js));
  }
  jm["explanation"] = std::move(j);
  return jm;
}

}  // namespace hloscope
