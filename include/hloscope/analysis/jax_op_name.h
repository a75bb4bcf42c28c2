// JAX's vocabulary in metadata op_name: the segments JAX adds by itself
// around the user's named scopes — one table, read by the scope filter
// (--scope), the diff's matching by scope path, and `explain`.
//
//   jit(train)/while/body/closed_call/grad_step/transpose(jvp(encoder))/mul
#ifndef HLOSCOPE_ANALYSIS_JAX_OP_NAME_H_
#define HLOSCOPE_ANALYSIS_JAX_OP_NAME_H_

#include <optional>
#include <string_view>
#include <vector>

namespace hloscope {

enum class JaxWrapper : uint8_t {
  kControlFlow,  // while, body, cond, scan, branch_N_fun: the structure of lax loops and conds
  kCall,   // closed_call (0.10), eval_jaxpr (0.12), core_call, jit, pjit, shard_map: a call of a function
  kRemat,  // checkpoint, remat, remat2, rematted_computation: jax.checkpoint
  kCustomRule,  // custom_jvp_call, custom_vjp_call, custom_vjp_call_jaxpr
};

// The kind of a segment JAX adds by itself (after unwrapping `name(x)`),
// or nullopt for a segment that is the user's (a named scope, a function).
std::optional<JaxWrapper> JaxWrapperOf(std::string_view segment);

// The segments JAX versions spell differently for one call of a function
// (closed_call in 0.10, eval_jaxpr in 0.12; remat, checkpoint): what diff
// leaves out of a scope path so that two JAX versions' findings match.
bool IsCallWrapper(std::string_view segment);

// The segments of an op_name path, split at the '/'s outside brackets
// ("transpose(jvp(f))", "reduce_sum[axes=(0,)]" stay whole).
std::vector<std::string_view> SplitOpNamePath(std::string_view op_name);

// A segment with its transformation chain unwrapped, outermost first:
// "vmap(jit(_threefry_split))" is {"vmap", "jit"} around "_threefry_split";
// "transpose(jvp(encoder))" is {"transpose", "jvp"} around "encoder". A
// primitive's parameters ("reduce_sum[axes=(0,)]") are dropped.
struct UnwrappedSegment {
  std::vector<std::string_view> transforms;
  std::string_view core;
};
UnwrappedSegment UnwrapSegment(std::string_view segment);

// The transformations JAX wraps around a function's name (jit, vmap, pmap,
// shard_map, jvp, transpose, checkpoint, custom_jvp/vjp...): one list, read
// by library grouping, explain and the scope filter. nullopt for a name that
// is not one (a user's function called like a transformation).
enum class JaxTransform : uint8_t { kJit, kBatch, kDistribute, kDifferentiate, kRemat, kCustomRule };
std::optional<JaxTransform> JaxTransformOf(std::string_view name);

// The first segment below the program's own root that is a function JAX
// jitted for itself — a private helper whose name starts with '_' under a
// jit at any depth of its transformation chain: "jit(_normal)",
// "vmap(jit(_threefry_split))", "transpose(jvp(jit(_logsumexp)))" — or ""
// when there is none. The root (the user's jit(_step)) never counts.
std::string_view PrivateJitHelper(std::string_view op_name);

// A module JAX compiled for one of its own private helpers, called outside
// the user's jit (jax.random.normal at the top level compiles `jit__normal`,
// a key split `jit__threefry_split`): `jit_` then a name starting with '_'.
// Folders and diffs list these after the user's modules.
bool IsPrivateJitModule(std::string_view module_name);

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_JAX_OP_NAME_H_
