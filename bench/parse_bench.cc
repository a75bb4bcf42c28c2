// Parser and analysis throughput (Google Benchmark).
//
//   HLOSCOPE_BENCH_FILE=big.hlo.txt build/dev/bench/hloscope_bench
//
// BM_ParseFile: bytes/s of ParseHloText on one file (the text is read once,
// outside the timed loop). BM_CheckFile: parse + CheckModule, so the ratio
// BM_CheckFile/BM_ParseFile is the analysis cost relative to parsing.
// BM_CheckCommand: what `hloscope check FILE` does — the Session (map and
// parse the file, execution counts, check) and the text report.
// BM_ParseCorpus: all HLO files of ../shared/corpus. bench/run_parse_bench.py
// runs these next to XLA's own parser and `wc -l` and prints the ratios.
// BM_ParseBufferAssignment/KIND/MB: the buffer-assignment parser on
// generated dumps of 1, 4 and 16 MB — a plain one, one whose every value
// names the same instruction, one value wrapped over every line. Linear
// parsing shows as the same bytes/s at every size (it was quadratic in the
// last two: 59 s for 10 MB). BM_CheckWithBufferAssignment and
// BM_AnalyzeMemory: what the memory analysis adds to the check (below).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "hloscope/analysis/check.h"
#include "hloscope/analysis/memory_usage.h"
#include "hloscope/analysis/module_cost.h"
#include "hloscope/app/commands.h"
#include "hloscope/app/session.h"
#include "hloscope/parser/buffer_assignment.h"
#include "hloscope/parser/parser.h"

namespace {

std::shared_ptr<const std::string> BenchFile(benchmark::State& state) {
  const char* path = std::getenv("HLOSCOPE_BENCH_FILE");
  if (!path) {
    state.SkipWithError("set HLOSCOPE_BENCH_FILE to an HLO text file");
    return nullptr;
  }
  static std::string cached_path;
  static std::shared_ptr<const std::string> cached;
  if (cached_path != path) {
    auto text = hloscope::ReadFileOrStdin(path);
    if (!text.ok()) {
      state.SkipWithError(text.error().Format().c_str());
      return nullptr;
    }
    cached = std::move(text).value();
    cached_path = path;
  }
  return cached;
}

// Parses the bench file once per iteration and hands the modules to `use`.
template <typename Use>
void ParseBenchFile(benchmark::State& state, Use use) {
  auto text = BenchFile(state);
  if (!text) return;
  for (auto _ : state) {
    auto group = hloscope::ParseHloText(text);
    if (!group.ok()) {
      state.SkipWithError(group.error().Format().c_str());
      return;
    }
    use(*group);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text->size()));
}

void BM_ParseFile(benchmark::State& state) {
  ParseBenchFile(
      state, [](const hloscope::HloModuleGroup& group) { benchmark::DoNotOptimize(group.modules.size()); });
}
BENCHMARK(BM_ParseFile)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_CheckFile(benchmark::State& state) {
  ParseBenchFile(state, [](const hloscope::HloModuleGroup& group) {
    for (const auto& m : group.modules) {
      hloscope::ExecutionCounts counts = hloscope::ExecutionCounts::Run(*m);
      hloscope::ModuleCheck check = hloscope::CheckModule(*m, counts);
      benchmark::DoNotOptimize(check.copies.size());
    }
  });
}
BENCHMARK(BM_CheckFile)->Unit(benchmark::kMillisecond)->UseRealTime();

// BM_CostSummary: what the cost part adds to CheckFile — every kernel's
// FLOPs and bytes × executions and the summary `check` writes
// (analysis/module_cost.h), on the parsed module; BM_CostSummary /
// (BM_CheckFile − BM_CostSummary) is what it adds to parse + check
// (issue 31: <= 25 %), BM_CostSummary / BM_CheckParsed its part of the
// analysis alone.
const hloscope::HloModuleGroup* ParsedBenchFile(benchmark::State& state) {
  auto text = BenchFile(state);
  if (!text) return nullptr;
  static std::unique_ptr<hloscope::HloModuleGroup> group;
  static std::string cached_path;
  const char* path = std::getenv("HLOSCOPE_BENCH_FILE");
  if (cached_path != path) {
    auto parsed = hloscope::ParseHloText(text);
    if (!parsed.ok()) {
      state.SkipWithError(parsed.error().Format().c_str());
      return nullptr;
    }
    group = std::make_unique<hloscope::HloModuleGroup>(std::move(parsed).value());
    cached_path = path;
  }
  return group.get();
}

void BM_CostSummary(benchmark::State& state) {
  const hloscope::HloModuleGroup* group = ParsedBenchFile(state);
  if (!group) return;
  std::vector<hloscope::ExecutionCounts> counts;
  for (const auto& m : group->modules) counts.push_back(hloscope::ExecutionCounts::Run(*m));
  for (auto _ : state) {
    for (size_t i = 0; i < group->modules.size(); ++i) {
      // As check.cc asks for it: the top five of each list ranked.
      hloscope::ModuleCostOptions options;
      options.ranked = 5;
      hloscope::CostSummary cost =
          hloscope::SummarizeCost(hloscope::CostModule(*group->modules[i], counts[i], nullptr, options), 5);
      benchmark::DoNotOptimize(cost.per_call.flops);
    }
  }
}
BENCHMARK(BM_CostSummary)->Unit(benchmark::kMillisecond)->UseRealTime();

// The check of the parsed module (execution counts and CheckModule, the
// cost part included): BM_CostSummary's denominator without the parse.
void BM_CheckParsed(benchmark::State& state) {
  const hloscope::HloModuleGroup* group = ParsedBenchFile(state);
  if (!group) return;
  for (auto _ : state) {
    for (const auto& m : group->modules) {
      hloscope::ExecutionCounts counts = hloscope::ExecutionCounts::Run(*m);
      hloscope::ModuleCheck check = hloscope::CheckModule(*m, counts);
      benchmark::DoNotOptimize(check.copies.size());
    }
  }
}
BENCHMARK(BM_CheckParsed)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_CheckCommand(benchmark::State& state) {
  auto text = BenchFile(state);
  if (!text) return;
  for (auto _ : state) {
    // As the CLI does it: the Session maps the file (page cache: no read).
    hloscope::SessionRequest request;
    request.path = std::getenv("HLOSCOPE_BENCH_FILE");
    request.use_buffer_assignment = false;
    auto session = hloscope::Session::Open(std::move(request));
    if (!session.ok()) {
      state.SkipWithError(session.error().Format().c_str());
      return;
    }
    std::ostringstream out, err;
    hloscope::RunCheckCommand(**session, {}, out, err);
    benchmark::DoNotOptimize(out.str().size());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text->size()));
}
BENCHMARK(BM_CheckCommand)->Unit(benchmark::kMillisecond)->UseRealTime();

// BM_CheckWithBufferAssignment / BM_AnalyzeMemory: the check of the bench
// file with the buffer assignment beside it (HLOSCOPE_BENCH_FILE's
// -buffer-assignment.txt / buffer-assignment.txt), which includes the memory
// analysis, and the memory analysis alone on the same parsed module: their
// ratio is what memory adds to `check` (issue 27: <= 25 %).
struct CheckedBenchFile {
  std::unique_ptr<hloscope::HloModuleGroup> group;
  std::unique_ptr<hloscope::BufferAssignment> ba;
};
const CheckedBenchFile* BenchFileWithAssignment(benchmark::State& state) {
  static CheckedBenchFile cached;
  static std::string cached_path;
  auto text = BenchFile(state);
  if (!text) return nullptr;
  const char* path = std::getenv("HLOSCOPE_BENCH_FILE");
  if (cached_path != path) {
    std::optional<std::string> ba_path = hloscope::FindBufferAssignmentBeside(path);
    if (!ba_path) {
      state.SkipWithError("no buffer assignment beside HLOSCOPE_BENCH_FILE");
      return nullptr;
    }
    auto ba = hloscope::ReadBufferAssignmentFile(*ba_path);
    auto group = hloscope::ParseHloText(text);
    if (!ba.ok() || !group.ok() || group->modules.size() != 1) {
      state.SkipWithError("the bench file and its buffer assignment do not read as one module");
      return nullptr;
    }
    cached.ba = std::make_unique<hloscope::BufferAssignment>(std::move(ba).value());
    cached.group = std::make_unique<hloscope::HloModuleGroup>(std::move(group).value());
    cached_path = path;
  }
  return &cached;
}

void BM_CheckWithBufferAssignment(benchmark::State& state) {
  const CheckedBenchFile* f = BenchFileWithAssignment(state);
  if (!f) return;
  const hloscope::HloModule& m = *f->group->modules[0];
  hloscope::CheckOptions options;
  options.buffer_assignment = f->ba.get();
  for (auto _ : state) {
    hloscope::ExecutionCounts counts = hloscope::ExecutionCounts::Run(m);
    hloscope::ModuleCheck check = hloscope::CheckModule(m, counts, options);
    benchmark::DoNotOptimize(check.memory.has_value());
  }
}
BENCHMARK(BM_CheckWithBufferAssignment)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_AnalyzeMemory(benchmark::State& state) {
  const CheckedBenchFile* f = BenchFileWithAssignment(state);
  if (!f) return;
  const hloscope::HloModule& m = *f->group->modules[0];
  hloscope::ExecutionCounts counts = hloscope::ExecutionCounts::Run(m);
  hloscope::ModuleCheck check = hloscope::CheckModule(m, counts);
  // The check resolves the dump's values to test it is this module's, and
  // shares them: not part of what memory adds.
  hloscope::BufferValueInstructions instructions(*f->ba, m);
  hloscope::MemoryOptions options;
  options.instructions = &instructions;
  for (auto _ : state) {
    hloscope::MemoryUsage usage = hloscope::AnalyzeMemory(m, *f->ba, check, options);
    benchmark::DoNotOptimize(usage.allocations.size());
  }
}
BENCHMARK(BM_AnalyzeMemory)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ParseCorpus(benchmark::State& state) {
  std::filesystem::path dir = HLOSCOPE_CORPUS_DIR;
  std::vector<std::shared_ptr<const std::string>> files;
  std::error_code ec;
  for (const char* sub : {"xla", "xla_cc_embedded", "issues"}) {
    for (const auto& e : std::filesystem::directory_iterator(dir / sub, ec))
      if (auto text = hloscope::ReadFileOrStdin(e.path().string()); text.ok())
        files.push_back(std::move(text).value());
  }
  if (files.empty()) {
    state.SkipWithError("corpus not found");
    return;
  }
  int64_t bytes = 0;
  for (const auto& f : files) bytes += static_cast<int64_t>(f->size());
  for (auto _ : state) {
    for (const auto& f : files) {
      auto group = hloscope::ParseHloText(f);
      benchmark::DoNotOptimize(group.ok());
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * bytes);
}
BENCHMARK(BM_ParseCorpus)->Unit(benchmark::kMillisecond)->UseRealTime();

// A generated buffer-assignment dump of about `mb` MB.
std::string GeneratedDump(int kind, int64_t mb) {
  std::string out = "BufferAssignment:\n";
  const size_t target = static_cast<size_t>(mb) << 20;
  int64_t n = 0;
  for (int64_t a = 0; out.size() < target; ++a) {
    if (kind == 2) {  // one value wrapped over every line: never complete
      out += "allocation 0: size 4096, preallocated-temp:\n value: <0 x @0>\n";
      while (out.size() < target) out += "  (\n";
      break;
    }
    out += "allocation " + std::to_string(a) + ": size 4096, preallocated-temp:\n";
    for (int v = 0; v < 8; ++v, ++n) {
      std::string name = kind == 0 ? "fusion." + std::to_string(n) : "tuple.1{" + std::to_string(n) + "}";
      out += " value: <" + std::to_string(n) + " " + name + " @0> (size=4096,offset=0): f32[1024]{0}\n";
    }
  }
  return out;
}

void BM_ParseBufferAssignment(benchmark::State& state) {
  std::string text = GeneratedDump(static_cast<int>(state.range(0)), state.range(1));
  for (auto _ : state) {
    auto ba = hloscope::ParseBufferAssignment(text, "<generated>");
    benchmark::DoNotOptimize(ba.ok());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_ParseBufferAssignment)
    ->ArgNames({"kind", "MB"})
    ->ArgsProduct({{0, 1, 2}, {1, 4, 16}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
