// Wording: every sentence, hint and label hloscope shows a user, written
// from the analysis's typed facts. Text, JSON and the Python package all
// take their prose from here, so a finding reads the same everywhere.
//
// Labels have one form each: a source location is `dir/file.py:42` (the
// last two path components), an update is `dynamic-update-slice.3 in
// fusion.2`, a value is `while.3{1}` or, in sentences, `carry 1 of while.3`.
#ifndef HLOSCOPE_REPORT_WORDING_H_
#define HLOSCOPE_REPORT_WORDING_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hloscope/analysis/findings.h"
#include "hloscope/analysis/fusion_summary.h"
#include "hloscope/analysis/line_facts.h"
#include "hloscope/analysis/line_spec.h"
#include "hloscope/analysis/policy.h"
#include "hloscope/analysis/session_note.h"
#include "hloscope/analysis/where_query.h"
#include "hloscope/report/cause_words.h"

namespace hloscope {

// ---------------------------------------------------------------------------
// Text from the input

// A string from the input (a path, a function name, an op_name, a backend
// kind) as one field of a line: control characters, newlines included, and
// invalid UTF-8 escaped, so it can neither drive the terminal nor forge a
// line of the report (support/terminal_text.h).
std::string Shown(std::string_view input_text);
// A line of the user's source file: the same, but tabs kept.
std::string ShownSourceLine(std::string_view line);

// ---------------------------------------------------------------------------
// Labels

// A source file as hloscope shows it: its last two path components
// (`dir/file.py`), the whole path when shorter.
std::string DisplayPath(std::string_view file);
// The one text form of a source location: `dir/file.py:42`; "" without a file.
std::string SourceText(const std::optional<SourceLocation>& loc);
// Executions per call: "100", "≤100" (an upper bound), "?" (unknown).
std::string ExecutionsText(std::optional<int64_t> n, bool upper_bound);
// A position as XLA's buffer assignment names it: `copy.7`, `while.3{1}`.
std::string PositionText(const HloPosition& pos);
// A value in the user's terms: `argument 0 (buf)`, `carry 1 of while.4`,
// `carry 1 of while.4 (after the loop)`, else PositionText.
std::string ValueText(const HloPosition& pos);
// An entry parameter as the user named the argument: its op_name, which JAX
// sets to the argument's path ("buf", "state.params['w']"), else its name.
std::string ArgumentName(const HloInstruction* parameter);
// `dynamic-update-slice.3 in select_fusion`, or the instruction alone.
std::string UpdateLabel(const UpdateSite& site);
// An update's label, or `carry {1} of while.3` for a loop state.
std::string FeedText(const CopyFeed& feed);
// `name (dir/file.py:40)`, or the name alone.
std::string InstructionAtText(const InstructionAt& at);
// `dir/loops.py:14-16,20` from the lines of one file.
std::string FormatLineSet(std::string_view file, const std::vector<int64_t>& sorted_lines);
// `dir/loops.py:14-16; dir/util.py:3`.
std::string FileLinesText(const std::vector<FileLines>& files);

// ---------------------------------------------------------------------------
// Findings

// CauseDetail and CauseHint: report/cause_words.h.
// Why an update got its verdict, one line.
std::string UpdateReason(const UpdateFinding& update);
// What was compared in XLA's buffer assignment; "" without a dump.
std::string ConfirmationText(const UpdateFinding& update);
// How many update verdicts XLA's buffer assignment confirmed, contradicted,
// or could not check (the last line of every report).
struct ConfirmationCounts {
  int64_t confirmed = 0, contradicted = 0, not_checkable = 0;
};
// The update verdicts' confirmations.
ConfirmationCounts CountConfirmations(const ModuleCheck& module);
// The loops' rewrite claims (carries rewritten in full), the same way.
ConfirmationCounts CountRewriteConfirmations(const ModuleCheck& module);
// One line of what grows with the buffer in a loop.
std::string ScalingText(const LoopScaling& scaling);
// The same, naming the carry as CarryLabel does (the loop's carries).
std::string ScalingText(const LoopScaling& scaling, const LoopFinding& loop);
// The user's name for a carry where the program reveals one: the entry
// argument it starts from, as JAX names it (op_name "buf", "params['w']"),
// with the element inside it; "" when it is made inside the program.
std::string CarryName(const LoopCarry& carry);
// "carry 1 (buf)", or "carry 1" without a name.
std::string CarryLabel(const LoopCarry& carry);
// Where a carry comes from and what updates it: "from argument 0 (buf);
// updated by dynamic-update-slice.3 (train.py:32)", "made by broadcast.2
// (train.py:12); passed through"; with the loop's scaling entry for a
// carry rewritten in full: "…; rewritten in full by fusion.4 (train.py:9)
// every iteration — grows with buffer size".
std::string CarryOriginText(const LoopCarry& carry, const LoopScaling* rewrite = nullptr);
// The one-line answer for a module, e.g. "jit_f: 2 copies, 400 MiB moved
// per call, 99% inside while.7 at dir/train.py:42."
std::string Headline(const ModuleCheck& module);
// "+2 scalar copies, +1 constant prefetch" (empty when both are 0): the
// copies check summarises instead of listing (CopyFinding::minor).
std::string MinorCopiesText(int64_t scalars, int64_t prefetches);
// `copy.7 — cause detail`: what the headline's second line says about the
// largest array copy; "" when there is none.
std::string LargestCopyLine(const ModuleCheck& module);

// One line per update of a source line ("dynamic-update-slice.2 in
// fusion.3: in-place-on-copy on copy.7, writes 4 B × 100"); more than
// `max_listed` are grouped by verdict ("×520 in-place, e.g. ...").
std::vector<std::string> UpdateSummaryLines(const std::vector<const UpdateFinding*>& updates,
                                            size_t max_listed = 4);
// `copy.7 f32[1024]{0} 4.0 KiB × 100 = 400.0 KiB per call — read-after-update`.
std::string CopySummaryLine(const CopyFinding& copy);

// ---------------------------------------------------------------------------
// Lines of the user's code (where, annotate) and kernels (fusions)

// A copy on a line: CopySummaryLine, plus how it was attributed there when
// not by its own metadata (" (via the update)").
std::string LineCopyText(const CopyFinding& copy);
// The copies of a line grouped by cause: "×5 read-after-update: 2.0 MiB per call".
std::vector<std::string> LineCopyGroups(const LineFacts& line);
// The reads of old values on a line, merged per reader and value, with the
// copies they force: "bitcast_add_fusion reads arg_tuple.6{1} after its
// in-place update → forces copy.5, copy (800.0 KiB per call)".
std::vector<std::string> LineReadTexts(const LineFacts& line);
// `where` found nothing: what exists instead; and the note when a file
// matched by its name only. "" when there is nothing to say.
std::string WhereNearbyText(const WhereResult& result, const WhereQuery& query);
std::string WhereNoteText(const WhereResult& result, const WhereQuery& query);
// One line per check finding on a kernel ("dynamic-update-slice
// dynamic-update-slice.2: in-place-on-copy (on copy.7)").
std::vector<std::string> KernelFindingLines(const FusionSummary& kernel);

// ---------------------------------------------------------------------------
// Notes (analysis/session_note.h)

// One note, one line (without the "hloscope: note: " prefix).
std::string NoteText(const SessionNote& note);
inline constexpr std::string_view kNotePrefix = "hloscope: note: ";

// ---------------------------------------------------------------------------
// Gates

// One line for a violation (run's summary and warnings, watch's problems).
std::string ViolationLine(const Violation& violation);
// "copies-in-loops, not-in-place, full-rewrites".
std::string GateSetText(const GateSet& gates);
// One broken gate, possibly over several lines (indented by four spaces).
std::string ViolationText(const Violation& violation);
// The whole failure: "TITLE: N problems", each violation, then the
// headline of every module. Empty when there are no violations.
std::string GateFailureMessage(std::string_view title, const std::vector<Violation>& violations,
                               const std::vector<const ModuleCheck*>& modules);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_WORDING_H_
