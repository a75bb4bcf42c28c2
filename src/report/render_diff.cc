#include "hloscope/report/render_diff.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <sstream>

#include "hloscope/analysis/cause_catalog.h"
#include "hloscope/report/enum_names.h"
#include "hloscope/report/render_cost.h"
#include "hloscope/report/render_memory_diff.h"
#include "hloscope/report/wording.h"
#include "hloscope/support/human_bytes.h"

namespace hloscope {

std::string RatioText(double r) { return r >= 100 ? fmt::format("{:.0f}", r) : fmt::format("{:.3g}", r); }

std::string DiffKindName(DiffKind kind) {
  switch (kind) {
    case DiffKind::kParameter:
      return "parameter";
    case DiffKind::kCopy:
      return "copy";
    case DiffKind::kUpdate:
      return "update";
    case DiffKind::kLoop:
      return "loop";
    case DiffKind::kCarry:
      return "carry";
    case DiffKind::kKernel:
      return "kernel";
    case DiffKind::kCollective:
      return "collective";
  }
  return "copy";
}

std::string DiffStatusName(DiffStatus status) {
  switch (status) {
    case DiffStatus::kOnlyInA:
      return "only-in-a";
    case DiffStatus::kOnlyInB:
      return "only-in-b";
    case DiffStatus::kChanged:
      return "changed";
    case DiffStatus::kUnchanged:
      return "unchanged";
  }
  return "unchanged";
}

std::string DiffStateText(const DiffState& s) { return s.text; }

std::string DiffWhatText(const DiffItem& it) {
  const DiffIdentity& w = it.what;
  switch (w.kind) {
    case DiffKind::kParameter:
      return fmt::format("parameter {} {}", w.number, w.name);
    case DiffKind::kCopy:
      if (w.scalar_copies) return "scalar copies";
      return fmt::format("{} {} ({})", w.copy_kind, w.pattern, DiffStateText(w.cause));
    case DiffKind::kUpdate:
      return fmt::format("{}{}", w.opcode, w.fused ? " (fused)" : "");
    case DiffKind::kLoop:
      return w.loop_depth > 0 ? fmt::format("loop (nested {} deep)", w.loop_depth) : "loop";
    case DiffKind::kCarry:
      return fmt::format("carry {} {} of the loop (rewritten in full)",
                         w.carry ? std::to_string(*w.carry) : std::string("?"), w.pattern);
    case DiffKind::kKernel:
      return fmt::format("kernel {} {}", w.kernel_kind, w.pattern);
    case DiffKind::kCollective:
      return fmt::format("{} {} ({}, per device)", w.family, w.pattern, DiffStateText(w.cause));
  }
  return "";
}

namespace {

std::string Number(std::optional<int64_t> n) { return n ? std::to_string(*n) : "?"; }

std::string ChangeText(const DiffItem& it, const DiffChange& c) {
  switch (c.kind) {
    case DiffChange::Kind::kCount: {
      const char* noun = it.kind == DiffKind::kUpdate   ? "updates"
                         : it.kind == DiffKind::kKernel ? "kernels"
                                                        : "copies";
      return fmt::format("{} → {} {}", Number(c.a), Number(c.b), noun);
    }
    case DiffChange::Kind::kState: {
      const char* what = it.kind == DiffKind::kCopy        ? "cause"
                         : it.kind == DiffKind::kUpdate    ? "verdict"
                         : it.kind == DiffKind::kLoop      ? "trip count from"
                         : it.kind == DiffKind::kParameter ? "parameter"
                                                           : "state";
      std::string a = DiffStateText(c.a_state), b = DiffStateText(c.b_state);
      return fmt::format("{}: {} → {}", what, a.empty() ? "-" : a, b.empty() ? "-" : b);
    }
    case DiffChange::Kind::kShape:
      return fmt::format("{} → {}", c.a_text, c.b_text);
    case DiffChange::Kind::kTripCount:
      return fmt::format("trip count {} → {}", Number(c.a), Number(c.b));
    case DiffChange::Kind::kBytes: {
      const char* per = it.kind == DiffKind::kLoop ? "per iteration" : "per run";
      std::string ratio = it.bytes_ratio ? fmt::format(" (×{})", RatioText(*it.bytes_ratio)) : "";
      return fmt::format("{} → {} {}{}", HumanBytes(c.a), HumanBytes(c.b), per, ratio);
    }
    case DiffChange::Kind::kExecutions:
      return fmt::format("runs {} → {} times per call", Number(c.a), Number(c.b));
  }
  return "";
}

std::vector<std::string> ChangeTexts(const DiffItem& it) {
  std::vector<std::string> out;
  for (const DiffChange& c : it.changes) out.push_back(ChangeText(it, c));
  return out;
}

std::string ModuleLabel(const UnpairedModule& m) {
  return fmt::format("{} {} in {}", m.name, m.entry_signature,
                     m.path.empty() ? std::string("<text>") : m.path);
}

// "linear in buf.1", "quadratic in buf.1", "exponent 1.5 in buf.1".
std::string Law(const DiffItem& it) {
  // A finding that grows by its FLOPs or by what its kernels read whole
  // (its bytes per run flat) follows the law of what grows.
  std::optional<double> largest = it.exponent;
  if (it.grows)
    for (const std::optional<double>& other : {it.flops_exponent, it.whole_read_exponent})
      if (other && (!largest || *other > *largest)) largest = other;
  if (!largest) return "";
  double e = *largest;
  std::string in = it.grows_with.empty() ? "" : " in " + it.grows_with;
  if (std::abs(e - 1) < 0.15) return "linear" + in;
  if (std::abs(e - 2) < 0.2) return "quadratic" + in;
  return fmt::format("exponent {:.2f}{}", e, in);
}

std::string Ratio(double r) { return "×" + RatioText(r); }

// "copy f32[_,_] (read-after-update) ×2 at dumps/make_dumps.py:32"
std::string Label(const DiffItem& it) {
  const DiffSide& s = it.b ? *it.b : *it.a;
  std::string label = it.kind == DiffKind::kUpdate ? "update " + DiffWhatText(it) : DiffWhatText(it);
  if (s.count > 1) label += fmt::format(" ×{}", s.count);
  if (!it.source.empty()) label += " at " + it.source;
  if (s.in_loop && it.kind != DiffKind::kLoop && it.kind != DiffKind::kCarry &&
      it.kind != DiffKind::kParameter)
    label += " (in a loop)";
  return label;
}

const char* PerWhat(const DiffItem& it) {
  return it.kind == DiffKind::kLoop || it.kind == DiffKind::kCarry ? "per iteration" : "per run";
}

// "its kernels read 8.0 MiB → 32.0 MiB of the buffer whole per iteration
// (×4)": a loop's whole reads in A and B.
std::string WholeReadChange(const DiffItem& it) {
  return fmt::format("its kernels read {} → {} of the buffer whole per iteration ({})",
                     HumanBytes(it.a->whole_read_bytes), HumanBytes(it.b->whole_read_bytes),
                     Ratio(it.whole_read_ratio.value_or(1)));
}

// "8.0 MiB → 16.0 MiB per run, ×2 as buf.1 grows ×2 — linear in buf.1"
std::string GrowthText(const ModuleDiff& m, const DiffItem& it) {
  std::string s = fmt::format("{} → {} {}", HumanBytes(it.a->bytes), HumanBytes(it.b->bytes), PerWhat(it));
  if (it.bytes_ratio && m.size_ratio) {
    const SizeChange* sc = nullptr;
    for (const SizeChange& c : m.sizes)
      if (c.name == it.grows_with) sc = &c;
    double r = sc ? sc->ratio : *m.size_ratio;
    s += fmt::format(", {} as {} grows {} — {}", Ratio(*it.bytes_ratio),
                     it.grows_with.empty() ? "the input" : it.grows_with, Ratio(r), Law(it));
  }
  if (it.a->bytes_per_call != it.b->bytes_per_call)
    s +=
        fmt::format("; per call {} → {}", HumanBytes(it.a->bytes_per_call), HumanBytes(it.b->bytes_per_call));
  // A kernel's work: its FLOPs per run, when they grow too (or alone).
  if (it.flops_ratio && std::abs(std::log(*it.flops_ratio)) > std::log(1.05) && it.a->flops && it.b->flops)
    s += fmt::format("; {} → {} per run ({})", HumanFlops(*it.a->flops), HumanFlops(*it.b->flops),
                     Ratio(*it.flops_ratio));
  // A loop's kernels reading its buffer whole.
  if (it.whole_read_ratio && std::abs(std::log(*it.whole_read_ratio)) > std::log(1.05))
    s += "; " + WholeReadChange(it);
  return s;
}

std::string OneSideText(const DiffItem& it, const DiffSide& s) {
  std::string text = fmt::format("{} {}", HumanBytes(s.bytes), PerWhat(it));
  if (it.kind == DiffKind::kLoop && s.trip_count) text += fmt::format(", {} iterations", *s.trip_count);
  if (s.executions && it.kind != DiffKind::kLoop) text += fmt::format(" × {}", *s.executions);
  if (s.bytes_per_call) text += fmt::format(" = {} per call", HumanBytes(s.bytes_per_call));
  if (!s.state.text.empty() && it.kind == DiffKind::kUpdate) text += ", " + s.state.text;
  return text;
}

bool ListedInText(const DiffItem& it) { return it.kind != DiffKind::kParameter; }

std::string Listing(const std::vector<const DiffItem*>& items, size_t max) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < items.size() && i < max; ++i) {
    std::string p = Label(*items[i]);
    if (items[i]->grows) p += " (" + Law(*items[i]) + ")";
    parts.push_back(std::move(p));
  }
  std::string s = fmt::format("{}", fmt::join(parts, "; "));
  if (items.size() > max) s += fmt::format("; and {} more", items.size() - max);
  return s;
}

// The growing finding that moves the most per call in B: a copy, update,
// carry or kernel (a loop's figure is its copies' and rewrites', listed on
// their own), else a loop.
std::string GrowsMostLine(const std::vector<const DiffItem*>& scales) {
  const DiffItem* most = nullptr;
  auto per_call = [](const DiffItem& it) { return it.b->bytes_per_call.value_or(0); };
  for (bool loops : {false, true}) {
    for (const DiffItem* it : scales) {
      if ((it->kind == DiffKind::kLoop) != loops || !it->a || !it->b) continue;
      if (!most || per_call(*it) > per_call(*most)) most = it;
    }
    if (most) break;
  }
  if (!most || scales.size() < 2) return "";
  // A loop that grows only by what its kernels read whole: that figure.
  if (most->kind == DiffKind::kLoop && most->whole_read_exponent &&
      (!most->exponent || *most->whole_read_exponent > *most->exponent))
    return fmt::format("Grows most: {}: {}.", Label(*most), WholeReadChange(*most));
  std::string s = fmt::format("Grows most: {}: {} → {} per call", Label(*most),
                              HumanBytes(most->a->bytes_per_call), HumanBytes(most->b->bytes_per_call));
  if (most->per_call_ratio) s += fmt::format(" ({})", Ratio(*most->per_call_ratio));
  return s + ".";
}

Json SideJson(const std::optional<DiffSide>& side) {
  if (!side) return nullptr;
  const DiffSide& s = *side;
  Json j;
  j["count"] = s.count;
  j["instructions"] = s.instructions;
  j["shape"] = s.shape.empty() ? Json(nullptr) : Json(s.shape);
  j["bytes"] = Opt(s.bytes);
  j["bytes_per_call"] = Opt(s.bytes_per_call);
  j["executions"] = Opt(s.executions);
  j["array_bytes"] = Opt(s.array_bytes);
  j["state"] = s.state.text.empty() ? Json(nullptr) : Json(s.state.text);
  j["scalar"] = s.scalar;
  j["in_loop"] = s.in_loop;
  j["copies_parameter"] = s.tied_parameter.empty() ? Json(nullptr) : Json(s.tied_parameter);
  j["trip_count"] = Opt(s.trip_count);
  j["whole_read_bytes"] = Opt(s.whole_read_bytes);
  j["flops"] = Opt(s.flops);
  return j;
}

}  // namespace

Json OptDouble(const std::optional<double>& d) {
  if (!d || !std::isfinite(*d)) return nullptr;
  return std::round(*d * 1e4) / 1e4;
}

std::vector<std::string> DiffSummaryLines(const ModuleDiff& m) {
  std::vector<const DiffItem*> scales, added, gone;
  for (const DiffItem& it : m.items) {
    if (!ListedInText(it)) continue;
    if (it.grows) scales.push_back(&it);
    if (it.status == DiffStatus::kOnlyInB) added.push_back(&it);
    if (it.status == DiffStatus::kOnlyInA) gone.push_back(&it);
  }
  std::vector<std::string> out;
  if (!m.size_ratio) {
    out.push_back("What scales: the arguments are the same size in A and B; nothing to scale by.");
  } else if (scales.empty()) {
    out.push_back(
        fmt::format("What scales: nothing — no copy, update, loop{} moves more per run as {} grows {}.",
                    m.kernels_compared ? " or kernel" : "", m.size_parameter, Ratio(*m.size_ratio)));
  } else {
    out.push_back(fmt::format("What scales (as {} grows {}): {}.", m.size_parameter, Ratio(*m.size_ratio),
                              Listing(scales, 5)));
    if (std::string most = GrowsMostLine(scales); !most.empty()) out.push_back(std::move(most));
  }
  out.push_back(added.empty() ? "What is new: nothing." : fmt::format("What is new: {}.", Listing(added, 5)));
  if (!gone.empty()) out.push_back(fmt::format("What is gone: {}.", Listing(gone, 5)));
  if (std::string memory = MemoryGrowthLine(m); !memory.empty()) out.push_back(std::move(memory));
  return out;
}

void RenderDiffText(const DiffResult& result, const DiffInputs& inputs, std::ostream& out) {
  if (result.modules.empty())
    out << fmt::format("hloscope diff: no module of {} pairs with one of {}\n", inputs.a, inputs.b);
  // Modules where nothing differs and nothing stands out (JAX's helpers,
  // the clean ones) share one line at the end; JSON lists every one.
  std::vector<std::string> quiet;
  for (const ModuleDiff& m : result.modules) {
    if (result.modules.size() > 1 && !m.stands_out && m.Quiet()) {
      quiet.push_back(m.b_name);
      continue;
    }
    out << fmt::format("{}{}\n", m.b_name, m.a_name == m.b_name ? "" : fmt::format(" (A: {})", m.a_name));
    out << fmt::format("  A  {}  {}\n", m.a_path.empty() ? inputs.a : m.a_path, m.a_signature);
    out << fmt::format("  B  {}  {}\n", m.b_path.empty() ? inputs.b : m.b_path, m.b_signature);
    if (m.a_devices > 1 || m.b_devices > 1)
      out << fmt::format("  Sharded: {} devices in A, {} in B; shapes and byte figures are per device.\n",
                         m.a_devices, m.b_devices);
    for (const SizeChange& sc : m.sizes)
      out << fmt::format("  argument {} {}: {} → {} ({})\n", sc.number, sc.name, sc.a_shape, sc.b_shape,
                         Ratio(sc.ratio));
    for (const std::string& line : DiffSummaryLines(m)) out << "  " << line << "\n";

    std::vector<const DiffItem*> scales, added, gone, changed;
    int64_t unchanged = 0, moved = 0;
    for (const DiffItem& it : m.items) {
      if (it.grows)
        scales.push_back(&it);
      else if (it.status == DiffStatus::kOnlyInB)
        added.push_back(&it);
      else if (it.status == DiffStatus::kOnlyInA)
        gone.push_back(&it);
      else if (it.status == DiffStatus::kChanged)
        changed.push_back(&it);
      else
        ++unchanged;
      if (it.status == DiffStatus::kUnchanged && !it.moved_from.empty()) ++moved;
    }
    if (!scales.empty()) {
      out << "\nGROWS WITH THE ARGUMENTS (bytes per run)\n";
      for (const DiffItem* it : scales)
        out << fmt::format("  {}\n      {}\n", Label(*it), GrowthText(m, *it));
    }
    // Kernels are many and small: the five that move the most per call,
    // then a count (the JSON has all).
    auto section = [&](const char* title, const std::vector<const DiffItem*>& items, bool b_side) {
      if (items.empty()) return;
      out << "\n" << title << "\n";
      int64_t kernels = 0, hidden = 0;
      for (const DiffItem* it : items) {
        if (it->kind == DiffKind::kKernel && ++kernels > 5) {
          ++hidden;
          continue;
        }
        out << fmt::format("  {}\n      {}\n", Label(*it), OneSideText(*it, b_side ? *it->b : *it->a));
      }
      if (hidden) out << fmt::format("  + {} smaller kernel{}\n", hidden, hidden == 1 ? "" : "s");
    };
    section("ONLY IN B (new)", added, true);
    section("ONLY IN A (gone)", gone, false);
    if (!changed.empty()) {
      out << "\nCHANGED\n";
      for (const DiffItem* it : changed)
        out << fmt::format("  {}\n      {}\n", Label(*it), fmt::join(ChangeTexts(*it), "; "));
    }
    RenderMemoryDiffText(m, out);
    out << fmt::format(
        "\n{} finding{} unchanged{}{}\n", unchanged, unchanged == 1 ? "" : "s",
        moved ? fmt::format(" ({} on other lines in B)", moved) : "",
        m.kernels_compared ? "" : "; kernels not compared (a baseline without them: check --kernels)");
  }
  if (!quiet.empty()) {
    constexpr size_t kShown = 6;
    std::vector<std::string> shown(quiet.begin(), quiet.begin() + std::min(quiet.size(), kShown));
    out << fmt::format("\n{} more module{} with nothing changed and nothing standing out: {}{}\n",
                       quiet.size(), quiet.size() == 1 ? "" : "s", fmt::join(shown, ", "),
                       quiet.size() > kShown
                           ? fmt::format(" and {} more (--format json lists them)", quiet.size() - kShown)
                           : "");
  }
  for (const UnpairedModule& s : result.only_in_a)
    out << fmt::format("only in A (no module of B pairs with it): {}\n", ModuleLabel(s));
  for (const UnpairedModule& s : result.only_in_b)
    out << fmt::format("only in B (no module of A pairs with it): {}\n", ModuleLabel(s));
}

void WriteDiffJson(const DiffResult& result, const DiffInputs& inputs,
                   const std::vector<Violation>* regressions, std::ostream& out) {
  Json doc = JsonEnvelope("diff");
  doc["a"] = inputs.a;
  doc["b"] = inputs.b;
  Json modules = Json::array();
  for (const ModuleDiff& m : result.modules) {
    Json j;
    j["a"] = {{"name", m.a_name},
              {"entry_signature", m.a_signature},
              {"path", m.a_path.empty() ? Json(nullptr) : Json(m.a_path)}};
    j["b"] = {{"name", m.b_name},
              {"entry_signature", m.b_signature},
              {"path", m.b_path.empty() ? Json(nullptr) : Json(m.b_path)}};
    Json sizes = Json::array();
    for (const SizeChange& sc : m.sizes)
      sizes.push_back({{"number", sc.number},
                       {"name", sc.name},
                       {"a_shape", sc.a_shape},
                       {"b_shape", sc.b_shape},
                       {"a_bytes", Opt(sc.a_bytes)},
                       {"b_bytes", Opt(sc.b_bytes)},
                       {"ratio", OptDouble(sc.ratio)}});
    j["sizes"] = std::move(sizes);
    j["size_ratio"] = OptDouble(m.size_ratio);
    j["size_parameter"] = m.size_parameter.empty() ? Json(nullptr) : Json(m.size_parameter);
    j["kernels_compared"] = m.kernels_compared;
    Json summary;
    int64_t counts[4] = {0, 0, 0, 0};
    int64_t scales = 0;
    for (const DiffItem& it : m.items) {
      ++counts[static_cast<int>(it.status)];
      scales += it.grows;
    }
    summary["scales"] = scales;
    summary["only_in_a"] = counts[static_cast<int>(DiffStatus::kOnlyInA)];
    summary["only_in_b"] = counts[static_cast<int>(DiffStatus::kOnlyInB)];
    summary["changed"] = counts[static_cast<int>(DiffStatus::kChanged)];
    summary["unchanged"] = counts[static_cast<int>(DiffStatus::kUnchanged)];
    summary["text"] = DiffSummaryLines(m);
    j["summary"] = std::move(summary);
    Json items = Json::array();
    for (const DiffItem& it : m.items) {
      Json i;
      i["kind"] = DiffKindName(it.kind);
      i["status"] = DiffStatusName(it.status);
      i["what"] = DiffWhatText(it);
      i["source"] = it.source.empty() ? Json(nullptr) : Json(it.source);
      i["moved_from"] = it.moved_from.empty() ? Json(nullptr) : Json(it.moved_from);
      i["op_name"] = it.op_name.empty() ? Json(nullptr) : Json(it.op_name);
      i["a"] = SideJson(it.a);
      i["b"] = SideJson(it.b);
      i["bytes_ratio"] = OptDouble(it.bytes_ratio);
      i["per_call_ratio"] = OptDouble(it.per_call_ratio);
      i["exponent"] = OptDouble(it.exponent);
      i["flops_ratio"] = OptDouble(it.flops_ratio);
      i["flops_exponent"] = OptDouble(it.flops_exponent);
      i["whole_read_ratio"] = OptDouble(it.whole_read_ratio);
      i["whole_read_exponent"] = OptDouble(it.whole_read_exponent);
      i["grows"] = it.grows;
      i["grows_with"] = it.grows_with.empty() ? Json(nullptr) : Json(it.grows_with);
      i["changes"] = ChangeTexts(it);
      items.push_back(std::move(i));
    }
    j["items"] = std::move(items);
    j["memory"] = MemoryDiffJson(m);
    modules.push_back(std::move(j));
  }
  doc["modules"] = std::move(modules);
  doc["only_in_a"] = Json::array();
  for (const UnpairedModule& m : result.only_in_a) doc["only_in_a"].push_back(ModuleLabel(m));
  doc["only_in_b"] = Json::array();
  for (const UnpairedModule& m : result.only_in_b) doc["only_in_b"].push_back(ModuleLabel(m));
  if (regressions) {
    Json gate;
    gate["passed"] = regressions->empty();
    Json list = Json::array();
    for (const Violation& v : *regressions)
      list.push_back({{"gate", v.gate ? std::string(EntryOf(*v.gate).name) : std::string()},
                      {"module", v.diff_module ? v.diff_module->b_name : std::string()},
                      {"text", ViolationText(v)}});
    gate["regressions"] = std::move(list);
    doc["gate"] = std::move(gate);
  }
  out << JsonText(doc);
}

std::string DiffJsonText(const DiffResult& result, const DiffInputs& inputs,
                         const std::vector<Violation>* regressions) {
  std::ostringstream out;
  WriteDiffJson(result, inputs, regressions, out);
  return out.str();
}

}  // namespace hloscope
