// Why a copy exists and what removes it, in the user's terms: the rule's
// row of the catalog (analysis/cause_catalog.def) holds the sentence and
// the hint as templates; this file supplies, per rule family, the values
// and flags they are filled with from the family's typed facts
// (CausePayload). tests/python/test_hint_fixes.py compiles every hint's
// program and its fixed version.
#include "hloscope/report/cause_words.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "hloscope/report/wording.h"
#include "hloscope/report/wording_template.h"
#include "hloscope/support/human_bytes.h"

namespace hloscope {
namespace {

std::string LayoutText(const Shape* s) { return s && s->layout ? "{" + s->layout->raw + "}" : "{}"; }

// What the copy is for, as the object of "X is ...".
// The update a copy feeds, at its line: "dynamic-update-slice.3 in
// select_fusion at train.py:50" (the writer's line, as the reader's is).
std::string FeedAtText(const CauseFacts& f) {
  if (!f.feed) return "?";
  return FeedText(*f.feed) + (f.feed_source ? " at " + SourceText(f.feed_source) : "");
}

std::string WhatText(const CauseFacts& f) {
  if (!f.feed) return "returned as an output";
  if (f.feed->kind == CopyFeed::Kind::kLoopState)
    return fmt::format("the initial loop state of {} and overwritten by the loop", f.feed->loop->name());
  return fmt::format("updated in place ({})", FeedAtText(f));
}

std::string FirstReader(const CauseFacts& f) {
  return f.readers.empty() ? std::string("?") : InstructionAtText(f.readers.front());
}

// "donate state: jax.jit(f, donate_argnames=\"state\")": the donation in
// JAX's terms. The entry parameter is one leaf of the flattened arguments;
// JAX names it by its path ("state['buf']", "kv[1]", "x") in its op_name,
// whose head is the Python parameter to donate (donate_argnames finds a
// positional one through the signature). A leaf of *args ("args[2]") has
// no name JAX accepts: its position in *args. Without JAX's name (HLO
// from elsewhere), the HLO parameter number.
std::string DonateHint(const HloInstruction* parameter, int64_t number) {
  std::string path = parameter && parameter->metadata() ? CUnescape(parameter->metadata()->op_name) : "";
  size_t end = 0;
  auto ident = [](char ch, bool first) {
    return ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
           (!first && ch >= '0' && ch <= '9');
  };
  while (end < path.size() && ident(path[end], end == 0)) ++end;
  bool named = end > 0 && (end == path.size() || path[end] == '[' || path[end] == '.');
  if (!named)
    return fmt::format(
        "donate the argument holding HLO parameter {} ({}): jax.jit(f, donate_argnums=<its "
        "position>)",
        number, parameter ? std::string(parameter->name()) : "?");
  std::string head = path.substr(0, end);
  if (head == "args" && end < path.size() && path[end] == '[') {
    size_t close = path.find(']', end);
    std::string position = path.substr(end + 1, close == std::string::npos ? 0 : close - end - 1);
    if (!position.empty() &&
        std::all_of(position.begin(), position.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
      return fmt::format(
          "donate {0}: jax.jit(f, donate_argnums={1}) if f takes only *args (else {1} plus the "
          "number of positional parameters before *args)",
          path, position);
  }
  // JAX resolves donate_argnames through the signature only when
  // donate_argnums is not given; with it, names donate keyword arguments.
  return fmt::format(
      "donate {0}: jax.jit(f, donate_argnames=\"{0}\"){1}; if the jit already has donate_argnums, "
      "add {0}'s position there instead",
      head, path == head ? "" : fmt::format(" (the argument holding {})", path));
}

int64_t MemorySpaceOf(const Shape* s) { return s && s->layout ? s->layout->memory_space : 0; }

// "from memory space 0 to 1 (a prefetch)". S(5) is host memory on GPU and
// TPU (xla-reference §1.8); other non-zero spaces are the backend's faster
// or special memories (TPU: VMEM, SMEM, sync flags).
std::string MemorySpaceMoveText(const CopyFinding& c) {
  int64_t from = MemorySpaceOf(c.source_shape), to = MemorySpaceOf(c.shape);
  std::string_view kind = to == 5     ? "an offload to host memory"
                          : from == 5 ? "a load from host memory"
                          : to != 0   ? "a prefetch"
                                      : "an eviction back to device memory";
  return fmt::format("from memory space {} to {} ({})", from, to, kind);
}

std::string Name(const HloInstruction* i, std::string_view otherwise = "?") {
  return i ? std::string(i->name()) : std::string(otherwise);
}

// The array a copied slice was taken from, with the argument it starts
// from when it is loop state: "carry 4 of while.16 (cache_k)".
std::string SlicedFromText(const ReshapedUpdateFacts& f) {
  std::string text = ValueText(f.sliced_from);
  if (f.sliced_from_argument && !(*f.sliced_from_argument == f.sliced_from))
    text += fmt::format(" ({})", ArgumentName(f.sliced_from_argument->instruction));
  return text;
}

// The values and flags every rule may use.
WordArgs CommonWords(const CopyFinding& c) {
  const CauseFacts& f = c.cause;
  const HloPosition& src = c.copied_from;
  WordArgs w;
  w.Set("value", ValueText(src))
      .Set("src", PositionText(src))
      .Set("src_name", Name(src.instruction))
      .Set("what", WhatText(f))
      .Set("feed", FeedAtText(f))
      .Set("reader", FirstReader(f))
      .Set("total", HumanBytes(c.total_bytes))
      .Set("from_layout", LayoutText(c.source_shape))
      .Set("to_layout", LayoutText(c.shape))
      .Set("move", MemorySpaceMoveText(c));
  w.Flag("in_loop", f.in_loop)
      .Flag("copy_in_loop", !c.enclosing_loops.empty())
      .Flag("array", c.shape && c.shape->rank() > 0)
      .Flag("read", !f.readers.empty());
  return w;
}

// Each family's values, from its facts. A family whose payload is missing
// (no rule matched) adds nothing.
struct FamilyWords {
  const CopyFinding& c;
  WordArgs& w;

  void operator()(const std::monostate&) {}
  void operator()(const BranchFacts& f) {
    w.Set("branch", f.branch ? std::string(f.branch->name()) : "?")
        .Set("conditional", Name(f.conditional, "the conditional"));
  }
  void operator()(const ConstantFacts&) {}
  void operator()(const ParameterFacts& f) {
    const CauseFacts& cf = c.cause;
    std::string readers = FirstReader(cf);
    if (cf.readers.size() > 1) readers += fmt::format(" and {} more", cf.readers.size() - 1);
    w.Set("parameter", std::to_string(f.parameter_number))
        .Set("donate_hint", DonateHint(c.copied_from.instruction, f.parameter_number))
        .Set("writer", f.writer.instruction ? InstructionAtText(f.writer) : "?")
        .Set("output", f.output ? ShapeIndexToString(*f.output) : "?")
        .Set("readers", readers);
    w.Flag("buffer_donor", f.donation == DonationKind::kBufferDonor)
        .Flag("no_output", !f.aliasable_output)
        // XLA:TPU made the copy a move into another memory space: its
        // memory-space assignment may prefetch the array even when donated
        // (tests/python/test_hint_fixes.py compiles both on TPU).
        .Flag("space_move", c.copy_class == CopyClass::kMemorySpaceMove)
        .Flag("one_reader", cf.readers.size() <= 1)
        .Flag("unordered", !f.unordered_readers.empty())
        .Flag("several_unordered", f.unordered_readers.size() > 1);
  }
  void operator()(const SharedValueFacts& f) {
    bool one_loop =
        std::all_of(f.starts.begin(), f.starts.end(), [&](const CarryStart& s) { return s.loop == f.loop; });
    std::vector<std::string> carries;
    for (const CarryStart& s : f.starts)
      carries.push_back(one_loop ? std::to_string(s.carry)
                                 : fmt::format("carry {} of {}", s.carry, Name(s.loop)));
    w.Set("starts", one_loop ? fmt::format("carries {} of {}", fmt::join(carries, ", "), Name(f.loop))
                             : fmt::format("the state of several loops ({})", fmt::join(carries, ", ")))
        .Set("carry", std::to_string(f.carry))
        .Set("loop", Name(f.loop));
    // kSharedByUpdates: the updates (and any carries) the value starts.
    std::vector<std::string> started;
    for (const UpdateSite& u : f.updates) started.push_back(std::string(u.owner()->name()));
    for (const CarryStart& s : f.starts)
      started.push_back(fmt::format("carry {} of {}", s.carry, Name(s.loop)));
    w.Set("count", std::to_string(started.size()))
        .Set("updates", fmt::format("{}", fmt::join(started, ", ")));
    w.Flag("merged", f.merged_initial_value);
  }
  void operator()(const StagedCarryFacts& f) {
    w.Set("carry", std::to_string(f.carry))
        .Set("loop", Name(f.loop))
        .Set("home", std::to_string(f.home))
        .Set("stage", std::to_string(f.stage))
        .Set("other", PositionText(f.other))
        .Set("per_iteration", HumanBytes(c.bytes));
  }
  void operator()(const ReadFacts& f) {
    w.Set("loop", Name(f.loop));
    w.Flag("passed_on", f.passed_on_by_enclosing_loop);
  }
  void operator()(const CarryFacts& f) {
    std::vector<std::string> readers;
    for (const HloInstruction* r : f.old_value_readers) readers.push_back(std::string(r->name()));
    w.Set("carry", std::to_string(f.carry))
        .Set("other_carry", f.other_carry ? std::to_string(*f.other_carry) : "?")
        .Set("new_value", PositionText(f.new_value))
        .Set("old_readers", fmt::format("{}", fmt::join(readers, ", ")));
    // The collective-permute that receives the carry (the -done of an async
    // pair, whose value XLA names at the -start's element {1}).
    w.Set("permute", Name(f.permute)).Set("scan", Name(f.scan));
    w.Flag("has_readers", !readers.empty())
        .Flag("scanned", f.scan != nullptr)
        // A scalar carry (usually the loop counter): negligible, no hint.
        .Flag("scalar_carry", c.copied_from.index.size() == 1 && c.shape && c.shape->rank() == 0);
  }
  void operator()(const OutputFacts& f) {
    std::set<ShapeIndex> distinct(f.outputs.begin(), f.outputs.end());
    w.Set("output", f.outputs.empty() ? "?" : ShapeIndexToString(f.outputs.front()))
        .Set("output_count", std::to_string(distinct.size()))
        .Set("other_output", f.other_output ? ShapeIndexToString(*f.other_output) : "?")
        .Set("aliased_parameter", f.aliased_parameter ? std::to_string(*f.aliased_parameter) : "?");
  }
  void operator()(const LayoutFacts& f) { w.Set("collective", f.collective ? Name(f.collective) : "?"); }
  void operator()(const MemorySpaceFacts&) {}
  void operator()(const ReshapedUpdateFacts& f) {
    w.Set("operand_shape", f.operand ? f.operand->ToString() : "?")
        .Set("result_shape", f.result ? f.result->ToString() : "?")
        .Set("sliced_from", SlicedFromText(f));
    w.Flag("sliced", f.sliced_from.instruction != nullptr)
        .Flag("same_dims", f.operand && f.result && f.operand->dimensions == f.result->dimensions);
  }
};

}  // namespace

WordArgs CauseWords(const CopyFinding& c) {
  WordArgs w = CommonWords(c);
  std::visit(FamilyWords{c, w}, c.cause.payload);
  return w;
}

std::string CauseDetail(const CopyFinding& c) {
  const RuleEntry* row = EntryOf(c.cause.rule);
  if (!row) return fmt::format("copy of {}; no rule explains it", PositionText(c.copied_from));
  std::string detail = FillTemplate(row->detail, CauseWords(c));
  // A move that plays a protective copy's role: the cause is the reason the
  // copy exists, the move is how XLA made it (TPU copies a non-donated
  // argument by moving it into S(1) and updating it there).
  if (c.copy_class == CopyClass::kMemorySpaceMove && c.cause.rule != CauseRule::kMemorySpaceMove &&
      c.cause.rule != CauseRule::kCarryStaged)
    detail += fmt::format("; XLA makes this copy by moving the buffer {}", MemorySpaceMoveText(c));
  return detail;
}

std::string CauseHint(const CopyFinding& c) {
  const RuleEntry* row = EntryOf(c.cause.rule);
  return row ? FillTemplate(row->hint, CauseWords(c)) : "";
}

}  // namespace hloscope
