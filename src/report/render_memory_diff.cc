#include "hloscope/report/render_memory_diff.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "hloscope/report/render_diff.h"
#include "hloscope/report/wording.h"
#include "hloscope/support/human_bytes.h"

namespace hloscope {
namespace {

std::string RoleWords(const MemoryBufferChange& b) {
  if (b.parameter_number) {
    std::string state = b.role == "donated-argument" ? "donated " : "";
    return fmt::format("{}argument {}", state, *b.parameter_number);
  }
  if (b.role == "loop-carry") return "loop carry";
  if (b.role == "loop-update") return "buffer updated in a loop";
  if (b.role == "output" && b.value_kind == "loop-update") return "output stacked by a loop";
  if (b.role == "output" && b.value_kind == "copy") return "output (a copy)";
  return b.role;  // output, temporary, copy, or a newer role as written
}

// "+25.0 KiB", "-1.0 MiB".
std::string Signed(int64_t bytes) { return bytes < 0 ? "-" + HumanBytes(-bytes) : "+" + HumanBytes(bytes); }

// "linear", "quadratic", "exponent 1.52".
std::string Law(double e) {
  if (std::abs(e - 1) < 0.15) return "linear";
  if (std::abs(e - 2) < 0.2) return "quadratic";
  if (std::abs(e) < 0.15) return "flat";
  return fmt::format("exponent {:.2f}", e);
}

std::string Bytes(std::optional<int64_t> b) { return b ? HumanBytes(*b) : std::string("?"); }

std::string Part(const char* name, std::optional<int64_t> a, std::optional<int64_t> b) {
  return a == b ? fmt::format("{} {}", name, Bytes(b)) : fmt::format("{} {} → {}", name, Bytes(a), Bytes(b));
}

// "25.0 KiB → 50.0 KiB (+25.0 KiB, linear)", "only in B: 4.0 KiB".
std::string ChangeWords(const MemoryBufferChange& b) {
  if (!b.a_bytes)
    return fmt::format("{} in B, {}", Bytes(b.b_bytes), b.a_cut ? "not among A's largest" : "none in A");
  if (!b.b_bytes)
    return fmt::format("{} in A, {}", Bytes(b.a_bytes), b.b_cut ? "not among B's largest" : "none in B");
  std::string s = fmt::format("{} → {} ({}", Bytes(b.a_bytes), Bytes(b.b_bytes), Signed(b.added()));
  if (b.exponent) s += ", " + Law(*b.exponent);
  return s + ")";
}

// The buffers that explain most of a growth: those that grew, largest
// growth first (arguments last: they are the experiment's input).
// Only buffers that carry at least 5 % of the peak's growth are named: a
// few bytes of a tuple table are no explanation of a megabyte.
std::vector<const MemoryBufferChange*> Growers(const MemoryDiff& d) {
  std::vector<const MemoryBufferChange*> out;
  int64_t growth = d.a_peak && d.b_peak ? *d.b_peak - *d.a_peak : 0;
  for (int pass = 0; pass < 2; ++pass)
    for (const MemoryBufferChange& b : d.buffers)
      if (b.added() > 0 && static_cast<double>(b.added()) >= 0.05 * static_cast<double>(growth) &&
          b.parameter_number.has_value() == (pass == 1))
        out.push_back(&b);
  return out;
}

// The temporaries' growth the values live at their fullest moment do not
// account for (the heap packs values the schedule replay does not see
// live together: TPU's asynchronous copies, fragmentation).
int64_t UnexplainedTemp(const MemoryDiff& d) {
  if (!d.a_temp || !d.b_temp) return 0;
  int64_t explained = 0;
  for (const MemoryBufferChange& b : d.buffers)
    if (b.where == MemoryBufferChange::Where::kLive) explained += b.added();
  return std::max<int64_t>(0, *d.b_temp - *d.a_temp - std::max<int64_t>(0, explained));
}

std::string GrowerList(const MemoryDiff& d, size_t max) {
  std::vector<const MemoryBufferChange*> g = Growers(d);
  std::vector<std::string> parts;
  for (size_t i = 0; i < g.size() && i < max; ++i)
    parts.push_back(fmt::format("{} ({})", MemoryBufferLabel(*g[i]), Signed(g[i]->added())));
  std::string s = fmt::format("{}", fmt::join(parts, "; "));
  if (g.size() > max) s += fmt::format("; and {} more", g.size() - max);
  int64_t growth = d.a_peak && d.b_peak ? *d.b_peak - *d.a_peak : 0;
  if (int64_t rest = UnexplainedTemp(d);
      rest > 0 && static_cast<double>(rest) >= 0.05 * static_cast<double>(growth))
    s += fmt::format("{}the temporaries' heap ({}, more than its values live at one moment account for)",
                     s.empty() ? "" : "; ", Signed(rest));
  return s;
}

}  // namespace

std::string MemoryBufferLabel(const MemoryBufferChange& b) {
  std::string shape = b.b_shape.empty() ? b.a_shape : b.b_shape;
  std::string label = RoleWords(b);
  // A tuple's index table is a few bytes whose shape is the whole tuple.
  if (!shape.empty()) label += shape[0] == '(' ? std::string(" (tuple index table)") : " " + Shown(shape);
  if (b.parameter_number && !b.a_shape.empty() && !b.b_shape.empty() && b.a_shape != b.b_shape)
    label = fmt::format("{} {} → {}", RoleWords(b), Shown(b.a_shape), Shown(b.b_shape));
  if (b.source && !b.source->text.empty()) label += " at " + Shown(b.source->text);
  return label;
}

std::string MemoryGrowthLine(const ModuleDiff& m) {
  if (!m.memory) return "";
  const MemoryDiff& d = *m.memory;
  if (!d.a_peak || !d.b_peak)
    return fmt::format(
        "Memory: the peak is unknown in {} (no buffer assignment: compile with --xla_dump_to).",
        !d.a_peak && !d.b_peak ? "A and B"
        : !d.a_peak            ? "A"
                               : "B");
  if (*d.a_peak == *d.b_peak)
    return fmt::format("Memory: the same peak, {} per device.", HumanBytes(*d.b_peak));
  std::string head =
      fmt::format("Memory: the peak {} {} → {} per device", *d.b_peak > *d.a_peak ? "grows" : "shrinks",
                  HumanBytes(*d.a_peak), HumanBytes(*d.b_peak));
  if (d.ratio) head += fmt::format(" (×{})", RatioText(*d.ratio));
  if (m.size_ratio && d.exponent)
    head += fmt::format(" as {} grows ×{} — {}", m.size_parameter.empty() ? "the input" : m.size_parameter,
                        RatioText(*m.size_ratio), Law(*d.exponent));
  std::string growers = GrowerList(d, 3);
  if (*d.b_peak > *d.a_peak && !growers.empty()) head += "; grown: " + growers;
  return head + ".";
}

void RenderMemoryDiffText(const ModuleDiff& m, std::ostream& out) {
  if (!m.memory || (!m.memory->a_peak && !m.memory->b_peak)) return;
  const MemoryDiff& d = *m.memory;
  out << "\nMEMORY (per device, by XLA's buffer assignment)\n";
  out << fmt::format("  peak {}: {}, {}, {}, {}\n",
                     d.a_peak == d.b_peak ? Bytes(d.b_peak) : Bytes(d.a_peak) + " → " + Bytes(d.b_peak),
                     Part("arguments", d.a_argument, d.b_argument), Part("outputs", d.a_output, d.b_output),
                     Part("donated", d.a_alias, d.b_alias), Part("temporaries", d.a_temp, d.b_temp));
  size_t shown = 0;
  for (const MemoryBufferChange& b : d.buffers) {
    if (++shown > 10) break;
    out << fmt::format("  {}{}\n      {}\n",
                       b.where == MemoryBufferChange::Where::kLive ? "live at the temporaries' peak: " : "",
                       MemoryBufferLabel(b), ChangeWords(b));
  }
  if (d.buffers.size() > 10)
    out << fmt::format("  + {} smaller changes (the JSON has all)\n", d.buffers.size() - 10);
  out << fmt::format("  {} buffer{} of the same size\n", d.unchanged, d.unchanged == 1 ? "" : "s");
}

Json MemoryDiffJson(const ModuleDiff& m) {
  if (!m.memory) return nullptr;
  const MemoryDiff& d = *m.memory;
  Json j;
  auto side = [](std::optional<int64_t> peak, std::optional<int64_t> argument, std::optional<int64_t> output,
                 std::optional<int64_t> alias, std::optional<int64_t> temp) -> Json {
    if (!peak) return nullptr;
    return {{"peak_bytes", *peak},
            {"argument_bytes", Opt(argument)},
            {"output_bytes", Opt(output)},
            {"alias_bytes", Opt(alias)},
            {"temp_bytes", Opt(temp)}};
  };
  j["a"] = side(d.a_peak, d.a_argument, d.a_output, d.a_alias, d.a_temp);
  j["b"] = side(d.b_peak, d.b_argument, d.b_output, d.b_alias, d.b_temp);
  j["ratio"] = OptDouble(d.ratio);
  j["exponent"] = OptDouble(d.exponent);
  Json buffers = Json::array();
  for (const MemoryBufferChange& b : d.buffers) {
    Json x;
    x["where"] = b.where == MemoryBufferChange::Where::kLive ? "live-at-temp-peak" : "allocation";
    x["role"] = b.role;
    x["value_kind"] = b.value_kind.empty() ? Json(nullptr) : Json(b.value_kind);
    x["label"] = MemoryBufferLabel(b);
    x["parameter_number"] = Opt(b.parameter_number);
    x["a_shape"] = b.a_shape.empty() ? Json(nullptr) : Json(b.a_shape);
    x["b_shape"] = b.b_shape.empty() ? Json(nullptr) : Json(b.b_shape);
    x["a_bytes"] = Opt(b.a_bytes);
    x["b_bytes"] = Opt(b.b_bytes);
    x["a_cut"] = b.a_cut;
    x["b_cut"] = b.b_cut;
    x["added_bytes"] = b.added();
    x["exponent"] = OptDouble(b.exponent);
    x["grows"] = b.grows;
    x["instruction"] = b.instruction.empty() ? Json(nullptr) : Json(b.instruction);
    x["source"] = b.source && !b.source->text.empty() ? Json(b.source->text) : Json(nullptr);
    buffers.push_back(std::move(x));
  }
  j["buffers"] = std::move(buffers);
  j["unchanged"] = d.unchanged;
  j["summary"] = MemoryGrowthLine(m);
  return j;
}

std::string MorePeakBytesText(const ModuleDiff& m) {
  const MemoryDiff& d = *m.memory;
  if (!d.b_peak)
    return fmt::format(
        "{}: the memory peak of B is unknown without its buffer assignment (A needs {} per device)", m.b_name,
        Bytes(d.a_peak));
  std::string s = fmt::format("{}: one call of B needs {} per device, A {} ({})", m.b_name, Bytes(d.b_peak),
                              Bytes(d.a_peak), Signed(*d.b_peak - d.a_peak.value_or(0)));
  std::string growers = GrowerList(d, 3);
  if (!growers.empty()) s += "; grown: " + growers;
  return s;
}

}  // namespace hloscope
