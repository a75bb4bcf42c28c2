// Helpers for the parser tests: parse inline HLO and fail the test with the
// diagnostic when it does not parse; get the formatted diagnostic of input
// that must not parse; compare two modules field by field.
#ifndef HLOSCOPE_TESTS_PARSER_PARSE_HELPERS_H_
#define HLOSCOPE_TESTS_PARSER_PARSE_HELPERS_H_

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "hloscope/parser/parser.h"

namespace hloscope::testing {

// All modules of `text`; an empty group (and a test failure) on error.
inline HloModuleGroup ParseGroup(std::string_view text, const ParseOptions& options = {}) {
  auto r = ParseHloText(std::string(text), options);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().Format());
  return r.ok() ? std::move(r).value() : HloModuleGroup{};
}

// Syntax only: the printer and grammar tests write modules that are not
// valid programs (a fusion of two operands calling a one-parameter
// computation); the verifier (parser/verifier.h) is tested on its own.
inline ParseOptions SyntaxOnly() {
  ParseOptions o;
  o.verify = false;
  return o;
}

// The one module of `text` (test failure if there is not exactly one).
inline std::unique_ptr<HloModule> ParseOne(std::string_view text, const ParseOptions& options = {}) {
  HloModuleGroup g = ParseGroup(text, options);
  EXPECT_EQ(g.modules.size(), 1u);
  if (g.modules.size() != 1) return nullptr;
  return std::move(g.modules[0]);
}

// The Diagnostic::Format() text of input that must fail to parse.
inline std::string ParseError(std::string_view text, const ParseOptions& options = {}) {
  auto r = ParseHloText(std::string(text), options);
  EXPECT_FALSE(r.ok()) << "parsed, expected a diagnostic";
  return r.ok() ? std::string() : r.error().Format();
}

// The "line:col: error: message" part of the diagnostic (first line without
// the "<input>:" prefix).
inline std::string ParseErrorLine(std::string_view text) {
  std::string full = ParseError(text);
  std::string first = full.substr(0, full.find('\n'));
  const std::string prefix = "<input>:";
  if (first.compare(0, prefix.size(), prefix) == 0) first.erase(0, prefix.size());
  return first;
}

// Names of `instr`'s operands, in order.
inline std::vector<std::string> OperandNames(const HloInstruction& instr) {
  std::vector<std::string> names;
  for (const HloInstruction* op : instr.operands()) names.emplace_back(op ? op->name() : "<null>");
  return names;
}

// Describes the first difference between `a` and `b` (as a round trip must
// keep them): empty when equal.
std::string DiffModules(const HloModule& a, const HloModule& b);

}  // namespace hloscope::testing

#endif  // HLOSCOPE_TESTS_PARSER_PARSE_HELPERS_H_
