// The catalog (analysis/cause_catalog.def) as the report layer reads it:
// every rule gives a known cause, every template parses, and every value
// and flag a row's templates use is one its family's words supply — so a
// misspelt `{name}` in a row fails here instead of printing "?".
#include "hloscope/analysis/cause_catalog.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "hloscope/report/cause_words.h"
#include "hloscope/report/wording_template.h"

namespace hloscope {
namespace {

// A payload of each family, for asking its words which names they supply.
CausePayload PayloadOf(CauseFamily family) {
  switch (family) {
    case CauseFamily::kBranch:
      return BranchFacts{};
    case CauseFamily::kConstant:
      return ConstantFacts{};
    case CauseFamily::kParameter:
      return ParameterFacts{};
    case CauseFamily::kShared:
      return SharedValueFacts{};
    case CauseFamily::kStaged:
      return StagedCarryFacts{};
    case CauseFamily::kRead:
      return ReadFacts{};
    case CauseFamily::kCarry:
    case CauseFamily::kOldValue:
      return CarryFacts{};
    case CauseFamily::kOutput:
      return OutputFacts{};
    case CauseFamily::kLayout:
      return LayoutFacts{};
    case CauseFamily::kMemorySpace:
      return MemorySpaceFacts{};
    case CauseFamily::kReshaped:
      return ReshapedUpdateFacts{};
  }
  return std::monostate{};
}

// The names a family's words can supply: the values it sets, and every flag
// it knows (flags are set only when they hold, so they are listed here).
std::set<std::string> KnownFlags() {
  return {"in_loop",   "copy_in_loop",      "array",  "read",      "buffer_donor", "one_reader",
          "unordered", "several_unordered", "merged", "passed_on", "has_readers",  "scalar_carry",
          "no_output", "space_move",        "sliced", "same_dims", "scanned"};
}

TEST(CauseCatalogTest, EveryRuleGivesAKnownCauseAndHasANameOfItsOwn) {
  std::set<std::string_view> names;
  for (const RuleEntry& row : RuleCatalog()) {
    EXPECT_NE(row.cause, CopyCause::kUnknown) << row.name;
    EXPECT_TRUE(names.insert(row.name).second) << "two rules named " << row.name;
    EXPECT_NE(row.tried_for, 0) << row.name << " is tried for nothing";
    EXPECT_FALSE(row.detail.empty()) << row.name;
    EXPECT_FALSE(row.checks.empty()) << row.name;
    EXPECT_EQ(CauseRuleNamed(row.name), row.rule);
    EXPECT_EQ(EntryOf(row.rule), &row);
  }
  EXPECT_EQ(CauseOf(CauseRule::kNone), CopyCause::kUnknown);
  EXPECT_EQ(CauseRuleName(CauseRule::kNone), "none");
  for (const CauseEntry& c : CauseCatalog()) EXPECT_EQ(CopyCauseNamed(c.name), c.cause);
}

TEST(CauseCatalogTest, EveryNameATemplateUsesIsSuppliedByItsFamily) {
  Shape shape;
  for (const RuleEntry& row : RuleCatalog()) {
    CopyFinding c;
    c.shape = &shape;
    c.source_shape = &shape;
    c.cause.rule = row.rule;
    c.cause.cause = row.cause;
    c.cause.payload = PayloadOf(row.family);
    WordArgs words = CauseWords(c);
    for (std::string_view text : {row.detail, row.hint}) {
      TemplateNames used = NamesIn(text);
      for (const std::string& v : used.values)
        EXPECT_TRUE(words.values.count(v))
            << row.name << ": {" << v << "} is not a value of its family's words";
      for (const std::string& f : used.flags)
        EXPECT_TRUE(KnownFlags().count(f)) << row.name << ": flag " << f;
    }
  }
}

TEST(WordingTemplateTest, FillsValuesAndNestedConditions) {
  WordArgs w;
  w.Set("x", "{1,0}").Set("n", "3").Flag("yes", true);
  EXPECT_EQ(FillTemplate("layout {x}", w), "layout {1,0}");
  EXPECT_EQ(FillTemplate("{?yes:a {n}|b}", w), "a 3");
  EXPECT_EQ(FillTemplate("{?no:a|b {n}}", w), "b 3");
  EXPECT_EQ(FillTemplate("{?no:a}.", w), ".");
  EXPECT_EQ(FillTemplate("{?yes:{?no:x|y}|z}", w), "y");
  EXPECT_EQ(FillTemplate("{missing}", w), "?");
  EXPECT_EQ(FillTemplate("unbalanced {x", w), "unbalanced {x");
  TemplateNames names = NamesIn("{?a:{b}|{?c:d}}{e}");
  EXPECT_EQ(names.values, (std::set<std::string>{"b", "e"}));
  EXPECT_EQ(names.flags, (std::set<std::string>{"a", "c"}));
}

}  // namespace
}  // namespace hloscope
