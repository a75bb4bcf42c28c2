#include "command_line.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>
#include <map>
#include <sstream>

namespace hloscope {
namespace {

using F = OutputFormat;
using C = Command;

constexpr OutputFormat kCheckFormats[] = {F::kText, F::kJson, F::kSarif, F::kHtml};
constexpr OutputFormat kHtmlOnly[] = {F::kHtml};
constexpr OutputFormat kTextJson[] = {F::kText, F::kJson};
constexpr OutputFormat kRulesFormats[] = {F::kText, F::kJson, F::kMarkdown};
constexpr OutputFormat kReferenceFormats[] = {F::kMarkdown, F::kJson};

constexpr CommandEntry kCommands[] = {
    {C::kCheck, "check", "Every copy, update, loop and parameter: in place or copied, how often, and why",
     kCheckFormats, "FILE"},
    {C::kReport, "report",
     "One self-contained HTML page: the answer first, a picture of the loops, your annotated source, and "
     "every finding in sortable tables (= check --format html)",
     kHtmlOnly, "FILE"},
    {C::kDiff, "diff",
     "Compare two compilations (files, `check --format json` baselines or dump folders): what grows with the "
     "arguments, what is new, what is gone, matched by source line, op_name, opcode and role, not by names",
     kTextJson, "A B"},
    {C::kRun,
     "run",
     "Run a program unchanged (hloscope run -- python train.py) and check every XLA compilation it makes; "
     "the "
     "summary is printed when it exits",
     {},
     "[--] COMMAND..."},
    {C::kStats, "stats", "Computations by role, instructions by opcode, parameter and output bytes",
     kTextJson, "FILE"},
    {C::kMemory, "memory",
     "What one call needs per device by XLA's buffer assignment: the peak and its parts (arguments, outputs, "
     "donations, temporaries), when the temporaries peak and what is live then, every argument's donation",
     kTextJson, "FILE|DIR"},
    {C::kPrint, "print", "Parse and print the module back in canonical HLO text", {}, "FILE"},
    {C::kFusions, "fusions",
     "Every kernel (each fusion, and each dot, sort, collective, ... XLA left unfused): its kind, the "
     "operations and source lines in it, bytes read and written, FLOPs, executions per call",
     kTextJson, "FILE"},
    {C::kCost, "cost",
     "Where a call's work goes: FLOPs and bytes of every kernel (fusions, dots, sorts, collectives, ...) "
     "times "
     "its executions, summed by source line and loop, with a roofline time estimate (docs/cost.md)",
     kTextJson, "FILE"},
    {C::kWhere, "where",
     "The HLO instructions that come from a line of your code (train.py:42, :42-50, train.py:42-50, or a "
     "function name), with their kernel, loop, copies and updates",
     kTextJson, "FILE [LOCATION]"},
    {C::kAnnotate, "annotate",
     "Your Python source with each line's copies, update verdicts and kernels in a gutter (like pprof -list)",
     kTextJson, "FILE"},
    {C::kExplain, "explain",
     "One instruction in plain words (opcode, shape and layout, fusion kind, metadata, in place or not); "
     "without INSTRUCTION, a guided reading of the module",
     kTextJson, "FILE [INSTRUCTION]"},
    {C::kScopes, "scopes",
     "The jax.named_scope paths in the module, with how many instructions each holds (what --scope selects)",
     kTextJson, "FILE"},
    {C::kMcp,
     "mcp",
     "Serve hloscope to coding agents over the Model Context Protocol (stdio): check, where, explain, "
     "fusions, cost, scopes, memory, diff and collectives as tools returning the JSON and a short text "
     "answer "
     "(docs/agents.md; needs pip install 'hloscope[mcp]')",
     {},
     ""},
    {C::kRules, "rules",
     "The catalog: every copy cause and rule (in the order they are tried, with the hint each gives), and "
     "the "
     "gates",
     kRulesFormats, ""},
    {C::kReference, "reference", "The command-line reference (docs/cli.md) and the catalog, for the docs",
     kReferenceFormats, ""},
};

constexpr bool CommandsInEnumOrder() {
  for (size_t i = 0; i < std::size(kCommands); ++i)
    if (static_cast<size_t>(kCommands[i].command) != i) return false;
  return true;
}
static_assert(CommandsInEnumOrder());

// A budget is a whole number from 0 to INT64_MAX. CLI11 alone would take
// "-1" (a gate no program passes) and let a number past INT64_MAX through
// unchecked; both are usage errors (exit 2).
const CLI::Validator& Budget() {
  static const CLI::Validator v(
      [](std::string& value) -> std::string {
        int64_t n = 0;
        const char* end = value.data() + value.size();
        auto [ptr, ec] = std::from_chars(value.data(), end, n);
        if (ec != std::errc() || ptr != end || n < 0)
          return fmt::format("{} is not a whole number from 0 to {}", value, INT64_MAX);
        return "";
      },
      "N");
  return v;
}

std::string Help(const FlagEntry& f) { return std::string(f.help); }

template <typename T>
CLI::Option* Opt(CLI::App& cmd, const FlagEntry& f, T& field) {
  return cmd.add_option(std::string(f.names), field, Help(f));
}
CLI::Option* Switch(CLI::App& cmd, const FlagEntry& f, bool& field) {
  return cmd.add_flag(std::string(f.names), field, Help(f));
}

// The names of the gates one may ask for here: diff also has its own.
std::vector<std::string> GateNames(Command command) {
  std::vector<std::string> names;
  for (const GatePreset& p : GatePresets()) {
    bool diff_only = true;
    for (const GateEntry& g : GateCatalog()) diff_only &= !p.gates.Has(g.gate) || g.diff_only;
    if (!diff_only || command == Command::kDiff) names.push_back(std::string(p.name));
  }
  for (const GateEntry& g : GateCatalog())
    if (!g.diff_only || command == Command::kDiff) names.push_back(std::string(g.name));
  return names;
}

#define BIND [](CLI::App & cmd, CommandLine & l, const FlagEntry& f, const CommandEntry& c) -> CLI::Option*

constexpr CommandSet kWithBufferAssignment = {C::kCheck,    C::kMemory,  C::kReport, C::kFusions, C::kWhere,
                                              C::kAnnotate, C::kExplain, C::kDiff,   C::kRun};
constexpr CommandSet kFiltering = {C::kCheck, C::kReport, C::kDiff, C::kRun};
constexpr CommandSet kScoped = {C::kCheck, C::kReport, C::kFusions, C::kWhere, C::kAnnotate};
constexpr CommandSet kGating = {C::kCheck, C::kDiff, C::kRun};

const FlagEntry kFlags[] = {
    // -- Input -------------------------------------------------------------------------
    {"--format", "FORMAT", "Input", "the output format (the command's formats are listed with it)",
     {C::kCheck, C::kReport, C::kDiff, C::kStats, C::kMemory, C::kFusions, C::kCost, C::kWhere, C::kAnnotate,
      C::kExplain, C::kScopes, C::kRules, C::kReference},
     BIND{std::vector<std::string> names;
for (OutputFormat format : c.formats) names.push_back(std::string(FormatName(format)));
return cmd.add_option(std::string(f.names), l.format, fmt::format("{}: {}", Help(f), fmt::join(names, ", ")))
    ->check(CLI::IsMember(names));
}  // namespace
}  // namespace hloscope
, {"--max-input-bytes", "N", "Input",
   "refuse inputs (the HLO, the buffer assignment, stdin) larger than N bytes (default 2 GiB)",
   {C::kCheck, C::kReport, C::kStats, C::kMemory, C::kPrint, C::kFusions, C::kCost, C::kWhere, C::kAnnotate,
    C::kExplain, C::kScopes, C::kDiff, C::kMcp},
   BIND{return Opt(cmd, f, l.max_input_bytes)->check(CLI::PositiveNumber);
}
}
, {"--buffer-assignment", "PATH", "Input",
   "XLA's -buffer-assignment.txt dump (found automatically beside a dump)",
   {C::kCheck, C::kReport, C::kFusions, C::kWhere, C::kAnnotate, C::kExplain},
   BIND{return Opt(cmd, f, l.buffer_assignment);
}
}
, {"--no-buffer-assignment", "", "Input",
   "do not use XLA's buffer-assignment dump (nor the GPU thunk dump): verdicts unconfirmed; for `run`, XLA "
   "writes no dumps at all (on CPU they cost a quarter of the compile time) and the program's Python writes "
   "each module's HLO itself",
   kWithBufferAssignment,
   BIND{return Switch(cmd, f, c.command == C::kRun ? l.no_dumps : l.no_buffer_assignment);
}
}
, {"--thunk-metadata", "PATH", "Input",
   "XLA:GPU's thunk_metadata.txt: which copies run as memcpy thunks (found automatically beside a GPU dump)",
   {C::kCheck, C::kReport, C::kFusions, C::kWhere, C::kAnnotate, C::kExplain},
   BIND{return Opt(cmd, f, l.thunk_metadata);
}
}
, {"--pre-partition", "PATH", "Input",
   "the module before SPMD partitioning (XLA's *.before_spmd-partitioning.txt dump, written with "
   "--xla_dump_hlo_pass_re=spmd-partitioning; found automatically beside a dump): says which shardings "
   "differ "
   "where a collective re-shards",
   {C::kCheck, C::kReport, C::kFusions, C::kWhere, C::kAnnotate, C::kExplain},
   BIND{return Opt(cmd, f, l.pre_partition);
}
}
, {"--no-pre-partition", "", "Input", "do not read the module before SPMD partitioning",
   {C::kCheck, C::kReport, C::kFusions, C::kWhere, C::kAnnotate, C::kExplain},
   BIND{return Switch(cmd, f, l.no_pre_partition);
}
}
, {"--allow-unoptimized", "", "Input",
   "read HLO before optimization too (a before_optimizations dump; its copies are not yet decided)",
   {C::kCheck, C::kReport, C::kDiff}, BIND{return Switch(cmd, f, l.allow_unoptimized);
}
}
,
    // -- Findings: which count (analysis/finding_filter.h) ------------------------------------
    {"--scope", "NAME", "Findings",
     "only findings inside this jax.named_scope path (e.g. 'grad_step/encoder'; JAX's "
     "jit(..)/jvp(..)/while/body "
     "wrappers are skipped; * and ? match)",
     kScoped, BIND{return Opt(cmd, f, l.filter.scope);
}
}
, {"--include-minor,--count-scalar-copies", "", "Findings",
   "list and count minor copies too: scalars (the loop counters XLA copies in every loop) and small "
   "constants "
   "moved to another memory space",
   kFiltering, BIND{return Switch(cmd, f, l.filter.include_minor);
}
}
, {"--include-library", "", "Findings",
   "count findings made inside library code too (jax.random's helpers, site-packages) and list them with "
   "yours",
   kFiltering, BIND{return Switch(cmd, f, l.filter.include_library);
}
}
, {"--min-bytes,--min-copy-bytes", "N", "Findings",
   "leave out findings moving fewer than N bytes per call (bytes × executions): not listed one by one, not "
   "counted by gates (an unknown amount always counts)",
   kFiltering, BIND{return Opt(cmd, f, l.filter.min_bytes)->check(Budget());
}
}
,
    // -- Gates: what fails (analysis/policy.h) -------------------------------------------------
    {"--fail", "", "Gates",
     "exit 1 on the costs that recur every iteration (the default preset: copies-in-loops, not-in-place, "
     "full-rewrites, reshards-in-loops); `diff`: when B has such a finding A does not",
     kGating, BIND{return Switch(cmd, f, l.fail);
}
}
, {"--fail-on", "NAME", "Gates",
   "exit 1 on these gates or presets (comma-separated, repeatable; `hloscope rules` lists them)", kGating,
   BIND{return Opt(cmd, f, l.fail_on)->delimiter(',')->check(CLI::IsMember(GateNames(c.command)));
}
}
, {"--fail-on-copies-in-loops", "", "Gates", "= --fail-on copies-in-loops", {C::kCheck},
   BIND{return cmd.add_flag_callback(
       std::string(f.names), [&l] { l.legacy_gates.Add(Gate::kCopiesInLoops); }, Help(f));
}
}
, {"--fail-on-out-of-place", "", "Gates", "= --fail-on not-in-place", {C::kCheck},
   BIND{return cmd.add_flag_callback(
       std::string(f.names), [&l] { l.legacy_gates.Add(Gate::kNotInPlace); }, Help(f));
}
}
, {"--fail-on-contradiction", "", "Gates", "= --fail-on contradictions", {C::kCheck},
   BIND{return cmd.add_flag_callback(
       std::string(f.names), [&l] { l.legacy_gates.Add(Gate::kContradictions); }, Help(f));
}
}
, {"--fail-on-new-copies", "", "Gates", "= --fail-on new-copies", {C::kDiff},
   BIND{return cmd.add_flag_callback(
       std::string(f.names), [&l] { l.legacy_gates.Add(Gate::kNewCopies); }, Help(f));
}
}
, {"--fail-on-new-out-of-place", "", "Gates", "= --fail-on new-not-in-place", {C::kDiff},
   BIND{return cmd.add_flag_callback(
       std::string(f.names), [&l] { l.legacy_gates.Add(Gate::kNewNotInPlace); }, Help(f));
}
}
, {"--fail-on-more-bytes-per-iteration", "", "Gates", "= --fail-on more-bytes-per-iteration", {C::kDiff},
   BIND{return cmd.add_flag_callback(
       std::string(f.names), [&l] { l.legacy_gates.Add(Gate::kMoreBytesPerIteration); }, Help(f));
}
}
, {"--max-copy-bytes", "N", "Gates", "exit 1 if array copies move more than N bytes per call", {C::kCheck},
   BIND{return Opt(cmd, f, l.budgets.max_copy_bytes)->check(Budget());
}
}
, {"--max-copies", "N", "Gates", "exit 1 if there are more than N array copies", {C::kCheck},
   BIND{return Opt(cmd, f, l.budgets.max_copies)->check(Budget());
}
}
, {"--max-copies-in-loops", "N", "Gates", "exit 1 if more than N array copies run inside loops", {C::kCheck},
   BIND{return Opt(cmd, f, l.budgets.max_copies_in_loops)->check(Budget());
}
}
, {"--max-copy-bytes-in-loops", "N", "Gates",
   "exit 1 if array copies inside loops move more than N bytes per call", {C::kCheck},
   BIND{return Opt(cmd, f, l.budgets.max_copy_bytes_in_loops)->check(Budget());
}
}
, {"--max-peak-bytes", "N", "Gates",
   "exit 1 if one call needs more than N bytes per device (the memory peak by XLA's buffer assignment; "
   "unknown without it, which fails too)",
   {C::kCheck}, BIND{return Opt(cmd, f, l.budgets.max_peak_bytes)->check(Budget());
}
}
, {"--update", "NAME", "Gates", "gate only this update (instruction or fusion name; repeatable)", {C::kCheck},
   BIND{return Opt(cmd, f, l.updates);
}
}
, {"--line", "FILE:LINE", "Gates", "gate only the updates of this line (train.py:42; repeatable)",
   {C::kCheck}, BIND{return Opt(cmd, f, l.lines);
}
}
,
    // -- Output -------------------------------------------------------------------------------
    {"--kernels", "", "Output",
     "JSON: each module's kernels too, so that a baseline for `hloscope diff` compares them", {C::kCheck},
     BIND{return Switch(cmd, f, l.kernels);
}
}
, {"--no-kernels", "", "Output", "do not compare kernels (faster on large modules)", {C::kDiff},
   BIND{return Switch(cmd, f, l.no_kernels);
}
}
, {"--sarif-root", "DIR", "Output",
   "SARIF: source paths under this directory (your repository) are written relative to it", {C::kCheck},
   BIND{return Opt(cmd, f, l.sarif_roots);
}
}
, {"--source-root", "DIR", "Output",
   "directory holding your sources (metadata paths are tried under it by suffix)",
   {C::kCheck, C::kReport, C::kWhere, C::kAnnotate, C::kMcp}, BIND{return Opt(cmd, f, l.source_roots);
}
}
, {"--root", "DIR", "Output",
   "mcp: a folder whose files the tools may read (repeatable; default: the current folder); any other path "
   "is refused",
   {C::kMcp}, BIND{return Opt(cmd, f, l.roots);
}
}
, {"-o,--output", "PATH", "Output", "the HTML file to write ('-' for stdout, the default)", {C::kReport},
   BIND{return Opt(cmd, f, l.output);
}
}
, {"--context", "N", "Output", "source lines shown around annotated lines", {C::kAnnotate, C::kReport},
   BIND{return Opt(cmd, f, l.context)->check(CLI::Range(0, 1000));
}
}
, {"--all", "", "Output", "print every line of each file", {C::kAnnotate},
   BIND{return Switch(cmd, f, l.whole_files);
}
}
, {"--file", "FILE", "Output", "only this source file (train.py or a path suffix)", {C::kAnnotate},
   BIND{return Opt(cmd, f, l.source_file);
}
}
, {"--top", "N", "Output", "rows in each table of the text answer (default 10)", {C::kCost},
   BIND{return Opt(cmd, f, l.top)->check(CLI::Range(1, 1000000));
}
}
, {"--trace", "PATH", "Input",
   "a profiler trace of the program (jax.profiler's *.trace.json.gz): each kernel's measured time beside the "
   "estimate, joined by XLA's instruction names",
   {C::kCost}, BIND{return Opt(cmd, f, l.trace);
}
}
, {"--target", "NAME", "Output",
   "the machine the time estimate is for: cpu, h100, a100, tpu-v5e, tpu-v5p, tpu-v4 (default: what the "
   "module "
   "was compiled for — GPU as h100, TPU as tpu-v5e)",
   {C::kCost},
   BIND{return Opt(cmd, f, l.target)
            ->check(CLI::IsMember({"cpu", "h100", "a100", "tpu-v5e", "tpu-v5p", "tpu-v4"}));
}
}
,
    // -- run ------------------------------------------------------------------------------------
    {"--json", "PATH", "Run", "also write the summary as JSON to this file", {C::kRun},
     BIND{return Opt(cmd, f, l.json_path);
}
}
, {"--html", "PATH", "Run",
   "also write the `hloscope report` page of the compilation that moves the most bytes", {C::kRun},
   BIND{return Opt(cmd, f, l.html_path);
}
}
, {"--keep-dumps", "DIR", "Run", "dump into this (new or empty) folder and keep it", {C::kRun},
   BIND{return Opt(cmd, f, l.keep_dumps);
}
}
, {"--warn", "", "Run",
   "print a warning as soon as a compilation breaks the gates (--fail-on, else the default preset)",
   {C::kRun}, BIND{return Switch(cmd, f, l.warn);
}
}
, {"--raise", "", "Run",
   "raise BudgetError in the program, in the call whose compilation breaks the gates (like JAX_DEBUG_NANS)",
   {C::kRun}, BIND{return Switch(cmd, f, l.raise);
}
}
, {"--profile", "", "Run",
   "also trace the program with jax.profiler and put each function's measured time per call beside the "
   "estimate "
   "(docs/cost.md)",
   {C::kRun}, BIND{return Switch(cmd, f, l.profile);
}
}
, {"--reports", "N", "Run", "full reports of this many worst functions (default 2)", {C::kRun},
   BIND{return Opt(cmd, f, l.reports)->check(CLI::Range(0, 1000));
}
}
,
}
;

#undef BIND

}  // namespace

std::span<const CommandEntry> CommandCatalog() { return kCommands; }
std::span<const FlagEntry> FlagCatalog() { return kFlags; }
const CommandEntry& EntryOf(Command command) { return kCommands[static_cast<size_t>(command)]; }

void BindFlags(CLI::App& cmd, CommandLine& line, const CommandEntry& command) {
  for (const FlagEntry& f : kFlags) {
    if (!f.commands.Has(command.command)) continue;
    CLI::Option* o = f.bind(cmd, line, f, command);
    o->group(std::string(f.group));
    if (!f.value.empty()) o->type_name(std::string(f.value));
  }
}

std::optional<GateSet> RequestedGates(const CommandLine& line, std::string* error) {
  GateSet gates = line.legacy_gates;
  if (line.fail) gates.Add(DefaultGates());
  for (const std::string& name : line.fail_on) {
    std::optional<GateSet> named = GatesNamed(name);
    if (!named) {
      *error = fmt::format("--fail-on {}: not a gate or preset (hloscope rules lists them)", name);
      return std::nullopt;
    }
    gates.Add(*named);
  }
  return gates;
}

std::string CliReferenceMarkdown() {
  std::ostringstream out;
  out << "# Command-line reference\n\n"
      << "<!-- Generated from the flag table (src/app/command_line.cc) by `python3 "
         "tools/gen_catalog_docs.py`;\n"
      << "     tests/python/test_catalog_docs.py fails when it is stale. Do not edit by hand. -->\n\n"
      << "Every flag is defined once, with one meaning and one help text, for every command that takes it.\n"
      << "Exit codes: 0 the command ran; 1 a gate (`--fail`, `--fail-on`, `--max-*`) was broken; 2 usage, "
         "parse or I/O error.\n\n";
  out << "| command | arguments | formats | what it does |\n|---|---|---|---|\n";
  for (const CommandEntry& c : kCommands) {
    if (c.command == Command::kReference) continue;
    std::vector<std::string> formats;
    for (OutputFormat f : c.formats) formats.push_back(std::string(FormatName(f)));
    out << fmt::format("| `{}` | {} | {} | {} |\n", c.name,
                       c.usage.empty() ? "" : fmt::format("`{}`", c.usage),
                       formats.empty() ? "—" : fmt::format("{}", fmt::join(formats, ", ")), c.help);
  }
  std::map<std::string_view, std::vector<const FlagEntry*>> groups;
  std::vector<std::string_view> order;
  for (const FlagEntry& f : kFlags) {
    if (!groups.count(f.group)) order.push_back(f.group);
    groups[f.group].push_back(&f);
  }
  for (std::string_view g : order) {
    out << fmt::format("\n## {}\n\n| flag | commands | meaning |\n|---|---|---|\n", g);
    for (const FlagEntry* f : groups[g]) {
      std::vector<std::string> names;
      std::string all(f->names);
      for (size_t start = 0; start <= all.size();) {
        size_t comma = all.find(',', start);
        std::string n = all.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        names.push_back(fmt::format("`{}{}`", n, f->value.empty() ? "" : " " + std::string(f->value)));
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
      std::vector<std::string> commands;
      for (const CommandEntry& c : kCommands)
        if (f->commands.Has(c.command) && c.command != Command::kReference)
          commands.push_back(std::string(c.name));
      out << fmt::format("| {} | {} | {} |\n", fmt::join(names, ", "), fmt::join(commands, ", "), f->help);
    }
  }
  out << "\n## Gates and presets (`--fail-on NAME`)\n\n| name | fails when |\n|---|---|\n";
  for (const GatePreset& p : GatePresets()) out << fmt::format("| `{}` (preset) | {} |\n", p.name, p.help);
  for (const GateEntry& g : GateCatalog()) out << fmt::format("| `{}` | {} |\n", g.name, g.help);
  out << "\n## Formats\n\n| format | |\n|---|---|\n";
  for (const FormatEntry& f : FormatCatalog()) out << fmt::format("| `{}` | {} |\n", f.name, f.help);
  return out.str();
}

}  // namespace hloscope
