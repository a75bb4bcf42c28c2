// Sharded programs (issue 32): instruction lines copied from real XLA dumps of
// sharded JAX programs, each form of replica_groups, source_target_pairs and
// sharding the collected dumps hold. Each snippet parses, keeps the value
// verbatim, round-trips through the printer, and decodes
// (ir/collective_device_list.h, ir/hlo_sharding.h).
//
// The dumps: jax 0.10.2 and jax 0.12.0.1, XLA:CPU with 8 host devices
// (--xla_force_host_platform_device_count=8) and TPU v5e 2x2 compiled without
// the hardware, programs over Mesh((2,4), ('a','b')) with NamedSharding,
// with_sharding_constraint and shard_map (psum, all_gather, psum_scatter,
// all_to_all, ppermute); jax 0.10.2 also with jax_use_shardy_partitioner off.
#include <gtest/gtest.h>

#include "hloscope/ir/collective_device_list.h"
#include "hloscope/ir/hlo_sharding.h"
#include "hloscope/ir/name_index.h"
#include "hloscope/ir/printer.h"
#include "parse_helpers.h"

namespace hloscope {
namespace {

struct Snippet {
  std::string_view origin;       // jax version, backend, program
  std::string_view instruction;  // the instruction whose attribute is checked
  std::string_view attribute;
  std::string_view value;  // expected verbatim
  std::string_view text;
};

// The add computation the reductions call.
#define ADD_CLONE                                                                                \
  "%add.clone (x.3: f32[], y.1: f32[]) -> f32[] {\n  %x.3 = f32[] parameter(0)\n  %y.1 = f32[] " \
  "parameter(1)\n  ROOT %add.1 = f32[] add(%x.3, %y.1)\n}\n"

const Snippet kSnippets[] = {
    {"jax 0.10.2, XLA:CPU, x @ w with x P(None,'b') and w P('b',None): exit 2 before (issue 32)",
     "all-reduce", "replica_groups",
     "mesh['axis_0'=4,'axis_1'=1,'axis_2'=2], device_ids=([2,4]T(1,0)) {'axis_0'}",
     "HloModule jit__lambda, is_scheduled=true, entry_computation_layout={(f32[64,64]{1,0}, "
     "f32[64,512]{1,0})->f32[64,512]{1,0}}, allow_spmd_sharding_propagation_to_parameters={false,false}, "
     "num_partitions=8\n" ADD_CLONE
     "ENTRY %main.0_spmd (param: f32[64,64], param.1: f32[64,512]) -> f32[64,512] {\n"
     "  %param = f32[64,64]{1,0} parameter(0), sharding={devices=[1,4,2]<=[2,4]T(1,0) "
     "last_tile_dim_replicate}, "
     "metadata={op_name=\"x\"}\n"
     "  %param.1 = f32[64,512]{1,0} parameter(1), sharding={devices=[4,1,2]<=[2,4]T(1,0) "
     "last_tile_dim_replicate}, metadata={op_name=\"w\"}\n"
     "  %ynn_fusion = f32[64,512]{1,0} dot(%param, %param.1), lhs_contracting_dims={1}, "
     "rhs_contracting_dims={0}\n"
     "  ROOT %all-reduce = f32[64,512]{1,0} all-reduce(%ynn_fusion), channel_id=1, "
     "replica_groups=mesh['axis_0'=4,'axis_1'=1,'axis_2'=2], device_ids=([2,4]T(1,0)) {'axis_0'}, "
     "use_global_device_ids=true, to_apply=%add.clone, metadata={op_name=\"jit(<lambda>)/dot_general\" "
     "stack_frame_id=3}\n}\n"},
    {"jax 0.10.2 + flax 0.12.8, XLA:CPU, a training step of an nn.scan model with FSDP (with_partitioning) "
     "over Mesh((4,2), ('data','model')): the issue's form, exit 2 before",
     "all-gather.4", "replica_groups",
     "mesh['axis_0'=1,'axis_1'=2,'axis_2'=4], device_ids=([4,2]T(1,0)) {'axis_1'}",
     "HloModule jit_step, is_scheduled=true, num_partitions=8\n"
     "ENTRY %main (m: f32[4,128]) -> f32[4,256] {\n"
     "  %multiply_subtract_fusion.3 = f32[4,128]{0,1} parameter(0)\n"
     "  ROOT %all-gather.4 = f32[4,256]{0,1} all-gather(%multiply_subtract_fusion.3), channel_id=11, "
     "replica_groups=mesh['axis_0'=1,'axis_1'=2,'axis_2'=4], device_ids=([4,2]T(1,0)) {'axis_1'}, "
     "dimensions={1}, "
     "use_global_device_ids=true\n}\n"},
    {"jax 0.10.2, TPU v5e 2x2 (compile-only), the same program: exit 2 before", "all-reduce",
     "replica_groups", "mesh['axis_0'=1,'axis_1'=2,'axis_2'=2], device_ids=([2,2]T(1,0)) {'axis_1'}",
     "HloModule jit__lambda, is_scheduled=true, num_partitions=4\n"
     "%add.clone (x.3: f32[], y.1: f32[]) -> f32[] {\n  %y.1 = f32[]{:T(128)} parameter(1)\n"
     "  %x.3 = f32[]{:T(128)} parameter(0)\n  ROOT %add.1 = f32[]{:T(128)} add(%x.3, %y.1)\n}\n"
     "ENTRY %main.0_spmd (fusion: f32[16,512]) -> f32[16,512] {\n"
     "  %fusion = f32[16,512]{1,0:T(8,128)S(1)} parameter(0)\n"
     "  %all-reduce = f32[16,512]{1,0:T(8,128)S(1)} all-reduce(%fusion), channel_id=1, "
     "replica_groups=mesh['axis_0'=1,'axis_1'=2,'axis_2'=2], device_ids=([2,2]T(1,0)) {'axis_1'}, "
     "use_global_device_ids=true, to_apply=%add.clone, metadata={op_name=\"jit(<lambda>)/dot_general\" "
     "stack_frame_id=3}, backend_config={\"flag_configs\":[],\"barrier_config\":{\"barrier_type\":\"CUSTOM\","
     "\"id\":\"0\"},\"scoped_memory_configs\":[{\"memory_space\":\"0\",\"offset\":\"0\",\"size\":"
     "\"67108864\"}],"
     "\"used_scoped_memory_configs\":[],\"aliasing_operands\":{\"lists\":[]}}\n"
     "  %collective-permute-start = (f32[16,512]{1,0:T(8,128)S(1)}, f32[16,512]{1,0:T(8,128)S(1)}, "
     "u32[]{:S(2)}, "
     "u32[]{:S(2)}) collective-permute-start(%all-reduce), channel_id=2, "
     "source_target_pairs={{0,0},{1,2},{2,1},{3,3}}, metadata={op_name=\"jit(<lambda>)/dot_general\" "
     "stack_frame_id=3}\n"
     "  ROOT %collective-permute-done = f32[16,512]{1,0:T(8,128)S(1)} "
     "collective-permute-done(%collective-permute-start)\n}\n"},
    {"jax 0.10.2, XLA:CPU, grad of an FSDP loss: XLA's own mesh axis names", "all-gather", "replica_groups",
     "mesh['axis_0'=8,'axis_1'=1] {'axis_0'}",
     "HloModule jit_loss, num_partitions=8\n"
     "ENTRY %e (param.1: f32[32,256]) -> f32[256,256] {\n"
     "  %param.1 = f32[32,256]{1,0} parameter(0), sharding={devices=[8,1]<=[8]}\n"
     "  ROOT %all-gather = f32[256,256]{1,0} all-gather(%param.1), channel_id=1, "
     "replica_groups=mesh['axis_0'=8,'axis_1'=1] {'axis_0'}, dimensions={0}, use_global_device_ids=true, "
     "metadata={op_name=\"jit(loss)/jvp()/dot_general\" stack_frame_id=3}\n}\n"},
    {"jax 0.10.2, XLA:CPU, lax.scan over layers with FSDP weights: iota groups", "all-reduce.2",
     "replica_groups", "[2,4]<=[8]",
     "HloModule jit_scan_fsdp2, num_partitions=8\n" ADD_CLONE
     "ENTRY %e (p: f32[32,256]) -> f32[32,256] {\n  %ynn_fusion = f32[32,256]{1,0} parameter(0)\n"
     "  ROOT %all-reduce.2 = f32[32,256]{1,0} all-reduce(%ynn_fusion), channel_id=1, "
     "replica_groups=[2,4]<=[8], "
     "use_global_device_ids=true, to_apply=%add.clone, frontend_attributes={is_spmd_generated=\"true\"}, "
     "metadata={op_name=\"jit(scan_fsdp2)/while/body/eval_jaxpr/dot_general\" stack_frame_id=7}\n}\n"},
    {"jax 0.10.2, XLA:CPU, with_sharding_constraint P('a') of a P('b') value: iota with transpose",
     "all-gather", "replica_groups", "[4,2]<=[2,2,2]T(0,2,1)",
     "HloModule jit_wsc, num_partitions=8\n"
     "ENTRY %e (param: f32[16,128]) -> f32[32,128] {\n"
     "  %param = f32[16,128]{1,0} parameter(0), sharding={devices=[4,1,2]<=[2,4]T(1,0) "
     "last_tile_dim_replicate}\n"
     "  %collective-permute = f32[16,128]{1,0} collective-permute(%param), channel_id=1, "
     "source_target_pairs={{0,0},{4,1},{1,2},{5,3},{2,4},{6,5},{3,6},{7,7}}, "
     "metadata={op_name=\"jit(wsc)/sin\" "
     "stack_frame_id=3}\n"
     "  ROOT %all-gather = f32[32,128]{1,0} all-gather(%collective-permute), channel_id=2, "
     "replica_groups=[4,2]<=[2,2,2]T(0,2,1), dimensions={0}, use_global_device_ids=true, "
     "metadata={op_name=\"jit(wsc)/sin\" stack_frame_id=3}\n}\n"},
    {"jax 0.12.0.1, XLA:CPU, x.sum(0) of a P(('a','b')) value: the user's mesh and axes", "all-reduce",
     "replica_groups", "mesh['a'=2,'b'=4] {'a','b'}",
     "HloModule jit__lambda, num_partitions=8\n" ADD_CLONE
     "ENTRY %e (p: f32[128]) -> f32[128] {\n  %wrapped_reduce = f32[128]{0} parameter(0)\n"
     "  ROOT %all-reduce = f32[128]{0} all-reduce(%wrapped_reduce), channel_id=1, "
     "replica_groups=mesh['a'=2,'b'=4] {'a','b'}, use_global_device_ids=true, to_apply=%add.clone, "
     "frontend_attributes={is_spmd_generated=\"true\"}, metadata={op_name=\"jit(<lambda>)/reduce_sum\" "
     "stack_frame_id=3}\n}\n"},
    {"jax 0.12.0.1, XLA:CPU, shard_map all_gather over ('x','z') of a 2x1x4 mesh", "all_gather.3",
     "replica_groups", "mesh['x'=2,'y'=1,'z'=4] {'x','z'}",
     "HloModule jit__lambda, num_partitions=8\n"
     "ENTRY %e (param.1: f32[8,128]) -> f32[64,128] {\n  %param.1 = f32[8,128]{1,0} parameter(0)\n"
     "  ROOT %all_gather.3 = f32[64,128]{1,0} all-gather(%param.1), channel_id=1, "
     "replica_groups=mesh['x'=2,'y'=1,'z'=4] {'x','z'}, dimensions={0}, use_global_device_ids=true, "
     "metadata={op_name=\"jit(<lambda>)/shard_map/all_gather\" stack_frame_id=4}\n}\n"},
    {"jax 0.10.2, XLA:CPU, shard_map psum over 'a' and a tuple all_to_all over 'b': explicit groups",
     "psum.7", "replica_groups", "{{0,4},{1,5},{2,6},{3,7}}",
     "HloModule jit__lambda, num_partitions=8\n"
     "%region_0.0 (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n"
     "  ROOT %a = f32[] add(%x, %y)\n}\n"
     "ENTRY %e (param.1: f32[32,32], s: f32[8,256]) -> f32[32,32] {\n  %param.1 = f32[32,32]{1,0} "
     "parameter(0)\n"
     "  %s = f32[8,256]{1,0} parameter(1)\n"
     "  %all-to-all = (f32[8,256]{1,0}, f32[8,256]{1,0}, f32[8,256]{1,0}, f32[8,256]{1,0}) all-to-all(%s, "
     "%s, %s, "
     "%s), channel_id=1, replica_groups={{0,1,2,3},{4,5,6,7}}, metadata={op_name=\"jit(<lambda>)/shard_map/"
     "all_to_all\" stack_frame_id=4}\n"
     "  %ppermute.3 = f32[32,32]{1,0} collective-permute(%param.1), channel_id=1, "
     "source_target_pairs={{0,1},{1,2},{2,3},{3,0},{4,5},{5,6},{6,7},{7,4}}, "
     "metadata={op_name=\"jit(<lambda>)/"
     "shard_map/ppermute\" stack_frame_id=4}\n"
     "  ROOT %psum.7 = f32[32,32]{1,0} all-reduce(%ppermute.3), channel_id=1, "
     "replica_groups={{0,4},{1,5},{2,6},{3,7}}, "
     "use_global_device_ids=true, to_apply=%region_0.0, metadata={op_name=\"jit(<lambda>)/shard_map/psum\" "
     "stack_frame_id=5}\n}\n"},
    {"jax 0.10.2 with jax_use_shardy_partitioner=False, XLA:CPU, a shard_map manual over 'b' only "
     "(before optimizations)",
     "shard_map.6", "sharding", "{devices=[1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}",
     "HloModule jit_partial_manual, entry_computation_layout={(f32[64,128]{1,0})->f32[64,32]{1,0}}, "
     "allow_spmd_sharding_propagation_to_output={true}, num_partitions=8\n"
     "ENTRY %main (x.1: f32[64,128]) -> f32[64,32] {\n"
     "  %x.1 = f32[64,128]{1,0} parameter(0), sharding={devices=[2,4]<=[8]}, metadata={op_name=\"x\"}\n"
     "  %shard_map.5 = f32[64,128]{1,0} custom-call(%x.1), custom_call_target=\"Sharding\", "
     "sharding={devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}, "
     "metadata={op_name=\"jit(partial_manual)/"
     "shard_map\" stack_frame_id=5}, backend_config=\"unspecified_dims=[0,1]\"\n"
     "  %shard_map.6 = f32[64,32]{1,0} custom-call(%shard_map.5), "
     "custom_call_target=\"SPMDFullToShardShape\", "
     "sharding={devices=[1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}, "
     "metadata={op_name=\"jit(partial_manual)/shard_map\" stack_frame_id=5}, "
     "backend_config=\"unspecified_dims=[0,1]\"\n"
     "  %add.3 = f32[] custom-call(%shard_map.6), custom_call_target=\"Sharding\", "
     "sharding={devices=[4,2]<=[2,4]T(1,0) "
     "last_tile_dims={manual, replicated}}, metadata={op_name=\"add\" stack_frame_id=2}\n"
     "  %full = f32[32,32]{1,0} custom-call(%shard_map.6), custom_call_target=\"SPMDFullToShardShape\", "
     "sharding={manual}, metadata={op_name=\"jit(<lambda>)/shard_map\" stack_frame_id=4}\n"
     "  %cb = f32[16]{0} custom-call(%x.1), custom_call_target=\"xla_ffi_python_cpu_callback\", "
     "operand_layout_constraints={f32[64,128]{1,0}}, api_version=API_VERSION_TYPED_FFI, sharding={maximal "
     "device=0}, "
     "metadata={op_type=\"pure_callback\" op_name=\"jit(cb)/pure_callback\" stack_frame_id=6}, "
     "backend_config={index = 0 : ui64}\n"
     "  ROOT %shard_map.9 = f32[64,32]{1,0} custom-call(%shard_map.6), "
     "custom_call_target=\"SPMDShardToFullShape\", "
     "sharding={replicated}, metadata={op_name=\"jit(partial_manual)/shard_map\" stack_frame_id=5}, "
     "backend_config=\"unspecified_dims=[0,1]\"\n}\n"},
    {"jax 0.12.0.1, XLA:CPU, the same shard_map (before optimizations): named shardings", "shard_map.7",
     "sharding", "{mesh['a'=2,'b'=4], [{?}, {?}], manual={'b'}}",
     "HloModule jit_partial_manual, entry_computation_layout={(f32[64,128]{1,0})->f32[64,32]{1,0}}, "
     "allow_spmd_sharding_propagation_to_output={true}, num_partitions=8\n"
     "ENTRY %main (x.1: f32[64,128]) -> (f32[64,32], f32[64,32]) {\n"
     "  %x.1 = f32[64,128]{1,0} parameter(0), sharding={mesh['a'=2,'b'=4], [{'a'}, {'b'}]}, "
     "metadata={op_name=\"x\"}\n"
     "  %shard_map.6 = f32[64,128]{1,0} custom-call(%x.1), custom_call_target=\"Sharding\", "
     "custom_call_has_side_effect=true, sharding={mesh['a'=2,'b'=4], [{?}, {'b', ?}]}, "
     "metadata={op_name=\"jit(partial_manual)/shard_map\" stack_frame_id=5}\n"
     "  %shard_map.7 = f32[64,32]{1,0} custom-call(%shard_map.6), "
     "custom_call_target=\"xla.sdy.GlobalToLocalShape\", "
     "custom_call_has_side_effect=true, sharding={mesh['a'=2,'b'=4], [{?}, {?}], manual={'b'}}, "
     "metadata={op_name=\"jit(partial_manual)/shard_map\" stack_frame_id=5}\n"
     "  %add.3 = f32[] custom-call(%shard_map.7), custom_call_target=\"Sharding\", "
     "sharding={mesh['a'=2,'b'=4], "
     "replicated}, metadata={op_name=\"add\" stack_frame_id=2}\n"
     "  %pure_callback.1 = f32[16]{0} custom-call(%x.1), custom_call_target=\"xla_ffi_python_cpu_callback\", "
     "operand_layout_constraints={f32[64,128]{1,0}}, api_version=API_VERSION_TYPED_FFI, "
     "sharding={single_device[device_id=0]}, metadata={op_type=\"pure_callback\" "
     "op_name=\"jit(cb)/pure_callback\" "
     "stack_frame_id=6}\n"
     "  ROOT %t = (f32[64,32], f32[64,32]) tuple(%shard_map.7, %shard_map.7), "
     "sharding={{mesh['a'=2,'b'=4], manual}, {mesh['a'=2,'b'=4], manual}}\n}\n"},
    {"jax 0.12.0.1, single-device compile (tests/fixtures/jax-cpu.jax0.12.0.1): the empty mesh", "p",
     "sharding", "{mesh[], replicated}",
     "HloModule jit_f\nENTRY %e (p: f32[4]) -> f32[4] {\n"
     "  %p = f32[4]{0} parameter(0), sharding={mesh[], replicated}\n"
     "  ROOT %n = f32[4]{0} negate(%p), sharding={mesh[], [{}]}\n}\n"},
};

#undef ADD_CLONE

// Decodes every sharding, replica_groups and source_target_pairs value of
// the module; returns the first failure or "".
std::string DecodeAll(const HloModule& m) {
  for (const HloComputation* c : m.computations())
    for (const HloInstruction* i : c->instructions()) {
      if (auto v = i->attribute("sharding")) {
        Result<HloSharding> s = ParseHloSharding(*v);
        if (!s.ok()) return std::string(*v) + ": " + s.error().message;
        if (s->kind == ShardingKind::kOther) return std::string(*v) + ": not understood";
      }
      if (auto v = i->attribute("replica_groups")) {
        Result<CollectiveDeviceList> l = ParseCollectiveDeviceList(*v);
        if (!l.ok()) return std::string(*v) + ": " + l.error().message;
        Result<std::vector<std::vector<int64_t>>> g = ExpandDeviceGroups(*l);
        if (!g.ok()) return std::string(*v) + ": " + g.error().message;
      }
      if (auto v = i->attribute("source_target_pairs")) {
        auto p = ParseSourceTargetPairs(*v);
        if (!p.ok()) return std::string(*v) + ": " + p.error().message;
      }
    }
  return "";
}

TEST(ShardedSnippetsTest, RealFormsParseKeepTextRoundTripAndDecode) {
  for (const Snippet& s : kSnippets) {
    SCOPED_TRACE(s.origin);
    auto r = ParseHloText(std::string(s.text));
    ASSERT_TRUE(r.ok()) << r.error().Format();
    ASSERT_EQ(r->modules.size(), 1u);
    const HloModule& m = *r->modules[0];
    std::vector<const HloInstruction*> named = m.names().InstructionsNamed(s.instruction);
    ASSERT_EQ(named.size(), 1u) << s.instruction;
    EXPECT_EQ(named[0]->attribute(s.attribute), s.value);
    EXPECT_EQ(DecodeAll(m), "");
    std::string printed = PrintModule(m);
    EXPECT_NE(printed.find(std::string(s.attribute) + "=" + std::string(s.value)), std::string::npos)
        << printed;
    auto again = ParseHloText(printed);
    ASSERT_TRUE(again.ok()) << again.error().Format();
    EXPECT_EQ(testing::DiffModules(m, *again->modules[0]), "");
    EXPECT_EQ(PrintModule(*again->modules[0]), printed);
  }
}

TEST(ShardedSnippetsTest, MeshDeviceIdsStayInOneValue) {
  // The comma inside `mesh[...], device_ids=(...)` belongs to the value; the
  // attributes around it are still separate.
  auto m = testing::ParseOne(R"(HloModule m, num_partitions=4
%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %a = f32[] add(%x, %y)
}
ENTRY %e (p: f32[8]) -> f32[8] {
  %p = f32[8]{0} parameter(0)
  %a = f32[8]{0} all-reduce(%p), channel_id=1, replica_groups=mesh[a=2,b=2], device_ids=(0,2,1,3) {b}, use_global_device_ids=true, to_apply=%add
  %b = f32[8]{0} all-reduce(%p), replica_groups=mesh['a'=2,'b'=2],  device_ids=([2,2]T(1,0))  {'a'}, to_apply=%add
  %c = f32[8]{0} all-reduce(%p), replica_groups=mesh['a'=4], to_apply=%add
  %d = f32[8]{0} custom-call(%p), custom_call_target="x", meshy=[1,2], device_ids=(3)
  ROOT %e = f32[8]{0} custom-call(%p), custom_call_target="y", mesh_info=mesh, device_ids=(3)
})",
                             testing::SyntaxOnly());
  ASSERT_NE(m, nullptr);
  const HloComputation* e = m->entry_computation();
  const HloInstruction* a = e->GetInstruction("a");
  EXPECT_EQ(a->attribute("replica_groups"), "mesh[a=2,b=2], device_ids=(0,2,1,3) {b}");
  EXPECT_EQ(a->attribute("use_global_device_ids"), "true");
  EXPECT_EQ(a->attributes().size(), 4u);
  EXPECT_EQ(e->GetInstruction("b")->attribute("replica_groups"),
            "mesh['a'=2,'b'=2],  device_ids=([2,2]T(1,0))  {'a'}");
  EXPECT_EQ(e->GetInstruction("c")->attribute("replica_groups"), "mesh['a'=4]");
  // Only a mesh value takes a following device_ids in.
  EXPECT_EQ(e->GetInstruction("d")->attribute("meshy"), "[1,2]");
  EXPECT_EQ(e->GetInstruction("d")->attribute("device_ids"), "(3)");
  EXPECT_EQ(e->GetInstruction("e")->attribute("mesh_info"), "mesh");
  EXPECT_EQ(e->GetInstruction("e")->attribute("device_ids"), "(3)");
  auto again = ParseHloText(PrintModule(*m), testing::SyntaxOnly());
  ASSERT_TRUE(again.ok()) << again.error().Format();
  EXPECT_EQ(testing::DiffModules(*m, *again->modules[0]), "");
}

TEST(ShardedSnippetsTest, MalformedValuesStillParse) {
  // Forgiving by keeping text: what the decoders reject, the parser keeps.
  auto m = testing::ParseOne(R"(HloModule m
ENTRY %e (p: f32[8]) -> f32[8] {
  %p = f32[8]{0} parameter(0), sharding={devices=[3,3]<=[2]}
  %q = f32[8]{0} collective-permute(%p), source_target_pairs={{0,1,2}}
  ROOT %r = f32[8]{0} all-to-all(%q), replica_groups=mesh['a'=2] {'nope'}, dimensions={0}
})");
  ASSERT_NE(m, nullptr);
  const HloComputation* e = m->entry_computation();
  EXPECT_FALSE(ParseHloSharding(*e->GetInstruction("p")->attribute("sharding")).ok());
  EXPECT_FALSE(ParseSourceTargetPairs(*e->GetInstruction("q")->attribute("source_target_pairs")).ok());
  EXPECT_FALSE(ParseCollectiveDeviceList(*e->GetInstruction("r")->attribute("replica_groups")).ok());
}

}  // namespace
}  // namespace hloscope
