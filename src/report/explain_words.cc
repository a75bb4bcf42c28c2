// Plain words for what HLO text says: opcodes, shapes and layouts, fusion
// kinds, op_names (declared in report/explain_words.h).
#include "hloscope/report/explain_words.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "hloscope/analysis/jax_op_name.h"
#include "hloscope/analysis/scope_filter.h"
#include "hloscope/support/human_bytes.h"

namespace hloscope {
namespace {

struct OpcodeText {
  std::string_view opcode;
  std::string_view text;
};

// Plain words for the opcodes users meet in optimized HLO.
constexpr OpcodeText kOpcodes[] = {
    {"abs", "element-wise absolute value."},
    {"add", "element-wise sum of two arrays of the same shape."},
    {"subtract", "element-wise difference a - b."},
    {"multiply", "element-wise product."},
    {"divide", "element-wise quotient a / b."},
    {"remainder", "element-wise remainder of a / b."},
    {"power", "element-wise a to the power b."},
    {"maximum", "element-wise maximum of two arrays."},
    {"minimum", "element-wise minimum of two arrays."},
    {"negate", "element-wise -x."},
    {"exponential", "element-wise e^x."},
    {"exponential-minus-one", "element-wise e^x - 1."},
    {"log", "element-wise natural logarithm."},
    {"log-plus-one", "element-wise log(1 + x)."},
    {"sqrt", "element-wise square root."},
    {"rsqrt", "element-wise 1 / sqrt(x)."},
    {"cbrt", "element-wise cube root."},
    {"tanh", "element-wise hyperbolic tangent."},
    {"logistic", "element-wise sigmoid 1 / (1 + e^-x)."},
    {"sine", "element-wise sine."},
    {"cosine", "element-wise cosine."},
    {"tan", "element-wise tangent."},
    {"atan2", "element-wise atan2(a, b)."},
    {"erf", "element-wise error function."},
    {"sign", "element-wise sign (-1, 0 or 1)."},
    {"floor", "element-wise round down."},
    {"ceil", "element-wise round up."},
    {"round-nearest-even", "element-wise rounding to the nearest integer, ties to even."},
    {"round-nearest-afz", "element-wise rounding to the nearest integer, ties away from zero."},
    {"is-finite", "element-wise test: true where x is neither inf nor NaN."},
    {"and", "element-wise logical/bitwise and."},
    {"or", "element-wise logical/bitwise or."},
    {"xor", "element-wise logical/bitwise exclusive or."},
    {"not", "element-wise logical/bitwise not."},
    {"shift-left", "element-wise bit shift left."},
    {"shift-right-logical", "element-wise logical bit shift right."},
    {"shift-right-arithmetic", "element-wise arithmetic bit shift right."},
    {"popcnt", "element-wise count of set bits."},
    {"count-leading-zeros", "element-wise count of leading zero bits."},
    {"compare",
     "element-wise comparison giving a pred (boolean) array; `direction=` says which "
     "(EQ, NE, LT, LE, GT, GE)."},
    {"select",
     "element-wise choice: select(p, a, b) takes a where p is true and b elsewhere "
     "(jnp.where)."},
    {"clamp", "element-wise clamp(lo, x, hi)."},
    {"convert", "element-wise conversion to another element type (x.astype(...))."},
    {"bitcast-convert",
     "reinterprets the bits of each element as another type of the same width; "
     "no arithmetic."},
    {"reduce-precision", "rounds each element to fewer exponent/mantissa bits, keeping the type."},
    {"stochastic-convert", "converts to a narrower type with stochastic rounding."},
    {"real", "element-wise real part."},
    {"imag", "element-wise imaginary part."},
    {"complex", "element-wise complex(real, imag)."},
    {"map", "applies the `to_apply` computation element-wise."},
    {"broadcast",
     "repeats its operand into a larger shape; `dimensions={...}` lists which output "
     "dimensions the operand's dimensions become. Inside a fusion it is computed on "
     "the fly and never stored."},
    {"iota", "fills the array with 0, 1, 2, ... along `iota_dimension` (jnp.arange)."},
    {"constant",
     "a literal value baked into the program. Constants are read-only: an update of a "
     "constant must first copy it."},
    {"parameter",
     "input number N of its computation. In ENTRY: argument N of the jitted function "
     "(flattened). In a fused computation: operand N of the fusion instruction. In a "
     "while body or condition: the loop state."},
    {"bitcast", "the same bytes seen with another shape or layout: no data moves, it is free."},
    {"reshape",
     "changes the dimensions without changing the element order; free (a bitcast) "
     "when the layouts allow it, otherwise it moves data."},
    {"transpose",
     "permutes the dimensions (`dimensions={1,0}` swaps them). It moves data unless "
     "only the layout changes (then XLA turns it into a bitcast)."},
    {"copy",
     "writes its operand into a new buffer. A top-level copy in optimized HLO is a real "
     "memory move: copy insertion adds one when a value must survive an in-place update, "
     "and layout assignment adds one when a value needs another layout."},
    {"copy-start",
     "starts an asynchronous copy (finished by copy-done), e.g. a prefetch between "
     "memory spaces."},
    {"copy-done", "waits for the asynchronous copy started by copy-start and yields its result."},
    {"get-tuple-element",
     "names element `index=` of a tuple. No data moves: the element already "
     "has its own buffer."},
    {"tuple",
     "groups values into one tuple value. No data is copied: a tuple is a small table "
     "of pointers to its elements' buffers."},
    {"slice", "reads a static sub-array: `slice={[start:limit:stride], ...}` per dimension."},
    {"dynamic-slice",
     "reads a sub-array of size `dynamic_slice_sizes` at start indices computed "
     "at run time (operands 1...), clamped to stay in bounds (x[i] with a traced "
     "i)."},
    {"dynamic-update-slice",
     "writes operand 1 (the update) into operand 0 at start indices "
     "computed at run time (operands 2...), clamped to stay in bounds; the "
     "result has operand 0's shape. XLA always puts the result in operand "
     "0's buffer: it is updated in place — on the original array, or on a "
     "copy XLA makes first when the original is still needed."},
    {"scatter",
     "writes (or combines, with `to_apply`) `updates` into operand 0 at the indices in "
     "`scatter_indices` (x.at[idx].set/add/...). Like dynamic-update-slice, its result "
     "must share operand 0's buffer."},
    {"gather",
     "reads slices of operand 0 at the indices in `start_indices` (x[idx] with an "
     "index array)."},
    {"concatenate", "joins arrays along `dimensions={d}` into a new array."},
    {"pad", "surrounds the array with `padding_value`; `padding=lo_hi_interior` per dimension."},
    {"reverse", "reverses the order of elements along `dimensions=`."},
    {"reduce",
     "combines elements along `dimensions={...}` with the `to_apply` computation (sum, "
     "max, ...), starting from the init value (the second half of the operands)."},
    {"reduce-window", "reduces sliding windows (`window={size=...}`) with `to_apply` — pooling."},
    {"select-and-scatter",
     "scatters values to the positions a window selection chose (the "
     "gradient of max pooling)."},
    {"dot",
     "matrix multiplication / tensor contraction: `lhs_contracting_dims` and "
     "`rhs_contracting_dims` are summed over, `lhs_batch_dims`/`rhs_batch_dims` are batch "
     "dimensions (x @ w, jnp.einsum)."},
    {"convolution", "a convolution; `window=` and `dim_labels=` describe it (lax.conv)."},
    {"fft", "a fast Fourier transform."},
    {"sort", "sorts along `dimensions=` using the comparator `to_apply`."},
    {"topk", "the k largest elements and their indices."},
    {"cholesky", "Cholesky decomposition."},
    {"triangular-solve", "solves a triangular linear system."},
    {"rng", "random numbers from a distribution (legacy)."},
    {"rng-bit-generator",
     "random bits from a counter-based generator; returns the new state and "
     "the bits."},
    {"fusion",
     "one kernel: the computation named in `calls=` runs as a single pass, its "
     "intermediate values stay in registers (they have no buffers) and only the "
     "fusion's result is written to memory. `kind=` says which code emitter built it."},
    {"while",
     "a loop: runs `body` while `condition` is true. The loop state is one tuple whose "
     "buffers are reused by every iteration (the body's parameter, the body's root and "
     "the while's result share buffers)."},
    {"conditional",
     "runs one of `branch_computations` (or true/false_computation), chosen by "
     "operand 0 at run time (lax.cond / lax.switch)."},
    {"call", "runs `to_apply` once, like a function call."},
    {"custom-call",
     "calls a routine outside XLA's code generator, named by "
     "`custom_call_target=` (a library GEMM, a cuDNN convolution, a host callback, "
     "...)."},
    {"all-reduce",
     "combines an array across devices with `to_apply` (e.g. sums gradients) and "
     "gives every device the result."},
    {"all-reduce-start", "starts an asynchronous all-reduce (finished by all-reduce-done)."},
    {"all-reduce-done", "waits for an asynchronous all-reduce."},
    {"all-gather", "concatenates each device's array along `dimensions=`, on every device."},
    {"reduce-scatter", "reduces across devices, then gives each device one slice."},
    {"all-to-all", "exchanges slices between all devices."},
    {"collective-permute", "sends the array to other devices along `source_target_pairs`."},
    {"send", "sends data to another program/device (finished by send-done)."},
    {"recv", "receives data from another program/device (finished by recv-done)."},
    {"infeed", "reads data fed by the host."},
    {"outfeed", "writes data to the host."},
    {"after-all", "joins tokens: orders side effects; no data."},
    {"add-dependency", "passes its operand through, ordered after a token."},
    {"opt-barrier", "passes its operands through unchanged and stops optimizations across it."},
    {"partition-id", "the id of the partition (device) running the program."},
    {"replica-id", "the id of the replica running the program."},
    {"async-start", "starts the computation in `calls=` asynchronously (finished by async-done)."},
    {"async-update", "an intermediate step of an asynchronous operation."},
    {"async-done", "waits for an asynchronous operation and yields its result."},
    {"get-dimension-size", "the run-time size of a dynamic dimension."},
    {"set-dimension-size", "sets the run-time size of a dynamic dimension."},
    {"domain", "marks a sharding/device boundary; passes its operand through."},
};

std::string_view ElementTypeWords(std::string_view t) {
  static const std::map<std::string_view, std::string_view> kWords = {
      {"pred", "booleans (1 byte each)"},
      {"s4", "4-bit signed integers"},
      {"s8", "8-bit signed integers"},
      {"s16", "16-bit signed integers"},
      {"s32", "32-bit signed integers"},
      {"s64", "64-bit signed integers"},
      {"u4", "4-bit unsigned integers"},
      {"u8", "8-bit unsigned integers"},
      {"u16", "16-bit unsigned integers"},
      {"u32", "32-bit unsigned integers"},
      {"u64", "64-bit unsigned integers"},
      {"f16", "16-bit IEEE floats (half)"},
      {"bf16", "16-bit bfloat16 floats"},
      {"f32", "32-bit floats"},
      {"f64", "64-bit floats"},
      {"c64", "complex numbers of two f32"},
      {"c128", "complex numbers of two f64"},
      {"f8e4m3fn", "8-bit floats (e4m3fn)"},
      {"f8e5m2", "8-bit floats (e5m2)"},
  };
  auto it = kWords.find(t);
  return it == kWords.end() ? std::string_view() : it->second;
}

std::string Join(const std::vector<int64_t>& v) { return fmt::format("{}", fmt::join(v, ",")); }

// Primitive names in op_name and the Python that produces them.
std::string_view PrimitiveHint(std::string_view prim) {
  static const std::map<std::string_view, std::string_view> kHints = {
      {"scatter", "x.at[i].set(v) (or lax.scatter)"},
      {"scatter-add", "x.at[i].add(v)"},
      {"scatter_add", "x.at[i].add(v)"},
      {"scatter-mul", "x.at[i].multiply(v)"},
      {"dynamic_update_slice", "lax.dynamic_update_slice (also lax.scan's stacked outputs)"},
      {"dynamic_slice", "x[i] with a traced index, lax.dynamic_slice"},
      {"gather", "x[idx] with an index array"},
      {"dot_general", "x @ w, jnp.dot, jnp.einsum"},
      {"reduce_sum", "jnp.sum (and the mean's sum)"},
      {"reduce_max", "jnp.max"},
      {"broadcast_in_dim", "implicit broadcasting, jnp.broadcast_to"},
      {"convert_element_type", "x.astype(...) or implicit type promotion"},
      {"select_n", "jnp.where / lax.select (and index wrap-around for negative indices)"},
      {"add_any", "the sum of gradient contributions (jax.grad)"},
      {"concatenate", "jnp.concatenate / jnp.stack / jnp.roll"},
      {"transpose", "x.T / jnp.transpose (or a backward pass)"},
      {"while", "lax.fori_loop / lax.while_loop / lax.scan"},
      {"cond", "lax.cond / lax.switch"},
      {"copy", "jnp.copy / jnp.array(x)"},
      {"copy_p", "jnp.copy / jnp.array(x)"},
      {"iota", "jnp.arange"},
  };
  auto it = kHints.find(prim);
  return it == kHints.end() ? std::string_view() : it->second;
}

}  // namespace

std::string_view DescribeOpcode(std::string_view opcode) {
  for (const OpcodeText& o : kOpcodes)
    if (o.opcode == opcode) return o.text;
  return {};
}

std::vector<std::string> DescribeShape(const Shape& shape) {
  std::vector<std::string> out;
  if (shape.IsTuple()) {
    out.push_back(
        fmt::format("{}: a tuple of {} values. A tuple is a small table of pointers to "
                    "its elements' buffers ({} of index table); each element has its "
                    "own buffer.",
                    shape.ToString(), shape.tuple_shapes.size(), HumanBytes(ByteSizeOf(shape))));
    return out;
  }
  if (shape.is_buffer) {
    out.push_back(fmt::format("{}: a buffer shape b(...) wrapping an array.", shape.ToString()));
    return out;
  }
  std::string_view words = ElementTypeWords(shape.type_name);
  std::optional<int64_t> n = shape.ElementCount();
  std::string count = n ? fmt::format("{}", *n) : std::string("?");
  std::string dims;
  if (shape.rank() == 0)
    dims = "a scalar (one element)";
  else if (shape.rank() == 1)
    dims = fmt::format("a 1-D array of {} element{}", count, n && *n == 1 ? "" : "s");
  else
    dims =
        fmt::format("a {} array ({} elements)", fmt::format("{}", fmt::join(shape.dimensions, "×")), count);
  out.push_back(fmt::format("{}: {} of {}{}, {} in memory.", shape.ToString(), dims,
                            words.empty() ? shape.type_name : std::string(words),
                            words.empty() ? "" : fmt::format(" ({})", shape.type_name),
                            HumanBytes(ByteSizeOf(shape))));
  if (shape.IsDynamic())
    out.push_back(
        "`<=N` dimensions are dynamic: their size is known only at run time, at most N "
        "(buffers are sized for N).");
  if (!shape.layout) {
    if (shape.rank() > 0)
      out.push_back("No layout printed: XLA's default (row-major, the last dimension contiguous).");
    return out;
  }
  const Layout& l = *shape.layout;
  if (!l.minor_to_major.empty()) {
    std::vector<int64_t> def;
    for (int64_t d = shape.rank() - 1; d >= 0; --d) def.push_back(d);
    std::string order = fmt::format("{{{}}}", Join(l.minor_to_major));
    if (l.minor_to_major == def) {
      out.push_back(fmt::format(
          "Layout {} lists dimensions minor-to-major: dimension {} varies fastest in memory{}. "
          "That is the default row-major order (as in NumPy).",
          order, l.minor_to_major.front(),
          shape.rank() > 1 ? fmt::format(", dimension {} slowest", l.minor_to_major.back()) : ""));
    } else {
      out.push_back(
          fmt::format("Layout {} lists dimensions minor-to-major: dimension {} varies fastest in memory, "
                      "dimension {} slowest. That is NOT the default row-major order {{{}}}: the array is "
                      "stored transposed (e.g. column-major), a choice of XLA's layout assignment; moving it "
                      "to another layout takes a copy or transpose.",
                      order, l.minor_to_major.front(), l.minor_to_major.back(), Join(def)));
    }
  }
  if (!l.tiles.empty()) {
    std::string first = l.tiles.substr(0, l.tiles.find(')') + 1);
    out.push_back(fmt::format(
        "T{}: the array is stored in tiles — the minor-most dimensions are cut into blocks of "
        "{} elements (padded up to whole tiles), and the tiles are laid out in the order above{}.",
        l.tiles, first,
        l.tiles.size() > first.size() ? "; a second T(...) tiles the elements inside each tile" : ""));
  }
  if (l.element_size_in_bits > 0)
    out.push_back(fmt::format("E({}): elements are packed at {} bits each in memory.", l.element_size_in_bits,
                              l.element_size_in_bits));
  if (l.memory_space != 0) {
    std::string what = l.memory_space == 5 ? "host (CPU) memory on GPU/TPU"
                       : l.memory_space == 1
                           ? "an alternate, usually faster memory (memory-space assignment's "
                             "default alternate space, e.g. TPU VMEM)"
                           : "a backend-specific memory";
    out.push_back(
        fmt::format("S({}): the buffer lives in memory space {}: {}. S(0), the default, "
                    "is ordinary device memory.",
                    l.memory_space, l.memory_space, what));
  }
  return out;
}

std::string DescribeFusionKind(std::string_view kind, std::string_view backend_kind) {
  std::string out;
  if (kind == "kLoop")
    out =
        "kLoop — a loop fusion: one loop over the output elements, each computed from the fused "
        "operations (XLA's choice for element-wise work, broadcasts, slices, "
        "dynamic-update-slices, concatenates and copies).";
  else if (kind == "kInput")
    out =
        "kInput — an input fusion: built around a reduction (or scatter) 'hero' and organised "
        "to read the reduction's input efficiently; the element-wise producers are computed on "
        "the fly.";
  else if (kind == "kOutput")
    out =
        "kOutput — an output fusion: a dot or convolution whose result feeds element-wise "
        "consumers (e.g. a bias add) that run as the result is written.";
  else if (kind == "kCustom")
    out =
        "kCustom — a fusion the backend handles its own way (a library call or a special "
        "emitter), named by the kind in backend_config (fusion_backend_config on GPU, "
        "fusion_config on CPU).";
  else
    out = fmt::format("{} — a fusion kind this version of hloscope does not describe.", kind);
  if (!backend_kind.empty()) {
    std::string_view what =
        backend_kind == "__triton"        ? "a Triton kernel (block-level fusion, e.g. a softmax)"
        : backend_kind == "__triton_gemm" ? "a matrix multiplication written in Triton"
        : backend_kind == "__triton_nested_gemm_fusion" ? "a Triton GEMM with nested fusions"
        : backend_kind == "__cudnn$fusion"              ? "a cuDNN graph"
        : backend_kind == "__custom_fusion" ? "a hand-written custom fusion (see custom_fusion_config)"
        : backend_kind == "__ynn_fusion" ? "XLA:CPU runs this fusion with the YNNPACK library (the successor "
                                           "of XNNPACK) instead of generating code for it"
        : backend_kind == "__xnn_fusion" ? "XLA:CPU runs this fusion with the XNNPACK library"
                                         : "backend-specific";
    out += fmt::format(" Backend kind {}: {}.", backend_kind, what);
  }
  return out;
}

std::vector<std::string> DescribeOpName(std::string_view op_name) {
  std::vector<std::string> out;
  if (op_name.empty()) return out;
  // Raw segments with their wrapper chains.
  std::vector<std::string> scopes, transforms, jax_parts;
  std::string fn, primitive;
  std::vector<ScopeSegment> segs = SplitOpName(op_name);
  // The raw segments again, for the transformation names (jax_op_name.h).
  std::vector<std::string_view> raw = SplitOpNamePath(op_name);
  for (size_t r = 0; r < raw.size(); ++r) {
    UnwrappedSegment u = UnwrapSegment(raw[r]);
    std::string_view s = u.core;
    std::vector<std::string> wrappers(u.transforms.begin(), u.transforms.end());
    bool last = r + 1 == raw.size();
    if (r == 0 && !wrappers.empty() && JaxTransformOf(wrappers[0]) == JaxTransform::kJit && !last) {
      fn = std::string(s);
      continue;
    }
    for (const std::string& w : wrappers) {
      std::optional<JaxTransform> kind = JaxTransformOf(w);
      std::string what = w == "jvp"                     ? "jvp (the forward pass of jax.grad / jax.jvp)"
                         : w == "transpose"             ? "transpose (the backward pass of jax.grad)"
                         : kind == JaxTransform::kBatch ? fmt::format("{} (batched by jax.{})", w, w)
                         : kind == JaxTransform::kJit ? fmt::format("a nested jit of {}", s.empty() ? "?" : s)
                         : kind == JaxTransform::kRemat ? fmt::format("{} (jax.checkpoint)", w)
                         : kind == JaxTransform::kCustomRule
                             ? fmt::format("{} (a custom_jvp/custom_vjp rule)", w)
                         : kind == JaxTransform::kDistribute ? fmt::format("{} (run per device)", w)
                                                             : w;
      if (std::find(transforms.begin(), transforms.end(), what) == transforms.end())
        transforms.push_back(what);
    }
    if (last) {
      primitive = std::string(s);
      continue;
    }
    if (s.empty()) continue;
    ScopeSegment seg{std::string(s), false};
    bool wrapper = false;
    for (const ScopeSegment& g : segs)
      if (g.name == seg.name && g.jax_wrapper) wrapper = true;
    bool via_jit = std::any_of(wrappers.begin(), wrappers.end(),
                               [](const std::string& w) { return JaxTransformOf(w) == JaxTransform::kJit; });
    if (wrapper || via_jit) {
      if (std::find(jax_parts.begin(), jax_parts.end(), seg.name) == jax_parts.end())
        jax_parts.push_back(seg.name);
    } else {
      scopes.push_back(seg.name);
    }
  }
  out.push_back(fmt::format("op_name \"{}\"", op_name));
  if (!fn.empty()) out.push_back(fmt::format("  jitted function: {}", fn));
  if (!scopes.empty())
    out.push_back(fmt::format("  your named scopes (jax.named_scope): {}", fmt::join(scopes, "/")));
  if (!transforms.empty()) out.push_back(fmt::format("  transformations: {}", fmt::join(transforms, ", ")));
  if (!jax_parts.empty()) {
    std::vector<std::string> words;
    for (const std::string& p : jax_parts) {
      // What each is, from its kind (analysis/jax_op_name.h, the one list).
      std::optional<JaxWrapper> kind = JaxWrapperOf(p);
      if (p == "while")
        words.push_back("while (a lax loop)");
      else if (p == "body")
        words.push_back("body (the loop body)");
      else if (p == "cond")
        words.push_back("cond (a loop condition or lax.cond)");
      else if (p.starts_with("branch_"))
        words.push_back(p + " (a branch of lax.cond/switch)");
      else if (kind == JaxWrapper::kCall && IsCallWrapper(p))
        words.push_back(p + " (the function a loop or cond calls)");
      else if (kind == JaxWrapper::kRemat)
        words.push_back(p + " (jax.checkpoint: recomputed in the backward pass)");
      else
        words.push_back(p);
    }
    out.push_back(fmt::format("  added by JAX: {}", fmt::join(words, ", ")));
  }
  if (!primitive.empty()) {
    std::string_view hint = PrimitiveHint(primitive);
    out.push_back(
        fmt::format("  JAX primitive: {}{}", primitive, hint.empty() ? "" : fmt::format(" — from {}", hint)));
  }
  return out;
}

}  // namespace hloscope
