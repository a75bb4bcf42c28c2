#include "hloscope/analysis/hlo_cost.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "cost_memo.h"
#include "hloscope/analysis/kernel_opcodes.h"
#include "hloscope/analysis/op_flops.h"
#include "hloscope/ir/computation.h"
#include "hloscope/ir/opcode.h"
#include "hloscope/ir/window.h"
#include "hloscope/support/saturating.h"

namespace hloscope {

namespace {

using cost_internal::ComputationMemo;

// Where kPerRun and kAsXla differ (hlo_cost.h): control flow, custom-calls,
// the -done of async pairs.
bool CountedAlikeBothWays(HloOpcode op) {
  return !IsControlFlow(op) && !IsAsyncFollower(op) && op != HloOpcode::kCustomCall;
}

class Coster {
 public:
  Coster(const CostOptions& options, ComputationMemo& memo) : options_(options), memo_(memo) {}

  HloCost Of(const HloInstruction& instr);

 private:
  bool AsXla() const { return options_.counting == CostCounting::kAsXla; }

  // HloCostAnalysis::GetShapeSize: the backend's byte size (0 for a shape we
  // cannot size, noted as incomplete). Without bytes (a fused computation,
  // a reducer) no shape is sized: 0.
  int64_t Size(const Shape& shape) {
    if (!options_.count_bytes) return 0;
    std::optional<int64_t> n = ByteSizeOf(shape, {options_.pointer_size});
    if (!n) incomplete_ = true;
    return n.value_or(0);
  }
  int64_t Elements(const Shape& shape) {
    if (!shape.IsArray()) {
      incomplete_ = true;
      return 0;
    }
    std::optional<int64_t> n = shape.ElementCount();
    if (!n) incomplete_ = true;
    return n.value_or(0);
  }
  // Elements of every array leaf (ShapeUtil::ElementsInRecursive).
  int64_t ElementsRecursive(const Shape& shape) {
    if (shape.IsArray()) return Elements(shape);
    int64_t n = 0;
    for (const Shape* s : shape.tuple_shapes) n = SatAdd(n, ElementsRecursive(*s));
    return n;
  }
  // The first array of a variadic op's shape (reduce, reduce-window).
  const Shape& FirstArray(const Shape& shape) {
    return shape.IsTuple() && !shape.tuple_shapes.empty() ? *shape.tuple_shapes[0] : shape;
  }
  int64_t DefaultBytes(const HloInstruction& instr) {
    int64_t bytes = Size(instr.shape());
    for (const HloInstruction* op : instr.operands()) bytes = SatAdd(bytes, Size(op->shape()));
    return bytes;
  }
  // XLA's nested visitor over a computation: the sum of its instructions.
  HloCost Computation(const HloComputation* comp) {
    HloCost sum;
    if (!comp) {
      incomplete_ = true;
      return sum;
    }
    return Sum(comp, AsXlaOptions(), memo_.full);
  }
  // The FLOPs and transcendentals of a computation's operations (a fused
  // computation, a reducer): their bytes are not memory traffic.
  HloCost ComputationFlops(const HloComputation* comp) {
    if (!comp) {
      incomplete_ = true;
      return {};
    }
    CostOptions o = AsXlaOptions();
    o.count_bytes = false;
    return Sum(comp, o, memo_.flops);
  }
  HloCost Sum(const HloComputation* comp, const CostOptions& options, ComputationMemo::Table& memo) {
    memo_.Bind(*comp);
    if (const ComputationMemo::Entry* known = memo.Find(*comp)) return known->cost;
    // A computation that calls itself (the verifier rejects cycles; this
    // keeps a cycle from recursing forever regardless) costs what is known.
    memo[*comp].known = true;
    memo[*comp].cost.incomplete = true;
    HloCost sum;
    const bool keep = &memo == &memo_.full;
    for (const HloInstruction* i : comp->instructions()) {
      HloCost c = Coster(options, memo_).Of(*i);
      if (keep) memo_.Keep(*i, c);
      sum += c;
    }
    memo[*comp].cost = sum;
    return sum;
  }
  CostOptions AsXlaOptions() const {
    CostOptions o = options_;
    o.counting = CostCounting::kAsXla;
    return o;
  }
  // FLOPs and transcendentals of a computation applied `times` times
  // (KeyToCopyFromSubcomputation: bytes are not copied).
  void Applied(const HloComputation* comp, int64_t times, HloCost& cost) {
    HloCost sub = ComputationFlops(comp);
    cost.flops = SatAdd(cost.flops, SatMul(sub.flops, times));
    cost.transcendentals = SatAdd(cost.transcendentals, SatMul(sub.transcendentals, times));
    incomplete_ |= sub.incomplete;
  }

  void Elementwise(const HloInstruction& instr, HloCost& cost);
  void ReduceWindow(const HloInstruction& instr, HloCost& cost);
  void Fusion(const HloInstruction& fusion, HloCost& cost);
  int64_t FusionParameterReadBytes(const HloInstruction& value);

  CostOptions options_;
  ComputationMemo& memo_;
  int64_t read_budget_ = int64_t{1} << 20;
  bool incomplete_ = false;
};

void Coster::Elementwise(const HloInstruction& instr, HloCost& cost) {
  const int64_t n = Elements(instr.shape());
  if (IsTranscendental(instr.opcode()))
    cost.transcendentals = n;
  else
    cost.flops = n;
}

void Coster::ReduceWindow(const HloInstruction& instr, HloCost& cost) {
  Applied(instr.called(CallRole::kToApply), ReduceWindowApplications(instr, &incomplete_), cost);
}

// HloCostAnalysis::FusionParameterReadBytes: what a fusion reads of one
// parameter — slices read what they select, an in-place buffer is not
// read by its update, other users share one read.
int64_t Coster::FusionParameterReadBytes(const HloInstruction& value) {
  // Nested fusions that pass a parameter on twice, level after level
  // (hostile input), would be walked once per path: bounded.
  if (--read_budget_ < 0) {
    incomplete_ = true;
    return 0;
  }
  int64_t size = 0;
  bool seen_trivial_user = false;
  auto trivial = [&] {
    if (!seen_trivial_user) {
      seen_trivial_user = true;
      size = SatAdd(size, Size(value.shape()));
    }
  };
  for (const HloInstruction* user : value.users()) {
    switch (user->opcode()) {
      case HloOpcode::kFusion: {
        const HloComputation* fused = user->fused_computation();
        for (int64_t k = 0; k < user->operand_count(); ++k) {
          if (user->operand(k) != &value) continue;
          const HloInstruction* param = fused ? fused->parameter(k) : nullptr;
          if (param)
            size = SatAdd(size, FusionParameterReadBytes(*param));
          else
            incomplete_ = true;
        }
        break;
      }
      case HloOpcode::kSlice:
        size = SatAdd(size, Size(user->shape()));
        break;
      case HloOpcode::kDynamicSlice:
        if (user->operand(0) == &value)
          size = SatAdd(size, Size(user->shape()));
        else
          trivial();
        break;
      case HloOpcode::kDynamicUpdateSlice:
        if (user->operand(0) != &value) trivial();
        break;
      case HloOpcode::kBroadcast:
      case HloOpcode::kReshape:
        size = SatAdd(size, Size(value.shape()));
        break;
      default:
        trivial();
    }
  }
  return size;
}

void Coster::Fusion(const HloInstruction& fusion, HloCost& cost) {
  const HloComputation* fused = fusion.fused_computation();
  if (!fused) {
    incomplete_ = true;
    cost.bytes_accessed = DefaultBytes(fusion);
    return;
  }
  HloCost inside = ComputationFlops(fused);
  cost.flops = inside.flops;
  cost.transcendentals = inside.transcendentals;
  cost.matmul_flops = inside.matmul_flops;
  incomplete_ |= inside.incomplete;
  if (!options_.count_bytes) return;
  // Outputs: an in-place update at the root writes only its update.
  const HloInstruction* root = fused->root_instruction();
  int64_t bytes = 0;
  auto update_size = [&](const HloInstruction* dus) { return Size(dus->operand(1)->shape()); };
  if (fusion.shape().IsArray()) {
    bytes = root && root->opcode() == HloOpcode::kDynamicUpdateSlice && root->operand_count() > 1
                ? update_size(root)
                : Size(fusion.shape());
  } else {
    // Every array leaf; a top-level element that is a root tuple's DUS
    // writes its update.
    std::vector<std::pair<const Shape*, ShapeIndex>> todo = {{&fusion.shape(), {}}};
    while (!todo.empty()) {
      auto [shape, index] = todo.back();
      todo.pop_back();
      if (shape->IsTuple()) {
        for (size_t k = 0; k < shape->tuple_shapes.size(); ++k) {
          ShapeIndex child = index;
          child.push_back(static_cast<int64_t>(k));
          todo.push_back({shape->tuple_shapes[k], child});
        }
        continue;
      }
      if (!shape->IsArray()) continue;
      if (index.size() == 1 && root && root->opcode() == HloOpcode::kTuple &&
          index[0] < root->operand_count() &&
          root->operand(index[0])->opcode() == HloOpcode::kDynamicUpdateSlice &&
          root->operand(index[0])->operand_count() > 1) {
        bytes = SatAdd(bytes, update_size(root->operand(index[0])));
        continue;
      }
      bytes = SatAdd(bytes, Size(*shape));
    }
  }
  for (const HloInstruction* param : fused->instructions()) {
    // Constants larger than an immediate (more than one element) are read.
    if (param->opcode() == HloOpcode::kConstant && param->shape().IsArray() &&
        param->shape().ElementCount().value_or(0) > 1)
      bytes = SatAdd(bytes, Size(param->shape()));
    if (param->opcode() != HloOpcode::kParameter) continue;
    if (!param->shape().IsTuple()) {
      bytes = SatAdd(bytes, FusionParameterReadBytes(*param));
      continue;
    }
    // A tuple parameter: each leaf read through its get-tuple-element.
    std::vector<const HloInstruction*> values = {param};
    while (!values.empty()) {
      const HloInstruction* v = values.back();
      values.pop_back();
      if (!v->shape().IsTuple()) {
        bytes = SatAdd(bytes, FusionParameterReadBytes(*v));
        continue;
      }
      for (const HloInstruction* u : v->users())
        if (u->opcode() == HloOpcode::kGetTupleElement) values.push_back(u);
    }
  }
  cost.bytes_accessed = bytes;
}

HloCost Coster::Of(const HloInstruction& instr) {
  HloCost cost;
  cost.bytes_accessed = DefaultBytes(instr);  // HloCostAnalysis::Preprocess
  const HloOpcode op = instr.opcode();
  switch (op) {
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kBitcast:
    case HloOpcode::kAfterAll:
    case HloOpcode::kAddDependency:
    case HloOpcode::kDomain:
      cost.bytes_accessed = 0;
      break;
    case HloOpcode::kTuple:
      cost.bytes_accessed = Size(instr.shape());  // its index table
      break;
    case HloOpcode::kTranspose:
      if (options_.count_bytes && TransposeIsBitcast(instr)) cost.bytes_accessed = 0;
      break;
    case HloOpcode::kDot:
      cost.flops = DotFlops(instr, &incomplete_);
      cost.matmul_flops = cost.flops;
      break;
    case HloOpcode::kConvolution:
      cost.flops = ConvolutionFlops(instr, &incomplete_);
      cost.matmul_flops = cost.flops;
      break;
    case HloOpcode::kFft: {
      if (instr.operand_count() < 1) break;
      std::optional<std::vector<int64_t>> lengths = IntListAttribute(instr, "fft_length");
      int64_t log_factors = 1;
      if (!lengths) incomplete_ = true;
      for (int64_t n : lengths.value_or(std::vector<int64_t>{})) {
        int64_t log = 0;
        while (n > 1) {
          n >>= 1;
          ++log;
        }
        log_factors = SatMul(log_factors, log);
      }
      constexpr int64_t kFmaPerComplexMul = 4;
      cost.flops = SatMul(SatMul(kFmaFlops * kFmaPerComplexMul, log_factors),
                          Elements(FirstArray(instr.operand(0)->shape())));
      break;
    }
    case HloOpcode::kReduce: {
      if (instr.operand_count() < 1) break;
      const int64_t count = Elements(instr.operand(0)->shape()) - Elements(FirstArray(instr.shape()));
      Applied(instr.called(CallRole::kToApply), count, cost);
      break;
    }
    case HloOpcode::kReduceWindow:
      ReduceWindow(instr, cost);
      break;
    case HloOpcode::kMap:
      Applied(instr.called(CallRole::kToApply), Elements(instr.shape()), cost);
      break;
    case HloOpcode::kSelectAndScatter: {
      if (instr.operand_count() < 2) break;
      std::optional<std::vector<WindowDimension>> window = WindowOf(instr);
      int64_t window_elements = 1;
      if (!window) incomplete_ = true;
      for (const WindowDimension& d : window.value_or(std::vector<WindowDimension>{}))
        window_elements = SatMul(window_elements, d.size);
      const int64_t sources = Elements(instr.operand(1)->shape());
      Applied(instr.called(CallRole::kSelect), SatMul(sources, window_elements - 1), cost);
      Applied(instr.called(CallRole::kScatter), sources, cost);
      break;
    }
    case HloOpcode::kScatter: {
      // scatter(operands..., indices, updates...): 2N + 1 operands.
      const int64_t n = (instr.operand_count() - 1) / 2;
      if (n < 1) break;
      int64_t updates = 0;
      for (int64_t k = 0; k < n; ++k) updates = SatAdd(updates, Size(instr.operand(n + 1 + k)->shape()));
      cost.bytes_accessed = SatAdd(SatMul(updates, 3), Size(instr.operand(n)->shape()));
      Applied(instr.called(CallRole::kToApply), Elements(instr.operand(n + 1)->shape()), cost);
      break;
    }
    case HloOpcode::kGather:
      if (instr.operand_count() < 2) break;
      cost.bytes_accessed = SatAdd(SatMul(Size(instr.shape()), 2), Size(instr.operand(1)->shape()));
      break;
    case HloOpcode::kSlice:
      cost.bytes_accessed = SatMul(Size(instr.shape()), 2);
      break;
    case HloOpcode::kDynamicSlice:
      if (instr.operand_count() < 2) break;
      cost.bytes_accessed = SatAdd(SatMul(Size(instr.shape()), 2), Size(instr.operand(1)->shape()));
      break;
    case HloOpcode::kDynamicUpdateSlice:
      if (instr.operand_count() < 3) break;
      cost.bytes_accessed =
          SatAdd(SatMul(Size(instr.operand(1)->shape()), 2), Size(instr.operand(2)->shape()));
      break;
    case HloOpcode::kSort: {
      if (instr.operand_count() < 1) break;
      const int64_t n = Elements(instr.operand(0)->shape());
      int64_t log = 0;
      while (log < 63 && (int64_t{1} << log) < n) ++log;  // Log2Ceiling
      cost.flops = SatMul(n, log);
      break;
    }
    case HloOpcode::kRng:
      cost.transcendentals = Elements(instr.shape());
      break;
    case HloOpcode::kRngBitGenerator:
      cost.transcendentals = ElementsRecursive(instr.shape());
      break;
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart: {
      // XLA assumes two replicas: one FLOP per output element.
      int64_t outputs = 0;
      cost.flops = ElementsRecursive(instr.shape());
      std::vector<const Shape*> todo = {&instr.shape()};
      while (!todo.empty()) {
        const Shape* s = todo.back();
        todo.pop_back();
        if (s->IsTuple())
          todo.insert(todo.end(), s->tuple_shapes.begin(), s->tuple_shapes.end());
        else if (s->IsArray())
          outputs = SatAdd(outputs, Size(*s));
      }
      int64_t bytes = outputs;
      for (const HloInstruction* o : instr.operands()) bytes = SatAdd(bytes, Size(o->shape()));
      cost.bytes_accessed = bytes;
      break;
    }
    case HloOpcode::kTriangularSolve: {
      if (instr.operand_count() < 2) break;
      const Shape& a = instr.operand(0)->shape();
      cost.bytes_accessed = SatAdd(SatAdd(Size(instr.shape()), Size(a) / 2), Size(instr.operand(1)->shape()));
      const int64_t last = a.rank() > 0 ? a.dimensions.back() : 1;
      cost.flops = SatMul(kFmaFlops, SatMul(last, Elements(instr.operand(1)->shape())));
      break;
    }
    case HloOpcode::kCholesky: {
      if (instr.operand_count() < 1) break;
      const Shape& a = instr.operand(0)->shape();
      cost.bytes_accessed = Size(a) / 2 * 2;
      const int64_t last = a.rank() > 0 ? a.dimensions.back() : 1;
      cost.flops = SatMul(last, Elements(a)) / 3;
      break;
    }
    case HloOpcode::kCustomCall:
      if (AsXla()) {
        cost.flops = 0;
        cost.bytes_accessed = 0;
        cost.xla_unknown_calls = 1;
      } else if (std::optional<int64_t> gemm = LibraryGemmFlops(instr)) {
        cost.flops = *gemm;  // a cuBLAS GEMM: a dot by its config's dimensions
        cost.matmul_flops = *gemm;
      } else {
        incomplete_ = true;  // what it computes is the library's
      }
      break;
    case HloOpcode::kFusion:
      Fusion(instr, cost);
      break;
    case HloOpcode::kWhile:
      if (AsXla()) {
        cost = Computation(instr.while_body());
        cost += Computation(instr.while_condition());
      } else {
        cost = {};
      }
      break;
    case HloOpcode::kCall:
    case HloOpcode::kAsyncStart:
      if (AsXla()) {
        const HloComputation* called = op == HloOpcode::kCall ? instr.called(CallRole::kToApply) : nullptr;
        if (!called)
          for (const CalledComputation& c : instr.called_computations())
            if (c.role == CallRole::kCalls || c.role == CallRole::kToApply) called = c.computation;
        cost = Computation(called);
      } else {
        cost = {};
      }
      break;
    case HloOpcode::kConditional:
      if (AsXla()) {
        cost = {};
        bool first = true;
        for (const CalledComputation& c : instr.called_computations()) {
          if (c.role != CallRole::kBranch && c.role != CallRole::kTrueComputation &&
              c.role != CallRole::kFalseComputation)
            continue;
          HloCost b = Computation(c.computation);
          if (first) {
            cost = b;
            first = false;
          } else {
            cost.flops = std::max(cost.flops, b.flops);
            cost.transcendentals = std::max(cost.transcendentals, b.transcendentals);
            cost.bytes_accessed = std::max(cost.bytes_accessed, b.bytes_accessed);
            cost.incomplete |= b.incomplete;
            cost.xla_unknown_calls = std::max(cost.xla_unknown_calls, b.xla_unknown_calls);
            cost.matmul_flops = std::max(cost.matmul_flops, b.matmul_flops);
          }
        }
      } else {
        cost = {};
      }
      break;
    default:
      if (IsAsyncFollower(op)) {
        // XLA keeps Preprocess's default (and so counts the pair twice); one
        // run of the pair is the start's.
        if (!AsXla()) cost.bytes_accessed = 0;
      } else if (op != HloOpcode::kCopy &&
                 (IsElementwiseOpcode(op) || op == HloOpcode::kCompare || op == HloOpcode::kSelect ||
                  op == HloOpcode::kClamp || op == HloOpcode::kConvert || op == HloOpcode::kReducePrecision ||
                  op == HloOpcode::kBitcastConvert))
        Elementwise(instr, cost);
      break;
  }
  if (!options_.count_bytes) cost.bytes_accessed = 0;
  cost.incomplete |= incomplete_;
  return cost;
}

}  // namespace

HloCost& HloCost::operator+=(const HloCost& other) {
  flops = SatAdd(flops, other.flops);
  transcendentals = SatAdd(transcendentals, other.transcendentals);
  bytes_accessed = SatAdd(bytes_accessed, other.bytes_accessed);
  incomplete |= other.incomplete;
  xla_unknown_calls = SatAdd(xla_unknown_calls, other.xla_unknown_calls);
  matmul_flops = SatAdd(matmul_flops, other.matmul_flops);
  return *this;
}

HloCost HloCost::Times(int64_t n) const {
  HloCost c = *this;
  c.flops = SatMul(flops, n);
  c.transcendentals = SatMul(transcendentals, n);
  c.bytes_accessed = SatMul(bytes_accessed, n);
  c.matmul_flops = SatMul(matmul_flops, n);
  return c;
}

struct CostAnalysis::Memo : cost_internal::ComputationMemo {};

CostAnalysis::CostAnalysis() : memo_(std::make_unique<Memo>()) {}
CostAnalysis::~CostAnalysis() = default;

HloCost CostAnalysis::Of(const HloInstruction& instr, const CostOptions& options) {
  if (options.count_bytes && options.pointer_size == 8 &&
      (options.counting == CostCounting::kAsXla || CountedAlikeBothWays(instr.opcode()))) {
    // An instruction outside any module (built by hand) has no memo.
    const HloModule* module = instr.parent() ? instr.parent()->parent() : nullptr;
    if (module && module == memo_->module)
      if (const HloCost* kept = memo_->Kept(instr)) return *kept;
  }
  return Coster(options, *memo_).Of(instr);
}

HloCost CostAnalysis::XlaTotal(const HloModule& module, int pointer_size) {
  HloCost sum;
  const HloComputation* entry = module.entry_computation();
  if (!entry) return sum;
  CostOptions options;
  options.counting = CostCounting::kAsXla;
  options.pointer_size = pointer_size;
  memo_->Reserve(module);
  for (const HloInstruction* i : entry->instructions()) {
    HloCost c = Coster(options, *memo_).Of(*i);
    if (pointer_size == 8) memo_->Keep(*i, c);
    sum += c;
  }
  return sum;
}

HloCost CostOf(const HloInstruction& instr, const CostOptions& options) {
  return CostAnalysis().Of(instr, options);
}

HloCost XlaCostAnalysisOf(const HloModule& module, int pointer_size) {
  return CostAnalysis().XlaTotal(module, pointer_size);
}

}  // namespace hloscope
