#include "hloscope/report/render_check.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "hloscope/analysis/cause_catalog.h"
#include "hloscope/analysis/source_origin.h"
#include "hloscope/ir/computation.h"
#include "hloscope/report/answer_words.h"
#include "hloscope/report/collective_words.h"
#include "hloscope/report/donation_words.h"
#include "hloscope/report/enum_names.h"
#include "hloscope/report/growth_words.h"
#include "hloscope/report/json_stream.h"
#include "hloscope/report/render_cost.h"
#include "hloscope/report/render_memory.h"
#include "hloscope/report/thunk_words.h"
#include "hloscope/report/wording.h"
#include "hloscope/support/human_bytes.h"
#include "hloscope/support/saturating.h"

namespace hloscope {
namespace {

void CopiesSection(const ModuleCheck& m, const CheckTextOptions& options, std::ostream& out) {
  out << "\nCOPIES (by bytes moved per call)\n";
  int64_t scalars = 0, prefetches = 0, scalar_bytes = 0;
  // Copies with the same cause, loop, line and shape are one row with a
  // count (a read-after-update copies the buffer twice: copy.7 and copy).
  struct Row {
    std::vector<const CopyFinding*> copies;
    std::optional<int64_t> total;
  };
  std::vector<Row> rows;
  std::map<std::string, size_t> row_of;
  // Copies made inside library code, by library (source_origin.h): a count
  // and bytes each, below the user's, since their hints cannot be acted on.
  std::map<std::string, Row> library;
  for (const CopyFinding& c : m.copies) {
    if (c.total_bytes && *c.total_bytes < options.filter.min_bytes) continue;
    // Scalar copies (loop counters, constants that start a loop) cost
    // nothing worth a line each; JSON still lists them.
    if (c.minor && !options.filter.include_minor) {
      ++(c.scalar ? scalars : prefetches);
      scalar_bytes = SatAdd(scalar_bytes, c.total_bytes.value_or(0));
      continue;
    }
    if (SourceOrigin origin = OriginOf(c.source); origin.library && !options.filter.include_library) {
      Row& row = library[origin.library_part];
      row.copies.push_back(&c);
      row.total = row.copies.size() == 1 ? c.total_bytes : SatAdd(row.total, c.total_bytes);
      continue;
    }
    std::string key = fmt::format("{}\n{}\n{}\n{}\n{}\n{}", CopyCauseName(c.cause.cause), CauseDetail(c),
                                  c.enclosing_loops.empty() ? "" : c.enclosing_loops.front()->name(),
                                  SourceText(c.source), c.shape->ToString(), c.bytes.value_or(-1));
    auto [it, fresh] = row_of.try_emplace(key, rows.size());
    if (fresh) rows.push_back({{}, 0});
    Row& row = rows[it->second];
    row.copies.push_back(&c);
    row.total = SatAdd(row.total, c.total_bytes);
  }
  for (const Row& row : rows) {
    const CopyFinding& c = *row.copies.front();
    size_t n = row.copies.size();
    std::string where =
        c.enclosing_loops.empty() ? "entry" : fmt::format("in {}", c.enclosing_loops.front()->name());
    std::string name = n == 1 ? std::string(c.instruction()->name())
                              : fmt::format("{} (+{})", c.instruction()->name(), n - 1);
    out << fmt::format("  {:<22} {:<18} {:>9} × {:<5} = {:>9}   {:<16} {}\n", name, c.shape->ToString(),
                       HumanBytes(c.bytes), ExecutionsText(c.executions, c.executions_upper_bound),
                       HumanBytes(c.total_bytes), where, SourceText(c.source));
    if (n > 1) {
      std::vector<std::string_view> names;
      for (const CopyFinding* k : row.copies) names.push_back(k->instruction()->name());
      out << fmt::format("  {:<22} {} copies: {} — {} per call together\n", "", n, fmt::join(names, ", "),
                         HumanBytes(row.total));
    }
    if (c.unknown_trip_loop)
      out << fmt::format("  {:<22} {} per iteration of {} (trip count unknown)\n", "",
                         HumanBytes(SatMul(c.bytes_per_unknown_trip_iteration, static_cast<int64_t>(n))),
                         c.unknown_trip_loop->name());
    out << fmt::format("  {:<22} cause: {} — {}\n", "", CopyCauseName(c.cause.cause), CauseDetail(c));
    std::string hint = CauseHint(c);
    if (!hint.empty()) out << fmt::format("  {:<22} hint:  {}\n", "", hint);
  }
  if (!library.empty()) {
    out << "  made inside library code (gates skip these unless --include-library):\n";
    for (const auto& [part, row] : library) {
      size_t n = row.copies.size();
      out << fmt::format("    {:<36} {} cop{}, {} per call (largest {})\n", part, n, n == 1 ? "y" : "ies",
                         HumanBytes(row.total), row.copies.front()->instruction()->name());
    }
  }
  if (scalars > 0 && prefetches == 0)
    out << fmt::format("  + {} scalar cop{} ({} per call: loop counters and loop-start constants)\n", scalars,
                       scalars == 1 ? "y" : "ies", HumanBytes(scalar_bytes));
  else if (scalars + prefetches > 0)
    out << fmt::format(
        "  {} ({} per call: loop counters, loop-start constants, small constants moved to another memory "
        "space)\n",
        MinorCopiesText(scalars, prefetches), HumanBytes(scalar_bytes));
}

// Findings made in the user's code first, then those made inside library
// code (source_origin.h) under their own heading.
template <typename Finding, typename Fn>
void UserThenLibrary(const std::vector<Finding>& findings, std::ostream& out, Fn&& each) {
  bool heading = false;
  for (bool library : {false, true})
    for (const Finding& f : findings) {
      if (OriginOf(f.source).library != library) continue;
      if (library && !heading) {
        out << "  made inside library code:\n";
        heading = true;
      }
      each(f);
    }
}

void UpdatesSection(const ModuleCheck& m, std::ostream& out) {
  out << "\nUPDATES\n";
  UserThenLibrary(m.updates, out, [&](const UpdateFinding& u) {
    std::string extra;
    if (u.runs_on) extra += fmt::format(" on {}", u.runs_on->instruction->name());
    if (u.shares_copy)
      extra += fmt::format(" after the update on {} (one copy for both)", u.shares_copy->instruction->name());
    if (u.full_rewrite) extra += " full-rewrite";
    if (u.confirmation.confirmed)
      extra += *u.confirmation.confirmed ? " ✓" : " ✗ CONTRADICTED by buffer assignment";
    if (u.gathered_by) extra += " — on the local shard, after a gather of the whole buffer";
    out << fmt::format("  {:<17} {:<48} {:>9} × {:<5} {}{}\n", UpdateVerdictName(u.verdict),
                       UpdateLabel(u.site), HumanBytes(u.bytes_written),
                       ExecutionsText(u.executions, u.executions_upper_bound), SourceText(u.source), extra);
    if (u.confirmation.confirmed == false) out << fmt::format("  {:<17} {}\n", "", ConfirmationText(u));
    if (u.gathered_by)
      if (const CollectiveFinding* c = m.FindCollective(u.gathered_by))
        out << fmt::format("  {:<17} {}\n", "", GatheredByText(*c));
  });
}

void LoopsSection(const ModuleCheck& m, std::ostream& out) {
  out << "\nLOOPS\n";
  UserThenLibrary(m.loops, out, [&](const LoopFinding& l) {
    std::string trips = l.trip_count ? fmt::format("{} iterations ({})", *l.trip_count,
                                                   TripCountSourceName(l.trip_count_source))
                                     : "unknown trip count";
    out << fmt::format("  {:<18} {:<40} per iteration: {} copied, {} rewritten{}{}\n", l.loop->name(), trips,
                       HumanBytes(l.copy_bytes_per_iteration), HumanBytes(l.rewrite_bytes_per_iteration),
                       l.collective_bytes_per_iteration
                           ? fmt::format(", {} by collectives", HumanBytes(l.collective_bytes_per_iteration))
                           : "",
                       l.scales_with_buffer ? " — grows with buffer size" : "");
    std::map<int64_t, const LoopScaling*> rewrites;
    // Copies made inside library code: one line for all of them.
    std::set<std::string> library_parts;
    int64_t library_copies = 0;
    std::optional<int64_t> library_bytes = 0;
    for (const LoopScaling& s : l.scaling) {
      if (s.kind == LoopScaling::Kind::kCarryRewritten) {
        rewrites[s.carry] = &s;
        continue;
      }
      if (s.kind == LoopScaling::Kind::kCollective || s.kind == LoopScaling::Kind::kWholeRead) {
        out << fmt::format("  {:<18} {}\n", "", ScalingText(s, l));
        continue;
      }
      const CopyFinding* c = m.FindCopy(s.copy);
      if (SourceOrigin origin = OriginOf(c ? c->source : std::nullopt);
          origin.library && !s.grows_with_buffer) {
        library_parts.insert(origin.library_part);
        ++library_copies;
        library_bytes = SatAdd(library_bytes, s.bytes);
        continue;
      }
      out << fmt::format("  {:<18} {}\n", "", ScalingText(s, l));
    }
    if (library_copies > 0)
      out << fmt::format("  {:<18} + {} cop{} made inside library code ({}): {} each iteration\n", "",
                         library_copies, library_copies == 1 ? "y" : "ies", fmt::join(library_parts, ", "),
                         HumanBytes(library_bytes));
    // The carries the user may recognise: arrays (scalars are counters and
    // flags), each with the argument or line it starts from and what updates
    // it (a full rewrite as the scaling entry says it). Without the carries
    // (a loop whose state is not a tuple), the rewrites are listed alone.
    int64_t scalar_carries = 0;
    for (const LoopCarry& c : l.carries) {
      auto rewrite = rewrites.find(c.index);
      const LoopScaling* r = rewrite == rewrites.end() ? nullptr : rewrite->second;
      if (r) rewrites.erase(rewrite);
      if (c.shape->IsArray() && c.shape->dimensions.empty() && !r) {
        ++scalar_carries;
        continue;
      }
      if (!c.shape->IsArray()) continue;
      out << fmt::format("  {:<18} {:<22} {:<20} {:>9}  {}\n", "", CarryLabel(c), c.shape->ToString(),
                         HumanBytes(c.bytes), CarryOriginText(c, r));
    }
    for (const auto& [carry, s] : rewrites) out << fmt::format("  {:<18} {}\n", "", ScalingText(*s, l));
    if (scalar_carries > 0)
      out << fmt::format("  {:<18} + {} scalar carr{} (counters, flags)\n", "", scalar_carries,
                         scalar_carries == 1 ? "y" : "ies");
  });
}

void ParametersSection(const ModuleCheck& m, std::ostream& out) {
  out << (m.spmd.devices() > 1 ? "\nPARAMETERS (shapes and bytes per device)\n" : "\nPARAMETERS\n");
  std::vector<std::pair<const ParameterFinding*, std::vector<const ParameterFinding*>>> dropped;
  std::map<std::string, size_t> dropped_of;
  // Many arguments (a train state's leaves): the ones with nothing more to
  // say than their donation column — not copied, no output in their
  // buffer, no saving — are one line per column after the others.
  constexpr size_t kListedParameters = 12;
  bool collapse = m.parameters.size() > kListedParameters;
  std::map<std::string, std::pair<std::vector<const ParameterFinding*>, int64_t>> plain;
  for (const ParameterFinding& p : m.parameters) {
    if (collapse && !p.copied() && AliasedOutputsText(p).empty() && DonationSavesText(m, p).empty()) {
      auto& [members, bytes] = plain[DonationColumn(p)];
      members.push_back(&p);
      bytes = SatAdd(bytes, p.bytes.value_or(0));
      if (p.request && p.request->dropped) {
        std::string key = DroppedDonationFix(p);
        auto [it, fresh] = dropped_of.try_emplace(key, dropped.size());
        if (fresh) dropped.push_back({&p, {}});
        dropped[it->second].second.push_back(&p);
      }
      continue;
    }
    std::vector<std::string> names;
    for (const HloPosition& c : p.copies) names.push_back(std::string(c.instruction->name()));
    std::string copied = p.copied() ? fmt::format("copied ({})", fmt::join(names, ", ")) : "not copied";
    out << fmt::format("  {:<3} {:<14} {:<20} {:>9}  {:<12} {}\n", p.number, ArgumentName(p.parameter),
                       p.parameter->shape().ToString(), HumanBytes(p.bytes), DonationColumn(p), copied);
    if (p.sharding && m.spmd.devices() > 1) out << fmt::format("  {:<18} {}\n", "", ParameterShardingText(p));
    if (std::string aliased = AliasedOutputsText(p); !aliased.empty())
      out << fmt::format("  {:<18} {}\n", "", aliased);
    if (std::string saves = DonationSavesText(m, p); !saves.empty())
      out << fmt::format("  {:<18} {}\n", "", saves);
    if (p.request && p.request->dropped) {
      std::string key = DroppedDonationFix(p);
      auto [it, fresh] = dropped_of.try_emplace(key, dropped.size());
      if (fresh) dropped.push_back({&p, {}});
      dropped[it->second].second.push_back(&p);
    }
  }
  for (const auto& [column, group] : plain) {
    const auto& [members, bytes] = group;
    std::vector<std::string> names;
    for (size_t i = 0; i < members.size() && i < 3; ++i) names.push_back(ArgumentName(members[i]->parameter));
    out << fmt::format(
        "  + {} argument{} {}, not copied, {} together: {}{}\n", members.size(),
        members.size() == 1 ? "" : "s", column, HumanBytes(bytes), fmt::join(names, ", "),
        members.size() > 3 ? fmt::format(" and {} more (--format json lists each)", members.size() - 3) : "");
  }
  // A dropped donation's reason and fix once for every argument that
  // shares them (an FSDP step drops 50 at once, for one reason).
  for (const auto& [p, group] : dropped) {
    std::vector<std::string> names;
    for (size_t i = 0; i < group.size() && i < 4; ++i) names.push_back(ArgumentName(group[i]->parameter));
    std::string who =
        group.size() == 1
            ? fmt::format("argument {} ({})", p->number, names.front())
            : fmt::format("{} arguments ({}{})", group.size(), fmt::join(names, ", "),
                          group.size() > 4 ? fmt::format(" and {} more", group.size() - 4) : "");
    out << fmt::format("  donation asked for ({}) but not kept by XLA for {}: {}. Fix: {}.\n",
                       DonationRequestSourceText(m), who, DroppedDonationsReason(m, group),
                       DroppedDonationFix(*p));
  }
}

void CollectivesSection(const ModuleCheck& m, std::ostream& out) {
  out << "\nCOLLECTIVES (bytes per device, by bytes per call)\n";
  // One row per header of the answer (analysis/answer.h): collectives of
  // one cause and rule, family and line together, with a count — an FSDP
  // step's 72 re-shards of its outputs are one row; the JSON lists each.
  std::vector<const FindingHeader*> rows;
  for (const FindingHeader& h : m.answer.ranked)
    if (h.kind == FindingKind::kCollective) rows.push_back(&h);
  std::stable_sort(rows.begin(), rows.end(), [](const FindingHeader* a, const FindingHeader* b) {
    return a->bytes_per_call.value_or(-1) > b->bytes_per_call.value_or(-1);
  });
  for (const FindingHeader* h : rows) {
    const CollectiveFinding& c = *h->collectives.front();
    size_t n = h->collectives.size();
    bool uniform = std::all_of(h->collectives.begin(), h->collectives.end(),
                               [&](const CollectiveFinding* k) { return k->bytes == c.bytes; });
    std::string where =
        c.enclosing_loops.empty() ? "entry" : fmt::format("in {}", c.enclosing_loops.front()->name());
    std::string name =
        n == 1 ? std::string(c.instruction->name()) : fmt::format("{} (+{})", c.instruction->name(), n - 1);
    out << fmt::format("  {:<22} {:<18} {:>9} × {:<5} = {:>9}   {:<16} {}\n", name,
                       CollectiveFamilyName(c.family), HumanBytes(c.bytes),
                       ExecutionsText(c.executions, c.executions_upper_bound), HumanBytes(h->bytes_per_call),
                       where, SourceText(c.source));
    if (n > 1) {
      std::vector<std::string_view> names;
      for (size_t i = 0; i < n && i < 6; ++i) names.push_back(h->collectives[i]->instruction->name());
      out << fmt::format("  {:<22} {} collectives{}: {}{} — {} per device per call together\n", "", n,
                         uniform ? "" : " (the first's bytes shown)", fmt::join(names, ", "),
                         n > 6 ? fmt::format(" and {} more", n - 6) : "", HumanBytes(h->bytes_per_call));
    }
    out << fmt::format("  {:<22} over {}; {}\n", "", CollectiveGroupText(c),
                       c.shape ? c.shape->ToString() : std::string("?"));
    out << fmt::format("  {:<22} cause: {} — {}\n", "", CollectiveCauseName(c.cause.cause),
                       CollectiveCauseDetail(c));
    std::string hint = CollectiveCauseHint(c);
    if (!hint.empty()) out << fmt::format("  {:<22} hint:  {}\n", "", hint);
  }
}

}  // namespace

void RenderCheckText(const std::vector<const ModuleCheck*>& modules, const CheckTextOptions& options,
                     std::ostream& out) {
  for (size_t mi = 0; mi < modules.size(); ++mi) {
    const ModuleCheck& m = *modules[mi];
    if (mi) out << "\n";
    for (const std::string& line : AnswerLines(m)) out << line << "\n";
    if (std::string spmd = SpmdText(m.spmd); !spmd.empty())
      out << fmt::format("  Sharded: {}; every byte figure is per device.\n", spmd);
    else if (!m.collectives.empty())
      // XLA's own test modules (and hand-written HLO) use collectives while
      // the header keeps replica_count=1 and num_partitions=1.
      out << "  Units: a collective's bytes are what each device in its group sends or receives; the module "
             "does not say how many devices run it (replica_count and num_partitions are 1).\n";
    // The largest copy (LargestCopyLine's: the first that is not minor),
    // unless the answer already leads with it.
    auto largest_copy =
        std::find_if(m.copies.begin(), m.copies.end(), [](const CopyFinding& k) { return !k.minor; });
    const std::vector<const CopyFinding*>* led =
        m.answer.stands_out() && m.answer.ranked.front().kind == FindingKind::kCopy
            ? &m.answer.ranked.front().copies
            : nullptr;
    bool led_by_copy = led && largest_copy != m.copies.end() &&
                       std::find(led->begin(), led->end(), &*largest_copy) != led->end();
    if (std::string largest = LargestCopyLine(m); !largest.empty() && !led_by_copy)
      out << fmt::format("  Largest: {}.\n", largest);
    if (std::string growth = GrowthLine(m); !growth.empty())
      out << fmt::format("  Grows with buffer size: {}.\n", growth);
    bool led_by_donation =
        m.answer.stands_out() && m.answer.ranked.front().kind == FindingKind::kDroppedDonation;
    if (std::string dropped = DroppedDonationsLine(m); !dropped.empty() && !led_by_donation)
      out << fmt::format("  Donation dropped: {} (see PARAMETERS).\n", dropped);
    if (!m.copies.empty()) CopiesSection(m, options, out);
    if (!m.collectives.empty()) CollectivesSection(m, out);
    if (!m.updates.empty()) UpdatesSection(m, out);
    if (!m.loops.empty()) LoopsSection(m, out);
    if (!m.parameters.empty()) ParametersSection(m, out);
    if (m.cost.kernels > 0) {
      out << "\n" << CostSummaryTitle(m.cost) << "\n";
      for (const std::string& line : CostSummaryLines(m.cost, 3)) out << "  " << line << "\n";
    }
    if (std::string memory = MemorySummaryLine(m); !memory.empty())
      out << fmt::format("\nMEMORY (XLA's buffer assignment; `hloscope memory` lists what fills it)\n  {}\n",
                         memory);
    if (m.buffer_assignment_applied) {
      ConfirmationCounts n = CountConfirmations(m);
      ConfirmationCounts r0 = CountRewriteConfirmations(m);
      // Nothing to confirm (no update, no rewrite claim): no line of zeros.
      if (n.confirmed + n.contradicted + n.not_checkable + r0.confirmed + r0.contradicted +
              r0.not_checkable ==
          0) {
        out << fmt::format("\nmemory and verdicts from XLA's buffer assignment ({})\n",
                           m.buffer_assignment_path);
        if (m.thunks) out << ThunkCheckLine(*m.thunks) << "\n";
        continue;
      }
      ConfirmationCounts r = CountRewriteConfirmations(m);
      std::string rewrites =
          r.confirmed + r.contradicted + r.not_checkable == 0
              ? ""
              : fmt::format("; loop rewrite claims: {} confirmed, {} contradicted, {} not checkable",
                            r.confirmed, r.contradicted, r.not_checkable);
      out << fmt::format(
          "\nverdicts checked against XLA's buffer assignment ({}): {} confirmed, {} contradicted, {} "
          "not checkable{}\n",
          m.buffer_assignment_path, n.confirmed, n.contradicted, n.not_checkable, rewrites);
    } else if (m.buffer_assignment_mismatch) {
      out << fmt::format(
          "\nthe buffer assignment {} was not applied: it describes another module ({}); verdicts "
          "unconfirmed "
          "(pass the -buffer-assignment.txt of this module's dump)\n",
          Shown(m.buffer_assignment_path), Shown(*m.buffer_assignment_mismatch));
    } else if (!m.buffer_assignment_path.empty()) {
      out << fmt::format(
          "\nthe buffer assignment {} was not applied: it describes one module and the input holds {}; "
          "verdicts unconfirmed (check the modules one file each)\n",
          Shown(m.buffer_assignment_path), modules.size());
    } else {
      out << "\nno buffer assignment: verdicts follow XLA's aliasing rules, unconfirmed (pass "
             "--buffer-assignment)\n";
    }
    if (m.thunks) out << ThunkCheckLine(*m.thunks) << "\n";
  }
}

std::string EntrySignature(const HloModule& module) {
  const HloComputation* entry = module.entry_computation();
  std::vector<std::string> params;
  for (const HloInstruction* p : entry->parameters())
    if (p) params.push_back(p->shape().ToString(/*print_layout=*/false));
  return fmt::format("({}) -> {}", fmt::join(params, ", "),
                     entry->root_instruction()->shape().ToString(/*print_layout=*/false));
}

namespace render_check_internal {

// A module's members before its findings' arrays.
Json ModuleHead(const ModuleCheck& m) {
  Json head = ModuleHeaderJson(*m.module);
  head["entry_signature"] = EntrySignature(*m.module);
  head["headline"] = Headline(m);
  head["answer"] = AnswerJson(m);
  std::string growth = GrowthLine(m);
  head["growth"] = growth.empty() ? Json(nullptr) : Json(growth);
  head["buffer_assignment"] = m.buffer_assignment_applied ? Json(m.buffer_assignment_path) : Json(nullptr);
  head["buffer_assignment_unused"] = !m.buffer_assignment_applied && !m.buffer_assignment_path.empty()
                                         ? Json(m.buffer_assignment_path)
                                         : Json(nullptr);
  head["buffer_assignment_mismatch"] =
      m.buffer_assignment_mismatch ? Json(*m.buffer_assignment_mismatch) : Json(nullptr);
  head["thunks"] = ThunkCheckJson(m.thunks);
  head["spmd"] = SpmdJson(m.spmd);
  head["pre_partition"] = m.pre_partition_applied ? Json(m.pre_partition_path) : Json(nullptr);
  head["memory"] = MemoryJson(m);
  head["cost"] = CostSummaryJson(m.cost);
  return head;
}

}  // namespace render_check_internal

Json CheckModuleJson(const ModuleCheck& m, const FusionSelection* kernels) {
  Json j = render_check_internal::ModuleHead(m);
  Json& parameters = j["parameters"] = Json::array();
  for (const ParameterFinding& p : m.parameters) parameters.push_back(ParameterJson(m, p));
  Json& copies = j["copies"] = Json::array();
  for (const CopyFinding& c : m.copies) copies.push_back(CopyJson(c));
  Json& updates = j["updates"] = Json::array();
  for (const UpdateFinding& u : m.updates) updates.push_back(UpdateJson(u));
  Json& loops = j["loops"] = Json::array();
  for (const LoopFinding& l : m.loops) loops.push_back(LoopJson(l));
  Json& collectives = j["collectives"] = Json::array();
  for (const CollectiveFinding& c : m.collectives) collectives.push_back(CollectiveJson(c));
  if (kernels) {
    Json& ks = j["kernels"] = Json::array();
    for (size_t k = 0; k < kernels->kernels.size(); ++k) ks.push_back(KernelJson(kernels->Summary(k)));
  }
  return j;
}

void WriteCheckJson(const std::vector<const ModuleCheck*>& modules, const std::vector<Violation>* violations,
                    std::ostream& out, const std::vector<FusionSelection>* kernels) {
  // Streamed module by module, finding by finding: 250,000 tiny modules
  // held as one nlohmann tree took 90 times the input.
  JsonStream js(out);
  js.BeginObject();
  js.Members(JsonEnvelope("check"));
  js.Key("modules");
  js.BeginArray();
  for (size_t mi = 0; mi < modules.size(); ++mi) {
    const ModuleCheck* m = modules[mi];
    js.BeginObject();
    js.Members(render_check_internal::ModuleHead(*m));
    js.Array("parameters", m->parameters, [&](const ParameterFinding& p) { return ParameterJson(*m, p); });
    js.Array("copies", m->copies, CopyJson);
    js.Array("updates", m->updates, UpdateJson);
    js.Array("loops", m->loops, LoopJson);
    js.Array("collectives", m->collectives, CollectiveJson);
    if (kernels && mi < kernels->size()) {
      const FusionSelection& sel = (*kernels)[mi];
      js.Key("kernels");
      js.BeginArray();
      for (size_t k = 0; k < sel.kernels.size(); ++k) js.Value(KernelJson(sel.Summary(k)));
      js.EndArray();
    }
    js.EndObject();
  }
  js.EndArray();
  if (violations) {
    Json gate;
    gate["passed"] = violations->empty();
    gate["violations"] = Json::array();
    for (const Violation& v : *violations) gate["violations"].push_back(ViolationJson(v));
    js.Key("gate");
    js.Value(gate);
  }
  js.EndObject();
  js.Finish();
}

std::string CheckJsonText(const std::vector<const ModuleCheck*>& modules,
                          const std::vector<Violation>* violations,
                          const std::vector<FusionSelection>* kernels) {
  std::ostringstream out;
  WriteCheckJson(modules, violations, out, kernels);
  return out.str();
}

}  // namespace hloscope
