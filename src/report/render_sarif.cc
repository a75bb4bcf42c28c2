#include "hloscope/report/render_sarif.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <unordered_map>

#include "hloscope/analysis/source_origin.h"
#include "hloscope/report/collective_words.h"
#include "hloscope/report/enum_names.h"
#include "hloscope/report/json_model.h"
#include "hloscope/report/wording.h"
#include "hloscope/support/human_bytes.h"
#include "hloscope/support/version.h"

namespace hloscope {
namespace {

constexpr std::string_view kSarifSchema = "https://json.schemastore.org/sarif-2.1.0.json";
constexpr std::string_view kDocs = "https://github.com/hloscope/hloscope/blob/main/docs/";

struct Rule {
  std::string id;
  std::string short_text;
  std::string help;
};

// One rule per copy cause, then the update and verdict rules.
std::vector<Rule> Rules() {
  std::vector<Rule> rules;
  for (const CauseEntry& c : CauseCatalog())
    rules.push_back({fmt::format("copy/{}", c.name), std::string(c.sarif_short), std::string(c.sarif_help)});
  rules.push_back(
      {"update/out-of-place", "An update is not done in place: it writes a whole new array",
       "Make the update's input die at the update (do not read it afterwards) and donate arguments."});
  rules.push_back({"update/full-rewrite", "An update shares its buffer but rewrites all of it",
                   "Update only the rows that change (x.at[i].set) instead of a whole-array where/select."});
  rules.push_back({"verdict/contradicted", "XLA's buffer assignment contradicts hloscope's verdict",
                   "Report it: the verdict is wrong."});
  // Sharded modules: one rule per collective cause, after the rules above
  // (so that their indices do not move).
  for (const CollectiveCauseEntry& c : CollectiveCauseCatalog())
    rules.push_back(
        {fmt::format("collective/{}", c.name), std::string(c.sarif_short), std::string(c.sarif_help)});
  return rules;
}

size_t RuleIndex(const std::vector<Rule>& rules, std::string_view id) {
  for (size_t i = 0; i < rules.size(); ++i)
    if (rules[i].id == id) return i;
  return rules.size() - 1;
}

// A path relative to the first root that holds it, or nullopt.
std::optional<std::string> UnderRoot(const std::string& file, const std::string& root) {
  std::error_code ec;
  std::filesystem::path r = std::filesystem::weakly_canonical(root, ec);
  if (ec) return std::nullopt;
  std::string prefix = r.string();
  if (!prefix.empty() && prefix.back() != '/') prefix += '/';
  // Lexically normal first: "ROOT/../../etc/x.py" starts with ROOT/ but is
  // not under it, and a uri relative to SRCROOT must not climb out of it.
  std::string normal = std::filesystem::path(file).lexically_normal().string();
  if (normal.size() > prefix.size() && normal.compare(0, prefix.size(), prefix) == 0)
    return normal.substr(prefix.size());
  return std::nullopt;
}

Json ArtifactLocation(const std::string& file, const SarifOptions& options) {
  Json loc;
  // One base (SRCROOT): the first root.
  if (!options.source_roots.empty()) {
    if (std::optional<std::string> rel = UnderRoot(file, options.source_roots.front())) {
      loc["uri"] = PathToUri(*rel);
      loc["uriBaseId"] = "SRCROOT";
      return loc;
    }
  }
  loc["uri"] = PathToUri(std::filesystem::path(file).lexically_normal().string());
  return loc;
}

Json Location(const std::optional<SourceLocation>& source, const HloInstruction* instr,
              const SarifOptions& options) {
  Json physical;
  if (source && source->has_line()) {
    physical["artifactLocation"] = ArtifactLocation(source->file, options);
    Json region;
    region["startLine"] = source->line;
    if (source->column > 0) region["startColumn"] = source->column;
    physical["region"] = region;
  } else {
    physical["artifactLocation"] =
        ArtifactLocation(options.input_path.empty() ? "-" : options.input_path, options);
  }
  Json loc;
  loc["physicalLocation"] = physical;
  Json logical;
  logical["name"] = Shown(instr->name());
  logical["fullyQualifiedName"] = Shown(fmt::format("{}/{}", instr->parent()->name(), instr->name()));
  logical["kind"] = "instruction";
  loc["logicalLocations"] = Json::array({logical});
  return loc;
}

Json SarifResult(const std::vector<Rule>& rules, std::string_view rule, std::string_view level,
                 std::string message, const std::optional<SourceLocation>& source,
                 const HloInstruction* instr, const SarifOptions& options, Json properties,
                 std::map<std::string, int>* occurrences) {
  Json r;
  size_t index = RuleIndex(rules, rule);
  r["ruleId"] = rules[index].id;
  r["ruleIndex"] = index;
  r["level"] = level;
  r["message"] = {{"text", Shown(message)}};
  r["locations"] = Json::array({Location(source, instr, options)});
  // Stable across runs and compilations of the same program: what the
  // finding is and where, never the instruction's number.
  // The shape and the occurrence keep two copies of one line apart.
  std::string key = fmt::format("{}|{}|{}|{}", rule, source ? DisplayPath(source->file) : "",
                                source ? source->line : 0, instr->shape().ToString(/*print_layout=*/false));
  r["partialFingerprints"] = {
      {"hloscopeFinding/v1", Shown(fmt::format("{}|{}", key, (*occurrences)[key]++))}};
  r["properties"] = std::move(properties);
  return r;
}

// Does the copy's loop report it as growing with a buffer?
}  // namespace

std::string PathToUri(std::string_view path) {
  std::string out = path.starts_with("/") ? "file://" : "";
  for (unsigned char c : path) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                 c == '.' || c == '_' || c == '~' || c == '/';
    if (plain)
      out += static_cast<char>(c);
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

// Where each instruction stands in the answer (analysis/answer.h): the
// place of the first header that holds it (its first finding, a member or
// a kernel), built once per module; past the end for any other.
static std::unordered_map<const HloInstruction*, size_t> AnswerRanks(const ModuleCheck& m) {
  std::unordered_map<const HloInstruction*, size_t> rank;
  const std::vector<FindingHeader>& ranked = m.answer.ranked;
  for (size_t i = 0; i < ranked.size(); ++i) {
    const FindingHeader& h = ranked[i];
    rank.try_emplace(h.instruction, i);
    for (const CopyFinding* c : h.copies) rank.try_emplace(c->instruction(), i);
    for (const CollectiveFinding* c : h.collectives) rank.try_emplace(c->instruction, i);
    for (const HloInstruction* k : h.kernels) rank.try_emplace(k, i);
  }
  return rank;
}

void WriteCheckSarif(const std::vector<const ModuleCheck*>& modules, const SarifOptions& options,
                     std::ostream& out) {
  std::vector<Rule> rules = Rules();
  Json results = Json::array();
  std::map<std::string, int> occurrences;
  for (const ModuleCheck* m : modules) {
    // Each module's results in the answer's order (analysis/answer.h): a
    // code-scanning view lists what matters first.
    std::vector<std::pair<size_t, Json>> pending;
    std::unordered_map<const HloInstruction*, size_t> ranks = AnswerRanks(*m);
    auto rank_of = [&](const HloInstruction* instruction) {
      auto it = ranks.find(instruction);
      return it == ranks.end() ? m->answer.ranked.size() : it->second;
    };
    for (const CopyFinding& c : m->copies) {
      if (c.minor || c.total_bytes.value_or(c.bytes.value_or(0)) < options.min_bytes) continue;
      bool in_loop = !c.enclosing_loops.empty();
      if (!in_loop && c.cause.cause != CopyCause::kNonDonatedParameter) continue;
      std::string hint = CauseHint(c);
      bool grows = c.grows_with_buffer;
      bool library = OriginOf(c.source).library;
      std::string message =
          fmt::format("{}: {}{}{}.{}", m->module->name(), CopySummaryLine(c),
                      in_loop ? fmt::format(", inside {}", c.enclosing_loops.front()->name()) : "",
                      " — " + CauseDetail(c), hint.empty() ? "" : " Fix: " + hint);
      Json props = {{"module", Shown(m->module->name())},
                    {"bytes", Opt(c.bytes)},
                    {"executions", Opt(c.executions)},
                    {"bytes_per_call", Opt(c.total_bytes)},
                    {"cause", CopyCauseName(c.cause.cause)},
                    {"hint", Shown(hint)},
                    {"grows_with_buffer", grows},
                    {"library", library}};
      // A warning where the copy costs in proportion to a buffer or copies
      // an argument the caller could donate; a note for a fixed-size copy
      // in a loop, or one made inside library code.
      bool serious = grows || c.cause.cause == CopyCause::kNonDonatedParameter;
      std::string_view level = library || !serious ? "note" : "warning";
      Json result = SarifResult(rules, fmt::format("copy/{}", CopyCauseName(c.cause.cause)), level, message,
                                c.source, c.instruction(), options, std::move(props), &occurrences);
      // The reads that force a read-after-update copy, at the lines that
      // read (a code-review annotation there as well as at the write).
      if (c.cause.cause == CopyCause::kReadAfterUpdate) {
        Json related = Json::array();
        for (const InstructionAt& r : c.cause.readers) {
          if (!r.source || !r.source->has_line() || related.size() >= 8) continue;
          Json loc = Location(r.source, r.instruction, options);
          loc["id"] = related.size();
          loc["message"] = {
              {"text", Shown(fmt::format("{} reads the old contents here", r.instruction->name()))}};
          related.push_back(std::move(loc));
        }
        if (!related.empty()) result["relatedLocations"] = std::move(related);
      }
      pending.emplace_back(rank_of(c.instruction()), std::move(result));
    }
    for (const UpdateFinding& u : m->updates) {
      bool contradicted = u.confirmation.confirmed == false;
      if (u.verdict != UpdateVerdict::kOutOfPlace && !u.full_rewrite && !contradicted) continue;
      std::string rule = contradicted                              ? "verdict/contradicted"
                         : u.verdict == UpdateVerdict::kOutOfPlace ? "update/out-of-place"
                                                                   : "update/full-rewrite";
      std::string message = fmt::format("{}: {} is {}{} — {}{}", m->module->name(), UpdateLabel(u.site),
                                        UpdateVerdictName(u.verdict), u.full_rewrite ? " (full rewrite)" : "",
                                        UpdateReason(u), contradicted ? ". " + ConfirmationText(u) : "");
      bool library = OriginOf(u.source).library;
      Json props = {{"module", Shown(m->module->name())},
                    {"verdict", UpdateVerdictName(u.verdict)},
                    {"bytes_written", Opt(u.bytes_written)},
                    {"executions", Opt(u.executions)},
                    {"library", library}};
      pending.emplace_back(rank_of(u.site.owner()),
                           SarifResult(rules, rule, library ? "note" : "warning", message, u.source,
                                       u.site.owner(), options, std::move(props), &occurrences));
    }
    // Loop carries rewritten in full every iteration where that grows with
    // the loop's buffer (the full-rewrites gate): at the body line that
    // rewrites, not at the loop's call.
    for (const LoopFinding& l : m->loops)
      for (const LoopScaling& sc : l.scaling) {
        if (sc.kind != LoopScaling::Kind::kCarryRewritten || !sc.grows_with_buffer || sc.carry < 0 ||
            sc.carry >= static_cast<int64_t>(l.carries.size()))
          continue;
        const InstructionAt& writer = l.carries[sc.carry].update;
        const std::optional<SourceLocation>& at = writer.source ? writer.source : l.source;
        // Library code as check's LOOPS section judges it: by the loop (the
        // rewriting kernel may sit in a thin helper such as jnp.where's
        // jit(_where) on the user's own line).
        bool library = OriginOf(l.source).library;
        std::string message = fmt::format("{}: {}, inside {} — grows with buffer size", m->module->name(),
                                          ScalingText(sc, l), l.loop->name());
        Json props = {{"module", Shown(m->module->name())}, {"bytes", Opt(sc.bytes)},
                      {"loop", Shown(l.loop->name())},      {"carry", sc.carry},
                      {"grows_with_buffer", true},          {"library", library}};
        const HloInstruction* where = writer.instruction ? writer.instruction : l.loop;
        pending.emplace_back(rank_of(where),
                             SarifResult(rules, "update/full-rewrite", library ? "note" : "warning", message,
                                         at, where, options, std::move(props), &occurrences));
      }
    // Collectives the partitioner put inside a loop (not the program's own,
    // not sums of partial results): a warning when it grows with the buffer.
    for (const CollectiveFinding& c : m->collectives) {
      if (c.enclosing_loops.empty() || c.cause.cause == CollectiveCause::kExplicit ||
          c.cause.cause == CollectiveCause::kReduction || c.total_bytes.value_or(0) < options.min_bytes)
        continue;
      std::string hint = CollectiveCauseHint(c);
      bool library = OriginOf(c.source).library;
      std::string message = fmt::format("{}: {}, inside {} — {}{}", m->module->name(),
                                        CollectiveSummaryLine(c), c.enclosing_loops.front()->name(),
                                        CollectiveCauseDetail(c), hint.empty() ? "" : ". Fix: " + hint);
      Json props = {{"module", Shown(m->module->name())},
                    {"family", CollectiveFamilyName(c.family)},
                    {"bytes", Opt(c.bytes)},
                    {"executions", Opt(c.executions)},
                    {"bytes_per_call", Opt(c.total_bytes)},
                    {"per_device", true},
                    {"cause", CollectiveCauseName(c.cause.cause)},
                    {"hint", Shown(hint)},
                    {"grows_with_buffer", c.grows_with_buffer},
                    {"library", library}};
      pending.emplace_back(
          rank_of(c.instruction),
          SarifResult(rules, fmt::format("collective/{}", CollectiveCauseName(c.cause.cause)),
                      library || !c.grows_with_buffer ? "note" : "warning", message, c.source, c.instruction,
                      options, std::move(props), &occurrences));
    }
    std::stable_sort(pending.begin(), pending.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [rank, result] : pending) results.push_back(std::move(result));
  }
  Json driver = {{"name", "hloscope"},
                 {"version", kHloscopeVersion},
                 {"semanticVersion", kHloscopeVersion},
                 {"informationUri", std::string(kDocs) + "report.md"},
                 {"rules", Json::array()}};
  for (const Rule& r : rules)
    driver["rules"].push_back(
        {{"id", r.id},
         {"shortDescription", {{"text", r.short_text}}},
         {"help", {{"text", r.help}}},
         {"helpUri",
          std::string(kDocs) + (r.id.starts_with("collective/") ? "sharding.md" : "analysis.md")}});
  Json run = {{"tool", {{"driver", driver}}}, {"results", results}, {"columnKind", "unicodeCodePoints"}};
  if (!options.source_roots.empty()) {
    std::error_code ec;
    std::string root = std::filesystem::weakly_canonical(options.source_roots.front(), ec).string();
    if (!root.empty() && root.back() != '/') root += '/';
    run["originalUriBaseIds"] = {{"SRCROOT", {{"uri", PathToUri(root)}}}};
  }
  Json doc = {{"$schema", kSarifSchema}, {"version", "2.1.0"}, {"runs", Json::array({run})}};
  out << JsonText(doc);
}

}  // namespace hloscope
