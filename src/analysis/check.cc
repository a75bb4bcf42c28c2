// The `hloscope check` analysis. Reading order: copies (find, classify,
// explain), updates (verdicts), loops (per-iteration traffic), parameters.
// Rules and their XLA sources: docs/analysis.md.
#include "hloscope/analysis/check.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "hloscope/analysis/call_graph.h"
#include "hloscope/analysis/dataflow.h"
#include "hloscope/analysis/execution_counts.h"
#include "hloscope/analysis/in_place.h"
#include "hloscope/support/human_bytes.h"

namespace hloscope {

std::string_view CopyCauseName(CopyCause cause) {
  switch (cause) {
    case CopyCause::kNonDonatedParameter: return "non-donated-parameter";
    case CopyCause::kConstantUpdated: return "constant-updated";
    case CopyCause::kLoopCarriedLive: return "loop-carried-live";
    case CopyCause::kReadAfterUpdate: return "read-after-update";
    case CopyCause::kOutputDuplicated: return "output-duplicated";
    case CopyCause::kOutputPassthrough: return "output-passthrough";
    case CopyCause::kOutputAliasing: return "output-aliasing";
    case CopyCause::kConditionalBranch: return "conditional-branch";
    case CopyCause::kLayoutChange: return "layout-change";
    case CopyCause::kMemorySpaceMove: return "memory-space-move";
    case CopyCause::kUnknown: return "unknown";
  }
  return "unknown";
}

std::string_view CopyClassName(CopyClass c) {
  switch (c) {
    case CopyClass::kProtective: return "protective";
    case CopyClass::kLayoutChange: return "layout-change";
    case CopyClass::kMemorySpaceMove: return "memory-space-move";
  }
  return "protective";
}

std::string_view UpdateVerdictName(UpdateVerdict v) {
  switch (v) {
    case UpdateVerdict::kInPlace: return "in-place";
    case UpdateVerdict::kInPlaceOnCopy: return "in-place-on-copy";
    case UpdateVerdict::kOutOfPlace: return "out-of-place";
    case UpdateVerdict::kNotMaterialized: return "not-materialized";
  }
  return "in-place";
}

namespace {

bool IsSequential(const HloComputation* comp) {
  return IsSequentialRole(RoleOf(*comp));
}

// A copy found in the module: a top-level copy, a copy-start, or one copy
// output of a copy fusion.
struct CopySite {
  const HloInstruction* instr = nullptr;
  ShapeIndex output_index;       // within instr's result (copy fusions)
  const HloInstruction* source = nullptr;  // the operand that is copied
  ShapeIndex source_index;
  const Shape* dest_shape = nullptr;
  const Shape* src_shape = nullptr;
  std::string kind;
};

// GPU dumps show protective copies as fusions whose root (or root tuple
// element) is `copy(parameter)` (CopyFusion, horizontal "copy_" fusion); CPU
// wraps layout-changing copies the same way (`wrapped_copy`).
void CopyFusionSites(const HloInstruction* fusion, std::vector<CopySite>* out) {
  const HloComputation* fused = fusion->fused_computation();
  if (!fused) return;
  const HloInstruction* root = fused->root_instruction();
  auto try_one = [&](const HloInstruction* node, ShapeIndex index) {
    if (node->opcode() != HloOpcode::kCopy || node->operand_count() != 1) return;
    const HloInstruction* p = node->operand(0);
    if (p->opcode() != HloOpcode::kParameter ||
        p->parameter_number() >= fusion->operand_count())
      return;
    CopySite site;
    site.instr = fusion;
    site.output_index = std::move(index);
    site.source = fusion->operand(p->parameter_number());
    site.dest_shape = &node->shape();
    site.src_shape = &p->shape();
    site.kind = "copy-fusion";
    out->push_back(site);
  };
  if (root->opcode() == HloOpcode::kTuple) {
    for (int64_t i = 0; i < root->operand_count(); ++i) try_one(root->operand(i), {i});
  } else {
    try_one(root, {});
  }
}

std::vector<CopySite> FindCopies(const HloModule& module) {
  std::vector<CopySite> sites;
  for (const HloComputation* comp : module.computations()) {
    if (!IsSequential(comp)) continue;
    for (const HloInstruction* instr : comp->instructions()) {
      if (instr->opcode() == HloOpcode::kCopy && instr->operand_count() == 1) {
        CopySite s;
        s.instr = instr;
        s.source = instr->operand(0);
        s.dest_shape = &instr->shape();
        s.src_shape = &instr->operand(0)->shape();
        s.kind = "copy";
        sites.push_back(s);
      } else if (instr->opcode() == HloOpcode::kCopyStart && instr->operand_count() >= 1) {
        // (dest, src, context) = copy-start(src)
        CopySite s;
        s.instr = instr;
        s.output_index = {0};
        s.source = instr->operand(0);
        s.dest_shape = instr->shape().IsTuple() && !instr->shape().tuple_shapes.empty()
                           ? instr->shape().tuple_shapes[0]
                           : &instr->shape();
        s.src_shape = &instr->operand(0)->shape();
        s.kind = "copy-start";
        sites.push_back(s);
      } else if (instr->opcode() == HloOpcode::kFusion) {
        CopyFusionSites(instr, &sites);
      }
    }
  }
  return sites;
}

CopyClass ClassifyCopy(const Shape& src, const Shape& dst) {
  int64_t ms_src = src.layout ? src.layout->memory_space : 0;
  int64_t ms_dst = dst.layout ? dst.layout->memory_space : 0;
  if (ms_src != ms_dst) return CopyClass::kMemorySpaceMove;
  if (!ShapesEqualWithLayout(src, dst)) return CopyClass::kLayoutChange;
  return CopyClass::kProtective;
}

std::string ShortShape(const Shape& s) { return s.ToString(/*print_layout=*/true); }

// The analysis state for one module.
class Checker {
 public:
  Checker(const HloModule& module, const ExecutionCounts& counts,
          const CheckOptions& options)
      : module_(module), options_(options), counts_(counts) {}

  ModuleCheck Run();

 private:
  // Copies ------------------------------------------------------------------
  const CopySite* CopyAt(const HloPosition& pos) const {
    auto it = copy_by_position_.find({pos.instruction, pos.index});
    return it == copy_by_position_.end() ? nullptr : it->second;
  }
  // The copy an in-place operand value comes from, crossing loop state to
  // the loop's init; nullptr when the buffer is not a copy.
  const CopySite* CopyUnder(HloPosition pos) const;
  // The entry parameter number a value ultimately comes from (through
  // copies and loop state), or -1.
  int64_t ParameterOrigin(HloPosition pos) const;
  void ExplainCopy(const CopySite& site, CopyFinding* finding);
  bool FeedsUpdate(const HloPosition& pos, std::vector<std::string>* updates, int depth) const;
  std::optional<SourceLocation> Source(const HloInstruction* instr) const {
    return ResolveSource(module_, *instr, options_.source);
  }
  // "wrapped_dynamic-slice (loops.py:120)": a name with its user line.
  std::string Named(const HloInstruction* instr) const;
  // A value in the user's terms: "argument 0 (buf)", "carry 1 of while.4".
  std::string DescribeValue(const HloPosition& pos) const;
  // The position under which the buffer assignment lists the value at
  // `pos`. XLA's dataflow drops phis that resolve to one value (a while
  // carry the body passes through, a conditional whose branches agree), so
  // look at what flows into them: the loop's init and body root, the
  // branches' roots. Returns `pos` when nothing better is listed.
  HloPosition ListedValue(const HloPosition& pos) const;

  // Updates -----------------------------------------------------------------
  void AddUpdates(const HloInstruction* instr);
  void AddFusedUpdates(const HloInstruction* fusion);
  void ConfirmInPlace(const HloInstruction* out_instr, const ShapeIndex& out_index,
                      const HloPosition& operand_value, UpdateFinding* u) const;
  bool FusionFullRewrite(const HloInstruction* fusion, const HloInstruction* dus) const;

  // Loops -------------------------------------------------------------------
  LoopFinding AnalyzeLoop(const HloInstruction* w) const;

  const HloModule& module_;
  const CheckOptions& options_;
  const ExecutionCounts& counts_;
  std::vector<CopySite> sites_;
  std::map<std::pair<const HloInstruction*, ShapeIndex>, const CopySite*> copy_by_position_;
  // Update instructions (by in-place operand position) for cause analysis.
  std::map<const HloInstruction*, std::vector<InPlacePair>> pairs_;
  ModuleCheck result_;
  std::map<std::string, std::vector<std::string>> feeds_by_copy_;
};

std::string Checker::Named(const HloInstruction* instr) const {
  std::optional<SourceLocation> s = Source(instr);
  if (!s || s->file.empty()) return std::string(instr->name());
  return fmt::format("{} ({}:{})", instr->name(), Basename(s->file), s->line);
}

std::string Checker::DescribeValue(const HloPosition& pos) const {
  const HloInstruction* i = pos.instruction;
  if (i->opcode() == HloOpcode::kParameter) {
    const HloComputation* comp = i->parent();
    if (comp->is_entry())
      return fmt::format("argument {} ({}){}", i->parameter_number(), i->name(),
                         pos.index.empty() ? "" : " element " + ShapeIndexToString(pos.index));
    ComputationRole role = RoleOf(*comp);
    if ((role == ComputationRole::kWhileBody || role == ComputationRole::kWhileCondition) &&
        !pos.index.empty() && !comp->callers().empty())
      return fmt::format("carry {} of {}", pos.index[0], comp->callers()[0]->name());
  }
  if (i->opcode() == HloOpcode::kWhile && !pos.index.empty())
    return fmt::format("carry {} of {} (after the loop)", pos.index[0], i->name());
  return pos.ToString();
}

HloPosition Checker::ListedValue(const HloPosition& pos) const {
  const BufferAssignment* ba = options_.buffer_assignment;
  if (!ba) return pos;
  std::vector<HloPosition> work = {pos};
  for (size_t k = 0; k < work.size() && k < 32; ++k) {
    HloPosition p = work[k];
    if (ba->SliceOf(p.instruction->name(), p.index)) return p;
    const HloInstruction* i = p.instruction;
    if (i->opcode() == HloOpcode::kWhile || i->opcode() == HloOpcode::kParameter) {
      HloPosition init = LoopInitOf(p);
      if (!(init == p)) work.push_back(init);
      const HloInstruction* loop = i->opcode() == HloOpcode::kWhile ? i : nullptr;
      if (!loop && !i->parent()->callers().empty() &&
          i->parent()->callers()[0]->opcode() == HloOpcode::kWhile)
        loop = i->parent()->callers()[0];
      if (loop && loop->while_body())
        work.push_back(DefiningPosition(loop->while_body()->root_instruction(), p.index));
    } else if (i->opcode() == HloOpcode::kConditional) {
      for (const CalledComputation& cc : i->called_computations())
        work.push_back(DefiningPosition(cc.computation->root_instruction(), p.index));
    }
  }
  return pos;
}

const CopySite* Checker::CopyUnder(HloPosition pos) const {
  for (int step = 0; step < 64; ++step) {
    pos = DefiningPosition(pos.instruction, pos.index);
    if (const CopySite* c = CopyAt(pos)) return c;
    HloPosition init = LoopInitOf(pos);
    if (init == pos) return nullptr;
    pos = init;
  }
  return nullptr;
}

int64_t Checker::ParameterOrigin(HloPosition pos) const {
  for (int step = 0; step < 128; ++step) {
    pos = DefiningPosition(pos.instruction, pos.index);
    if (const CopySite* c = CopyAt(pos)) {
      pos = {c->source, c->source_index};
      continue;
    }
    const HloInstruction* i = pos.instruction;
    if (i->opcode() == HloOpcode::kParameter && i->parent()->is_entry())
      return i->parameter_number();
    HloPosition init = LoopInitOf(pos);
    if (init == pos) return -1;
    pos = init;
  }
  return -1;
}

// Does the value at `pos` (or a copy of it) become the in-place operand of
// an update? Collects the update names.
bool Checker::FeedsUpdate(const HloPosition& pos, std::vector<std::string>* updates,
                          int depth) const {
  if (depth > 8) return false;
  bool found = false;
  for (const HloUse& use : UsesOf(pos)) {
    auto it = pairs_.find(use.user);
    if (it != pairs_.end()) {
      for (const InPlacePair& p : it->second) {
        if (p.operand_number != use.operand_number) continue;
        std::string name = p.fused_update
                               ? fmt::format("{} (in {})", p.fused_update->name(), use.user->name())
                               : std::string(use.user->name());
        if (std::find(updates->begin(), updates->end(), name) == updates->end())
          updates->push_back(name);
        found = true;
      }
    }
    if (use.user->opcode() == HloOpcode::kCopy)
      found |= FeedsUpdate({use.user, {}}, updates, depth + 1);
    if (use.user->opcode() == HloOpcode::kWhile && !use.operand_index.empty()) {
      // Loop state: the loop overwrites this carry unless its body passes
      // it through unchanged; inside, it may also be updated in place.
      const HloComputation* body = use.user->while_body();
      const HloInstruction* param = body ? body->parameter(0) : nullptr;
      if (param) {
        HloPosition carry{param, use.operand_index};
        found |= FeedsUpdate(carry, updates, depth + 1);
        const HloInstruction* root = body->root_instruction();
        HloPosition next = DefiningPosition(root, use.operand_index);
        if (!(next == carry)) {
          std::string name = fmt::format("{} (loop state {})", use.user->name(),
                                         ShapeIndexToString(use.operand_index));
          if (std::find(updates->begin(), updates->end(), name) == updates->end())
            updates->push_back(name);
          found = true;
        }
      }
    }
  }
  return found;
}

void Checker::ExplainCopy(const CopySite& site, CopyFinding* f) {
  if (f->copy_class == CopyClass::kLayoutChange) {
    f->cause = CopyCause::kLayoutChange;
    f->cause_detail = fmt::format("layout {} -> {}: a physical transpose chosen by layout assignment",
                                  site.src_shape->layout ? "{" + site.src_shape->layout->raw + "}" : "{}",
                                  site.dest_shape->layout ? "{" + site.dest_shape->layout->raw + "}" : "{}");
    f->hint = "a transpose/reshape (or an operation that needs another layout) in your code forces it";
    return;
  }
  if (f->copy_class == CopyClass::kMemorySpaceMove) {
    f->cause = CopyCause::kMemorySpaceMove;
    f->cause_detail = "moves the buffer between memory spaces (prefetch, eviction or host offload)";
    return;
  }
  // Walk back through the chain of copies to the value being protected.
  HloPosition me{site.instr, site.output_index};
  std::vector<HloPosition> chain;  // copy positions, newest first
  chain.push_back(me);
  HloPosition src = DefiningPosition(site.source, site.source_index);
  for (int step = 0; step < 16; ++step) {
    const CopySite* c = CopyAt(src);
    if (!c) break;
    chain.push_back(src);
    src = DefiningPosition(c->source, c->source_index);
  }
  f->copied_from = src.ToString();

  // Other readers of the protected value (or of an older copy in the
  // chain): a read that must still see the old contents.
  std::vector<std::string> readers;
  auto collect_readers = [&](const HloPosition& value, const HloPosition& next_link) {
    for (const HloUse& use : UsesOf(value)) {
      HloPosition u{use.user, {}};
      if (u.instruction == next_link.instruction) continue;
      if (use.user->opcode() == HloOpcode::kCopy) continue;
      readers.push_back(Named(use.user));
    }
  };
  collect_readers(src, chain.back());
  for (size_t i = chain.size(); i-- > 1;) collect_readers(chain[i], chain[i - 1]);
  // Newer copies made from this one (copy of a copy): this copy's own
  // non-copy readers also need the old contents.
  HloPosition newest = me;
  for (int step = 0; step < 16; ++step) {
    const HloInstruction* next = nullptr;
    for (const HloUse& use : UsesOf(newest))
      if (use.user->opcode() == HloOpcode::kCopy) next = use.user;
    if (!next) break;
    collect_readers(newest, {next, {}});
    newest = {next, {}};
  }

  std::vector<std::string> updates;
  bool feeds_update = FeedsUpdate(me, &updates, 0);
  f->feeds = updates;
  std::vector<ShapeIndex> outputs;
  bool reaches_output = ReachesEntryOutput(me, &outputs);
  const HloComputation* comp = site.instr->parent();
  ComputationRole role = RoleOf(*comp);
  const HloInstruction* s = src.instruction;
  std::string what = !feeds_update ? std::string("returned as an output")
                     : updates.front().find("(loop state") != std::string::npos
                         ? fmt::format("the initial loop state of {} and overwritten by the loop",
                                       updates.front().substr(0, updates.front().find(' ')))
                         : fmt::format("updated in place ({})", updates.front());

  // Inside a conditional branch: the branch either updates the array it
  // was handed (which the conditional's operand must keep intact), or
  // passes it on, and every branch must leave its result in the one
  // output buffer of the conditional (copy_insertion AddCopiesForConditional).
  if (role == ComputationRole::kBranch) {
    const HloInstruction* cond = comp->callers().empty() ? nullptr : comp->callers()[0];
    std::string cname = cond ? std::string(cond->name()) : "the conditional";
    f->cause = CopyCause::kConditionalBranch;
    if (feeds_update) {
      f->cause_detail = fmt::format("branch {} updates the array {} hands it ({}) in place; the operand must stay intact, so the branch updates a copy",
                                    comp->name(), cname, updates.front());
      f->hint = "update the array outside the cond (e.g. compute the new row in the branches, write it once after)";
    } else if (s->opcode() == HloOpcode::kParameter || s == comp->parameter(0)) {
      f->cause_detail = fmt::format("branch {} passes its input through unchanged; XLA copies it into the output buffer of {} that the other branches write",
                                    comp->name(), cname);
      f->hint = "a passthrough branch next to updating branches costs a full copy; select the update instead of the buffer";
    } else {
      f->cause_detail = fmt::format("the result of branch {} ({}) is copied into the output buffer of {}",
                                    comp->name(), src.ToString(), cname);
    }
    return;
  }
  if (s->opcode() == HloOpcode::kConstant) {
    f->cause = feeds_update ? CopyCause::kConstantUpdated : CopyCause::kOutputPassthrough;
    f->cause_detail = fmt::format("constant {} is {}; constants are read-only, so XLA copies it",
                                  s->name(), what);
    // Scalars (loop counters starting at a literal) are not worth a hint.
    if (site.dest_shape->rank() > 0)
      f->hint = "build the array inside the function (jnp.zeros/jnp.full) instead of closing over a constant";
    return;
  }
  if (s->opcode() == HloOpcode::kParameter && comp->is_entry() == s->parent()->is_entry() &&
      s->parent()->is_entry()) {
    int64_t p = s->parameter_number();
    bool donated = false;
    for (const InputOutputAlias& a : module_.input_output_aliases())
      donated |= a.parameter_number == p;
    if (!donated) {
      f->cause = CopyCause::kNonDonatedParameter;
      f->cause_detail = fmt::format("argument {} ({}) is {} but not donated, so XLA keeps the caller's array intact",
                                    p, s->name(), what);
      f->hint = fmt::format("donate argument {}: jax.jit(f, donate_argnums={})", p, p);
      if (!readers.empty())
        f->hint += fmt::format(" (it is also read by {}: donation alone may not remove the copy)", readers.front());
      return;
    }
    if (!readers.empty() && (feeds_update || !outputs.empty())) {
      f->cause = CopyCause::kReadAfterUpdate;
      f->cause_detail = fmt::format("{} is {} while {} still reads the old contents",
                                    DescribeValue(src), what, readers.front());
      f->hint = "do the read before the update (or read from the updated array)";
      return;
    }
  }
  bool in_loop = role == ComputationRole::kWhileBody || !counts_.EnclosingLoops(comp).empty();
  if (!readers.empty() && feeds_update) {
    f->cause = CopyCause::kReadAfterUpdate;
    f->cause_detail = fmt::format("{} is updated in place ({}) while {} still reads the old contents{}",
                                  DescribeValue(src), updates.front(), readers.front(),
                                  in_loop ? ", every iteration" : "");
    f->hint = "read what you need before the update, or read from the updated array";
    return;
  }
  if (!readers.empty()) {
    // Feeding a while init whose original is read after the loop.
    for (const HloUse& use : UsesOf(me)) {
      if (use.user->opcode() == HloOpcode::kWhile) {
        f->cause = CopyCause::kReadAfterUpdate;
        f->cause_detail = fmt::format("{} becomes the state of {} (updated there) while {} still reads the original",
                                      DescribeValue(src), use.user->name(), readers.front());
        f->hint = "don't use the loop's input after the loop (use its result), or donate it";
        return;
      }
    }
  }
  // Loop-carried state.
  if (role == ComputationRole::kWhileBody || role == ComputationRole::kCall) {
    // Where does the copy go: which element of the body root?
    const HloInstruction* root = comp->root_instruction();
    std::optional<int64_t> dest_j;
    if (root->opcode() == HloOpcode::kTuple) {
      for (int64_t j = 0; j < root->operand_count(); ++j)
        if (DefiningPosition(root->operand(j), {}) == me) dest_j = j;
    }
    bool src_is_param = s->opcode() == HloOpcode::kParameter && s->parent() == comp;
    if (role == ComputationRole::kWhileBody && dest_j) {
      f->cause = CopyCause::kLoopCarriedLive;
      if (src_is_param && !src.index.empty() && src.index[0] != *dest_j) {
        f->cause_detail = fmt::format("loop carries {} and {} trade places: the old value of carry {} is still needed while carry {} is written",
                                      src.index[0], *dest_j, src.index[0], *dest_j);
        f->hint = "avoid swapping loop carries; keep each buffer in its own carry slot";
      } else if (src_is_param) {
        f->cause_detail = fmt::format("carry {} is passed on while its old value is still live in the iteration", *dest_j);
        f->hint = "make sure nothing reads the old value after it is replaced";
      } else {
        f->cause_detail = fmt::format("the new value of carry {} ({}) is computed while the old one is still read, so it is built in a temporary and copied back every iteration",
                                      *dest_j, src.ToString());
        f->hint = "update the carry with .at[].set / dynamic_update_slice instead of rebuilding it (concatenate, roll, where)";
      }
      return;
    }
  }
  // A copy of a carry whose slot gets a new value this iteration: the old
  // value is still read after the new one is produced (typically the loop
  // counter read by the body after `i + 1` is computed).
  if (role == ComputationRole::kWhileBody && s->opcode() == HloOpcode::kParameter &&
      s->parent() == comp && !src.index.empty()) {
    const HloInstruction* root = comp->root_instruction();
    HloPosition next = DefiningPosition(root, {src.index[0]});
    if (!(next == HloPosition{s, {src.index[0]}})) {
      std::vector<std::string> my_readers;
      for (const HloUse& use : UsesOf(me)) my_readers.push_back(std::string(use.user->name()));
      f->cause = CopyCause::kLoopCarriedLive;
      f->cause_detail = fmt::format(
          "carry {} gets a new value ({}) each iteration while its old value is still read{}",
          src.index[0], next.ToString(),
          my_readers.empty() ? "" : fmt::format(" (by {})", fmt::join(my_readers, ", ")));
      if (src.index.size() == 1 && site.dest_shape->rank() == 0)
        f->hint = "";  // a scalar (usually the loop counter): negligible
      else
        f->hint = "make the last read of the old value happen before the new value is computed";
      return;
    }
  }
  if (reaches_output) {
    std::set<ShapeIndex> distinct(outputs.begin(), outputs.end());
    if (distinct.size() > 1) {
      f->cause = CopyCause::kOutputDuplicated;
      f->cause_detail = fmt::format("the same value is returned {} times; each output needs its own buffer",
                                    distinct.size());
      f->hint = "return the value once and duplicate it outside the jitted function";
      return;
    }
    // Is the protected value itself also an output (at another index)?
    std::vector<ShapeIndex> src_outputs;
    if (ReachesEntryOutput(src, &src_outputs) && !src_outputs.empty()) {
      f->cause = CopyCause::kOutputDuplicated;
      f->cause_detail = fmt::format("{} is returned at output {} and again at output {}",
                                    src.ToString(), ShapeIndexToString(src_outputs.front()),
                                    ShapeIndexToString(outputs.front()));
      f->hint = "return the value once and duplicate it outside the jitted function";
      return;
    }
    for (const InputOutputAlias& a : module_.input_output_aliases()) {
      if (a.output_index != outputs.front()) continue;
      f->cause = CopyCause::kOutputAliasing;
      f->cause_detail = fmt::format(
          "output {} lives in the buffer of donated argument {}; {} is computed elsewhere (it cannot be written there in place) and copied in",
          ShapeIndexToString(outputs.front()), a.parameter_number, src.ToString());
      f->hint = "check why the producer is not in place (see UPDATES: out-of-place)";
      return;
    }
    if (s->opcode() == HloOpcode::kParameter) {
      f->cause = CopyCause::kOutputPassthrough;
      f->cause_detail = fmt::format("{} is passed through to output {}", s->name(),
                                    ShapeIndexToString(outputs.front()));
      f->hint = "don't return inputs unchanged from a jitted function";
      return;
    }
  }
  f->cause = CopyCause::kUnknown;
  f->cause_detail = fmt::format("copy of {}; no rule explains it", src.ToString());
}

void Checker::ConfirmInPlace(const HloInstruction* out_instr, const ShapeIndex& out_index,
                             const HloPosition& operand_value, UpdateFinding* u) const {
  const BufferAssignment* ba = options_.buffer_assignment;
  if (!ba) return;
  HloPosition out = ListedValue({out_instr, out_index});
  HloPosition in = ListedValue(operand_value);
  std::optional<bool> same = ba->SameSlice(out.instruction->name(), out.index,
                                           in.instruction->name(), in.index);
  if (!same) {
    u->confirmation = fmt::format("{} or {} not in the buffer assignment", out.ToString(),
                                  in.ToString());
    return;
  }
  bool shares = *same;
  bool claim_shares = u->verdict == UpdateVerdict::kInPlace ||
                      u->verdict == UpdateVerdict::kInPlaceOnCopy;
  u->confirmed = shares == claim_shares;
  std::optional<Slice> so = ba->SliceOf(out.instruction->name(), out.index);
  std::optional<Slice> si = ba->SliceOf(in.instruction->name(), in.index);
  u->confirmation = fmt::format("{} at allocation {} offset {}; {} at allocation {} offset {}",
                                out.ToString(), so->allocation, so->offset,
                                in.ToString(), si->allocation, si->offset);
}

// §2.7-3: XLA's CPU/GPU emitters update a DUS fusion in place only when
// every fused root is a DUS (through bitcast), its operand 0 is a fusion
// parameter, and that parameter is otherwise only read element-wise or by
// dynamic-slices; else the whole output is rewritten.
bool Checker::FusionFullRewrite(const HloInstruction* fusion, const HloInstruction* dus) const {
  if (dus->opcode() != HloOpcode::kDynamicUpdateSlice) return false;
  const HloComputation* fused = fusion->fused_computation();
  const HloInstruction* root = fused->root_instruction();
  auto strip = [](const HloInstruction* i) {
    while (i->opcode() == HloOpcode::kBitcast && i->operand_count() == 1) i = i->operand(0);
    return i;
  };
  std::vector<const HloInstruction*> roots;
  if (root->opcode() == HloOpcode::kTuple)
    for (const HloInstruction* r : root->operands()) roots.push_back(strip(r));
  else
    roots.push_back(strip(root));
  for (const HloInstruction* r : roots)
    if (r->opcode() != HloOpcode::kDynamicUpdateSlice) return true;
  const HloInstruction* p = strip(dus->operand(0));
  if (p->opcode() != HloOpcode::kParameter) return true;
  for (const HloInstruction* user : p->users()) {
    if (user == dus) continue;
    if (user->opcode() == HloOpcode::kBitcast) continue;
    if (user->opcode() == HloOpcode::kDynamicSlice) {
      // Must read exactly the slice the DUS writes (same start indices).
      bool same = user->operand_count() == dus->operand_count() - 1;
      for (int64_t k = 1; same && k < user->operand_count(); ++k)
        same = user->operand(k) == dus->operand(k + 1);
      if (same) continue;
      return true;
    }
    if (IsElementwiseOpcode(user->opcode())) continue;
    return true;
  }
  return false;
}

std::optional<int64_t> UpdateBytes(const HloInstruction* update) {
  if (update->opcode() == HloOpcode::kDynamicUpdateSlice && update->operand_count() >= 2)
    return ByteSizeOf(update->operand(1)->shape());
  if (update->opcode() == HloOpcode::kScatter && update->operand_count() >= 3) {
    int64_t n = (update->operand_count() - 1) / 2;
    int64_t total = 0;
    for (int64_t i = update->operand_count() - n; i < update->operand_count(); ++i) {
      std::optional<int64_t> b = ByteSizeOf(update->operand(i)->shape());
      if (!b) return std::nullopt;
      total += *b;
    }
    return total;
  }
  return std::nullopt;
}

void Checker::AddUpdates(const HloInstruction* instr) {
  std::vector<InPlacePair> pairs = GetInPlaceInputOutputPairs(*instr);
  if (!pairs.empty()) pairs_[instr] = pairs;
  bool fusion = instr->opcode() == HloOpcode::kFusion;
  for (const InPlacePair& p : pairs) {
    if (p.operand_number >= instr->operand_count()) continue;
    UpdateFinding u;
    const HloInstruction* shown = p.fused_update ? p.fused_update : instr;
    u.instruction = std::string(shown->name());
    u.opcode = std::string(shown->opcode_text());
    u.computation = std::string(shown->parent()->name());
    if (fusion && p.fused_update) u.fusion = std::string(instr->name());
    else if (fusion) {
      u.instruction = std::string(instr->name());
      u.opcode = std::string(instr->opcode_text());
      u.computation = std::string(instr->parent()->name());
    }
    const Shape* out = instr->shape().Subshape(p.output_index);
    if (out) u.buffer_bytes = ByteSizeOf(*out);
    HloPosition operand{instr->operand(p.operand_number), p.operand_index};
    HloPosition value = DefiningPosition(operand.instruction, operand.index);
    u.operand = value.ToString();
    const CopySite* copy = CopyUnder(operand);
    if (copy) {
      u.verdict = UpdateVerdict::kInPlaceOnCopy;
      u.copy = std::string(copy->instr->name());
      u.reason = fmt::format("writes into {}, a copy XLA made of {}", value.ToString(),
                             DefiningPosition(copy->source, copy->source_index).ToString());
      feeds_by_copy_[*u.copy].push_back(u.instruction);
    } else {
      u.verdict = UpdateVerdict::kInPlace;
      u.reason = fmt::format("writes into the buffer of {}", value.ToString());
    }
    u.full_rewrite = fusion && p.fused_update && FusionFullRewrite(instr, p.fused_update);
    u.bytes_written = u.full_rewrite ? u.buffer_bytes : UpdateBytes(p.fused_update ? p.fused_update : instr);
    if (!u.bytes_written && !p.fused_update) u.bytes_written = u.buffer_bytes;
    u.executions = counts_.Of(instr);
    u.executions_upper_bound = counts_.IsUpperBound(instr->parent());
    u.source = Source(shown);
    if (!u.source) u.source = Source(instr);
    ConfirmInPlace(instr, p.output_index, value, &u);
    result_.updates.push_back(std::move(u));
  }
  if (fusion) AddFusedUpdates(instr);
}

// Updates inside a fusion that are not in-place pairs: either the fusion's
// output (a full new buffer: out of place) or consumed inside the kernel
// (never written to memory: not materialized).
void Checker::AddFusedUpdates(const HloInstruction* fusion) {
  const HloComputation* fused = fusion->fused_computation();
  if (!fused) return;
  std::set<const HloInstruction*> paired;
  for (const InPlacePair& p : pairs_[fusion])
    if (p.fused_update) paired.insert(p.fused_update);
  // Which fused instructions are outputs (through tuple / bitcast)?
  std::map<const HloInstruction*, ShapeIndex> outputs;
  std::vector<std::pair<const HloInstruction*, ShapeIndex>> work = {{fused->root_instruction(), {}}};
  while (!work.empty()) {
    auto [node, idx] = work.back();
    work.pop_back();
    if (node->opcode() == HloOpcode::kTuple) {
      for (int64_t i = 0; i < node->operand_count(); ++i) {
        ShapeIndex sub = idx;
        sub.push_back(i);
        work.push_back({node->operand(i), sub});
      }
    } else if (node->opcode() == HloOpcode::kBitcast && node->operand_count() == 1) {
      work.push_back({node->operand(0), idx});
    } else {
      outputs.emplace(node, idx);
    }
  }
  for (const HloInstruction* inner : fused->instructions()) {
    if (inner->opcode() == HloOpcode::kFusion) {
      // Nested fusions: their updates count as part of this kernel.
      continue;
    }
    if (!IsUpdateOpcode(inner->opcode()) || paired.count(inner)) continue;
    UpdateFinding u;
    u.instruction = std::string(inner->name());
    u.opcode = std::string(inner->opcode_text());
    u.computation = std::string(fused->name());
    u.fusion = std::string(fusion->name());
    u.buffer_bytes = ByteSizeOf(inner->shape());
    u.executions = counts_.Of(fusion);
    u.executions_upper_bound = counts_.IsUpperBound(fusion->parent());
    u.source = Source(inner);
    auto out = outputs.find(inner);
    if (out == outputs.end()) {
      // The updated array may still be written out in full after element-
      // wise work (e.g. convert(dus(convert(p))) for bf16 buffers).
      std::vector<const HloInstruction*> frontier = {inner};
      for (int step = 0; step < 64 && !frontier.empty() && out == outputs.end(); ++step) {
        const HloInstruction* n = frontier.back();
        frontier.pop_back();
        for (const HloInstruction* user : n->users()) {
          HloOpcode op = user->opcode();
          bool carries = IsElementwiseOpcode(op) || op == HloOpcode::kBitcast ||
                         op == HloOpcode::kReshape || op == HloOpcode::kTranspose ||
                         op == HloOpcode::kCopy;
          if (!carries) continue;
          auto it = outputs.find(user);
          if (it != outputs.end()) {
            out = it;
            break;
          }
          frontier.push_back(user);
        }
      }
    }
    const BufferAssignment* ba = options_.buffer_assignment;
    if (out != outputs.end()) {
      // The buffer written is the fusion's output (e.g. bf16), not the
      // fused update's own shape (the f32 it computes in).
      if (const Shape* written = fusion->shape().Subshape(out->second))
        u.buffer_bytes = ByteSizeOf(*written);
      u.verdict = UpdateVerdict::kOutOfPlace;
      u.bytes_written = u.buffer_bytes;
      const HloInstruction* op0 = inner->operand(0);
      u.operand = std::string(op0->name());
      u.reason = fmt::format("its operand {} is computed inside {} ({}), not a fusion parameter, so XLA writes a full new {} buffer",
                             op0->name(), fusion->name(), op0->opcode_text(), HumanBytes(u.buffer_bytes));
      if (ba) {
        // Confirmed when the fusion's output shares no operand's slice.
        std::optional<Slice> mine = ba->SliceOf(fusion->name(), out->second);
        if (mine) {
          bool shares = false;
          std::string with;
          for (const HloInstruction* o : fusion->operands()) {
            HloPosition v = DefiningPosition(o, {});
            std::optional<Slice> s = ba->SliceOf(v.instruction->name(), v.index);
            if (s && s->allocation == mine->allocation && s->offset == mine->offset) {
              shares = true;
              with = v.ToString();
            }
          }
          // The claim is "no in-place pair: the kernel writes the whole
          // buffer". XLA may still put that output in the slice of an
          // operand that dies here (may-alias reuse of an element-wise
          // fusion): same memory, but every byte is rewritten.
          u.confirmed = true;
          if (shares)
            u.reason += fmt::format(" (it lands in the memory of {}, which dies here, but every byte is rewritten)",
                                    with);
          u.confirmation = shares ? fmt::format("XLA reused the slice of {} for {} (may-alias reuse of a dying operand); the whole buffer is still rewritten",
                                                with, fusion->name())
                                  : fmt::format("{} at allocation {} offset {} shares no operand's slice",
                                                fusion->name(), mine->allocation, mine->offset);
        }
      }
    } else {
      u.verdict = UpdateVerdict::kNotMaterialized;
      u.bytes_written = 0;
      u.reason = fmt::format("consumed inside {} and never written to memory", fusion->name());
      if (ba) {
        bool listed = ba->SliceOf(inner->name(), {}).has_value();
        u.confirmed = !listed;
        u.confirmation = listed ? "the buffer assignment lists it as a value"
                                : "fused intermediates get no buffer: not in the buffer assignment";
      }
    }
    result_.updates.push_back(std::move(u));
  }
}

LoopFinding Checker::AnalyzeLoop(const HloInstruction* w) const {
  LoopFinding l;
  l.instruction = std::string(w->name());
  l.computation = std::string(w->parent()->name());
  const TripCount& t = counts_.TripCountOf(w);
  l.trip_count = t.count;
  l.trip_count_source = t.source;
  l.executions = counts_.Of(w);
  for (const HloInstruction* e : counts_.EnclosingLoops(w->parent()))
    l.enclosing_loops.push_back(std::string(e->name()));
  l.source = Source(w);
  const HloComputation* body = w->while_body();
  if (!body) return l;
  std::optional<int64_t> body_runs = counts_.Of(body);
  // Copies per iteration: copies whose enclosing loops include this while.
  std::optional<int64_t> copy_bytes = 0;
  for (const CopyFinding& c : result_.copies) {
    if (std::find(c.enclosing_loops.begin(), c.enclosing_loops.end(), l.instruction) ==
        c.enclosing_loops.end())
      continue;
    if (!copy_bytes) break;
    if (!c.bytes || !c.executions || !body_runs || *body_runs == 0) {
      copy_bytes = std::nullopt;
      break;
    }
    int64_t per_iter = *c.bytes * (*c.executions / *body_runs);
    *copy_bytes += per_iter;
    if (!c.scalar)
      l.scaling.push_back(fmt::format("{} copies {} ({}) every iteration", c.instruction,
                                      HumanBytes(c.bytes), c.shape));
  }
  l.copy_bytes_per_iteration = copy_bytes;
  // Loop-carried state rewritten in full: body root elements defined by a
  // fresh (not in-place, not pass-through) instruction in the body.
  int64_t rewrite = 0;
  const HloInstruction* root = body->root_instruction();
  const HloInstruction* param = body->parameter(0);
  if (root->opcode() == HloOpcode::kTuple && param) {
    for (int64_t j = 0; j < root->operand_count(); ++j) {
      HloPosition d = DefiningPosition(root->operand(j), {});
      if (d.instruction == param && d.index == ShapeIndex{j}) continue;  // passed through
      if (CopyAt(d)) continue;  // counted as a copy
      // Walk back through in-place updates on the same buffer.
      HloPosition cur = d;
      bool in_place_chain = false;
      for (int step = 0; step < 64; ++step) {
        auto it = pairs_.find(cur.instruction);
        if (it == pairs_.end()) break;
        const InPlacePair* pp = nullptr;
        for (const InPlacePair& p : it->second)
          if (p.output_index == cur.index) pp = &p;
        if (!pp) break;
        in_place_chain = true;
        cur = DefiningPosition(cur.instruction->operand(pp->operand_number), pp->operand_index);
      }
      if (in_place_chain) continue;
      const Shape& s = root->operand(j)->shape();
      if (s.IsTuple()) continue;
      std::optional<int64_t> b = ByteSizeOf(s);
      if (!b) continue;
      rewrite += *b;
      std::optional<int64_t> elements = s.ElementCount();
      if (elements && *elements > 1 && d.instruction->opcode() != HloOpcode::kParameter)
        l.scaling.push_back(fmt::format("carry {} ({}, {}) is rewritten in full by {} every iteration",
                                        j, s.ToString(), HumanBytes(b), d.ToString()));
    }
  }
  l.rewrite_bytes_per_iteration = rewrite;
  l.scales_with_buffer = !l.scaling.empty();
  return l;
}

ModuleCheck Checker::Run() {
  result_.name = std::string(module_.name());
  result_.entry = std::string(module_.entry_computation()->name());
  result_.buffer_assignment = options_.buffer_assignment_path;
  sites_ = FindCopies(module_);
  for (const CopySite& s : sites_) copy_by_position_[{s.instr, s.output_index}] = &s;

  // Updates first: copy causes look at which updates a copy feeds.
  for (const HloComputation* comp : module_.computations()) {
    if (!IsSequential(comp)) continue;
    for (const HloInstruction* instr : comp->instructions()) AddUpdates(instr);
  }

  for (const CopySite& s : sites_) {
    CopyFinding f;
    f.instruction = std::string(s.instr->name());
    f.computation = std::string(s.instr->parent()->name());
    f.kind = s.kind;
    f.copy_class = ClassifyCopy(*s.src_shape, *s.dest_shape);
    f.shape = ShortShape(*s.dest_shape);
    f.scalar = s.dest_shape->IsArray() && s.dest_shape->rank() == 0;
    f.bytes = ByteSizeOf(*s.dest_shape);
    f.executions = counts_.Of(s.instr);
    f.executions_upper_bound = counts_.IsUpperBound(s.instr->parent());
    if (f.bytes && f.executions) {
      __int128 t = static_cast<__int128>(*f.bytes) * *f.executions;
      if (t <= INT64_MAX) f.total_bytes = static_cast<int64_t>(t);
    }
    for (const HloInstruction* l : counts_.EnclosingLoops(s.instr->parent()))
      f.enclosing_loops.push_back(std::string(l->name()));
    ExplainCopy(s, &f);
    // Source: the copy's own metadata (GPU copy fusions keep some), else
    // the update that needed it, else the value it copies.
    f.source = Source(s.instr);
    if (!f.source || f.source->file.empty()) {
      std::optional<SourceLocation> via;
      for (const UpdateFinding& u : result_.updates) {
        bool fed = u.copy && *u.copy == f.instruction;
        for (const std::string& name : f.feeds)
          fed |= name == u.instruction || name.rfind(u.instruction + " ", 0) == 0;
        if (fed && u.source && !u.source->file.empty()) {
          via = u.source;
          via->via = "update";
          break;
        }
      }
      if (!via) {
        HloPosition src = DefiningPosition(s.source, s.source_index);
        std::optional<SourceLocation> sv = Source(src.instruction);
        if (sv && !sv->file.empty()) {
          via = sv;
          via->via = "copied value";
        }
      }
      if (!via) {
        // The innermost loop, already known from the call graph: no need to
        // search the module for it by name.
        std::vector<const HloInstruction*> loops = counts_.EnclosingLoops(s.instr->parent());
        if (!loops.empty()) {
          via = Source(loops.front());
          if (via) via->via = "loop";
        }
      }
      if (via) f.source = via;
    }
    result_.copies.push_back(std::move(f));
  }
  std::stable_sort(result_.copies.begin(), result_.copies.end(),
                   [](const CopyFinding& a, const CopyFinding& b) {
                     return a.total_bytes.value_or(INT64_MAX) > b.total_bytes.value_or(INT64_MAX);
                   });

  for (const HloComputation* comp : module_.computations()) {
    if (!IsSequential(comp)) continue;
    for (const HloInstruction* instr : comp->instructions())
      if (instr->opcode() == HloOpcode::kWhile) result_.loops.push_back(AnalyzeLoop(instr));
  }

  const HloComputation* entry = module_.entry_computation();
  for (const HloInstruction* p : entry->parameters()) {
    if (!p) continue;
    ParameterFinding pf;
    pf.number = p->parameter_number();
    pf.name = std::string(p->name());
    pf.shape = p->shape().ToString();
    pf.bytes = TotalByteSizeOf(p->shape());
    if (!p->shape().IsTuple()) pf.bytes = ByteSizeOf(p->shape());
    for (const InputOutputAlias& a : module_.input_output_aliases())
      pf.donated |= a.parameter_number == pf.number;
    for (const BufferDonor& d : module_.buffer_donors())
      pf.donated |= d.parameter_number == pf.number;
    for (const CopySite& s : sites_) {
      if (ParameterOrigin({s.source, s.source_index}) == pf.number) {
        pf.copied = true;
        pf.copies.push_back(std::string(s.instr->name()));
      }
    }
    result_.parameters.push_back(std::move(pf));
  }
  return std::move(result_);
}

}  // namespace

ModuleCheck CheckModule(const HloModule& module, const CheckOptions& options) {
  ExecutionCounts counts = ExecutionCounts::Run(module);
  return CheckModule(module, counts, options);
}

ModuleCheck CheckModule(const HloModule& module, const ExecutionCounts& counts,
                        const CheckOptions& options) {
  return Checker(module, counts, options).Run();
}

}  // namespace hloscope
