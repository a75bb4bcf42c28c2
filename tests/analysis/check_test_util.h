// Helpers for the analysis tests: parse inline HLO, run the check, look
// findings up by the instruction's name.
#ifndef HLOSCOPE_TESTS_ANALYSIS_CHECK_TEST_UTIL_H_
#define HLOSCOPE_TESTS_ANALYSIS_CHECK_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hloscope/analysis/check.h"
#include "hloscope/analysis/execution_counts.h"
#include "hloscope/ir/name_index.h"
#include "hloscope/parser/parser.h"

namespace hloscope::testing {

// A while loop whose trip count is data-dependent (the condition compares
// the counter with itself): everything inside runs an unknown number of
// times. The body copies an f32[8] carry (%cb) every iteration.
inline constexpr char kUnknownTripCountLoop[] = R"(
HloModule m
%body (t: (s32[], f32[8])) -> (s32[], f32[8]) {
  %t = (s32[], f32[8]{0}) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %b = f32[8]{0} get-tuple-element(%t), index=1
  %cb = f32[8]{0} copy(%b)
  %n = f32[8]{0} negate(%cb)
  ROOT %r = (s32[], f32[8]{0}) tuple(%i, %n)
}
%cond (t: (s32[], f32[8])) -> pred[] {
  %t = (s32[], f32[8]{0}) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %lim = s32[] get-tuple-element(%t), index=0
  ROOT %lt = pred[] compare(%i, %lim), direction=LT
}
ENTRY %main (n: s32[], x: f32[8]) -> (s32[], f32[8]) {
  %n = s32[] parameter(0)
  %x = f32[8]{0} parameter(1)
  %init = (s32[], f32[8]{0}) tuple(%n, %x)
  ROOT %w = (s32[], f32[8]{0}) while(%init), condition=%cond, body=%body
}
)";

inline std::unique_ptr<HloModule> ParseOne(const std::string& text) {
  auto group = ParseHloText(text);
  if (!group.ok()) {
    ADD_FAILURE() << group.error().Format();
    return nullptr;
  }
  EXPECT_EQ(group->modules.size(), 1u);
  return std::move(group->modules.front());
}

inline ModuleCheck Check(const HloModule& module, const CheckOptions& options = {}) {
  ExecutionCounts counts = ExecutionCounts::Run(module);
  return CheckModule(module, counts, options);
}

// The instruction named `name` (NAME or COMPUTATION/NAME), by the module's
// own name index; nullptr when there is none.
inline const HloInstruction* InstructionNamed(const HloModule& m, std::string_view name) {
  return m.names().Resolve(name).instruction;
}

inline std::string Name(const HloInstruction* instr) {
  return instr ? std::string(instr->name()) : std::string();
}

inline std::vector<std::string> Names(const std::vector<const HloInstruction*>& instrs) {
  std::vector<std::string> out;
  for (const HloInstruction* i : instrs) out.push_back(Name(i));
  return out;
}

inline const CopyFinding* FindCopy(const ModuleCheck& m, const std::string& name) {
  for (const CopyFinding& c : m.copies)
    if (c.instruction()->name() == name) return &c;
  return nullptr;
}

inline const UpdateFinding* FindUpdate(const ModuleCheck& m, const std::string& name) {
  for (const UpdateFinding& u : m.updates)
    if (u.instruction()->name() == name) return &u;
  return nullptr;
}

// The name of the copy an update runs on; "" if none.
inline std::string RunsOn(const UpdateFinding& u) { return u.runs_on ? Name(u.runs_on->instruction) : ""; }

// A fori_loop writing one element of an f32[1024] buffer per iteration
// through a fused dynamic-update-slice (train.py:41), as XLA prints it: the
// shape the rule, policy and wording tests share. `header` follows
// `HloModule m` (donation), `init` builds `%init` from `%buf` and `%zero`,
// `body_extra` goes into the body before its root, and the entry returns
// `result_type` through `entry_tail` (by default the loop's buffer).
struct DusLoop {
  std::string header = {};
  std::string init = {};
  std::string body_extra = {};
  std::string result_type = "f32[1024]";
  std::string entry_tail = "  ROOT %out = f32[1024]{0} get-tuple-element(%w), index=1\n";
};

inline std::string DusLoopModule(const DusLoop& l) {
  return "HloModule m" + l.header + R"(
%fused (p0: f32[1024], p1: s32[]) -> f32[1024] {
  %p0 = f32[1024]{0} parameter(0)
  %p1 = s32[] parameter(1)
  %c = f32[1]{0} constant({1})
  ROOT %dus = f32[1024]{0} dynamic-update-slice(%p0, %c, %p1), metadata={op_name="jit(f)/scatter" source_file="train.py" source_line=41}
}
%body (t: (s32[], f32[1024])) -> (s32[], f32[1024]) {
  %t = (s32[], f32[1024]{0}) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %b = f32[1024]{0} get-tuple-element(%t), index=1
  %one = s32[] constant(1)
  %upd = f32[1024]{0} fusion(%b, %i), kind=kLoop, calls=%fused
  %next = s32[] add(%i, %one)
)" + l.body_extra +
         R"(  ROOT %r = (s32[], f32[1024]{0}) tuple(%next, %upd)
}
%cond (t: (s32[], f32[1024])) -> pred[] {
  %t = (s32[], f32[1024]{0}) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %n = s32[] constant(100)
  ROOT %lt = pred[] compare(%i, %n), direction=LT
}
ENTRY %main (buf: f32[1024]) -> )" +
         l.result_type + R"( {
  %buf = f32[1024]{0} parameter(0)
  %zero = s32[] constant(0)
)" + l.init +
         R"(
  %w = (s32[], f32[1024]{0}) while(%init), condition=%cond, body=%body
)" + l.entry_tail +
         "}\n";
}

}  // namespace hloscope::testing

#endif  // HLOSCOPE_TESTS_ANALYSIS_CHECK_TEST_UTIL_H_
