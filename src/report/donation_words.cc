#include "hloscope/report/donation_words.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <vector>

#include "hloscope/analysis/donation.h"
#include "hloscope/report/wording.h"
#include "hloscope/support/human_bytes.h"
#include "hloscope/support/saturating.h"

namespace hloscope {
namespace {

// The entry result's array leaves, as XLA prints their shapes (no layout).
std::vector<std::string> OutputShapes(const ModuleCheck& m) {
  std::vector<std::string> out;
  for (const Shape* s : EntryOutputLeaves(*m.module)) out.push_back(s->ToString(false));
  return out;
}

// "a, b, c, … 4 more" (at most `shown` named), or "none".
std::string Listed(const std::vector<std::string>& items, size_t shown) {
  if (items.empty()) return "none";
  std::string text = fmt::format(
      "{}", fmt::join(items.begin(), items.begin() + static_cast<long>(std::min(items.size(), shown)), ", "));
  if (items.size() > shown) text += fmt::format(", … {} more", items.size() - shown);
  return text;
}

}  // namespace

std::string DonationColumn(const ParameterFinding& p) {
  if (p.request && p.request->dropped) return "dropped";
  return p.donated() ? "donated" : "not donated";
}

std::string DroppedDonationReason(const ModuleCheck& m, const ParameterFinding& p) {
  if (!p.request || !p.request->dropped) return "";
  std::string shape = p.parameter->shape().ToString(false);
  if (*p.request->dropped == DroppedDonation::kNoOutputOfShape) {
    std::string listed = Listed(OutputShapes(m), 6);
    return fmt::format(
        "no output has its per-device shape and dtype {} (outputs: {}); XLA reuses a donated buffer only "
        "for such an output",
        shape, listed);
  }
  return fmt::format(
      "an output has its shape {}, but XLA did not alias it (another argument took it, or its layout, "
      "memory kind or sharding differs)",
      shape);
}

std::string DroppedDonationsReason(const ModuleCheck& m, const std::vector<const ParameterFinding*>& group) {
  if (group.size() == 1) return DroppedDonationReason(m, *group.front());
  std::vector<std::string> shapes;
  for (const ParameterFinding* p : group) {
    std::string s = p->parameter->shape().ToString(false);
    if (std::find(shapes.begin(), shapes.end(), s) == shapes.end()) shapes.push_back(s);
  }
  std::string listed = Listed(shapes, 4);
  if (*group.front()->request->dropped == DroppedDonation::kNoOutputOfShape) {
    std::string out = Listed(OutputShapes(m), 4);
    return fmt::format(
        "no output has their per-device shapes and dtypes ({}; outputs: {}); XLA reuses a donated buffer "
        "only "
        "for such an output",
        listed, out);
  }
  return fmt::format(
      "outputs have their shapes ({}), but XLA did not alias them (another argument took them, or their "
      "layout, memory kind or sharding differs)",
      listed);
}

std::string DroppedDonationFix(const ParameterFinding& p) {
  if (!p.request || !p.request->dropped) return "";
  if (*p.request->dropped == DroppedDonation::kNoOutputOfShape)
    return "return an output with the argument's shape, dtype and sharding (out_shardings = its "
           "in_shardings), "
           "or do not donate it";
  return "give that output the argument's sharding and memory kind, or do not donate it";
}

std::string DroppedDonationsLine(const ModuleCheck& m) {
  std::vector<std::string> args;
  int64_t bytes = 0;
  for (const ParameterFinding& p : m.parameters) {
    if (!p.request || !p.request->dropped) continue;
    // JAX's name first: the user donated `x`, not HLO parameter 2.
    args.push_back(fmt::format("{} (argument {})", ArgumentName(p.parameter), p.number));
    bytes = SatAdd(bytes, p.bytes.value_or(0));
  }
  if (args.empty()) return "";
  bool one = args.size() == 1;
  // A train state drops every leaf at once: four names and a count.
  constexpr size_t kNamed = 4;
  std::string who = args.size() <= kNamed ? fmt::format("{}", fmt::join(args, ", "))
                                          : fmt::format("{} arguments: {} and {} more", args.size(),
                                                        fmt::join(args.begin(), args.begin() + kNamed, ", "),
                                                        args.size() - kNamed);
  return fmt::format("{}, {}{}, {} donated, but XLA could not reuse {}: {} still needs its own buffer", who,
                     HumanBytes(bytes), m.spmd.devices() > 1 ? " per device" : "", one ? "was" : "were",
                     one ? "it" : "them", one ? "it" : "each");
}

std::string AliasedOutputsText(const ParameterFinding& p) {
  if (p.aliased_outputs.empty()) return "";
  std::vector<std::string> outputs;
  for (const ShapeIndex& o : p.aliased_outputs)
    outputs.push_back(o.empty() ? "the output" : "output " + ShapeIndexToString(o));
  return fmt::format("its memory is reused for {}", fmt::join(outputs, ", "));
}

std::string DonationSavesText(const ModuleCheck& m, const ParameterFinding& p) {
  if (!p.donation_saves || *p.donation_saves <= 0) return "";
  return fmt::format(
      "donating it would save {}{} moved per call: XLA copies it only because it is not donated",
      HumanBytes(*p.donation_saves), m.spmd.devices() > 1 ? " per device" : "");
}

std::string DonationRequestSourceText(const ModuleCheck& m) {
  if (m.donation_request_source.empty()) return "";
  if (m.donation_request_source == "donate_argnums") return "JAX's donate_argnums";
  if (m.donation_request_source == "buffer_donor") return "the module's buffer_donor";
  return fmt::format("module before optimization: {}", Shown(m.donation_request_source));
}

}  // namespace hloscope
