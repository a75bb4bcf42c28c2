// PrintModule: canonical text (names with '%', no operand shapes, attributes
// verbatim) that parses back to the same IR, for every construct the parser
// accepts, including the ones it rewrites (nested operands, inline
// computations, compact GTE, omitted shapes).
#include "hloscope/ir/printer.h"

#include <gtest/gtest.h>

#include "parse_helpers.h"

namespace hloscope {
namespace {

using testing::DiffModules;
using testing::ParseOne;
using testing::SyntaxOnly;

void ExpectRoundTrip(std::string_view text) {
  auto m = ParseOne(text, SyntaxOnly());
  ASSERT_NE(m, nullptr);
  std::string printed = PrintModule(*m);
  auto again = ParseHloText(printed, SyntaxOnly());
  ASSERT_TRUE(again.ok()) << again.error().Format() << "\n" << printed;
  ASSERT_EQ(again->modules.size(), 1u);
  EXPECT_EQ(DiffModules(*m, *again->modules[0]), "") << printed;
  EXPECT_EQ(PrintModule(*again->modules[0]), printed);
}

TEST(PrinterTest, CanonicalText) {
  auto m = ParseOne(R"(HloModule m, is_scheduled=true

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(f32[] x, f32[] y)
}

ENTRY main (p: f32[4]) -> f32[] {
  p = f32[4]{0} parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=add, metadata={op_name="r"}
}
)");
  EXPECT_EQ(PrintModule(*m), R"(HloModule m, is_scheduled=true

%add {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %s = f32[] add(%x, %y)
}

ENTRY %main (p: f32[4]) -> f32[] {
  %p = f32[4]{0} parameter(0)
  %z = f32[] constant(0)
  ROOT %r = f32[] reduce(%p, %z), dimensions={0}, to_apply=add, metadata={op_name="r"}
}

)");
}

TEST(PrinterTest, RoundTripsStackFramesAndExecutionThreads) {
  ExpectRoundTrip(R"(HloModule m, input_output_alias={ {}: (0, {}, must-alias) }, buffer_donor={ (0, {}) }
FileNames
1 "a\"b.py"
FunctionNames
1 "f"
FileLocations
1 {file_name_id=1 function_name_id=1 line=3 end_line=4 column=5 end_column=6}
StackFrames
1 {file_location_id=1 parent_frame_id=1}
2 {file_location_id=1 parent_frame_id=2}
%h {
  ROOT %p = f32[] parameter(0)
}, execution_thread="host"
ENTRY %e {
  ROOT %p = f32[] parameter(0), metadata={op_name="x" stack_frame_id=2}
})");
}

TEST(PrinterTest, RoundTripsUnshiftedParentFrames) {
  ExpectRoundTrip(R"(HloModule m
FileLocations
1 {file_name_id=1 function_name_id=1 line=3}
StackFrames
1 {file_location_id=1 parent_frame_id=0}
2 {file_location_id=1 parent_frame_id=1}
ENTRY %e {
  ROOT %p = f32[] parameter(0)
})");
}

TEST(PrinterTest, RoundTripsATableWithoutFrames) {
  // Only FunctionNames: still printed (it used to be dropped).
  ExpectRoundTrip("HloModule m\nFunctionNames\n1 \"f\"\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n");
}

TEST(PrinterTest, RoundTripsRewrittenConstructs) {
  ExpectRoundTrip(R"(
ENTRY e {
  p = (f32[4]{0}, (s32[], f32[4]{0})) parameter(0)
  a = f32[4]{0} add(negate(negate(p#0)), p#1#1)
  n = negate(a)
  ROOT f = f32[4]{0} fusion(a, n), kind=kLoop, calls={
    x = f32[4]{0} parameter(0)
    ROOT y = f32[4]{0} abs(x)
  }
})");
}

TEST(PrinterTest, RoundTripsDynamicShapesAndLayouts) {
  ExpectRoundTrip(R"(
ENTRY e {
  p = f32[?,<=4,2]{2,1,0:T(2,128)E(32)S(1)} parameter(0)
  b = b(s4[8]{0:E(4)}) custom-call(), custom_call_target="CreateBuffer"
  t = token[] after-all()
  ROOT r = (f32[?,<=4,2]{2,1,0:T(2,128)E(32)S(1)}, b(s4[8]{0:E(4)}), token[], opaque[]) tuple(p, b, t, t)
})");
}

// The round-trip checks are only as good as DiffModules: it must notice a
// change in any compared field.
TEST(PrinterTest, DiffModulesSeesEveryKindOfDifference) {
  const std::string base = R"(HloModule m
FileNames
1 "a.py"
c {
  ROOT x = f32[] parameter(0)
}
ENTRY e {
  p = f32[2]{0} parameter(0)
  ROOT n = f32[2]{0} negate(p), metadata={op_name="n" stack_frame_id=1}, to_apply=c
})";
  auto a = ParseOne(base, SyntaxOnly());
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(DiffModules(*a, *ParseOne(base, SyntaxOnly())), "");
  for (auto [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"HloModule m", "HloModule m2"},
           {"HloModule m", "HloModule m, is_scheduled=true"},
           {"\"a.py\"", "\"b.py\""},
           {"f32[2]{0} negate", "f32[2]{1} negate"},
           {"negate(p)", "abs(p)"},
           {"op_name=\"n\"", "op_name=\"m\""},
           {"stack_frame_id=1", "stack_frame_id=2"},
           {"to_apply=c", "calls=c"},
           {"  p = f32[2]{0} parameter(0)\n  ROOT n", "  ROOT p = f32[2]{0} parameter(0)\n  n"},
           {"c {\n  ROOT x = f32[] parameter(0)\n}\nENTRY e {",
            "ENTRY c {\n  ROOT x = f32[] parameter(0)\n}\ne {"},
           {"parameter(0)\n  ROOT n", "parameter(0)\n  q = f32[] constant(1)\n  ROOT n"},
       }) {
    std::string changed = base;
    size_t at = changed.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    changed.replace(at, from.size(), to);
    auto b = ParseOne(changed, SyntaxOnly());
    ASSERT_NE(b, nullptr) << changed;
    EXPECT_NE(DiffModules(*a, *b), "") << from << " -> " << to;
  }
}

TEST(PrinterTest, PrintInstruction) {
  auto m = ParseOne(R"(
ENTRY e {
  p = f32[4]{0} parameter(0)
  ROOT c = f32[4]{0} custom-call(f32[4]{0} p, p), custom_call_target="foo", backend_config={"a":1}
})");
  EXPECT_EQ(PrintInstruction(*m->entry_computation()->root_instruction()),
            R"(ROOT %c = f32[4]{0} custom-call(%p, %p), custom_call_target="foo", backend_config={"a":1})");
  EXPECT_EQ(PrintInstruction(*m->entry_computation()->GetInstruction("p")), "%p = f32[4]{0} parameter(0)");
}

}  // namespace
}  // namespace hloscope
