// The cause table is the policy: its order in the code and in
// docs/analysis.md must be the same, and every rule says which cause it gives.
#include "hloscope/analysis/copy_causes.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "hloscope/report/enum_names.h"

namespace hloscope {
namespace {

// The rows `| N | step | `rule`, `rule` | ...` of docs/analysis.md.
std::vector<std::pair<std::string, std::vector<std::string>>> DocumentedTable() {
  std::ifstream in(std::string(HLOSCOPE_SOURCE_DIR) + "/docs/analysis.md");
  std::vector<std::pair<std::string, std::vector<std::string>>> rows;
  static const std::regex row(R"(^\| (\d+) \| ([^|]+) \| ([^|]+) \|)");
  static const std::regex name("`([a-z\\-]+)`");
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (!std::regex_search(line, m, row)) continue;
    std::string step = m[2].str();
    step = step.substr(0, step.find_last_not_of(' ') + 1);
    std::vector<std::string> rules;
    std::string cell = m[3].str();
    for (auto it = std::sregex_iterator(cell.begin(), cell.end(), name); it != std::sregex_iterator(); ++it)
      rules.push_back((*it)[1].str());
    rows.push_back({step, rules});
  }
  return rows;
}

TEST(CopyCausesTest, CodeAndDocsListTheRulesInTheSameOrder) {
  auto documented = DocumentedTable();
  std::span<const CauseRuleGroup> table = CauseRuleTable();
  ASSERT_EQ(documented.size(), table.size()) << "docs/analysis.md: the cause table";
  for (size_t i = 0; i < table.size(); ++i) {
    EXPECT_EQ(documented[i].first, table[i].name) << "step " << i + 1;
    std::vector<std::string> rules;
    for (CauseRule r : table[i].rules) rules.push_back(std::string(CauseRuleName(r)));
    EXPECT_EQ(documented[i].second, rules) << "step " << i + 1 << " (" << table[i].name << ")";
  }
}

TEST(CopyCausesTest, EveryRuleHasACauseAndOnlyNoneIsUnknown) {
  int rules = 0;
  for (const CauseRuleGroup& g : CauseRuleTable())
    for (CauseRule r : g.rules) {
      ++rules;
      EXPECT_NE(CauseOf(r), CopyCause::kUnknown) << CauseRuleName(r);
    }
  EXPECT_EQ(rules, static_cast<int>(CauseRule::kNone));  // every rule is in the table once
  EXPECT_EQ(CauseOf(CauseRule::kNone), CopyCause::kUnknown);
}

}  // namespace
}  // namespace hloscope
