// Helpers for the check tests: parse inline HLO, look findings up by name.
#ifndef HLOSCOPE_TESTS_ANALYSIS_CHECK_TEST_UTIL_H_
#define HLOSCOPE_TESTS_ANALYSIS_CHECK_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "hloscope/analysis/check.h"
#include "hloscope/parser/parser.h"

namespace hloscope::testing {

inline std::unique_ptr<HloModule> ParseOne(const std::string& text) {
  auto group = ParseHloText(text);
  if (!group.ok()) {
    ADD_FAILURE() << group.error().Format();
    return nullptr;
  }
  EXPECT_EQ(group->modules.size(), 1u);
  return std::move(group->modules.front());
}

inline const CopyFinding* FindCopy(const ModuleCheck& m, const std::string& name) {
  for (const CopyFinding& c : m.copies)
    if (c.instruction == name) return &c;
  return nullptr;
}

inline const UpdateFinding* FindUpdate(const ModuleCheck& m, const std::string& name) {
  for (const UpdateFinding& u : m.updates)
    if (u.instruction == name) return &u;
  return nullptr;
}

}  // namespace hloscope::testing

#endif  // HLOSCOPE_TESTS_ANALYSIS_CHECK_TEST_UTIL_H_
