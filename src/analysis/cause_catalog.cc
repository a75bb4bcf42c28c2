#include "hloscope/analysis/cause_catalog.h"

#include <array>

namespace hloscope {
namespace {

using enum CopySubject;

constexpr CauseEntry kCauses[] = {
#define CAUSE(id, name, sarif_short, sarif_help) {CopyCause::id, name, sarif_short, sarif_help},
#include "hloscope/analysis/cause_catalog.def"
#undef CAUSE
};

constexpr RuleEntry kRules[] = {
#define RULE(id, name, cause, family, tried_for, detail, hint, checks, example)                  \
  {CauseRule::id, name,   CopyCause::cause, CauseFamily::family, SubjectBits(tried_for), detail, \
   hint,          checks, example},
#include "hloscope/analysis/cause_catalog.def"
#undef RULE
};

constexpr CollectiveCauseEntry kCollectiveCauses[] = {
#define COLLECTIVE_CAUSE(id, name, sarif_short, sarif_help) \
  {CollectiveCause::id, name, sarif_short, sarif_help},
#include "hloscope/analysis/cause_catalog.def"
#undef COLLECTIVE_CAUSE
};

constexpr CollectiveRuleEntry kCollectiveRules[] = {
#define COLLECTIVE_RULE(id, name, cause, family, detail, hint, checks, example) \
  {CollectiveRule::id,                                                          \
   name,                                                                        \
   CollectiveCause::cause,                                                      \
   CollectiveRuleFamily::family,                                                \
   detail,                                                                      \
   hint,                                                                        \
   checks,                                                                      \
   example},
#include "hloscope/analysis/cause_catalog.def"
#undef COLLECTIVE_RULE
};

// The rows are the enums' order (the enums are made from them), so a value
// is its row's index; checked at compile time.
constexpr bool RowsInEnumOrder() {
  for (size_t i = 0; i < std::size(kCauses); ++i)
    if (static_cast<size_t>(kCauses[i].cause) != i) return false;
  for (size_t i = 0; i < std::size(kRules); ++i)
    if (static_cast<size_t>(kRules[i].rule) != i) return false;
  for (size_t i = 0; i < std::size(kCollectiveCauses); ++i)
    if (static_cast<size_t>(kCollectiveCauses[i].cause) != i) return false;
  for (size_t i = 0; i < std::size(kCollectiveRules); ++i)
    if (static_cast<size_t>(kCollectiveRules[i].rule) != i) return false;
  return static_cast<size_t>(CauseRule::kNone) == std::size(kRules) &&
         static_cast<size_t>(CollectiveRule::kNone) == std::size(kCollectiveRules);
}
static_assert(RowsInEnumOrder());

}  // namespace

std::span<const CauseEntry> CauseCatalog() { return kCauses; }
std::span<const CollectiveCauseEntry> CollectiveCauseCatalog() { return kCollectiveCauses; }
std::span<const CollectiveRuleEntry> CollectiveRuleCatalog() { return kCollectiveRules; }

const CollectiveCauseEntry& EntryOf(CollectiveCause cause) {
  size_t i = static_cast<size_t>(cause);
  return i < std::size(kCollectiveCauses)
             ? kCollectiveCauses[i]
             : kCollectiveCauses[static_cast<size_t>(CollectiveCause::kUnknownCollective)];
}

const CollectiveRuleEntry* EntryOf(CollectiveRule rule) {
  size_t i = static_cast<size_t>(rule);
  return i < std::size(kCollectiveRules) ? &kCollectiveRules[i] : nullptr;
}

CollectiveCause CauseOf(CollectiveRule rule) {
  const CollectiveRuleEntry* e = EntryOf(rule);
  return e ? e->cause : CollectiveCause::kUnknownCollective;
}

std::string_view CollectiveCauseName(CollectiveCause cause) { return EntryOf(cause).name; }

std::string_view CollectiveRuleName(CollectiveRule rule) {
  const CollectiveRuleEntry* e = EntryOf(rule);
  return e ? e->name : "none";
}
std::span<const RuleEntry> RuleCatalog() { return kRules; }

const CauseEntry& EntryOf(CopyCause cause) {
  size_t i = static_cast<size_t>(cause);
  return i < std::size(kCauses) ? kCauses[i] : kCauses[static_cast<size_t>(CopyCause::kUnknown)];
}

const RuleEntry* EntryOf(CauseRule rule) {
  size_t i = static_cast<size_t>(rule);
  return i < std::size(kRules) ? &kRules[i] : nullptr;
}

CopyCause CauseOf(CauseRule rule) {
  const RuleEntry* e = EntryOf(rule);
  return e ? e->cause : CopyCause::kUnknown;
}

std::string_view CopyCauseName(CopyCause cause) { return EntryOf(cause).name; }

std::string_view CauseRuleName(CauseRule rule) {
  const RuleEntry* e = EntryOf(rule);
  return e ? e->name : "none";
}

std::string_view CauseFamilyName(CauseFamily family) {
  switch (family) {
    case CauseFamily::kBranch:
      return "branch";
    case CauseFamily::kConstant:
      return "constant";
    case CauseFamily::kParameter:
      return "parameter";
    case CauseFamily::kShared:
      return "shared";
    case CauseFamily::kStaged:
      return "staged";
    case CauseFamily::kRead:
      return "read";
    case CauseFamily::kCarry:
      return "carry";
    case CauseFamily::kOldValue:
      return "old-value";
    case CauseFamily::kOutput:
      return "output";
    case CauseFamily::kLayout:
      return "layout";
    case CauseFamily::kMemorySpace:
      return "memory-space";
    case CauseFamily::kReshaped:
      return "reshaped";
  }
  return "?";
}

std::optional<CopyCause> CopyCauseNamed(std::string_view name) {
  for (const CauseEntry& e : kCauses)
    if (e.name == name) return e.cause;
  return std::nullopt;
}

std::optional<CauseRule> CauseRuleNamed(std::string_view name) {
  if (name == "none") return CauseRule::kNone;
  for (const RuleEntry& e : kRules)
    if (e.name == name) return e.rule;
  return std::nullopt;
}

}  // namespace hloscope
