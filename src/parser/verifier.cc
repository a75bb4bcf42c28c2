#include "hloscope/parser/verifier.h"

#include <fmt/format.h>

#include <string>
#include <unordered_map>
#include <vector>

namespace hloscope {
namespace {

class Verifier {
 public:
  Verifier(const HloModule& m, std::string_view path) : m_(m), path_(path) {}

  std::optional<Diagnostic> Run() {
    for (const HloComputation* comp : m_.computations()) {
      for (const HloInstruction* instr : comp->instructions())
        if (!CheckStructure(*instr)) return error_;
    }
    if (!CheckOperandCycles()) return error_;
    if (!CheckCallGraph()) return error_;
    return std::nullopt;
  }

 private:
  bool Fail(uint64_t offset, std::string message) {
    error_ = MakeDiagnostic(path_, m_.source(), offset, std::move(message));
    return false;
  }
  bool Fail(const HloInstruction& i, std::string message) {
    return Fail(i.source_offset(), std::move(message));
  }

  // An instruction written without a shape (`%t = tuple(%a, %b)`, which
  // newer XLA infers) parses as the empty tuple: nothing to compare.
  static bool Omitted(const Shape& s) { return s.IsTuple() && s.tuple_shapes.empty(); }

  static int64_t ParameterCount(const HloComputation* c) {
    return c ? static_cast<int64_t>(c->parameters().size()) : -1;
  }

  // Same element type, dimensions and tuple structure (layouts aside), up
  // to the parser's nesting limit.
  static bool SameStructure(const Shape& a, const Shape& b, int depth = 0) {
    if (depth > 1024) return true;  // the parser bounds nesting well below this
    if (Omitted(a) || Omitted(b)) return true;
    if (a.IsTuple() != b.IsTuple()) return false;
    if (a.IsTuple()) {
      if (a.tuple_shapes.size() != b.tuple_shapes.size()) return false;
      for (size_t i = 0; i < a.tuple_shapes.size(); ++i)
        if (!SameStructure(*a.tuple_shapes[i], *b.tuple_shapes[i], depth + 1)) return false;
      return true;
    }
    if (a.element_type != b.element_type) return false;
    // Unknown types and dynamic dimensions: what the text says is all we know.
    if (a.element_type == PrimitiveType::kUnknown) return a.type_name == b.type_name;
    return a.dimensions == b.dimensions;
  }

  // Operand counts XLA's shape inference requires of the opcodes whose
  // operands the analyses read by position.
  bool CheckOperandCount(const HloInstruction& i) {
    const int64_t n = i.operand_count();
    auto fail = [&](std::string_view wanted) {
      return Fail(i, fmt::format("{} '{}' has {} operand{}; it takes {}", i.opcode_text(), i.name(), n,
                                 n == 1 ? "" : "s", wanted));
    };
    switch (i.opcode()) {
      case HloOpcode::kCopy:
      case HloOpcode::kBitcast:
      case HloOpcode::kCopyStart:
      case HloOpcode::kCopyDone:
      case HloOpcode::kGetTupleElement:
        return n == 1 || fail("one");
      case HloOpcode::kDynamicSlice:
        return n >= 1 || fail("an operand and its start indices");
      case HloOpcode::kDynamicUpdateSlice:
        return n >= 2 || fail("an operand, an update and the start indices");
      case HloOpcode::kScatter:
        // N operands, the indices, N updates.
        return (n >= 3 && n % 2 == 1) ||
               fail("N operands, the indices and N updates (an odd number, at least 3)");
      default:
        return true;
    }
  }

  bool CheckStructure(const HloInstruction& i) {
    if (!CheckOperandCount(i)) return false;
    switch (i.opcode()) {
      case HloOpcode::kFusion: {
        const HloComputation* fused = i.fused_computation();
        if (fused && ParameterCount(fused) != i.operand_count())
          return Fail(i, fmt::format("fusion '{}' has {} operands but its computation '{}' has {} parameters",
                                     i.name(), i.operand_count(), fused->name(), ParameterCount(fused)));
        return true;
      }
      case HloOpcode::kCall: {
        const HloComputation* callee = i.called(CallRole::kToApply);
        if (!callee) callee = i.called(CallRole::kCalls);
        if (callee && ParameterCount(callee) != i.operand_count())
          return Fail(i, fmt::format("call '{}' has {} operands but '{}' has {} parameters", i.name(),
                                     i.operand_count(), callee->name(), ParameterCount(callee)));
        return true;
      }
      case HloOpcode::kWhile: {
        if (i.operand_count() != 1)
          return Fail(i, fmt::format("while '{}' has {} operands; a while loop takes one (its state)",
                                     i.name(), i.operand_count()));
        for (const HloComputation* c : {i.while_body(), i.while_condition()})
          if (c && ParameterCount(c) != 1)
            return Fail(i,
                        fmt::format("while '{}': '{}' has {} parameters; a loop body or condition takes one",
                                    i.name(), c->name(), ParameterCount(c)));
        return true;
      }
      case HloOpcode::kConditional: {
        int64_t branches = 0;
        for (const CalledComputation& cc : i.called_computations()) {
          if (cc.role != CallRole::kBranch && cc.role != CallRole::kTrueComputation &&
              cc.role != CallRole::kFalseComputation)
            continue;
          ++branches;
          if (ParameterCount(cc.computation) != 1)
            return Fail(i, fmt::format("conditional '{}': branch '{}' has {} parameters; a branch takes one",
                                       i.name(), cc.computation->name(), ParameterCount(cc.computation)));
        }
        if (branches > 0 && branches != i.operand_count() - 1)
          return Fail(i, fmt::format("conditional '{}' has {} branches but {} branch operands", i.name(),
                                     branches, i.operand_count() - 1));
        return true;
      }
      case HloOpcode::kTuple: {
        const Shape& s = i.shape();
        if (Omitted(s)) return true;
        if (!s.IsTuple() || static_cast<int64_t>(s.tuple_shapes.size()) != i.operand_count())
          return Fail(i, fmt::format("tuple '{}' has {} operands but its shape {} does not list {}", i.name(),
                                     i.operand_count(), s.ToString(), i.operand_count()));
        for (int64_t k = 0; k < i.operand_count(); ++k)
          if (!SameStructure(*s.tuple_shapes[k], i.operand(k)->shape()))
            return Fail(i, fmt::format("tuple '{}': element {} of its shape is {} but operand {} is {}",
                                       i.name(), k, s.tuple_shapes[k]->ToString(), i.operand(k)->name(),
                                       i.operand(k)->shape().ToString()));
        return true;
      }
      case HloOpcode::kGetTupleElement: {
        const Shape& t = i.operand(0)->shape();
        if (Omitted(t)) return true;
        int64_t k = i.tuple_index();
        if (!t.IsTuple() || k < 0 || k >= static_cast<int64_t>(t.tuple_shapes.size()))
          return Fail(i, fmt::format("get-tuple-element '{}': index {} is not an element of {} ({})",
                                     i.name(), k, i.operand(0)->name(), t.ToString()));
        if (!SameStructure(*t.tuple_shapes[k], i.shape()))
          return Fail(
              i, fmt::format("get-tuple-element '{}' is {} but element {} of {} is {}", i.name(),
                             i.shape().ToString(), k, i.operand(0)->name(), t.tuple_shapes[k]->ToString()));
        return true;
      }
      default:
        return true;
    }
  }

  // Operands and control predecessors form a DAG in every computation.
  bool CheckOperandCycles() {
    size_t n = 0;
    for (const HloComputation* comp : m_.computations())
      if (!comp->operands_precede_users())
        for (const HloInstruction* instr : comp->instructions()) n = std::max<size_t>(n, instr->id() + 1);
    std::vector<uint8_t> color(n, 0);  // 0 new, 1 on the stack, 2 done
    struct Frame {
      const HloInstruction* instr;
      size_t next;
    };
    std::vector<Frame> stack;
    auto edge = [](const HloInstruction* i, size_t k) -> const HloInstruction* {
      size_t ops = i->operands().size();
      if (k < ops) return i->operand(k);
      k -= ops;
      return k < i->control_predecessors().size() ? i->control_predecessors()[k] : nullptr;
    };
    for (const HloComputation* comp : m_.computations()) {
      // Written in order (all of XLA's output): no cycle to find.
      if (comp->operands_precede_users()) continue;
      for (const HloInstruction* root : comp->instructions()) {
        if (color[root->id()]) continue;
        stack.push_back({root, 0});
        color[root->id()] = 1;
        while (!stack.empty()) {
          Frame& f = stack.back();
          const HloInstruction* next = edge(f.instr, f.next);
          if (!next) {
            color[f.instr->id()] = 2;
            stack.pop_back();
            continue;
          }
          ++f.next;
          if (color[next->id()] == 2) continue;
          if (color[next->id()] == 1) {
            std::string cycle(next->name());
            bool on = false;
            for (const Frame& s : stack) {
              if (s.instr == next) on = true;
              if (on && s.instr != next) cycle += fmt::format(" -> {}", s.instr->name());
            }
            cycle += fmt::format(" -> {}", next->name());
            if (next == f.instr)
              return Fail(*next, fmt::format("instruction '{}' is its own operand", next->name()));
            return Fail(*next, fmt::format("instruction '{}' depends on itself ({})", next->name(), cycle));
          }
          color[next->id()] = 1;
          stack.push_back({next, 0});
        }
      }
    }
    return true;
  }

  // The computations an instruction calls form a DAG below the entry; a
  // fused computation is called by fusions only; nesting is bounded.
  bool CheckCallGraph() {
    std::unordered_map<const HloComputation*, size_t> index;
    const std::span<HloComputation* const> comps = m_.computations();
    for (size_t c = 0; c < comps.size(); ++c) index.emplace(comps[c], c);
    for (const HloComputation* comp : comps) {
      const HloInstruction* fusion_caller = nullptr;
      const HloInstruction* other_caller = nullptr;
      for (const HloInstruction* caller : comp->callers()) {
        if (comp->is_entry())
          return Fail(*caller,
                      fmt::format("'{}' calls the entry computation '{}'", caller->name(), comp->name()));
        bool fused = false;
        for (const CalledComputation& cc : caller->called_computations())
          fused |=
              cc.computation == comp && cc.role == CallRole::kCalls && caller->opcode() == HloOpcode::kFusion;
        (fused ? fusion_caller : other_caller) = caller;
      }
      if (fusion_caller && other_caller)
        return Fail(
            *other_caller,
            fmt::format(
                "'{}' calls '{}', the fused computation of fusion '{}': a fused computation runs only "
                "inside its fusion",
                other_caller->name(), comp->name(), fusion_caller->name()));
    }
    // The call edges, from each computation's callers (the parser records
    // them): proportional to the call sites, not to the instructions — a
    // walk over every instruction here cost 10% of a large module's parse.
    struct Edge {
      size_t callee;
      const HloInstruction* caller;
    };
    std::vector<std::vector<Edge>> calls(comps.size());
    for (size_t c = 0; c < comps.size(); ++c)
      for (const HloInstruction* caller : comps[c]->callers()) {
        auto from = index.find(caller->parent());
        if (from != index.end()) calls[from->second].push_back({c, caller});
      }
    // Iterative DFS over computations: a back edge is a cycle; the height
    // (longest chain of calls below) is bounded.
    std::vector<uint8_t> color(comps.size(), 0);
    std::vector<int> height(comps.size(), 0);
    struct Frame {
      size_t comp;
      size_t edge = 0;
    };
    for (size_t start = 0; start < comps.size(); ++start) {
      if (color[start]) continue;
      std::vector<Frame> stack = {{start}};
      color[start] = 1;
      while (!stack.empty()) {
        Frame& f = stack.back();
        const HloComputation* comp = comps[f.comp];
        if (f.edge == calls[f.comp].size()) {
          color[f.comp] = 2;
          size_t done = f.comp;
          stack.pop_back();
          if (!stack.empty()) {
            int& h = height[stack.back().comp];
            h = std::max(h, height[done] + 1);
            if (h > kMaxCallDepth)
              return Fail(comps[stack.back().comp]->source_offset(),
                          fmt::format("computations are nested more than {} levels deep below '{}'",
                                      kMaxCallDepth, comps[stack.back().comp]->name()));
          }
          continue;
        }
        const Edge edge = calls[f.comp][f.edge++];
        const HloInstruction* caller = edge.caller;
        const HloComputation* callee = comps[edge.callee];
        size_t c = edge.callee;
        if (color[c] == 1)
          return Fail(*caller,
                      callee == comp
                          ? fmt::format("'{}' calls its own computation '{}'", caller->name(), comp->name())
                          : fmt::format("'{}' in '{}' calls '{}', which is already running it (a cycle "
                                        "of calls)",
                                        caller->name(), comp->name(), callee->name()));
        if (color[c] == 2) {
          // Already finished (reached earlier from another start): its height is known.
          height[f.comp] = std::max(height[f.comp], height[c] + 1);
          if (height[f.comp] > kMaxCallDepth)
            return Fail(*caller, fmt::format("computations are nested more than {} levels deep at '{}'",
                                             kMaxCallDepth, caller->name()));
          continue;
        }
        if (stack.size() > static_cast<size_t>(kMaxCallDepth))
          return Fail(*caller, fmt::format("computations are nested more than {} levels deep at '{}'",
                                           kMaxCallDepth, caller->name()));
        color[c] = 1;
        stack.push_back({c});
      }
    }
    return true;
  }

  const HloModule& m_;
  std::string_view path_;
  Diagnostic error_;
};

}  // namespace

std::optional<Diagnostic> VerifyModule(const HloModule& module, std::string_view path) {
  return Verifier(module, path).Run();
}

}  // namespace hloscope
