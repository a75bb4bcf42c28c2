#include "hloscope/report/render_memory.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "hloscope/report/answer_words.h"
#include "hloscope/report/donation_words.h"
#include "hloscope/report/enum_names.h"
#include "hloscope/report/wording.h"
#include "hloscope/support/human_bytes.h"

namespace hloscope {
namespace {

Json SpaceJson(const MemorySpaceUsage& s) {
  Json j;
  j["color"] = s.color;
  j["host"] = s.host;
  j["argument_bytes"] = s.argument_bytes;
  j["output_bytes"] = s.output_bytes;
  j["alias_bytes"] = s.alias_bytes;
  j["temp_bytes"] = s.temp_bytes;
  j["constant_bytes"] = s.constant_bytes;
  j["thread_local_bytes"] = s.thread_local_bytes;
  j["peak_bytes"] = s.peak_bytes;
  return j;
}

Json TempPeakJson(const TempPeak& p) {
  Json j;
  j["color"] = p.color;
  j["at"] = RefJson(p.instruction);
  j["time"] = p.time;
  j["schedule_length"] = p.schedule_length;
  j["live_bytes"] = p.live_bytes;
  j["heap_bytes"] = p.heap_bytes;
  j["source"] = SourceJson(p.source);
  j["live_count"] = p.live_count;
  Json live = Json::array();
  for (const LiveValue& v : p.live) {
    Json lv;
    lv["value"] = PositionJson(v.value);
    lv["shape"] = v.listed ? Json(v.listed->shape) : Json(nullptr);
    lv["bytes"] = v.bytes;
    lv["kind"] = Str(LiveValueKindName(v.kind));
    lv["copy"] = PositionJson(v.copy);
    lv["source"] = SourceJson(v.source);
    live.push_back(std::move(lv));
  }
  j["live"] = std::move(live);
  return j;
}

Json AllocationJson(const ModuleCheck& check, const AllocationUsage& a) {
  Json j;
  j["index"] = a.allocation->index;
  j["bytes"] = a.bytes;
  j["color"] = a.allocation->color;
  j["role"] = Str(AllocationRoleName(a.role));
  j["value"] = PositionJson(a.value);
  // The value's shape: what `diff` matches an allocation by across sizes.
  const Shape* shape = a.value.instruction ? a.value.instruction->shape().Subshape(a.value.index) : nullptr;
  j["shape"] = shape ? Json(shape->ToString()) : Json(nullptr);
  j["value_kind"] = a.value_kind ? Str(LiveValueKindName(*a.value_kind)) : Json(nullptr);
  j["values"] = a.allocation->values.size();
  if (a.argument) {
    Json arg;
    arg["number"] = *a.allocation->parameter_number;
    arg["memory"] = Str(ArgumentMemoryName(*a.argument));
    const ParameterFinding* p = check.FindParameter(*a.parameter_number);
    arg["dropped_reason"] = p && *a.argument == ArgumentMemory::kDonatedNotReused
                                ? Json(DroppedDonationReason(check, *p))
                                : Json(nullptr);
    j["argument"] = std::move(arg);
  } else {
    j["argument"] = nullptr;
  }
  j["source"] = SourceJson(a.source);
  return j;
}

// "not donated: the caller's array stays alive beside the outputs".
std::string ArgumentWords(const ModuleCheck& check, const AllocationUsage& a) {
  switch (*a.argument) {
    case ArgumentMemory::kDonatedReused:
      return "donated: an output is written into it";
    case ArgumentMemory::kDonatedNotReused: {
      const ParameterFinding* p = check.FindParameter(*a.parameter_number);
      std::string why = p ? DroppedDonationReason(check, *p) : "";
      return "donated, but XLA did not reuse it" + (why.empty() ? "" : ": " + why);
    }
    case ArgumentMemory::kDonorOnly:
      return "donated as a buffer donor: reused for temporaries at most";
    case ArgumentMemory::kKept:
      return "not donated: the caller's array stays alive beside the outputs";
    case ArgumentMemory::kKeptAndCopied:
      // Memory, not traffic: the copy's own allocation (PARAMETERS gives
      // the bytes its copies move per call, which a loop multiplies).
      return fmt::format("not donated, and updated on a copy: donating it would save {} per call",
                         HumanBytes(a.bytes));
  }
  return "";
}

// A tuple's index table is a few bytes whose shape is the whole tuple.
std::string ShapeWords(const BufferValue* listed) {
  if (!listed) return "";
  if (!listed->shape.empty() && listed->shape[0] == '(') return "(tuple index table)";
  return Shown(listed->shape);
}

std::string WithSource(std::string text, const std::optional<SourceLocation>& source) {
  std::string where = SourceText(source);
  return where.empty() ? text : fmt::format("{}  {}", text, Shown(where));
}

std::string PeakText(const MemorySpaceUsage& s) {
  return fmt::format("peak {} per device = arguments {} + outputs {}{} + temporaries {}",
                     HumanBytes(s.peak_bytes), HumanBytes(s.argument_bytes), HumanBytes(s.output_bytes),
                     s.alias_bytes ? fmt::format(" - {} donated (arguments written over by outputs)",
                                                 HumanBytes(s.alias_bytes))
                                   : "",
                     HumanBytes(s.temp_bytes));
}

void RenderModule(const ModuleCheck& m, std::ostream& out) {
  out << fmt::format("module {}\n", Shown(m.module->name()));
  if (!m.memory) {
    out << "  no buffer assignment: compile with --xla_dump_to (or, in Python, hloscope.inspect(f, *args): "
           "its "
           "modules' .memory) for the memory XLA reserves\n";
    return;
  }
  const MemoryUsage& u = *m.memory;
  out << fmt::format("  from {}\n", Shown(m.buffer_assignment_path));
  // The answer's memory findings first (analysis/answer.h): what makes the
  // peak and what would cut it, a dropped donation included.
  size_t told = 0;
  for (const FindingHeader& h : m.answer.ranked) {
    if (!h.stands_out || told == 3) break;
    if (h.impact.measure != ImpactMeasure::kMemory) continue;
    out << fmt::format("  {} {}.\n", told == 0 ? "Answer:" : "Then:  ", FindingLead(m, h));
    if (std::string fix = FindingFix(m, h); !fix.empty() && told == 0)
      out << fmt::format("    Fix: {}.\n", fix);
    ++told;
  }
  for (const MemorySpaceUsage& s : u.spaces) {
    std::string space = s.color == 0 ? "device memory"
                        : s.host     ? "host memory"
                                     : fmt::format("memory space {}", s.color);
    if (s.color != 0 && s.peak_bytes == 0) continue;
    if (s.color != 0 && s.argument_bytes == 0 && s.output_bytes == 0) {
      out << fmt::format("  {}: temporaries {}\n", space, HumanBytes(s.temp_bytes));
      continue;
    }
    out << fmt::format("  {}: {}\n", space, PeakText(s));
    std::vector<std::string> apart;
    if (s.constant_bytes) apart.push_back(fmt::format("constants {}", HumanBytes(s.constant_bytes)));
    if (s.thread_local_bytes)
      apart.push_back(fmt::format("thread-local {}", HumanBytes(s.thread_local_bytes)));
    if (!apart.empty()) out << fmt::format("    not in the peak: {}\n", fmt::join(apart, ", "));
  }
  if (const std::optional<TempPeak>& p = u.temp_peak) {
    out << fmt::format(
        "  temporaries fullest at {} (instruction {} of {} in the schedule){}: {} of the {} heap live\n",
        p->instruction
            ? fmt::format("{} in {}", Shown(p->instruction->name()), Shown(p->instruction->parent()->name()))
            : "?",
        p->time + 1, p->schedule_length,
        SourceText(p->source).empty() ? "" : " " + Shown(SourceText(p->source)), HumanBytes(p->live_bytes),
        HumanBytes(p->heap_bytes));
    for (const LiveValue& v : p->live)
      out << WithSource(
                 fmt::format("    {:>10}  {} {}  {}", HumanBytes(v.bytes), Shown(PositionText(v.value)),
                             ShapeWords(v.listed), LiveValueKindName(v.kind)),
                 v.source)
          << "\n";
    if (p->live_count > static_cast<int64_t>(p->live.size()))
      out << fmt::format("    ({} smaller values)\n", p->live_count - static_cast<int64_t>(p->live.size()));
  }
  out << "  largest allocations:\n";
  for (const AllocationUsage& a : u.allocations) {
    std::string what;
    if (a.argument)
      what = fmt::format("{}: {}", Shown(ValueText(a.value)), ArgumentWords(m, a));
    else if (a.role == AllocationRole::kTemporary)
      what = fmt::format("temporaries{} ({} values packed)",
                         a.allocation->color ? fmt::format(" of space {}", a.allocation->color) : "",
                         a.allocation->values.size());
    else
      what = fmt::format("{} made by {}{}", AllocationRoleName(a.role), Shown(PositionText(a.value)),
                         a.value_kind == LiveValueKind::kLoopUpdate
                             ? ", updated in place by a loop (a stacked output)"
                         : a.value_kind == LiveValueKind::kCopy ? ", a copy"
                                                                : "");
    out << WithSource(fmt::format("    {:>10}  {}", HumanBytes(a.bytes), what), a.source) << "\n";
  }
  if (u.allocation_count > static_cast<int64_t>(u.allocations.size()))
    out << fmt::format("    ({} smaller allocations)\n",
                       u.allocation_count - static_cast<int64_t>(u.allocations.size()));
}

}  // namespace

std::string MemorySummaryLine(const ModuleCheck& m) {
  if (!m.memory || !m.memory->Space(0)) return "";
  std::string line = PeakText(*m.memory->Space(0));
  // The largest value live when the temporaries peak: what a user can shrink.
  if (const std::optional<TempPeak>& p = m.memory->temp_peak; p && !p->live.empty() && p->instruction) {
    const LiveValue& v = p->live.front();
    std::string at = SourceText(p->source), where = SourceText(v.source);
    line += fmt::format("\n  temporaries peak at {}{}: {} live in {} value{}, the largest {} ({}, {}{})",
                        Shown(p->instruction->name()), at.empty() ? "" : " (" + Shown(at) + ")",
                        HumanBytes(p->live_bytes), p->live_count, p->live_count == 1 ? "" : "s",
                        Shown(PositionText(v.value)), LiveValueKindName(v.kind), HumanBytes(v.bytes),
                        where.empty() ? "" : ", " + Shown(where));
  }
  return line;
}

Json MemoryJson(const ModuleCheck& m) {
  if (!m.memory) return nullptr;
  const MemoryUsage& u = *m.memory;
  Json j;
  j["peak_bytes"] = u.device_peak_bytes();
  Json spaces = Json::array();
  for (const MemorySpaceUsage& s : u.spaces) spaces.push_back(SpaceJson(s));
  j["spaces"] = std::move(spaces);
  j["temp_peak"] = u.temp_peak ? TempPeakJson(*u.temp_peak) : Json(nullptr);
  Json allocations = Json::array();
  for (const AllocationUsage& a : u.allocations) allocations.push_back(AllocationJson(m, a));
  j["allocations"] = std::move(allocations);
  j["allocation_count"] = u.allocation_count;
  return j;
}

void WriteMemoryJson(const std::vector<const ModuleCheck*>& modules, std::ostream& out) {
  Json doc = JsonEnvelope("memory");
  doc["modules"] = Json::array();
  for (const ModuleCheck* m : modules) {
    Json j = ModuleHeaderJson(*m->module);
    j["buffer_assignment"] = m->buffer_assignment_applied ? Json(m->buffer_assignment_path) : Json(nullptr);
    j["memory"] = MemoryJson(*m);
    doc["modules"].push_back(std::move(j));
  }
  out << JsonText(doc);
}

void RenderMemoryText(const std::vector<const ModuleCheck*>& modules, std::ostream& out) {
  for (size_t i = 0; i < modules.size(); ++i) {
    if (i) out << "\n";
    RenderModule(*modules[i], out);
  }
}

}  // namespace hloscope
