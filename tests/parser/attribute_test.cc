// Instruction attributes of every value kind (kept verbatim), comments,
// unknown opcodes and attributes, called computations and their roles,
// users/operands, control predecessors, compact GTE and nested operands.
#include <gtest/gtest.h>

#include <set>

#include "hloscope/ir/printer.h"
#include "parse_helpers.h"

namespace hloscope {
namespace {

using testing::OperandNames;
using testing::ParseErrorLine;
using testing::ParseOne;

// Parses a module and returns the attribute `name` of instruction `instr`
// of the entry computation.
std::string AttrOf(const HloModule& m, std::string_view instr, std::string_view name) {
  const HloInstruction* i = m.entry_computation()->GetInstruction(instr);
  if (!i) return "<no instruction>";
  std::optional<std::string_view> v = i->attribute(name);
  return v ? std::string(*v) : "<absent>";
}

TEST(AttributeTest, EveryValueKindIsKeptVerbatim) {
  auto m = ParseOne(R"(HloModule m
%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %a = f32[] add(%x, %y)
}
ENTRY %e (p: f32[8,8]) -> f32[8,8] {
  %p = f32[8,8]{1,0} parameter(0), sharding={devices=[2,1]0,1}
  %b = f32[8,8]{1,0} custom-call(%p), custom_call_target="__cublas$gemm", backend_config={"alpha_real":1,"nested":{"k":"v","list":[1,2,{"x":"}"}]}}
  %q = f32[8,8]{1,0} custom-call(%p), custom_call_target="old", backend_config="{\"alpha_real\":3}"
  %ar = f32[8,8]{1,0} all-reduce(%p), channel_id=1, replica_groups={{0,1},{2,3}}, use_global_device_ids=true, to_apply=%add
  %ar2 = f32[8,8]{1,0} all-reduce(%p), replica_groups=[2,2]<=[4]T(1,0), to_apply=%add
  %ag = f32[16,8]{1,0} all-gather(%p), replica_groups=[4,2]<=[2,4]T(1,0), dimensions={0}
  %conv = f32[8,8]{1,0} convolution(%p, %p), window={size=3x3 stride=1x1 pad=1_1x1_1 lhs_dilate=1x1}, dim_labels=b01f_01io->b01f
  %sl = f32[2,4]{1,0} slice(%p), slice={[0:2], [0:8:2]}
  %pad = f32[9,9]{1,0} pad(%p, %p), padding=0_1x0_1_0
  %cmp = pred[8,8]{1,0} compare(%p, %p), direction=LT, type=TOTALORDER
  %fa = f32[8,8]{1,0} copy(%p), frontend_attributes={_xla_compute_type="host",_xla_stream_annotation="1",json={"a":[1,{"b":2}]}}
  %sh = f32[8,8]{1,0} copy(%p), sharding={{replicated}, {maximal device=0}, {devices=[2,1]<=[2] last_tile_dim_replicate metadata={op_name="s"}}}
  %cp = f32[8,8]{1,0} collective-permute(%p), source_target_pairs={{0,1},{1,0}}, channel_id=2
  ROOT %d = f32[8,8]{1,0} dot(%ar, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}, operand_precision={highest,default}, algorithm=dot_bf16_bf16_f32
})");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(AttrOf(*m, "p", "sharding"), "{devices=[2,1]0,1}");
  EXPECT_EQ(AttrOf(*m, "b", "custom_call_target"), "\"__cublas$gemm\"");
  EXPECT_EQ(AttrOf(*m, "b", "backend_config"),
            R"({"alpha_real":1,"nested":{"k":"v","list":[1,2,{"x":"}"}]}})");
  EXPECT_EQ(m->entry_computation()->GetInstruction("b")->backend_config(),
            R"({"alpha_real":1,"nested":{"k":"v","list":[1,2,{"x":"}"}]}})");
  EXPECT_EQ(AttrOf(*m, "q", "backend_config"), R"("{\"alpha_real\":3}")");
  EXPECT_EQ(AttrOf(*m, "ar", "replica_groups"), "{{0,1},{2,3}}");
  EXPECT_EQ(AttrOf(*m, "ar", "use_global_device_ids"), "true");
  EXPECT_EQ(AttrOf(*m, "ar", "to_apply"), "%add");
  EXPECT_EQ(AttrOf(*m, "ar2", "replica_groups"), "[2,2]<=[4]T(1,0)");
  EXPECT_EQ(AttrOf(*m, "ag", "replica_groups"), "[4,2]<=[2,4]T(1,0)");
  EXPECT_EQ(AttrOf(*m, "ag", "dimensions"), "{0}");
  EXPECT_EQ(AttrOf(*m, "conv", "window"), "{size=3x3 stride=1x1 pad=1_1x1_1 lhs_dilate=1x1}");
  EXPECT_EQ(AttrOf(*m, "conv", "dim_labels"), "b01f_01io->b01f");
  EXPECT_EQ(AttrOf(*m, "sl", "slice"), "{[0:2], [0:8:2]}");
  EXPECT_EQ(AttrOf(*m, "pad", "padding"), "0_1x0_1_0");
  EXPECT_EQ(AttrOf(*m, "cmp", "direction"), "LT");
  EXPECT_EQ(AttrOf(*m, "cmp", "type"), "TOTALORDER");
  EXPECT_EQ(AttrOf(*m, "fa", "frontend_attributes"),
            R"({_xla_compute_type="host",_xla_stream_annotation="1",json={"a":[1,{"b":2}]}})");
  EXPECT_EQ(
      AttrOf(*m, "sh", "sharding"),
      R"({{replicated}, {maximal device=0}, {devices=[2,1]<=[2] last_tile_dim_replicate metadata={op_name="s"}}})");
  EXPECT_EQ(AttrOf(*m, "cp", "source_target_pairs"), "{{0,1},{1,0}}");
  EXPECT_EQ(AttrOf(*m, "d", "operand_precision"), "{highest,default}");
  EXPECT_EQ(AttrOf(*m, "d", "algorithm"), "dot_bf16_bf16_f32");
  EXPECT_EQ(AttrOf(*m, "d", "nonexistent"), "<absent>");
  // Attribute order is text order.
  const HloInstruction* d = m->entry_computation()->root_instruction();
  ASSERT_EQ(d->attributes().size(), 4u);
  EXPECT_EQ(d->attributes()[0].name, "lhs_contracting_dims");
  EXPECT_EQ(d->attributes()[3].name, "algorithm");
}

TEST(AttributeTest, Literals) {
  auto m = ParseOne(R"(
ENTRY e {
  c0 = f32[] constant(0)
  c1 = f32[3]{0} constant({1, 2.5, -3e-07})
  c2 = s32[2,2]{1,0} constant({ { 1, 2 }, { 3, 4 } })
  c3 = f32[100]{0} constant({...})
  c4 = f32[3]{0} constant({nan, -inf, inf})
  c5 = f32[2]{0} constant({nan(0x7fff), -nan(0x1)})
  c6 = pred[] constant(true)
  c7 = c64[] constant((1, -2))
  c8 = (f32[], s32[2]{0}) constant((1, {2, 3}))
  ROOT cc = s32[2]{0} custom-call(), custom_call_target="x", literal=s32[2]{0} {1, 2}
})");
  ASSERT_NE(m, nullptr);
  const HloComputation* e = m->entry_computation();
  EXPECT_EQ(e->GetInstruction("c0")->operand_text(), "0");
  EXPECT_EQ(e->GetInstruction("c1")->operand_text(), "{1, 2.5, -3e-07}");
  EXPECT_EQ(e->GetInstruction("c2")->operand_text(), "{ { 1, 2 }, { 3, 4 } }");
  EXPECT_EQ(e->GetInstruction("c3")->operand_text(), "{...}");
  EXPECT_EQ(e->GetInstruction("c4")->operand_text(), "{nan, -inf, inf}");
  EXPECT_EQ(e->GetInstruction("c5")->operand_text(), "{nan(0x7fff), -nan(0x1)}");
  EXPECT_EQ(e->GetInstruction("c6")->operand_text(), "true");
  EXPECT_EQ(e->GetInstruction("c7")->operand_text(), "(1, -2)");
  EXPECT_EQ(e->GetInstruction("c8")->operand_text(), "(1, {2, 3})");
  EXPECT_EQ(e->GetInstruction("c8")->operand_count(), 0);
  EXPECT_EQ(AttrOf(*m, "cc", "literal"), "s32[2]{0} {1, 2}");
}

TEST(AttributeTest, Comments) {
  auto m = ParseOne(R"(// leading comment
HloModule m /* block
comment */, is_scheduled=true // trailing

/* before a computation */ ENTRY e {
  // a line comment
  p = (f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[]) parameter(0) // after
  a = f32[] get-tuple-element(/*operand*/ p), index=5
  ROOT t = (f32[], f32[]) tuple(a /* a comment, not a name */, a)
  /* a comment with } and { braces */
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(m->is_scheduled());
  EXPECT_EQ(m->entry_computation()->instruction_count(), 3);
}

TEST(AttributeTest, CommentsInsideAndAfterAttributeValues) {
  auto m = ParseOne(R"(
ENTRY e {
  p = (f32[], f32[]) parameter(0), sharding={{replicated}, /*index=1*/{maximal device=0} /* } */}
  ROOT g = f32[] get-tuple-element(p), index=1/*one*/, metadata={op_name="a/*b*/c"}// done
})");
  ASSERT_NE(m, nullptr);
  const HloComputation* e = m->entry_computation();
  EXPECT_EQ(e->GetInstruction("p")->attribute("sharding"),
            "{{replicated}, /*index=1*/{maximal device=0} /* } */}");
  EXPECT_EQ(e->root_instruction()->tuple_index(), 1);
  EXPECT_EQ(e->root_instruction()->attribute("index"), "1");
  EXPECT_EQ(e->root_instruction()->metadata()->op_name, "a/*b*/c");
}

TEST(AttributeTest, CommentsDoNotHideUndefinedOperands) {
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n  p = f32[] parameter(0)\n"
                           "  ROOT t = (f32[]) tuple(/* x */ q)\n}\n"),
            "3:34: error: use of undefined instruction 'q' in computation 'e'");
}

TEST(AttributeTest, UnknownOpcodesAndAttributesAreKept) {
  auto m = ParseOne(R"(
ENTRY e {
  p = f32[4]{0} parameter(0)
  f = f32[4]{0} frobnicate-start(p, p), new_attr={a, [b], (c)}, flag=true, mode=kFancy
  ROOT r = f32[4]{0} ragged-all-to-all(f, p, p, p, p, p), replica_groups={}
})");
  ASSERT_NE(m, nullptr);
  const HloInstruction* f = m->entry_computation()->GetInstruction("f");
  EXPECT_EQ(f->opcode(), HloOpcode::kUnknown);
  EXPECT_EQ(f->opcode_text(), "frobnicate-start");
  EXPECT_EQ(f->attribute("new_attr"), "{a, [b], (c)}");
  EXPECT_EQ(f->attribute("mode"), "kFancy");
  EXPECT_EQ(f->operand_count(), 2);
  const HloInstruction* r = m->entry_computation()->root_instruction();
  EXPECT_EQ(r->opcode_text(), "ragged-all-to-all");
  EXPECT_EQ(PrintInstruction(*f),
            "%f = f32[4]{0} frobnicate-start(%p, %p), new_attr={a, [b], (c)}, flag=true, "
            "mode=kFancy");
}

TEST(AttributeTest, CalledComputationsAndRoles) {
  auto m = ParseOne(R"(HloModule m
%fused (p0: f32[4]) -> f32[4] {
  %p0 = f32[4]{0} parameter(0)
  ROOT %n = f32[4]{0} negate(%p0)
}
%cond (s: (s32[], f32[4])) -> pred[] {
  %s = (s32[], f32[4]{0}) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %k = s32[] constant(10)
  ROOT %lt = pred[] compare(%i, %k), direction=LT
}
%body (s: (s32[], f32[4])) -> (s32[], f32[4]) {
  %s = (s32[], f32[4]{0}) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %v = f32[4]{0} get-tuple-element(%s), index=1
  %f = f32[4]{0} fusion(%v), kind=kLoop, calls=%fused
  ROOT %t = (s32[], f32[4]{0}) tuple(%i, %f)
}
%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %a = f32[] add(%x, %y)
}
%br0 (x: f32[4]) -> f32[4] {
  ROOT %x = f32[4]{0} parameter(0)
}
%br1 (x: f32[4]) -> f32[4] {
  %x = f32[4]{0} parameter(0)
  ROOT %n = f32[4]{0} negate(%x)
}
ENTRY %e (p: f32[4], i: s32[], b: pred[]) -> f32[4] {
  %p = f32[4]{0} parameter(0)
  %i = s32[] parameter(1)
  %b = pred[] parameter(2)
  %t = (s32[], f32[4]{0}) tuple(%i, %p)
  %w = (s32[], f32[4]{0}) while(%t), condition=%cond, body=%body
  %wv = f32[4]{0} get-tuple-element(%w), index=1
  %zero = f32[] constant(0)
  %r = f32[] reduce(%wv, %zero), dimensions={0}, to_apply=%add
  %c = f32[4]{0} conditional(%i, %wv, %p), branch_computations={%br0, %br1}
  %c2 = f32[4]{0} conditional(%b, %wv, %p), true_computation=%br1, false_computation=%br0
  %cc = f32[4]{0} custom-call(%c), custom_call_target="x", called_computations={%br1}
  %ss = f32[4]{0} select-and-scatter(%cc, %cc, %zero), window={size=1}, select=%cond, scatter=%add
  ROOT %out = f32[4]{0} add(%ss, %c2)
})");
  ASSERT_NE(m, nullptr);
  const HloComputation* e = m->entry_computation();
  const HloInstruction* w = e->GetInstruction("w");
  EXPECT_EQ(w->while_condition(), m->GetComputation("cond"));
  EXPECT_EQ(w->while_body(), m->GetComputation("body"));
  ASSERT_EQ(w->called_computations().size(), 2u);
  EXPECT_EQ(w->called_computations()[0].role, CallRole::kCondition);
  EXPECT_EQ(w->called_computations()[1].role, CallRole::kBody);
  EXPECT_EQ(e->GetInstruction("r")->called(CallRole::kToApply), m->GetComputation("add"));
  const HloInstruction* c = e->GetInstruction("c");
  ASSERT_EQ(c->called_computations().size(), 2u);
  EXPECT_EQ(c->called_computations()[0].role, CallRole::kBranch);
  EXPECT_EQ(c->called_computations()[0].computation, m->GetComputation("br0"));
  EXPECT_EQ(c->called_computations()[1].computation, m->GetComputation("br1"));
  const HloInstruction* c2 = e->GetInstruction("c2");
  EXPECT_EQ(c2->called(CallRole::kTrueComputation), m->GetComputation("br1"));
  EXPECT_EQ(c2->called(CallRole::kFalseComputation), m->GetComputation("br0"));
  EXPECT_EQ(e->GetInstruction("cc")->called(CallRole::kCalledComputations), m->GetComputation("br1"));
  const HloInstruction* ss = e->GetInstruction("ss");
  EXPECT_EQ(ss->called(CallRole::kSelect), m->GetComputation("cond"));
  EXPECT_EQ(ss->called(CallRole::kScatter), m->GetComputation("add"));
  const HloInstruction* f = m->GetComputation("body")->GetInstruction("f");
  EXPECT_EQ(f->fused_computation(), m->GetComputation("fused"));
  EXPECT_EQ(f->fusion_kind(), FusionKind::kLoop);
  EXPECT_EQ(w->fusion_kind(), FusionKind::kNone);
  // Callers, filled after parsing.
  const HloComputation* br1 = m->GetComputation("br1");
  ASSERT_EQ(br1->callers().size(), 3u);  // c, c2, cc
  EXPECT_EQ(br1->callers()[0]->name(), "c");
  EXPECT_EQ(m->GetComputation("fused")->callers()[0], f);
  EXPECT_TRUE(e->callers().empty());
}

TEST(AttributeTest, CalledComputationMayBeDefinedLater) {
  auto m = ParseOne(R"(
ENTRY e {
  p = f32[] parameter(0)
  ROOT c = f32[] call(p), to_apply=later
}
later {
  ROOT x = f32[] parameter(0)
})");
  // Without ENTRY marker the last would be the entry; here ENTRY says e.
  EXPECT_EQ(m->entry_computation()->name(), "e");
  EXPECT_EQ(m->entry_computation()->root_instruction()->called(CallRole::kToApply),
            m->GetComputation("later"));
}

TEST(AttributeTest, FusionKinds) {
  auto m = ParseOne(R"(
f {
  ROOT p = f32[] parameter(0)
}
ENTRY e {
  p = f32[] parameter(0)
  a = f32[] fusion(p), kind=kInput, calls=f
  b = f32[] fusion(a), kind=kOutput, calls=f
  c = f32[] fusion(b), kind=kCustom, calls=f
  ROOT d = f32[] fusion(c), kind=kSomethingNew, calls=f
})");
  const HloComputation* e = m->entry_computation();
  EXPECT_EQ(e->GetInstruction("a")->fusion_kind(), FusionKind::kInput);
  EXPECT_EQ(e->GetInstruction("b")->fusion_kind(), FusionKind::kOutput);
  EXPECT_EQ(e->GetInstruction("c")->fusion_kind(), FusionKind::kCustom);
  EXPECT_EQ(e->GetInstruction("d")->fusion_kind(), FusionKind::kOther);
  EXPECT_EQ(m->GetComputation("f")->callers().size(), 4u);
}

TEST(AttributeTest, UsersAndOperands) {
  auto m = ParseOne(R"(
ENTRY e {
  p = f32[4]{0} parameter(0)
  a = f32[4]{0} add(p, p)
  b = f32[4]{0} multiply(a, p)
  ROOT t = (f32[4]{0}, f32[4]{0}) tuple(a, b)
})");
  const HloComputation* e = m->entry_computation();
  const HloInstruction* p = e->GetInstruction("p");
  const HloInstruction* a = e->GetInstruction("a");
  const HloInstruction* b = e->GetInstruction("b");
  // An instruction using an operand twice is one user.
  ASSERT_EQ(p->users().size(), 2u);
  EXPECT_EQ(p->users()[0], a);
  EXPECT_EQ(p->users()[1], b);
  EXPECT_EQ(a->operand_count(), 2);
  EXPECT_EQ(a->operand(0), p);
  EXPECT_EQ(a->operand(1), p);
  EXPECT_EQ(a->users().size(), 2u);
  EXPECT_TRUE(e->root_instruction()->users().empty());
  // Ids are dense and unique.
  std::vector<bool> seen(m->instruction_count(), false);
  for (const HloInstruction* i : e->instructions()) {
    ASSERT_LT(i->id(), seen.size());
    EXPECT_FALSE(seen[i->id()]);
    seen[i->id()] = true;
  }
}

// Computations have dense ids too (per-computation arrays in analyses),
// inline computations included.
TEST(AttributeTest, ComputationIdsAreDenseAndUnique) {
  auto m = ParseOne(R"(
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY e {
  p = f32[4]{0} parameter(0)
  z = f32[] constant(0)
  r = f32[] reduce(p, z), dimensions={0}, to_apply=add
  ROOT m = f32[] reduce(p, z), dimensions={0}, to_apply={
    a = f32[] parameter(0)
    b = f32[] parameter(1)
    ROOT mx = f32[] maximum(a, b)
  }
})");
  ASSERT_TRUE(m);
  ASSERT_EQ(m->computations().size(), 3u);
  std::vector<bool> seen(m->computations().size(), false);
  for (const HloComputation* c : m->computations()) {
    ASSERT_LT(c->id(), seen.size());
    EXPECT_FALSE(seen[c->id()]);
    seen[c->id()] = true;
  }
}

TEST(AttributeTest, ForwardReferencesResolve) {
  auto m = ParseOne(R"(
ENTRY e {
  ROOT t = (f32[], f32[]) tuple(a, p)
  a = f32[] negate(p)
  p = f32[] parameter(0)
})");
  const HloInstruction* t = m->entry_computation()->root_instruction();
  EXPECT_EQ(OperandNames(*t), (std::vector<std::string>{"a", "p"}));
  EXPECT_EQ(m->entry_computation()->GetInstruction("p")->users().size(), 2u);
}

TEST(AttributeTest, ControlPredecessors) {
  auto m = ParseOne(R"(
ENTRY e {
  p = f32[] parameter(0)
  a = f32[] negate(p)
  b = f32[] abs(p), control-predecessors={%a, later}
  later = f32[] copy(p)
  ROOT t = (f32[], f32[]) tuple(a, b)
})");
  const HloInstruction* b = m->entry_computation()->GetInstruction("b");
  ASSERT_EQ(b->control_predecessors().size(), 2u);
  EXPECT_EQ(b->control_predecessors()[0]->name(), "a");
  EXPECT_EQ(b->control_predecessors()[1]->name(), "later");
  EXPECT_EQ(b->attribute("control-predecessors"), "{%a, later}");
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n  p = f32[] parameter(0)\n"
                           "  ROOT b = f32[] abs(p), control-predecessors={x}\n}\n"),
            "3:48: error: use of undefined instruction 'x' in computation 'e'");
}

TEST(AttributeTest, GetTupleElementIndex) {
  auto m = ParseOne(R"(
ENTRY e {
  p = (f32[], s32[]) parameter(0)
  ROOT g = s32[] get-tuple-element(p), index=1
})");
  EXPECT_EQ(m->entry_computation()->root_instruction()->tuple_index(), 1);
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n  p = (f32[]) parameter(0)\n"
                           "  ROOT g = f32[] get-tuple-element(p)\n}\n"),
            "3:8: error: get-tuple-element needs 'index='");
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n  p = (f32[]) parameter(0)\n"
                           "  ROOT g = f32[] get-tuple-element(p), index=x\n}\n"),
            "3:46: error: expected a non-negative integer after 'index='");
}

TEST(AttributeTest, CompactGetTupleElement) {
  // --xla_dump_compact_gte: `%w#1` is element 1 of %w.
  auto m = ParseOne(R"(
ENTRY e {
  p = (f32[], (s32[], u8[2]{0})) parameter(0)
  ROOT n = u8[2]{0} negate(p#1#1)
})");
  ASSERT_NE(m, nullptr);
  const HloComputation* e = m->entry_computation();
  const HloInstruction* n = e->root_instruction();
  ASSERT_EQ(n->operand_count(), 1);
  const HloInstruction* g2 = n->operand(0);
  EXPECT_EQ(g2->opcode(), HloOpcode::kGetTupleElement);
  EXPECT_EQ(g2->tuple_index(), 1);
  EXPECT_EQ(g2->shape().ToString(), "u8[2]{0}");
  const HloInstruction* g1 = g2->operand(0);
  EXPECT_EQ(g1->opcode(), HloOpcode::kGetTupleElement);
  EXPECT_EQ(g1->tuple_index(), 1);
  EXPECT_EQ(g1->shape().ToString(), "(s32[], u8[2]{0})");
  EXPECT_EQ(g1->operand(0)->name(), "p");
  EXPECT_EQ(g1->attribute("index"), "1");
  // The made-up instructions are part of the computation, before the user.
  EXPECT_EQ(e->instruction_count(), 4);
  EXPECT_EQ(e->instructions()[1], g1);
  EXPECT_EQ(e->instructions()[2], g2);
  EXPECT_EQ(e->GetInstruction("p")->users().size(), 1u);
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n  p = (f32[]) parameter(0)\n"
                           "  ROOT n = f32[] negate(p#3)\n}\n"),
            "3:27: error: 'p' has no tuple element 3");
}

TEST(AttributeTest, NestedAnonymousOperands) {
  // Hand-written text (XLA parser tests) may nest instructions as operands.
  auto m = ParseOne(R"(
ENTRY e {
  p = f32[4]{0} parameter(0)
  ROOT r = f32[4]{0} add(f32[4]{0} negate(negate(p)), multiply(p, f32[4]{0} abs(p)))
})");
  ASSERT_NE(m, nullptr);
  const HloComputation* e = m->entry_computation();
  const HloInstruction* r = e->root_instruction();
  ASSERT_EQ(r->operand_count(), 2);
  const HloInstruction* neg = r->operand(0);
  EXPECT_EQ(neg->opcode(), HloOpcode::kNegate);
  EXPECT_EQ(neg->shape().ToString(), "f32[4]{0}");  // the operand's shape
  const HloInstruction* inner = neg->operand(0);
  EXPECT_EQ(inner->opcode(), HloOpcode::kNegate);
  EXPECT_EQ(inner->operand(0)->name(), "p");
  EXPECT_NE(inner->name(), neg->name());  // made-up names are unique
  const HloInstruction* mul = r->operand(1);
  EXPECT_EQ(mul->opcode(), HloOpcode::kMultiply);
  EXPECT_EQ(mul->operand(1)->opcode(), HloOpcode::kAbs);
  EXPECT_EQ(e->instruction_count(), 6);
  EXPECT_EQ(e->root_instruction(), r);
  // Every made-up name is distinct and none is a real name.
  std::set<std::string_view> names;
  for (const HloInstruction* i : e->instructions()) names.insert(i->name());
  EXPECT_EQ(names.size(), 6u);
}

TEST(AttributeTest, InlineCalledComputation) {
  auto m = ParseOne(R"(
ENTRY e {
  p = f32[4]{0} parameter(0)
  ROOT f = f32[4]{0} fusion(p), kind=kLoop, calls={
    q = f32[4]{0} parameter(0)
    ROOT n = f32[4]{0} negate(q)
  }
})");
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(m->computations().size(), 2u);
  const HloInstruction* f = m->entry_computation()->root_instruction();
  const HloComputation* fused = f->fused_computation();
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(fused, m->computations()[0]);
  EXPECT_EQ(fused->root_instruction()->opcode(), HloOpcode::kNegate);
  EXPECT_EQ(f->attribute("calls"), fused->name());
  EXPECT_EQ(m->entry_computation(), m->computations()[1]);
}

TEST(AttributeTest, OperandsMayCarryShapesIncludingTuples) {
  auto m = ParseOne(R"(
ENTRY e {
  p = (f32[2]{0}, s32[]) parameter(0)
  ROOT g = f32[2]{0} get-tuple-element((f32[2]{0}, s32[]) p), index=0
})");
  EXPECT_EQ(m->entry_computation()->root_instruction()->operand(0)->name(), "p");
}

TEST(AttributeTest, ShapeMayBeOmittedInHandWrittenText) {
  auto m = ParseOne(R"(
ENTRY e {
  p = f32[] parameter(0)
  ROOT n = negate(p)
})");
  const HloInstruction* n = m->entry_computation()->root_instruction();
  EXPECT_EQ(n->opcode(), HloOpcode::kNegate);
  EXPECT_EQ(n->shape().ToString(), "()");  // unknown
}

TEST(AttributeTest, AsyncAndSugaredOpcodes) {
  auto m = ParseOne(R"(
ENTRY e {
  p = f32[4]{0} parameter(0)
  s = ((f32[4]{0}), f32[4]{0}, u32[]) all-gather-start(p), dimensions={0}
  d = f32[4]{0} all-gather-done(s)
  cs = (f32[4]{0}, f32[4]{0}, u32[]) copy-start(d), cross_program_prefetch_index=0
  ROOT cd = f32[4]{0} copy-done(cs)
})");
  const HloComputation* e = m->entry_computation();
  EXPECT_EQ(e->GetInstruction("s")->opcode(), HloOpcode::kAllGatherStart);
  EXPECT_EQ(e->GetInstruction("d")->opcode(), HloOpcode::kAllGatherDone);
  EXPECT_EQ(e->GetInstruction("cs")->opcode(), HloOpcode::kCopyStart);
  EXPECT_EQ(e->root_instruction()->opcode(), HloOpcode::kCopyDone);
}

}  // namespace
}  // namespace hloscope
