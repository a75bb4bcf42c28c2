// Module structure: names with or without '%', operands with or without
// shapes, ROOT or last-instruction-is-root, headers present or not, ENTRY or
// last-computation-is-entry, execution threads, several modules per input,
// header attributes.
#include <gtest/gtest.h>

#include "parse_helpers.h"

namespace hloscope {
namespace {

using testing::OperandNames;
using testing::ParseErrorLine;
using testing::ParseGroup;
using testing::ParseOne;

TEST(ModuleTest, LongTextWithPercentAndSignature) {
  auto m = ParseOne(R"(HloModule jit_f, entry_computation_layout={(f32[4]{0})->f32[4]{0}}

%add.clone (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %sum = f32[] add(f32[] %x, f32[] %y)
}

ENTRY %main.5 (Arg_0.1: f32[4]) -> f32[4] {
  %Arg_0.1 = f32[4]{0} parameter(0)
  ROOT %neg.2 = f32[4]{0} negate(f32[4]{0} %Arg_0.1)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->name(), "jit_f");
  ASSERT_EQ(m->computations().size(), 2u);
  const HloComputation* add = m->computations()[0];
  EXPECT_EQ(add->name(), "add.clone");
  EXPECT_FALSE(add->is_entry());
  EXPECT_EQ(add->signature(), "(x: f32[], y: f32[]) -> f32[]");
  EXPECT_EQ(add->parameters().size(), 2u);
  EXPECT_EQ(add->parameter(1)->name(), "y");
  EXPECT_EQ(add->parameter(1)->parameter_number(), 1);
  EXPECT_EQ(add->parameter(2), nullptr);
  EXPECT_EQ(OperandNames(*add->root_instruction()), (std::vector<std::string>{"x", "y"}));
  const HloComputation* entry = m->entry_computation();
  EXPECT_EQ(entry->name(), "main.5");
  EXPECT_TRUE(entry->is_entry());
  EXPECT_EQ(entry->root_instruction()->name(), "neg.2");
  EXPECT_EQ(entry->root_instruction()->opcode(), HloOpcode::kNegate);
  EXPECT_EQ(m->GetComputation("add.clone"), add);
  EXPECT_EQ(m->GetComputation("nope"), nullptr);
  EXPECT_EQ(m->instruction_count(), 5);
}

TEST(ModuleTest, ShortParsableWithoutPercentOrOperandShapes) {
  auto m = ParseOne(R"(HloModule m

ENTRY main.5 {
  Arg_0.1 = f32[4]{0} parameter(0)
  constant.2 = f32[] constant(1)
  broadcast.3 = f32[4]{0} broadcast(constant.2), dimensions={}
  ROOT add.4 = f32[4]{0} add(Arg_0.1, broadcast.3)
}
)");
  ASSERT_NE(m, nullptr);
  const HloInstruction* root = m->entry_computation()->root_instruction();
  EXPECT_EQ(OperandNames(*root), (std::vector<std::string>{"Arg_0.1", "broadcast.3"}));
  EXPECT_EQ(m->entry_computation()->GetInstruction("constant.2")->operand_text(), "1");
}

TEST(ModuleTest, NamesWithDotsAndDashes) {
  auto m = ParseOne(R"(
ENTRY %e {
  %param_1.12 = f32[4]{0} parameter(0)
  %dynamic-update-slice.3 = f32[4]{0} copy(%param_1.12)
  ROOT %_x-y.z_ = f32[4]{0} negate(%dynamic-update-slice.3)
})");
  EXPECT_EQ(OperandNames(*m->entry_computation()->root_instruction()),
            (std::vector<std::string>{"dynamic-update-slice.3"}));
}

TEST(ModuleTest, RootIsTheRootInstructionWhereverItIs) {
  auto m = ParseOne(R"(
ENTRY e {
  p = f32[] parameter(0)
  ROOT n = f32[] negate(p)
  unused = f32[] abs(p)
})");
  const HloComputation* e = m->entry_computation();
  EXPECT_EQ(e->root_instruction()->name(), "n");
  EXPECT_TRUE(e->root_instruction()->is_root());
  EXPECT_FALSE(e->GetInstruction("unused")->is_root());
}

TEST(ModuleTest, LastInstructionIsRootWithoutRootKeyword) {
  auto m = ParseOne(R"(
ENTRY e {
  p = f32[] parameter(0)
  n = f32[] negate(p)
})");
  EXPECT_EQ(m->entry_computation()->root_instruction()->name(), "n");
  EXPECT_TRUE(m->entry_computation()->root_instruction()->is_root());
}

TEST(ModuleTest, HeaderlessModuleIsNamedAfterItsEntry) {
  auto m = ParseOne(R"(
fused (p: f32[]) -> f32[] {
  p = f32[] parameter(0)
  ROOT n = f32[] negate(p)
}

ENTRY main {
  a = f32[] parameter(0)
  ROOT f = f32[] fusion(a), kind=kLoop, calls=fused
})");
  EXPECT_EQ(m->name(), "main");
  EXPECT_TRUE(m->attributes().empty());
  EXPECT_EQ(m->entry_computation()->name(), "main");
}

TEST(ModuleTest, LastComputationIsEntryWithoutEntryKeyword) {
  auto m = ParseOne(R"(HloModule m
a {
  ROOT p = f32[] parameter(0)
}
b {
  ROOT p = f32[] parameter(0)
})");
  EXPECT_EQ(m->entry_computation()->name(), "b");
  EXPECT_TRUE(m->computations()[1]->is_entry());
  EXPECT_FALSE(m->computations()[0]->is_entry());
}

TEST(ModuleTest, EntryKeywordWinsOverPosition) {
  auto m = ParseOne(R"(HloModule m
ENTRY a {
  ROOT p = f32[] parameter(0)
}
b {
  ROOT p = f32[] parameter(0)
})");
  EXPECT_EQ(m->entry_computation()->name(), "a");
  EXPECT_FALSE(m->computations()[1]->is_entry());
}

TEST(ModuleTest, ExecutionThread) {
  auto m = ParseOne(R"(HloModule m
%host_fn (p: f32[]) -> f32[] {
  ROOT %p = f32[] parameter(0)
}, execution_thread="host"

ENTRY %e {
  %a = f32[] parameter(0)
  ROOT %s = ((f32[]), f32[], u32[]) async-start(%a), async_execution_thread="host", calls=%host_fn
})");
  EXPECT_EQ(m->computations()[0]->execution_thread(), "host");
  EXPECT_EQ(m->entry_computation()->execution_thread(), "");
  EXPECT_EQ(m->entry_computation()->root_instruction()->fused_computation(), m->computations()[0]);
}

TEST(ModuleTest, SeveralModulesBackToBack) {
  // JAX as_text() of a program with several executables.
  HloModuleGroup g = ParseGroup(R"(HloModule first
ENTRY e {
  ROOT p = f32[] parameter(0)
}

HloModule second, is_scheduled=true
ENTRY e {
  ROOT p = s32[] parameter(0)
}
)");
  ASSERT_EQ(g.modules.size(), 2u);
  EXPECT_EQ(g.modules[0]->name(), "first");
  EXPECT_FALSE(g.modules[0]->is_scheduled());
  EXPECT_EQ(g.modules[1]->name(), "second");
  EXPECT_TRUE(g.modules[1]->is_scheduled());
  // Names are scoped per module: both have a computation 'e'.
  EXPECT_EQ(g.modules[1]->entry_computation()->root_instruction()->shape().ToString(), "s32[]");
  // Instruction ids are dense per module.
  EXPECT_EQ(g.modules[1]->entry_computation()->root_instruction()->id(), 0u);
}

TEST(ModuleTest, SplitInputFileMarkersSeparateHeaderlessModules) {
  HloModuleGroup g = ParseGroup(R"(// RUN: hlo-opt %s --split-input-file | FileCheck %s
ENTRY a {
  ROOT p = f32[] parameter(0)
}

// -----

ENTRY b {
  ROOT p = f32[] parameter(0)
}
// -----
HloModule c
ENTRY c {
  ROOT p = f32[] parameter(0)
}
)");
  ASSERT_EQ(g.modules.size(), 3u);
  EXPECT_EQ(g.modules[0]->name(), "a");
  EXPECT_EQ(g.modules[1]->name(), "b");
  EXPECT_EQ(g.modules[2]->name(), "c");
}

TEST(ModuleTest, LongerDashedCommentsDoNotSplit) {
  HloModuleGroup g = ParseGroup(R"(
a {
  ROOT p = f32[] parameter(0)
}
// ------------------------------
ENTRY b {
  ROOT p = f32[] parameter(0)
})");
  ASSERT_EQ(g.modules.size(), 1u);
  EXPECT_EQ(g.modules[0]->computations().size(), 2u);
}

TEST(ModuleTest, HeaderAttributes) {
  auto m = ParseOne(
      R"(HloModule jit_f, is_scheduled=true, input_output_alias={ {0}: (0, {}, may-alias), {1}: (1, {1,0}, must-alias), {2}: (2, {}) }, buffer_donor={ (3, {}), (4, {0}) }, entry_computation_layout={(f32[4]{0}, f32[4]{0}, /*index=2*/f32[]{:T(128)})->(f32[4]{0}, f32[4]{0})}, replica_count=2, num_partitions=4, frontend_attributes={xla.sdy.meshes="{}"}

ENTRY e {
  ROOT p = f32[] parameter(0)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(m->is_scheduled());
  ASSERT_EQ(m->input_output_aliases().size(), 3u);
  const InputOutputAlias& a0 = m->input_output_aliases()[0];
  EXPECT_EQ(a0.output_index, (ShapeIndex{0}));
  EXPECT_EQ(a0.parameter_number, 0);
  EXPECT_EQ(a0.parameter_index, ShapeIndex{});
  EXPECT_EQ(a0.kind, AliasKind::kMayAlias);
  const InputOutputAlias& a1 = m->input_output_aliases()[1];
  EXPECT_EQ(a1.parameter_number, 1);
  EXPECT_EQ(a1.parameter_index, (ShapeIndex{1, 0}));
  EXPECT_EQ(a1.kind, AliasKind::kMustAlias);
  EXPECT_EQ(m->input_output_aliases()[2].kind, AliasKind::kMayAlias);  // default
  ASSERT_EQ(m->buffer_donors().size(), 2u);
  EXPECT_EQ(m->buffer_donors()[1].parameter_number, 4);
  EXPECT_EQ(m->buffer_donors()[1].parameter_index, (ShapeIndex{0}));
  EXPECT_EQ(m->attribute("entry_computation_layout"),
            "{(f32[4]{0}, f32[4]{0}, /*index=2*/f32[]{:T(128)})->(f32[4]{0}, f32[4]{0})}");
  EXPECT_EQ(m->attribute("replica_count"), "2");
  EXPECT_EQ(m->attribute("num_partitions"), "4");
  EXPECT_EQ(m->attribute("frontend_attributes"), "{xla.sdy.meshes=\"{}\"}");
  EXPECT_EQ(m->attribute("missing"), std::nullopt);
  ASSERT_EQ(m->attributes().size(), 7u);
  EXPECT_EQ(m->attributes()[0].name, "is_scheduled");
}

TEST(ModuleTest, EmptyAliasAndDonorLists) {
  auto m = ParseOne(R"(HloModule m, input_output_alias={}, buffer_donor={ }
ENTRY e {
  ROOT p = f32[] parameter(0)
})");
  EXPECT_TRUE(m->input_output_aliases().empty());
  EXPECT_TRUE(m->buffer_donors().empty());
}

TEST(ModuleTest, HeaderAttributeErrors) {
  EXPECT_EQ(ParseErrorLine("HloModule m, input_output_alias={ {0}: (0, {}, maybe) }\n"
                           "ENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n"),
            "1:48: error: expected 'may-alias' or 'must-alias', found 'm'");
  EXPECT_EQ(ParseErrorLine("HloModule m, input_output_alias=5\n"
                           "ENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n"),
            "1:33: error: expected '{' after input_output_alias=");
  EXPECT_EQ(ParseErrorLine("HloModule m, buffer_donor={ (0, {}) (1, {}) }\n"
                           "ENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n"),
            "1:37: error: expected ',' or '}' in buffer_donor, found '('");
  EXPECT_EQ(ParseErrorLine("HloModule m, is_scheduled\n"),
            "1:26: error: expected '=' after 'is_scheduled', found end of line");
}

TEST(ModuleTest, NameAfterClosingBraceCommentAndColonAfterModuleName) {
  auto m = ParseOne(R"(HloModule m:
%c {
  ROOT %p = f32[] parameter(0)
} // c
ENTRY %e {
  ROOT %p = f32[] parameter(0)
} // e
)");
  EXPECT_EQ(m->name(), "m");
  EXPECT_EQ(m->computations().size(), 2u);
}

TEST(ModuleTest, SourceOffsetsAndLines) {
  auto m = ParseOne(
      "HloModule m\n\nENTRY e {\n  p = f32[] parameter(0)\n"
      "  ROOT n = f32[] negate(p)\n}\n");
  const HloInstruction* n = m->entry_computation()->root_instruction();
  EXPECT_EQ(m->LineOf(n->source_offset()), 5);
  EXPECT_EQ(m->source().substr(n->source_offset(), 1), "n");
  EXPECT_EQ(m->LineOf(m->entry_computation()->source_offset()), 3);
}

TEST(ModuleTest, ParseFileReportsMissingFile) {
  auto r = ParseHloFile("/nonexistent/dir/x.hlo");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().Format(),
            "/nonexistent/dir/x.hlo: error: cannot open file: No such file or directory\n");
}

TEST(ModuleTest, DiagnosticsUseThePathOption) {
  ParseOptions options;
  options.path = "model.hlo";
  auto r = ParseHloText(std::string("ENTRY e {\n  ROOT p = f33[4 parameter(0)\n}\n"), options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().path, "model.hlo");
  EXPECT_EQ(r.error().Format().substr(0, 10), "model.hlo:");
}

}  // namespace
}  // namespace hloscope

namespace hloscope {
namespace {

// header_only: the header's attributes without reading the computations
// (the donation request of a module before optimization).
TEST(ModuleTest, HeaderOnlyReadsTheHeaderAndStopsThere) {
  ParseOptions options;
  options.header_only = true;
  auto r = ParseHloText(std::string("HloModule m, buffer_donor={ (0, {}) }, input_output_alias={ {}: (2, {}, "
                                    "may-alias) }\n\nENTRY e {\n  this is not HLO\n}\n"),
                        options);
  ASSERT_TRUE(r.ok()) << r.error().Format();
  ASSERT_EQ(r->modules.size(), 1u);
  const HloModule& m = *r->modules[0];
  ASSERT_EQ(m.buffer_donors().size(), 1u);
  EXPECT_EQ(m.buffer_donors()[0].parameter_number, 0);
  ASSERT_EQ(m.input_output_aliases().size(), 1u);
  EXPECT_EQ(m.input_output_aliases()[0].parameter_number, 2);
  EXPECT_EQ(m.entry_computation(), nullptr);
  // A module without a header has nothing to give.
  auto headerless = ParseHloText(std::string("ENTRY e {\n  ROOT p = f32[4] parameter(0)\n}\n"), options);
  ASSERT_FALSE(headerless.ok());
  EXPECT_EQ(headerless.error().message, "expected the 'HloModule' header");
}

}  // namespace
}  // namespace hloscope
