// The catalog of causes and rules (cause_catalog.def): the enums made from
// its rows, and the rows themselves for whoever needs a column — the cause
// table (analysis/copy_causes.cc) and the collectives' causes
// (analysis/collectives.cc) try the rules in row order, the report layer
// words them from the row's templates, SARIF and the generated docs list
// them. One row per rule; adding a rule is adding a row (HACKING.md).
#ifndef HLOSCOPE_ANALYSIS_CAUSE_CATALOG_H_
#define HLOSCOPE_ANALYSIS_CAUSE_CATALOG_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace hloscope {

// Why a copy exists: what users filter and gate on. A copy whose cause no
// rule explains is kUnknown — never a wrong confident cause.
enum class CopyCause : uint8_t {
#define CAUSE(id, ...) id,
#include "hloscope/analysis/cause_catalog.def"
#undef CAUSE
};

// The rule of the cause table that explained a copy; finer than the cause,
// so the wording can say exactly what happened. kNone: no rule fits.
enum class CauseRule : uint8_t {
#define RULE(id, ...) id,
#include "hloscope/analysis/cause_catalog.def"
#undef RULE
  kNone,
};

// Why a collective is there (the collectives' rows of the catalog).
enum class CollectiveCause : uint8_t {
#define COLLECTIVE_CAUSE(id, ...) id,
#include "hloscope/analysis/cause_catalog.def"
#undef COLLECTIVE_CAUSE
};
enum class CollectiveRule : uint8_t {
#define COLLECTIVE_RULE(id, ...) id,
#include "hloscope/analysis/cause_catalog.def"
#undef COLLECTIVE_RULE
  kNone,
};

// The evidence a rule reads and the facts it states: one matcher per family
// (copy_causes.cc) and one payload type (findings.h, CausePayload).
enum class CauseFamily : uint8_t {
  kBranch,       // BranchFacts
  kConstant,     // ConstantFacts
  kParameter,    // ParameterFacts
  kShared,       // SharedValueFacts
  kStaged,       // StagedCarryFacts
  kRead,         // ReadFacts
  kCarry,        // CarryFacts
  kOldValue,     // CarryFacts
  kOutput,       // OutputFacts
  kLayout,       // LayoutFacts
  kMemorySpace,  // MemorySpaceFacts
  kReshaped,     // ReshapedUpdateFacts
};

// The evidence a collective rule reads: one matcher per family
// (analysis/collectives.cc), which names the rule of its family that matched
// and the facts of CollectiveCauseFacts it states (findings.h).
enum class CollectiveRuleFamily : uint8_t {
  kExplicit,       // the program called a collective (op_name): primitive
  kDynamicAccess,  // a gather read or updated at a run-time index: consumer, from_scatter
  kConstraint,     // with_sharding_constraint (op_name)
  kMaskedIndex,    // an all-reduce of elements masked by device: producer
  kPartialSums,    // an all-reduce of a contraction's partial sums: producer
  kReshard,        // a re-shard for a consumer or for the output: consumer
};

// What kind of copy a rule is tried for; a row's `tried_for` is a set of them.
enum class CopySubject : uint8_t {
  kCopy = 1,            // an ordinary (protective) copy
  kProtectingMove = 2,  // a move between memory spaces that feeds an update or an output
  kMove = 4,            // any other move between memory spaces
  kLayout = 8,          // a layout change (physical transpose)
};
constexpr uint8_t SubjectBits(CopySubject s) { return static_cast<uint8_t>(s); }
constexpr uint8_t SubjectBits(uint8_t bits) { return bits; }
constexpr uint8_t operator|(CopySubject a, CopySubject b) { return SubjectBits(a) | SubjectBits(b); }
constexpr uint8_t operator|(uint8_t a, CopySubject b) { return a | SubjectBits(b); }

struct CauseEntry {
  CopyCause cause;
  std::string_view name;
  std::string_view sarif_short;
  std::string_view sarif_help;
};

struct RuleEntry {
  CauseRule rule;
  std::string_view name;
  CopyCause cause;
  CauseFamily family;
  uint8_t tried_for;         // CopySubject bits
  std::string_view detail;   // wording template (report/wording_template.h)
  std::string_view hint;     // wording template; may expand to "" (no hint)
  std::string_view checks;   // docs: what the code checks
  std::string_view example;  // docs: typical JAX code

  bool TriedFor(CopySubject subject) const { return (tried_for & SubjectBits(subject)) != 0; }
};

struct CollectiveCauseEntry {
  CollectiveCause cause;
  std::string_view name;
  std::string_view sarif_short;
  std::string_view sarif_help;
};

struct CollectiveRuleEntry {
  CollectiveRule rule;
  std::string_view name;
  CollectiveCause cause;
  CollectiveRuleFamily family;
  std::string_view detail;   // wording template
  std::string_view hint;     // wording template; may expand to ""
  std::string_view checks;   // docs
  std::string_view example;  // docs
};

std::span<const CollectiveCauseEntry> CollectiveCauseCatalog();
std::span<const CollectiveRuleEntry> CollectiveRuleCatalog();
const CollectiveCauseEntry& EntryOf(CollectiveCause cause);
const CollectiveRuleEntry* EntryOf(CollectiveRule rule);
CollectiveCause CauseOf(CollectiveRule rule);
std::string_view CollectiveCauseName(CollectiveCause cause);
std::string_view CollectiveRuleName(CollectiveRule rule);

// Every cause and every rule, in catalog order (rules: the order they are tried).
std::span<const CauseEntry> CauseCatalog();
std::span<const RuleEntry> RuleCatalog();

const CauseEntry& EntryOf(CopyCause cause);
// kNone has no row: nullptr.
const RuleEntry* EntryOf(CauseRule rule);

// The cause a rule gives (kUnknown for kNone).
CopyCause CauseOf(CauseRule rule);

// The spellings used in text, JSON and SARIF ("read-after-update"; "none").
std::string_view CopyCauseName(CopyCause cause);
std::string_view CauseRuleName(CauseRule rule);
std::string_view CauseFamilyName(CauseFamily family);
std::optional<CopyCause> CopyCauseNamed(std::string_view name);
std::optional<CauseRule> CauseRuleNamed(std::string_view name);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_CAUSE_CATALOG_H_
