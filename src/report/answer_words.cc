// The answer in words (report/answer_words.h).
#include "hloscope/report/answer_words.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>

#include "hloscope/analysis/cause_catalog.h"
#include "hloscope/analysis/policy.h"
#include "hloscope/ir/computation.h"
#include "hloscope/report/cause_words.h"
#include "hloscope/report/collective_words.h"
#include "hloscope/report/donation_words.h"
#include "hloscope/report/enum_names.h"
#include "hloscope/report/wording.h"
#include "hloscope/support/human_bytes.h"

namespace hloscope {
// Named apart: the layer is a unity build, where anonymous namespaces merge.
namespace answer_words_internal {
namespace {

std::string Percent(double share) {
  if (share <= 0) return "0%";
  if (share < 0.01) return "<1%";
  return fmt::format("{:.0f}%", share * 100);
}

std::string PerDevice(const ModuleCheck& m) { return m.spmd.devices() > 1 ? " per device" : ""; }

std::string ImpactText(const ModuleCheck& m, const FindingHeader& h) {
  if (h.kind == FindingKind::kCollective && h.impact.measure == ImpactMeasure::kMemory)
    return fmt::format("its result is {} of the memory peak ({}{}{})", Percent(h.impact.share),
                       HumanBytes(m.answer.basis.peak_bytes), PerDevice(m),
                       m.answer.basis.peak_from_buffer_assignment ? "" : ", at least");
  if (h.impact.measure == ImpactMeasure::kMemory)
    return fmt::format("{} of the memory peak ({}{}{})", Percent(h.impact.share),
                       HumanBytes(m.answer.basis.peak_bytes), PerDevice(m),
                       m.answer.basis.peak_from_buffer_assignment ? "" : ", at least");
  return fmt::format("{} of the estimated time", Percent(h.impact.share));
}

// "every iteration of while.2 (×1000)", "once per call", "3 times per call".
std::string HowOften(const FindingHeader& h) {
  if (!h.executions)
    return h.enclosing_loops.empty() ? "per call" : fmt::format("in {}", h.enclosing_loops.front()->name());
  std::string n = fmt::format("{}", *h.executions);
  if (!h.enclosing_loops.empty())
    return fmt::format("every iteration of {} (×{} per call)", h.enclosing_loops.front()->name(), n);
  if (h.executions && *h.executions == 1) return "once per call";
  return fmt::format("{} times per call", n);
}

std::string At(const std::optional<SourceLocation>& s) {
  std::string text = SourceText(s);
  return text.empty() ? "" : " at " + text;
}

std::string Names(const std::vector<const HloInstruction*>& instructions, size_t most = 3) {
  std::vector<std::string_view> names;
  for (size_t i = 0; i < instructions.size() && i < most; ++i) names.push_back(instructions[i]->name());
  std::string text = fmt::format("{}", fmt::join(names, ", "));
  if (instructions.size() > most) text += fmt::format(" and {} more", instructions.size() - most);
  return text;
}

std::string ArgumentNames(const std::vector<const ParameterFinding*>& parameters, size_t most = 4) {
  std::vector<std::string> names;
  for (size_t i = 0; i < parameters.size() && i < most; ++i)
    names.push_back(ArgumentName(parameters[i]->parameter));
  std::string text = fmt::format("{}", fmt::join(names, ", "));
  if (parameters.size() > most) text += fmt::format(" and {} more", parameters.size() - most);
  return text;
}

std::string CopyLead(const ModuleCheck& m, const FindingHeader& h) {
  const CopyFinding& c = *h.copies.front();
  std::string who =
      h.count == 1 ? std::string(c.instruction()->name()) : fmt::format("{} copies ({})", h.count, [&] {
        std::vector<const HloInstruction*> v;
        for (const CopyFinding* k : h.copies) v.push_back(k->instruction());
        return Names(v);
      }());
  return fmt::format("{} cop{} {} ({} each) {}{} — {} per call{}, {}", who, h.count == 1 ? "ies" : "y",
                     c.shape ? c.shape->ToString(false) : "?", HumanBytes(c.bytes), HowOften(h), At(h.source),
                     HumanBytes(h.bytes_per_call), PerDevice(m), ImpactText(m, h));
}

std::string CollectiveLead(const ModuleCheck& m, const FindingHeader& h) {
  const CollectiveFinding& c = *h.collectives.front();
  std::string family(CollectiveFamilyName(c.family));
  std::string what =
      h.count == 1 ? fmt::format("{} {} of {}", family.rfind("all", 0) == 0 ? "an" : "a", family,
                                 !c.shape             ? std::string("?")
                                 : c.shape->IsTuple() ? fmt::format("{} arrays", c.shape->tuple_shapes.size())
                                                      : c.shape->ToString(false))
                   : fmt::format("{} {}s ({})", h.count, family, [&] {
                       std::vector<const HloInstruction*> v;
                       for (const CollectiveFinding* k : h.collectives) v.push_back(k->instruction);
                       return Names(v);
                     }());
  return fmt::format("{} ({} per device each) {}{} — {} per device per call, {}", what, HumanBytes(c.bytes),
                     HowOften(h), At(h.source), HumanBytes(h.bytes_per_call), ImpactText(m, h));
}

std::string LoopLead(const ModuleCheck& m, const FindingHeader& h) {
  return fmt::format("{} of {} (×{} per call): {} per call, {} — it grows with the loop's buffer",
                     ScalingText(*h.scaling, *h.loop), h.loop->loop->name(),
                     h.executions ? fmt::format("{}", *h.executions) : std::string("?"),
                     HumanBytes(h.bytes_per_call), ImpactText(m, h));
}

std::string RelayoutLead(const ModuleCheck& m, const FindingHeader& h) {
  std::string where =
      h.enclosing_loops.empty() ? "" : fmt::format(" in {}", h.enclosing_loops.front()->name());
  std::string line = SourceText(h.source);
  return fmt::format(
      "{} kernel{} ({}) only re-lay data (transposes, layout copies){}{} — {} moved per call{}, {}", h.count,
      h.count == 1 ? "" : "s", Names(h.kernels), where, line.empty() ? "" : " for the op at " + line,
      HumanBytes(h.impact.bytes), PerDevice(m), ImpactText(m, h));
}

std::string PeakText(const ModuleCheck& m, const FindingHeader& h) {
  if (!h.peak_before || !h.peak_after) return "";
  return fmt::format(" — keeping {} would cut the peak from {} to as little as {}{}",
                     h.count == 1 ? "it" : "them", HumanBytes(*h.peak_before), HumanBytes(*h.peak_after),
                     PerDevice(m));
}

std::string UndonatedLead(const ModuleCheck& m, const FindingHeader& h) {
  return fmt::format(
      "{} argument{} ({}; {}{}) {} not donated while the function returns new arrays of {} shape, so the old "
      "and the new values are live at once: {}{}",
      h.count, h.count == 1 ? "" : "s", ArgumentNames(h.parameters), HumanBytes(h.impact.bytes), PerDevice(m),
      h.count == 1 ? "is" : "are", h.count == 1 ? "its" : "their", ImpactText(m, h),
      h.peak_before && h.peak_after ? fmt::format("; donating {} would cut the peak from {} to as little as "
                                                  "{}{} (XLA may then lay out its temporaries otherwise)",
                                                  h.count == 1 ? "it" : "them", HumanBytes(*h.peak_before),
                                                  HumanBytes(*h.peak_after), PerDevice(m))
                                    : std::string());
}

// What made a temporary, in the user's words where the HLO says.
// What a temporary's kernel makes, read from its root behind bitcasts,
// reshapes and converts; a one-hot is an `iota == index` compare.
enum class TemporaryMake : uint8_t { kOneHot, kMask, kBroadcast, kProduct, kIota, kOther };

TemporaryMake MakeOf(const HloInstruction* i, const HloInstruction** root_out) {
  const HloInstruction* root = i;
  if (const HloComputation* fused = i->fused_computation()) root = fused->root_instruction();
  bool converted = false;
  while ((root->opcode() == HloOpcode::kBitcast || root->opcode() == HloOpcode::kReshape ||
          root->opcode() == HloOpcode::kConvert) &&
         root->operand_count() == 1) {
    converted |= root->opcode() == HloOpcode::kConvert;
    root = root->operand(0);
  }
  *root_out = root;
  auto iota = [](const HloInstruction* x) {
    while (x->opcode() == HloOpcode::kBroadcast && x->operand_count() == 1) x = x->operand(0);
    return x->opcode() == HloOpcode::kIota;
  };
  switch (root->opcode()) {
    case HloOpcode::kCompare:
      if (root->operand_count() == 2 && (iota(root->operand(0)) || iota(root->operand(1))))
        return TemporaryMake::kOneHot;
      return TemporaryMake::kMask;
    case HloOpcode::kSelect:
      return TemporaryMake::kMask;
    case HloOpcode::kBroadcast:
      return TemporaryMake::kBroadcast;
    case HloOpcode::kDot:
    case HloOpcode::kConvolution:
      return TemporaryMake::kProduct;
    case HloOpcode::kIota:
      return TemporaryMake::kIota;
    default:
      return converted ? TemporaryMake::kMask : TemporaryMake::kOther;
  }
}

std::string TemporaryKind(const LiveValue& v) {
  switch (v.kind) {
    case LiveValueKind::kLoopUpdate:
      return "a buffer a loop fills row by row (a scan's stacked output)";
    case LiveValueKind::kLoopCarry:
      return "a loop's state";
    case LiveValueKind::kCopy:
      return "a copy";
    case LiveValueKind::kTemporary:
      break;
  }
  const HloInstruction* root = nullptr;
  switch (MakeOf(v.value.instruction, &root)) {
    case TemporaryMake::kOneHot:
      return "a one-hot (`iota == index`, as jax.nn.one_hot makes it)";
    case TemporaryMake::kMask:
      return "a mask made element by element";
    case TemporaryMake::kBroadcast:
      return "a broadcast";
    case TemporaryMake::kProduct:
      return "a matrix product's result";
    case TemporaryMake::kIota:
      return "an iota";
    case TemporaryMake::kOther:
      break;
  }
  return fmt::format("an intermediate result ({})", root->opcode_text());
}

// The fixes that removed such a temporary in JAX's own compile
// (tests/python/test_answer_programs.py: a stacked scan output, 16.7 MB ->
// 2 KB of temporaries; tests/python/test_answer.py: a one-hot gather,
// 35.1 MB -> 1.6 MB); none for the other kinds.
std::string TemporaryFix(const LiveValue& v) {
  if (v.kind == LiveValueKind::kLoopUpdate)
    return "if only a reduction of the stacked outputs is used (a sum, a mean, the last row), accumulate it "
           "in "
           "the scan's carry (`carry + f(x)`) instead of stacking every step";
  const HloInstruction* root = nullptr;
  if (v.kind == LiveValueKind::kTemporary && MakeOf(v.value.instruction, &root) == TemporaryMake::kOneHot)
    return "where a one-hot selects rows (`one_hot(i, n) @ table`), index instead: `jnp.take(table, i, "
           "axis=0)` "
           "or `table[i]` reads only the rows";
  return "";
}

std::string TemporaryLead(const ModuleCheck& m, const FindingHeader& h) {
  const LiveValue& v = *h.live;
  return fmt::format("{} ({}{}), {}{}, is live at the memory peak: {}", v.value.instruction->name(),
                     v.value.instruction->shape().IsArray() ? v.value.instruction->shape().ToString(false)
                                                            : std::string("a tuple element"),
                     fmt::format(", {}", HumanBytes(v.bytes)), TemporaryKind(v), At(h.source),
                     ImpactText(m, h));
}

std::string SerialLoopLead(const ModuleCheck& m, const FindingHeader& h) {
  const LoopFinding& l = *h.loop;
  const OpMetadata* md = l.loop->metadata();
  std::string op = md ? CUnescape(md->op_name) : std::string();
  size_t slash = op.rfind('/');
  std::string last = slash == std::string::npos ? op : op.substr(slash + 1);
  return fmt::format(
      "XLA made a serial loop: the {}{} runs as {}, {} iterations one after another ({}; op_name {}) — {} "
      "moved "
      "per call{}, {}",
      Shown(last), At(h.source), l.loop->name(), *l.trip_count, TripCountSourceName(l.trip_count_source),
      Shown(op), HumanBytes(h.impact.bytes), PerDevice(m), ImpactText(m, h));
}

// A scatter XLA expanded into a loop (a vmapped dynamic_update_slice, one
// row per batch element at its own index): written as a select over every
// position, it fuses and runs at once — the ablation of
// tests/python/test_answer.py (TPU v5e: no while left). None for a loop
// made from another op.
std::string SerialLoopFix(const FindingHeader& h) {
  const OpMetadata* md = h.loop ? h.loop->loop->metadata() : nullptr;
  std::string op = md ? CUnescape(md->op_name) : std::string();
  if (!op.ends_with("/scatter")) return "";
  return "write the rows with a select over every position instead of a vmapped dynamic_update_slice or "
         "scatter: `jnp.where(jnp.arange(n)[None, :, None] == idx[:, None, None], rows[:, None, :], bufs)` — "
         "XLA fuses it, with no loop";
}

std::string NoOutputsLead(const ModuleCheck& m) {
  const HloComputation* entry = m.module->entry_computation();
  int64_t unused = 0, params = 0;
  for (const HloInstruction* p : entry->parameters()) {
    if (!p) continue;
    ++params;
    unused += p->users().empty();
  }
  std::string args = params == 0 ? "it takes no arguments"
                     : unused == params
                         ? fmt::format("{} of its arguments are used", params == 1 ? "none" : "none")
                         : fmt::format("{} of its {} arguments unused", unused, params);
  return fmt::format(
      "computes nothing — it returns no array it computes ({}); an update whose result is neither "
      "returned nor used (`x.at[i].set(v)` without `x = …`) is dropped by XLA",
      args);
}

// The Python parameters the argument leaves belong to, as JAX names them
// in their op_name ("state['params']" belongs to `state`); empty when any
// has no name.
std::vector<std::string> PythonParameters(const std::vector<const ParameterFinding*>& parameters) {
  std::vector<std::string> heads;
  for (const ParameterFinding* p : parameters) {
    const OpMetadata* md = p->parameter->metadata();
    std::string path = md ? CUnescape(md->op_name) : "";
    size_t end = 0;
    while (end < path.size() && (path[end] == '_' || std::isalnum(static_cast<unsigned char>(path[end]))))
      ++end;
    if (end == 0 || std::isdigit(static_cast<unsigned char>(path[0])) ||
        (end < path.size() && path[end] != '[' && path[end] != '.'))
      return {};
    std::string head = path.substr(0, end);
    if (head == "args") return {};  // a leaf of *args: no name JAX accepts
    if (std::find(heads.begin(), heads.end(), head) == heads.end()) heads.push_back(head);
  }
  return heads;
}

std::string UndonatedFix(const FindingHeader& h) {
  std::vector<std::string> heads = PythonParameters(h.parameters);
  if (heads.empty()) {
    std::vector<int64_t> numbers;
    for (const ParameterFinding* p : h.parameters) numbers.push_back(p->number);
    return fmt::format(
        "if the caller does not use these arguments after the call, donate the arguments holding HLO "
        "parameters {}: "
        "jax.jit(f, donate_argnums=<their positions>)",
        fmt::join(numbers, ", "));
  }
  std::vector<std::string> quoted;
  for (const std::string& s : heads) quoted.push_back(fmt::format("\"{}\"", s));
  return fmt::format(
      "if the caller does not use {} after the call (a train step's old state), donate {}: jax.jit(f, "
      "donate_argnames={}{}{})",
      fmt::join(heads, ", "), heads.size() == 1 ? "it" : "them", heads.size() == 1 ? "" : "(",
      fmt::join(quoted, ", "), heads.size() == 1 ? "" : ")");
}

}  // namespace
}  // namespace answer_words_internal

std::string_view FindingKindName(FindingKind kind) {
  switch (kind) {
    case FindingKind::kNoOutputs:
      return "no-outputs";
    case FindingKind::kCopy:
      return "copy";
    case FindingKind::kCollective:
      return "collective";
    case FindingKind::kGrowingRead:
      return "growing-read";
    case FindingKind::kCarryRewrite:
      return "carry-rewrite";
    case FindingKind::kRelayout:
      return "relayout";
    case FindingKind::kDroppedDonation:
      return "dropped-donation";
    case FindingKind::kUndonated:
      return "undonated";
    case FindingKind::kPeakTemporary:
      return "peak-temporary";
    case FindingKind::kSerialLoop:
      return "serial-loop";
  }
  return "?";
}

std::string_view ImpactMeasureName(ImpactMeasure measure) {
  return measure == ImpactMeasure::kTime ? "time" : "memory";
}

std::string FindingLead(const ModuleCheck& m, const FindingHeader& h) {
  using namespace answer_words_internal;  // NOLINT(build/namespaces): this file's helpers
  switch (h.kind) {
    case FindingKind::kNoOutputs:
      return NoOutputsLead(m);
    case FindingKind::kCopy:
      return CopyLead(m, h);
    case FindingKind::kCollective:
      return CollectiveLead(m, h);
    case FindingKind::kGrowingRead:
    case FindingKind::kCarryRewrite:
      return LoopLead(m, h);
    case FindingKind::kRelayout:
      return RelayoutLead(m, h);
    case FindingKind::kDroppedDonation:
      return DroppedDonationsLine(m) + PeakText(m, h);
    case FindingKind::kUndonated:
      return UndonatedLead(m, h);
    case FindingKind::kPeakTemporary:
      return TemporaryLead(m, h);
    case FindingKind::kSerialLoop:
      return SerialLoopLead(m, h);
  }
  return "";
}

std::string FindingWhy(const FindingHeader& h) {
  switch (h.kind) {
    case FindingKind::kCopy:
      return CauseDetail(*h.copies.front());
    case FindingKind::kCollective:
      return CollectiveCauseDetail(*h.collectives.front());
    default:
      return "";
  }
}

std::string FindingFix(const ModuleCheck& m, const FindingHeader& h) {
  (void)m;
  switch (h.kind) {
    case FindingKind::kCopy:
      return CauseHint(*h.copies.front());
    case FindingKind::kCollective:
      return CollectiveCauseHint(*h.collectives.front());
    case FindingKind::kDroppedDonation:
      return DroppedDonationFix(*h.parameters.front());
    case FindingKind::kUndonated:
      return answer_words_internal::UndonatedFix(h);
    case FindingKind::kCarryRewrite:
      return "write only what changes: `buf.at[i].set(v)` (`buf.at[i].add(v)` for a sum written with a "
             "one-hot, or lax.dynamic_update_slice) instead of rebuilding the whole carry each iteration "
             "(jnp.where or a one-hot product over it, concatenate, roll)";
    case FindingKind::kNoOutputs:
      return "return what the function computes (`return x.at[i].set(v)`), or assign the update (`x = "
             "x.at[i].set(v)`) before it is used";
    case FindingKind::kPeakTemporary:
      return answer_words_internal::TemporaryFix(*h.live);
    case FindingKind::kSerialLoop:
      return answer_words_internal::SerialLoopFix(h);
    default:
      return "";
  }
}

std::string AnswerLead(const ModuleCheck& m) {
  const Answer& a = m.answer;
  if (a.stands_out()) return FindingLead(m, a.ranked.front());
  const AnswerBasis& b = a.basis;
  std::string time =
      b.top_kernel
          ? fmt::format("; most estimated time: {} ({})", b.top_kernel->name(),
                        b.seconds > 0 ? answer_words_internal::Percent(b.top_kernel_seconds / b.seconds)
                                      : std::string("0%"))
          : "";
  return fmt::format(
      "nothing stands out — checked {} array cop{}, {} collective{}, {} loop{} and {} argument{}{}; memory "
      "peak {}{}{}",
      b.copies, b.copies == 1 ? "y" : "ies", b.collectives, b.collectives == 1 ? "" : "s", b.loops,
      b.loops == 1 ? "" : "s", b.arguments, b.arguments == 1 ? "" : "s", time,
      b.peak_from_buffer_assignment ? "" : "at least ", HumanBytes(b.peak_bytes),
      m.spmd.devices() > 1 ? " per device" : "");
}

std::vector<std::string> AnswerLines(const ModuleCheck& m, const AnswerTextOptions& options) {
  std::vector<std::string> lines;
  lines.push_back(fmt::format("{}: {}.", m.module->name(), AnswerLead(m)));
  const Answer& a = m.answer;
  if (a.stands_out()) {
    if (std::string why = FindingWhy(a.ranked.front()); !why.empty())
      lines.push_back(fmt::format("  Why: {}.", why));
    if (std::string fix = FindingFix(m, a.ranked.front()); !fix.empty())
      lines.push_back(fmt::format("  Fix: {}.", fix));
    size_t shown = 0, more = 0;
    for (size_t i = 1; i < a.ranked.size() && a.ranked[i].stands_out; ++i) {
      if (shown < options.then) {
        lines.push_back(fmt::format("  Then: {}.", FindingLead(m, a.ranked[i])));
        ++shown;
      } else {
        ++more;
      }
    }
    if (more > 0)
      lines.push_back(fmt::format("  + {} more finding{} that stand{} out (below, and the JSON's answer)",
                                  more, more == 1 ? "" : "s", more == 1 ? "s" : ""));
  }
  std::string summary = Headline(m);
  std::string prefix = std::string(m.module->name()) + ": ";
  if (summary.compare(0, prefix.size(), prefix) == 0) summary.erase(0, prefix.size());
  lines.push_back(fmt::format("  In all: {}", summary));
  return lines;
}

Json AnswerJson(const ModuleCheck& m) {
  const Answer& a = m.answer;
  Json out;
  out["stands_out"] = a.stands_out();
  out["lead"] = AnswerLead(m);
  Json basis;
  basis["estimated_seconds"] = a.basis.seconds;
  basis["peak_bytes"] = a.basis.peak_bytes;
  basis["peak_from_buffer_assignment"] = a.basis.peak_from_buffer_assignment;
  basis["top_kernel"] = a.basis.top_kernel ? Json(std::string(a.basis.top_kernel->name())) : Json(nullptr);
  basis["top_kernel_seconds"] = a.basis.top_kernel_seconds;
  out["basis"] = basis;
  out["findings"] = Json::array();
  for (const FindingHeader& h : a.ranked) {
    Json f;
    f["kind"] = FindingKindName(h.kind);
    f["stands_out"] = h.stands_out;
    f["gate"] = h.gate ? Json(std::string(EntryOf(*h.gate).name)) : Json(nullptr);
    f["instruction"] = h.instruction ? Json(std::string(h.instruction->name())) : Json(nullptr);
    f["count"] = h.count;
    f["source"] = SourceJson(h.source);
    f["library"] = h.library ? Json(h.library_part) : Json(nullptr);
    Json loops = Json::array();
    for (const HloInstruction* l : h.enclosing_loops) loops.push_back(std::string(l->name()));
    f["loops"] = loops;
    f["executions"] = Opt(h.executions);
    f["bytes"] = Opt(h.bytes);
    f["bytes_per_call"] = Opt(h.bytes_per_call);
    f["grows_with_buffer"] = h.grows_with_buffer;
    f["impact"] = {{"measure", ImpactMeasureName(h.impact.measure)},
                   {"share", h.impact.share},
                   {"seconds", h.impact.seconds},
                   {"bytes", h.impact.bytes}};
    Json members = Json::array();
    for (const CopyFinding* c : h.copies) members.push_back(std::string(c->instruction()->name()));
    for (const CollectiveFinding* c : h.collectives) members.push_back(std::string(c->instruction->name()));
    for (const ParameterFinding* p : h.parameters) members.push_back(std::string(p->parameter->name()));
    for (const HloInstruction* k : h.kernels) members.push_back(std::string(k->name()));
    f["members"] = members;
    f["peak_before"] = Opt(h.peak_before);
    f["peak_after"] = Opt(h.peak_after);
    f["text"] = FindingLead(m, h);
    std::string why = FindingWhy(h);
    f["why"] = why.empty() ? Json(nullptr) : Json(why);
    std::string fix = FindingFix(m, h);
    f["fix"] = fix.empty() ? Json(nullptr) : Json(fix);
    out["findings"].push_back(std::move(f));
  }
  return out;
}

}  // namespace hloscope
