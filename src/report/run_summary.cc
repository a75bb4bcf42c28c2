#include "hloscope/report/run_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <sstream>

#include "hloscope/analysis/source_origin.h"
#include "hloscope/report/answer_words.h"
#include "hloscope/report/enum_names.h"
#include "hloscope/report/render_check.h"
#include "hloscope/report/render_cost.h"
#include "hloscope/report/render_memory.h"
#include "hloscope/report/wording.h"
#include "hloscope/support/human_bytes.h"
#include "hloscope/support/saturating.h"

namespace hloscope {
namespace {

// jit_step -> step; jit__lambda_ -> <lambda>; other names as they are.
std::string FunctionName(std::string_view module) {
  std::string_view f = module.starts_with("jit_") ? module.substr(4) : module;
  if (f == "_lambda_" || f == "_lambda") return "<lambda>";
  return std::string(f);
}

struct Row {
  std::string function;
  std::vector<const RunRecord*> compilations;
  const RunRecord* worst = nullptr;  // most bytes moved per call
};

// Unknown totals rank above every known one: a copy in a loop of unknown
// trip count may move anything.
int64_t Rank(const RunRecord& r) { return r.bytes_per_call.value_or(INT64_MAX); }

// User code first, then by bytes: the order of rows and of WorstRecord.
bool ShownBefore(const RunRecord& a, const RunRecord& b) {
  if (a.library != b.library) return !a.library;
  return Rank(a) > Rank(b);
}

std::vector<Row> Rows(const std::vector<RunRecord>& records) {
  std::map<std::string, size_t> index;
  std::vector<Row> rows;
  for (const RunRecord& r : records) {
    auto [it, fresh] = index.try_emplace(r.module, rows.size());
    if (fresh) rows.push_back({r.function, {}, nullptr});
    Row& row = rows[it->second];
    row.compilations.push_back(&r);
    if (!row.worst || Rank(r) > Rank(*row.worst)) row.worst = &r;
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Row& a, const Row& b) { return ShownBefore(*a.worst, *b.worst); });
  return rows;
}

std::string Signatures(const Row& row) {
  std::vector<std::string> sigs;
  for (const RunRecord* r : row.compilations)
    if (std::find(sigs.begin(), sigs.end(), r->signature) == sigs.end()) sigs.push_back(r->signature);
  if (sigs.size() <= 2) return fmt::format("{}", fmt::join(sigs, "; "));
  return fmt::format("{}; … {} signatures", sigs.front(), sigs.size());
}

// A function's name in the summary's 28-wide first column.
std::string FunctionColumn(const std::string& function) {
  std::string name = Shown(function);
  if (name.size() > 28) name = name.substr(0, 27) + "…";
  return name;
}

// The compilation of a function that needs the most memory per call
// (nullptr: none has its buffer assignment).
const RunRecord* LargestPeak(const Row& row) {
  const RunRecord* top = nullptr;
  for (const RunRecord* r : row.compilations)
    if (r->peak_bytes && (!top || *r->peak_bytes > *top->peak_bytes)) top = r;
  return top;
}

}  // namespace

const RunRecord* WorstRecord(const std::vector<RunRecord>& records) {
  const RunRecord* worst = nullptr;
  for (const RunRecord& r : records)
    if (!worst || ShownBefore(r, *worst)) worst = &r;
  return worst;
}

RunRecord SummarizeRun(const ModuleCheck& check, const std::string& dump, const GateOptions& gates,
                       const FindingFilter& filter) {
  RunRecord r;
  r.dump = dump;
  r.module = std::string(check.module->name());
  r.function = FunctionName(r.module);
  r.signature = EntrySignature(*check.module);
  r.headline = Headline(check);
  r.answer = AnswerLines(check).front();
  r.stands_out = check.answer.stands_out();
  r.buffer_assignment = check.buffer_assignment_applied;
  if (check.memory) {
    r.peak_bytes = check.memory->device_peak_bytes();
    r.memory = MemorySummaryLine(check);
  }
  r.cost_per_call = check.cost.per_call;
  r.estimated_seconds = check.cost.estimated_seconds;
  if (check.cost.target) r.cost_target = check.cost.target->name;
  const CopyFinding* largest = nullptr;
  for (const CopyFinding& c : check.copies) {
    if (c.minor) continue;
    ++r.array_copies;
    r.copies_per_call = SatAdd(r.copies_per_call, c.executions.value_or(1));
    r.bytes_per_call = SatAdd(r.bytes_per_call, c.total_bytes);
    if (!largest) largest = &c;  // copies come largest first
    if (!c.enclosing_loops.empty()) ++r.copies_in_loops;
    if (c.cause.cause == CopyCause::kNonDonatedParameter) ++r.donation_problems;
  }
  for (const CollectiveFinding& c : check.collectives) {
    ++r.collectives;
    r.collective_bytes_per_call = SatAdd(r.collective_bytes_per_call, c.total_bytes);
  }
  const UpdateFinding* first_oop = nullptr;
  for (const UpdateFinding& u : check.updates) {
    std::optional<Gate> g = GateOf(u, check);
    if (g != Gate::kNotInPlace && g != Gate::kFullRewrites) continue;
    ++r.out_of_place;
    if (!first_oop) first_oop = &u;
  }
  for (const Violation& v : EvaluateGates({&check}, gates, filter)) r.problems.push_back(ViolationLine(v));
  for (const LoopFinding& l : check.loops) r.growing_loops += l.scales_with_buffer ? 1 : 0;
  const std::optional<SourceLocation>* where = largest     ? &largest->source
                                               : first_oop ? &first_oop->source
                                                           : nullptr;
  if (where) {
    r.where = SourceText(*where);
    r.library = OriginOf(*where).library;
  }
  if (!r.problems.empty() || r.array_copies > 0 || r.collectives > 0 || r.stands_out) {
    std::ostringstream text;
    RenderCheckText({&check}, {filter}, text);
    r.report = text.str();
  }
  return r;
}

std::string RunWarning(const RunRecord& r) {
  return fmt::format("hloscope: warning: {}{} ({}): {}{}", Shown(r.function),
                     r.where.empty() ? "" : " at " + Shown(r.where), Shown(r.signature),
                     Shown(r.problems.front()),
                     r.problems.size() > 1 ? fmt::format(" (+{} more)", r.problems.size() - 1) : "");
}

std::string RunFailureText(int broken, const GateOptions& gates, const FindingFilter& filter) {
  return fmt::format("hloscope run: failed: {} compilation{} broke the gates {}{} (--fail)", broken,
                     broken == 1 ? "" : "s", GateSetText(gates.gates),
                     filter.min_bytes > 0 ? fmt::format(", counting findings of at least {} per call",
                                                        HumanBytes(filter.min_bytes))
                                          : "");
}

void RenderRunSummary(const std::vector<RunRecord>& records, const RunSummaryOptions& options,
                      std::ostream& out) {
  std::vector<Row> rows = Rows(records);
  out << fmt::format("\nhloscope run: {} compilation{} of {} function{} checked{}\n", records.size(),
                     records.size() == 1 ? "" : "s", rows.size(), rows.size() == 1 ? "" : "s",
                     options.program.empty() ? "" : " — " + Shown(options.program));
  if (records.empty()) {
    out << "  nothing was compiled with XLA (or the program set its own --xla_dump_to)\n";
    return;
  }
  out << fmt::format("  {:<28} {:>3}  {:>10} {:>12}  {:>5} {:>7} {:>8}  {}\n", "function", "×", "copies/call",
                     "bytes/call", "grows", "not-in", "undonated", "where");
  out << fmt::format("  {:<28} {:>3}  {:>10} {:>12}  {:>5} {:>7} {:>8}\n", "", "", "", "", "", "place", "");
  std::vector<std::string> quiet;  // functions with nothing to report: one line for all
  for (const Row& row : rows) {
    const RunRecord& w = *row.worst;
    if (w.array_copies == 0 && w.problems.empty() && w.out_of_place == 0 && w.donation_problems == 0 &&
        w.collectives == 0) {
      quiet.push_back(Shown(row.function));
      continue;
    }
    std::string name = FunctionColumn(row.function);
    out << fmt::format("  {:<28} {:>3}  {:>10} {:>12}  {:>5} {:>7} {:>8}  {}{}\n", name,
                       row.compilations.size(), w.copies_per_call, HumanBytes(w.bytes_per_call),
                       w.growing_loops, w.out_of_place, w.donation_problems, Shown(w.where),
                       w.library ? " (library)" : "");
    if (row.compilations.size() > 1 || !w.problems.empty())
      out << fmt::format("  {:<28}      {}\n", "", Shown(Signatures(row)));
    if (w.collectives > 0)
      out << fmt::format("  {:<28}      {} collective{}: {} per device per call\n", "", w.collectives,
                         w.collectives == 1 ? "" : "s", HumanBytes(w.collective_bytes_per_call));
  }
  if (!quiet.empty()) {
    size_t listed = std::min<size_t>(quiet.size(), 6);
    out << fmt::format("  + {} function{} with no array copy and every update in place: {}{}\n", quiet.size(),
                       quiet.size() == 1 ? "" : "s",
                       fmt::join(std::vector<std::string>(quiet.begin(), quiet.begin() + listed), ", "),
                       quiet.size() > listed ? ", …" : "");
  }
  // Memory: each function's largest peak (of its compilations), largest
  // first: where a program runs out of memory as its sizes grow.
  std::vector<std::pair<const Row*, const RunRecord*>> peaks;
  for (const Row& row : rows)
    if (const RunRecord* top = LargestPeak(row)) peaks.emplace_back(&row, top);
  std::stable_sort(peaks.begin(), peaks.end(), [](const auto& a, const auto& b) {
    return *a.second->peak_bytes > *b.second->peak_bytes;
  });
  if (!peaks.empty()) {
    out << "\n  memory per call, largest peak first (per device, by XLA's buffer assignment):\n";
    for (size_t i = 0; i < peaks.size() && i < 5; ++i) {
      std::string name = FunctionColumn(peaks[i].first->function);
      out << fmt::format("  {:<28} {:>10}  {}\n", name, HumanBytes(*peaks[i].second->peak_bytes),
                         Shown(peaks[i].second->signature));
    }
    if (peaks.size() > 5) out << fmt::format("  + {} more (the JSON has each)\n", peaks.size() - 5);
    out << "  (`hloscope memory DUMP` for what fills a peak; --keep-dumps DIR keeps the dumps)\n";
  }
  // Work: each function's compilation with the most estimated time, most
  // first: where a program's time goes, by the roofline estimate.
  std::vector<std::pair<const Row*, const RunRecord*>> work;
  for (const Row& row : rows) {
    const RunRecord* top = nullptr;
    for (const RunRecord* r : row.compilations)
      if (!top || r->estimated_seconds > top->estimated_seconds) top = r;
    if (top && top->estimated_seconds > 0) work.emplace_back(&row, top);
  }
  std::stable_sort(work.begin(), work.end(), [](const auto& a, const auto& b) {
    return a.second->estimated_seconds > b.second->estimated_seconds;
  });
  if (!work.empty()) {
    bool measured = false;
    for (const auto& [row, r] : work) measured |= r->measured_seconds.has_value();
    const Roofline* roof = FindRoofline(work.front().second->cost_target);
    const std::string target = roof ? Shown(roof->description) : std::string("an unknown target");
    out << (measured ? fmt::format(
                           "\n  work per call, most estimated time first (the estimate is a roofline on {}; "
                           "measured: the time in its kernels in jax.profiler's trace, per call):\n",
                           target)
                     : fmt::format(
                           "\n  work per call, most estimated time first (a roofline estimate on {}, not a "
                           "measurement):\n",
                           target));
    if (measured)
      out << fmt::format("  {:<28} {:>9}  {:>11} {:>10}  {:>19}\n", "", "estimate", "FLOPs", "bytes",
                         "measured (calls)");
    for (size_t i = 0; i < work.size() && i < 5; ++i) {
      const RunRecord& r = *work[i].second;
      std::string name = FunctionColumn(work[i].first->function);
      std::string timed =
          !measured ? ""
          : r.measured_seconds
              ? fmt::format("{:>19}  ",
                            fmt::format("{} ({})", HumanSeconds(*r.measured_seconds), r.measured_calls))
              : fmt::format("{:>19}  ", "not traced");
      out << fmt::format("  {:<28} {:>9}  {:>11} {:>10}  {}{}\n", name, HumanSeconds(r.estimated_seconds),
                         HumanFlops(SatAdd(r.cost_per_call.flops, r.cost_per_call.transcendentals)),
                         HumanBytes(r.cost_per_call.bytes_accessed), timed, Shown(r.signature));
    }
    if (work.size() > 5) out << fmt::format("  + {} more (the JSON has each)\n", work.size() - 5);
    out << "  (`hloscope cost DUMP` for its lines, loops and kernels)\n";
  }
  int shown = 0;
  for (const Row& row : rows) {
    if (shown >= options.worst_reports) break;
    const RunRecord& w = *row.worst;
    if (w.problems.empty() && w.array_copies == 0 && w.collectives == 0 && !w.stands_out) continue;
    ++shown;
    out << fmt::format("\n── {} ({}) — {}\n", Shown(row.function), Shown(w.signature), Shown(w.dump));
    out << w.report;
  }
  size_t unconfirmed = 0;
  for (const RunRecord& r : records) unconfirmed += r.buffer_assignment ? 0 : 1;
  if (unconfirmed > 0)
    out << fmt::format(
        "\n{} of {} compilations without XLA's buffer assignment: their verdicts unconfirmed.\n", unconfirmed,
        records.size());
  out << "\nCompilations JAX served from its caches were not compiled again and are not counted.\n";
}

Json RunJson(const std::vector<RunRecord>& records, const std::vector<std::string>& command, int exit_code) {
  Json doc = JsonEnvelope("run");
  doc["program"] = Json::array();
  for (const std::string& a : command) doc["program"].push_back(Shown(a));
  doc["exit_code"] = exit_code;
  doc["functions"] = Json::array();
  for (const Row& row : Rows(records)) {
    const RunRecord& w = *row.worst;
    Json f;
    f["function"] = Shown(row.function);
    f["module"] = Shown(w.module);
    f["compilations"] = row.compilations.size();
    f["where"] = w.where.empty() ? Json(nullptr) : Json(Shown(w.where));
    f["library"] = w.library;
    f["copies_per_call"] = w.copies_per_call;
    f["bytes_per_call"] = Opt(w.bytes_per_call);
    f["copies_in_loops"] = w.copies_in_loops;
    f["growing_loops"] = w.growing_loops;
    f["out_of_place"] = w.out_of_place;
    f["donation_problems"] = w.donation_problems;
    f["collectives"] = w.collectives;
    f["collective_bytes_per_call"] = Opt(w.collective_bytes_per_call);
    const RunRecord* peak = LargestPeak(row);
    f["peak_bytes"] = peak ? Json(*peak->peak_bytes) : Json(nullptr);
    f["problems"] = Json::array();
    for (const std::string& p : w.problems) f["problems"].push_back(Shown(p));
    f["signatures"] = Json::array();
    for (const RunRecord* r : row.compilations) f["signatures"].push_back(Shown(r->signature));
    doc["functions"].push_back(f);
  }
  doc["compilations"] = Json::array();
  for (const RunRecord& r : records)
    doc["compilations"].push_back(
        {{"dump", Shown(r.dump)},
         {"module", Shown(r.module)},
         {"signature", Shown(r.signature)},
         {"headline", Shown(r.headline)},
         {"answer", Shown(r.answer)},
         {"buffer_assignment", r.buffer_assignment},
         {"bytes_per_call", Opt(r.bytes_per_call)},
         {"collective_bytes_per_call", Opt(r.collective_bytes_per_call)},
         {"peak_bytes", Opt(r.peak_bytes)},
         {"memory", r.memory.empty() ? Json(nullptr) : Json(Shown(r.memory))},
         {"cost",
          {{"target", Shown(r.cost_target)},
           {"flops", r.cost_per_call.flops},
           {"transcendentals", r.cost_per_call.transcendentals},
           {"bytes_accessed", r.cost_per_call.bytes_accessed},
           {"estimated_seconds", r.estimated_seconds},
           {"measured_seconds", r.measured_seconds ? Json(*r.measured_seconds) : Json(nullptr)},
           {"measured_calls", r.measured_calls}}}});
  return doc;
}

}  // namespace hloscope
