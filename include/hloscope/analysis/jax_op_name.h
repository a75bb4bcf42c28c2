// JAX's vocabulary in metadata op_name: the segments JAX adds by itself
// around the user's named scopes — one table, read by the scope filter
// (--scope), the diff's matching by scope path, and `explain`.
//
//   jit(train)/while/body/closed_call/grad_step/transpose(jvp(encoder))/mul
#ifndef HLOSCOPE_ANALYSIS_JAX_OP_NAME_H_
#define HLOSCOPE_ANALYSIS_JAX_OP_NAME_H_

#include <optional>
#include <string_view>

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

}  // namespace hloscope

#endif  // HLOSCOPE_ANALYSIS_JAX_OP_NAME_H_
