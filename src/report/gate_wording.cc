// The sentences of a broken gate (declared in report/wording.h): the same
// text for the CLI's stderr and for Python's AssertionError.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "hloscope/report/collective_words.h"
#include "hloscope/report/enum_names.h"
#include "hloscope/report/render_diff.h"
#include "hloscope/report/render_memory_diff.h"
#include "hloscope/report/wording.h"
#include "hloscope/support/human_bytes.h"

namespace hloscope {
namespace {

std::string At(const std::optional<SourceLocation>& s) {
  std::string where = SourceText(s);
  return where.empty() ? "" : " at " + where;
}

std::string CopyLine(const CopyFinding& c) {
  std::string where = c.enclosing_loops.empty() ? std::string("outside any loop")
                                                : fmt::format("inside {}", c.enclosing_loops.front()->name());
  std::string line = fmt::format(
      "{} {} {} moves {} × {} = {} per call{} — {}: {}", c.instruction()->name(), c.shape->ToString(), where,
      HumanBytes(c.bytes), ExecutionsText(c.executions, c.executions_upper_bound), HumanBytes(c.total_bytes),
      At(c.source), CopyCauseName(c.cause.cause), CauseDetail(c));
  std::string hint = CauseHint(c);
  if (!hint.empty()) line += "\n      hint: " + hint;
  return line;
}

std::string UpdateLine(const Violation& v) {
  const UpdateFinding& u = *v.update;
  bool claims_in_place = u.verdict == UpdateVerdict::kInPlace || u.verdict == UpdateVerdict::kNotMaterialized;
  std::string what, detail;
  if (claims_in_place && u.confirmation.confirmed == false) {
    what = fmt::format("is {} by hloscope's rules but CONTRADICTED by XLA's buffer assignment",
                       UpdateVerdictName(u.verdict));
    detail = ConfirmationText(u);
  } else {
    what = fmt::format("is {}", UpdateVerdictName(u.verdict));
    if (u.runs_on) what += fmt::format(" (on {})", u.runs_on->instruction->name());
    detail = UpdateReason(u);
  }
  std::string line = fmt::format("{}{} {}: {}", UpdateLabel(u.site), At(u.source), what, detail);
  if (v.copy) line += "\n    " + CopyLine(*v.copy);
  return line;
}

std::string RewriteLine(const Violation& v) {
  if (v.update)
    return fmt::format("{}{} shares its buffer but rewrites all of it ({} × {} per call), inside {}",
                       UpdateLabel(v.update->site), At(v.update->source), HumanBytes(v.update->bytes_written),
                       ExecutionsText(v.update->executions, v.update->executions_upper_bound),
                       v.update->enclosing_loops.empty()
                           ? std::string("?")
                           : std::string(v.update->enclosing_loops.front()->name()));
  return fmt::format("{}{}: {}", v.loop->loop->name(), At(v.loop->source), ScalingText(*v.scaling, *v.loop));
}

std::string CollectiveLine(const CollectiveFinding& c) {
  std::string line =
      fmt::format("{} inside {}{} — {}: {}", CollectiveSummaryLine(c), c.enclosing_loops.front()->name(),
                  At(c.source), CollectiveCauseName(c.cause.cause), CollectiveCauseDetail(c));
  std::string hint = CollectiveCauseHint(c);
  if (!hint.empty()) line += "\n      hint: " + hint;
  return line;
}

std::string UndonatedLine(const Violation& v) {
  std::string line = CopyLine(*v.copy);
  for (const UpdateFinding* u : v.updates)
    line += fmt::format("\n    {}{} runs on this copy", UpdateLabel(u->site), At(u->source));
  return line;
}

// A regression of `diff`: the finding of B, against A.
std::string DiffViolationText(const Violation& v) {
  const DiffItem& it = *v.diff_item;
  const ModuleDiff& m = *v.diff_module;
  std::string at = it.source.empty() ? "" : " at " + it.source;
  const DiffSide& b = *it.b;
  const DiffSide* a = it.a ? &*it.a : nullptr;
  switch (v.kind) {
    case Violation::Kind::kNewCopy:
      return fmt::format("{}: {}{}: {} in B, {} in A ({} per run)", m.b_name, DiffWhatText(it), at, b.count,
                         a ? a->count : 0, HumanBytes(b.bytes));
    case Violation::Kind::kNewNotInPlace:
      return fmt::format("{}: {}{} is {} in B, {} in A", m.b_name, DiffWhatText(it), at, b.state.text,
                         a ? a->state.text : std::string("absent"));
    case Violation::Kind::kMoreBytesPerIteration:
      return fmt::format("{}: loop{} copies and rewrites {} per iteration in B, {} in A", m.b_name, at,
                         HumanBytes(b.bytes), a ? HumanBytes(a->bytes) : std::string("none"));
    default:
      // "1 in B, 1 in A (in-place there)": A had it, but not in this gate.
      return fmt::format("{}: {}{}: {} in B, {} in A{} ({} per call in B)", m.b_name, DiffWhatText(it), at,
                         b.count, a ? a->count : 0,
                         a && v.gate && !a->gates.Has(*v.gate) && !a->state.text.empty()
                             ? fmt::format(" ({} there)", a->state.text)
                             : "",
                         HumanBytes(b.bytes_per_call));
  }
}

std::string CopyList(const Violation& v) {
  std::string out;
  for (const CopyFinding* c : v.copies) out += "\n    " + CopyLine(*c);
  return out;
}

}  // namespace

std::string ViolationText(const Violation& v) {
  if (v.diff_item) return DiffViolationText(v);
  std::string_view module = v.module ? v.module->module->name() : "";
  switch (v.kind) {
    case Violation::Kind::kCopyInLoop:
      return CopyLine(*v.copy);
    case Violation::Kind::kUpdateNotInPlace:
      return UpdateLine(v);
    case Violation::Kind::kFullRewrite:
      return RewriteLine(v);
    case Violation::Kind::kUndonatedCopy:
      return UndonatedLine(v);
    case Violation::Kind::kReshardInLoop:
      return CollectiveLine(*v.collective);
    case Violation::Kind::kContradiction:
      if (!v.update)
        return fmt::format("{}{}: XLA's buffer assignment contradicts the claim \"{}\"", v.loop->loop->name(),
                           At(v.loop->source), ScalingText(*v.scaling, *v.loop));
      return fmt::format("{}{}: XLA's buffer assignment contradicts the verdict {}: {}",
                         UpdateLabel(v.update->site), At(v.update->source),
                         UpdateVerdictName(v.update->verdict), ConfirmationText(*v.update));
    case Violation::Kind::kCopyBytes:
    case Violation::Kind::kCopyBytesInLoops:
      return fmt::format("{}: {} move {} per call{}, budget {}:{}", module,
                         v.kind == Violation::Kind::kCopyBytes ? "copies" : "copies inside loops",
                         HumanBytes(v.amount), v.amount_unknown ? " plus an unknown amount" : "",
                         HumanBytes(v.limit), CopyList(v));
    case Violation::Kind::kPeakBytes:
      if (v.amount_unknown)
        return fmt::format(
            "{}: the memory peak is unknown without the module's buffer assignment (compile with "
            "--xla_dump_to, or pass --buffer-assignment), budget {}",
            module, HumanBytes(v.limit));
      return fmt::format(
          "{}: one call needs {} per device (arguments, outputs and temporaries by XLA's buffer "
          "assignment: `hloscope memory`), budget {}",
          module, HumanBytes(v.amount), HumanBytes(v.limit));
    case Violation::Kind::kCopyCount:
    case Violation::Kind::kCopiesInLoops:
      return fmt::format("{}: {} {}, budget {}:{}", module, v.amount,
                         v.kind == Violation::Kind::kCopyCount ? "copies" : "copies inside loops", v.limit,
                         CopyList(v));
    case Violation::Kind::kAmbiguousName: {
      std::vector<std::string> names;
      for (const HloInstruction* c : v.candidates)
        names.push_back(fmt::format("{}/{}", c->parent()->name(), c->name()));
      return fmt::format("{}: the update name '{}' is ambiguous: {} (write COMPUTATION/NAME)", module,
                         Shown(v.selected_names.front()), fmt::join(names, ", "));
    }
    case Violation::Kind::kNewCopy:
    case Violation::Kind::kNewNotInPlace:
    case Violation::Kind::kMoreBytesPerIteration:
      return "";  // diff violations carry their item (above)
    case Violation::Kind::kMorePeakBytes:
      return MorePeakBytesText(*v.diff_module);
    case Violation::Kind::kNothingSelected: {
      std::vector<std::string> parts;
      if (!v.selected_names.empty())
        parts.push_back(fmt::format("updates {}", fmt::join(v.selected_names, ", ")));
      if (!v.selected_lines.empty())
        parts.push_back(fmt::format("lines {}", fmt::join(v.selected_lines, ", ")));
      return fmt::format("no update matches {}", fmt::join(parts, " or "));
    }
  }
  return "";
}

std::string ViolationLine(const Violation& v) {
  if (v.diff_item) return DiffViolationText(v);
  switch (v.kind) {
    case Violation::Kind::kCopyInLoop:
      return fmt::format("copy in a loop: {} at {}", CopySummaryLine(*v.copy), SourceText(v.copy->source));
    case Violation::Kind::kUndonatedCopy:
      return fmt::format("copy of an argument that is not donated: {} at {}", CopySummaryLine(*v.copy),
                         SourceText(v.copy->source));
    case Violation::Kind::kUpdateNotInPlace:
      return fmt::format("{} update: {} at {}", UpdateVerdictName(v.update->verdict),
                         UpdateLabel(v.update->site), SourceText(v.update->source));
    case Violation::Kind::kFullRewrite:
      if (v.update)
        return fmt::format("full-rewrite update: {} at {}", UpdateLabel(v.update->site),
                           SourceText(v.update->source));
      return fmt::format("loop rewrites a buffer in full every iteration: {} at {}", v.loop->loop->name(),
                         SourceText(v.loop->source));
    case Violation::Kind::kReshardInLoop:
      return fmt::format("collective in a loop moving a loop-carried buffer: {} at {}",
                         CollectiveSummaryLine(*v.collective), SourceText(v.collective->source));
    case Violation::Kind::kContradiction:
    case Violation::Kind::kCopyBytes:
    case Violation::Kind::kCopyCount:
    case Violation::Kind::kCopiesInLoops:
    case Violation::Kind::kCopyBytesInLoops:
    case Violation::Kind::kPeakBytes:
    case Violation::Kind::kNothingSelected:
    case Violation::Kind::kAmbiguousName:
    case Violation::Kind::kNewCopy:
    case Violation::Kind::kNewNotInPlace:
    case Violation::Kind::kMoreBytesPerIteration:
    case Violation::Kind::kMorePeakBytes:
      break;
  }
  std::string text = ViolationText(v);
  return text.substr(0, text.find('\n'));
}

std::string GateSetText(const GateSet& gates) {
  std::vector<std::string_view> names;
  for (const GateEntry& g : GateCatalog())
    if (gates.Has(g.gate)) names.push_back(g.name);
  return names.empty() ? std::string("(none)") : fmt::format("{}", fmt::join(names, ", "));
}

std::string GateFailureMessage(std::string_view title, const std::vector<Violation>& violations,
                               const std::vector<const ModuleCheck*>& modules) {
  if (violations.empty()) return "";
  std::string out =
      fmt::format("{}: {} problem{}", title, violations.size(), violations.size() == 1 ? "" : "s");
  for (const Violation& v : violations) {
    std::string text = ViolationText(v);
    if (v.kind == Violation::Kind::kNothingSelected) {
      std::vector<std::string> labels;
      for (const ModuleCheck* m : modules)
        for (const UpdateFinding& u : m->updates) labels.push_back(UpdateLabel(u.site) + At(u.source));
      text += fmt::format("; updates in the program: {}",
                          labels.empty() ? std::string("none") : fmt::format("{}", fmt::join(labels, ", ")));
    }
    out += "\n  " + text;
  }
  out += "\n  report:";
  for (const ModuleCheck* m : modules) out += "\n    " + Headline(*m);
  return out;
}

}  // namespace hloscope
