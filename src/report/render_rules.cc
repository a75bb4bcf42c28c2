#include "hloscope/report/render_rules.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

#include "hloscope/analysis/cause_catalog.h"
#include "hloscope/analysis/policy.h"
#include "hloscope/report/wording_template.h"

namespace hloscope {
namespace {

std::string TriedForText(const RuleEntry& row) {
  std::vector<std::string> kinds;
  if (row.TriedFor(CopySubject::kCopy)) kinds.push_back("copies");
  if (row.TriedFor(CopySubject::kProtectingMove)) kinds.push_back("moves that protect");
  if (row.TriedFor(CopySubject::kMove)) kinds.push_back("other moves");
  if (row.TriedFor(CopySubject::kLayout)) kinds.push_back("layout changes");
  return fmt::format("{}", fmt::join(kinds, ", "));
}

std::string Cell(std::string_view s) {
  std::string out(s);
  for (size_t p = out.find('|'); p != std::string::npos; p = out.find('|', p + 2)) out.replace(p, 1, "\\|");
  return out;
}

}  // namespace

void RenderRulesText(std::ostream& out) {
  out << "Copy causes (what `cause` says; gates and filters use these):\n";
  for (const CauseEntry& c : CauseCatalog()) out << fmt::format("  {:<24} {}\n", c.name, c.sarif_short);
  out << "\nRules, in the order they are tried (the first that matches gives the cause):\n";
  int n = 0;
  for (const RuleEntry& r : RuleCatalog()) {
    out << fmt::format("  {:>2}. {:<28} → {:<22} tried for {}\n", ++n, r.name, CopyCauseName(r.cause),
                       TriedForText(r));
    out << fmt::format("      {}\n", r.checks);
    if (!r.hint.empty()) out << fmt::format("      hint: {}\n", DescribeTemplate(r.hint));
  }
  out << "\nCollective causes (sharded programs; docs/sharding.md):\n";
  for (const CollectiveCauseEntry& c : CollectiveCauseCatalog())
    out << fmt::format("  {:<24} {}\n", c.name, c.sarif_short);
  out << "\nCollective rules, in the order they are tried:\n";
  n = 0;
  for (const CollectiveRuleEntry& r : CollectiveRuleCatalog()) {
    out << fmt::format("  {:>2}. {:<28} → {}\n", ++n, r.name, CollectiveCauseName(r.cause));
    out << fmt::format("      {}\n", r.checks);
    if (!r.hint.empty()) out << fmt::format("      hint: {}\n", DescribeTemplate(r.hint));
  }
  out << "\nGates (--fail-on NAME; --fail is the preset `default`):\n";
  for (const GatePreset& p : GatePresets()) out << fmt::format("  {:<26} (preset) {}\n", p.name, p.help);
  for (const GateEntry& g : GateCatalog()) out << fmt::format("  {:<26} {}\n", g.name, g.help);
}

Json RulesJson() {
  Json doc = JsonEnvelope("rules");
  doc["causes"] = Json::array();
  for (const CauseEntry& c : CauseCatalog())
    doc["causes"].push_back({{"name", c.name}, {"description", c.sarif_short}, {"help", c.sarif_help}});
  doc["rules"] = Json::array();
  for (const RuleEntry& r : RuleCatalog()) {
    Json tried = Json::array();
    for (auto [bit, name] :
         {std::pair{CopySubject::kCopy, "copy"}, std::pair{CopySubject::kProtectingMove, "protecting-move"},
          std::pair{CopySubject::kMove, "move"}, std::pair{CopySubject::kLayout, "layout"}})
      if (r.TriedFor(bit)) tried.push_back(name);
    doc["rules"].push_back({{"name", r.name},
                            {"cause", CopyCauseName(r.cause)},
                            {"family", CauseFamilyName(r.family)},
                            {"tried_for", tried},
                            {"checks", r.checks},
                            {"example", r.example},
                            {"detail", r.detail},
                            {"hint", r.hint}});
  }
  doc["families"] = Json::array();
  for (const RuleEntry& r : RuleCatalog()) {
    std::string name(CauseFamilyName(r.family));
    if (std::find(doc["families"].begin(), doc["families"].end(), name) == doc["families"].end())
      doc["families"].push_back(name);
  }
  doc["collective_causes"] = Json::array();
  for (const CollectiveCauseEntry& c : CollectiveCauseCatalog())
    doc["collective_causes"].push_back(
        {{"name", c.name}, {"description", c.sarif_short}, {"help", c.sarif_help}});
  doc["collective_rules"] = Json::array();
  for (const CollectiveRuleEntry& r : CollectiveRuleCatalog())
    doc["collective_rules"].push_back({{"name", r.name},
                                       {"cause", CollectiveCauseName(r.cause)},
                                       {"checks", r.checks},
                                       {"example", r.example},
                                       {"detail", r.detail},
                                       {"hint", r.hint}});
  doc["gates"] = Json::array();
  for (const GateEntry& g : GateCatalog())
    doc["gates"].push_back({{"name", g.name}, {"help", g.help}, {"diff_only", g.diff_only}});
  doc["presets"] = Json::array();
  for (const GatePreset& p : GatePresets()) {
    Json gates = Json::array();
    for (const GateEntry& g : GateCatalog())
      if (p.gates.Has(g.gate)) gates.push_back(g.name);
    doc["presets"].push_back({{"name", p.name}, {"help", p.help}, {"gates", gates}});
  }
  return doc;
}

void RenderRulesMarkdown(std::ostream& out) {
  out << "| # | rule (`cause_rule`) | cause | tried for | what the code checks | typical JAX code | hint |\n"
      << "|---|---|---|---|---|---|---|\n";
  int n = 0;
  for (const RuleEntry& r : RuleCatalog())
    out << fmt::format("| {} | `{}` | `{}` | {} | {} | {} | {} |\n", ++n, r.name, CopyCauseName(r.cause),
                       TriedForText(r), Cell(r.checks), Cell(r.example),
                       r.hint.empty() ? "—" : Cell(DescribeTemplate(r.hint)));
  out << "\nCollectives (sharded programs, docs/sharding.md), in the order the rules are tried:\n\n"
      << "| # | rule (`cause_rule`) | cause | what the code checks | typical JAX code | hint |\n"
      << "|---|---|---|---|---|---|\n";
  n = 0;
  for (const CollectiveRuleEntry& r : CollectiveRuleCatalog())
    out << fmt::format("| {} | `{}` | `{}` | {} | {} | {} |\n", ++n, r.name, CollectiveCauseName(r.cause),
                       Cell(r.checks), Cell(r.example),
                       r.hint.empty() ? "—" : Cell(DescribeTemplate(r.hint)));
  out << "\n| gate (`--fail-on`) | default | fails when |\n|---|---|---|\n";
  for (const GateEntry& g : GateCatalog())
    out << fmt::format("| `{}` | {} | {} |\n", g.name, DefaultGates().Has(g.gate) ? "yes" : "", Cell(g.help));
}

}  // namespace hloscope
