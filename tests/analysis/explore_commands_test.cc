// `where`, `annotate`, `fusions` and `explain` on the JAX fixtures: the
// instruction of a line is found with its kernel, loop, executions and
// findings — also in a module of more than 10,000 instructions — the copy
// shows on the line that causes it, and each kernel lists its source lines.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "hloscope/analysis/fusion_summary.h"
#include "hloscope/analysis/instruction_facts.h"
#include "hloscope/analysis/source_index.h"
#include "hloscope/app/commands.h"
#include "hloscope/app/session.h"
#include "hloscope/ir/name_index.h"
#include "hloscope/parser/parser.h"
#include "hloscope/report/explain_words.h"
#include "hloscope/report/render_annotate.h"
#include "hloscope/report/render_explain.h"
#include "hloscope/report/render_fusions.h"
#include "hloscope/report/render_where.h"
#include "hloscope/report/wording.h"

namespace hloscope {
namespace {

namespace fs = std::filesystem;

const fs::path kRoot = HLOSCOPE_SOURCE_DIR;
const fs::path kFixtures = kRoot / "tests" / "fixtures" / "jax";

std::unique_ptr<Session> OpenSession(SessionRequest r) {
  auto s = Session::Open(r);
  if (!s.ok()) {
    ADD_FAILURE() << s.error().Format();
    return nullptr;
  }
  return std::move(s).value();
}

// A session over HLO text (no buffer assignment).
std::unique_ptr<Session> ParseText(const std::string& text) {
  SessionRequest r;
  r.text = text;
  return OpenSession(r);
}

// A session over a fixture; without `with_dump`, its buffer assignment is
// not read (the exploring commands' facts do not depend on it).
std::unique_ptr<Session> Fixture(const std::string& name, const std::string& file = "module.hlo.txt") {
  SessionRequest r;
  r.path = (kFixtures / name / file).string();
  return OpenSession(r);
}

const HloInstruction* Named(const HloModule& m, std::string_view name) {
  return m.names().Resolve(name).instruction;
}

WhereResult Where(ModuleAnalysis& a, const WhereQuery& q) {
  a.EnsureSources();
  return FindWhere(a.sources(), a.counts, a.check, q);
}

// 1-based number of the first line of `program` containing `needle` after
// the line containing `after`.
int64_t LineOf(const std::string& program, const std::string& needle, const std::string& after = "") {
  std::ifstream in(kRoot / "tools" / "fixture_programs" / program);
  std::string line;
  int64_t n = 0;
  bool armed = after.empty();
  while (std::getline(in, line)) {
    ++n;
    if (!armed && line.find(after) != std::string::npos) armed = true;
    if (armed && line.find(needle) != std::string::npos) return n;
  }
  ADD_FAILURE() << needle << " not found in " << program;
  return 0;
}

LineSpec Spec(const std::string& text) {
  std::string err;
  std::optional<LineSpec> s = ParseLineSpec(text, &err);
  EXPECT_TRUE(s) << err;
  return s.value_or(LineSpec{});
}

const LineInstruction* FindIn(const std::vector<LineFacts>& lines, std::string_view name) {
  for (const LineFacts& f : lines)
    for (const LineInstruction& li : f.instructions)
      if (li.instruction->name() == name) return &li;
  return nullptr;
}

// --------------------------------------------------------------------------- where

TEST(ExploreWhere, AtSetLineInALoopWithItsCopy) {
  auto session = Fixture("loop_read_after_write");
  ASSERT_TRUE(session);
  ModuleAnalysis& a = session->Analysis(0);
  int64_t line = LineOf("loops.py", "new = buf.at[i].set(0.0)", "def loop_read_after_write");
  WhereQuery o;
  o.spec = Spec(fmt::format("loops.py:{}", line));
  WhereResult w = Where(a, o);
  ASSERT_EQ(w.lines.size(), 1u);
  const LineFacts& f = w.lines[0];
  EXPECT_EQ(f.line, line);
  const LineInstruction* dus = FindIn(w.lines, "dynamic-update-slice.2");
  ASSERT_TRUE(dus);
  EXPECT_EQ(dus->instruction->opcode(), HloOpcode::kDynamicUpdateSlice);
  ASSERT_TRUE(dus->kernel);
  EXPECT_EQ(dus->kernel->name(), "select_dynamic-update-slice_fusion");
  std::vector<const HloInstruction*> loops = a.counts.EnclosingLoops(dus->instruction->parent());
  ASSERT_EQ(loops.size(), 1u);
  EXPECT_EQ(loops[0]->name(), "while.1");
  EXPECT_EQ(dus->executions, 100);
  ASSERT_EQ(dus->updates.size(), 1u);
  EXPECT_EQ(dus->updates[0]->verdict, UpdateVerdict::kInPlaceOnCopy);
  // The copies the update runs on are attributed to this line.
  std::vector<std::string> copies;
  for (const CopyFinding* c : f.copies) copies.push_back(std::string(c->instruction()->name()));
  EXPECT_NE(std::find(copies.begin(), copies.end(), "copy"), copies.end());
  ASSERT_EQ(f.updates.size(), 1u);
  ASSERT_TRUE(f.updates[0]->runs_on);
  EXPECT_EQ(f.updates[0]->runs_on->instruction->name(), "copy");

  // Text: the source line, the update, the kernel.
  std::ostringstream out;
  SourceFiles files({kRoot.string()});
  RenderWhereText({{&a, w}}, o, files, out);
  std::string text = out.str();
  EXPECT_NE(text.find("new = buf.at[i].set(0.0)"), std::string::npos) << text;
  EXPECT_NE(text.find("in fusion select_dynamic-update-slice_fusion (kLoop"), std::string::npos) << text;
  EXPECT_NE(text.find("inside while.1 ×100"), std::string::npos) << text;
  EXPECT_NE(text.find("in-place-on-copy on copy"), std::string::npos) << text;
}

TEST(ExploreWhere, RangesFilesAndFunctions) {
  auto session = Fixture("loop_read_after_write");
  ASSERT_TRUE(session);
  ModuleAnalysis& a = session->Analysis(0);
  int64_t line = LineOf("loops.py", "new = buf.at[i].set(0.0)", "def loop_read_after_write");
  WhereQuery o;
  o.spec = Spec(fmt::format(":{}-{}", line, line + 1));
  WhereResult range = Where(a, o);
  ASSERT_EQ(range.lines.size(), 2u);
  // The next line reads the old buffer: the read that forces the copy.
  ASSERT_FALSE(range.lines[1].reads.empty());
  EXPECT_EQ(range.lines[1].reads[0].reader->name(), "bitcast_add_fusion");
  o.spec = Spec("body");
  WhereResult fn = Where(a, o);
  EXPECT_TRUE(FindIn(fn.lines, "dynamic-update-slice.2"));
  o.spec = Spec("fixture_programs/loops.py");
  EXPECT_FALSE(Where(a, o).lines.empty());
  o.spec = Spec("other.py:1-1000");
  WhereResult none = Where(a, o);
  EXPECT_TRUE(none.lines.empty());
  // A path from another machine still finds the file by its name.
  o.spec = Spec(fmt::format("/home/someone/elsewhere/loops.py:{}", line));
  WhereResult moved = Where(a, o);
  EXPECT_TRUE(FindIn(moved.lines, "dynamic-update-slice.2"));
  EXPECT_EQ(moved.matched_by_name, "loops.py");
  o.spec = Spec("loops.py:1");
  none = Where(a, o);
  EXPECT_TRUE(none.lines.empty());
  ASSERT_TRUE(none.suggest_lines);
  EXPECT_NE(FileLinesText(none.file_lines).find(fmt::format("{}", line)), std::string::npos)
      << FileLinesText(none.file_lines);
}

TEST(ExploreWhere, NestedLoopsFromInlineFrames) {
  auto session = Fixture("nested_fori", "module.inline-frames.hlo.txt");
  ASSERT_TRUE(session);
  ModuleAnalysis& a = session->Analysis(0);
  int64_t line = LineOf("loops.py", "buf.at[i, j].set", "def nested_fori");
  WhereQuery o;
  o.spec = Spec(fmt::format("loops.py:{}", line));
  WhereResult w = Where(a, o);
  const LineInstruction* dus = nullptr;
  for (const LineFacts& f : w.lines)
    for (const LineInstruction& li : f.instructions)
      if (li.instruction->opcode() == HloOpcode::kDynamicUpdateSlice) dus = &li;
  ASSERT_TRUE(dus);
  EXPECT_EQ(a.counts.EnclosingLoops(dus->instruction->parent()).size(), 2u);
  EXPECT_EQ(dus->executions, 32 * 64);
  ASSERT_EQ(dus->updates.size(), 1u);
  EXPECT_EQ(dus->updates[0]->verdict, UpdateVerdict::kInPlace);
}

TEST(ExploreWhere, ScopeWithoutLocation) {
  auto session = Fixture("scoped_train_step");
  ASSERT_TRUE(session);
  ModuleAnalysis& a = session->Analysis(0);
  WhereQuery o;
  o.scope = "log_write";
  WhereResult w = Where(a, o);
  ASSERT_EQ(w.lines.size(), 1u);
  EXPECT_EQ(w.lines[0].line, LineOf("scopes.py", "log = log.at[i].set"));
  ASSERT_EQ(w.lines[0].updates.size(), 1u);
  EXPECT_EQ(w.lines[0].updates[0]->verdict, UpdateVerdict::kInPlace);
  // Scope and line together: the scan's own DUS (stacked outputs) is not in it.
  o.spec = Spec("scopes.py");
  WhereResult both = Where(a, o);
  for (const LineFacts& f : both.lines)
    for (const LineInstruction& li : f.instructions)
      EXPECT_NE(a.sources().OpNameOf(*li.instruction).find("log_write"), std::string::npos)
          << a.sources().OpNameOf(*li.instruction);
}

// The 10,000-instruction bar: a real, loop-free JAX module with one
// `.at[k].set` per layer.
TEST(ExploreWhere, FindsTheUpdatesOfALineInALargeModule) {
  auto start = std::chrono::steady_clock::now();
  auto session = Fixture("large_unrolled");
  ASSERT_TRUE(session);
  EXPECT_GE(session->module(0).instruction_count(), 10000);
  ModuleAnalysis& a = session->Analysis(0);
  int64_t line = LineOf("scopes.py", "buf = buf.at[k].set(jnp.sum(h))");
  WhereQuery o;
  o.spec = Spec(fmt::format("scopes.py:{}", line));
  WhereResult w = Where(a, o);
  ASSERT_EQ(w.lines.size(), 1u);
  int64_t dus = 0;
  std::set<const HloInstruction*> kernels;
  for (const LineInstruction& li : w.lines[0].instructions) {
    if (li.instruction->opcode() != HloOpcode::kDynamicUpdateSlice) continue;
    ++dus;
    ASSERT_TRUE(li.kernel);
    EXPECT_EQ(li.kernel->opcode(), HloOpcode::kFusion);
    kernels.insert(li.kernel);
    EXPECT_EQ(li.executions, 1);
    EXPECT_TRUE(a.counts.EnclosingLoops(li.instruction->parent()).empty());
    ASSERT_EQ(li.updates.size(), 1u);
    EXPECT_EQ(li.updates[0]->verdict, UpdateVerdict::kInPlace);
  }
  EXPECT_EQ(dus, 520);
  EXPECT_EQ(kernels.size(), 520u);
  EXPECT_EQ(w.lines[0].updates.size(), 520u);
  // And nothing from the matmul line.
  for (const LineInstruction& li : w.lines[0].instructions)
    EXPECT_NE(li.instruction->opcode(), HloOpcode::kDot);
  std::ostringstream out;
  SourceFiles no_files;
  RenderWhereText({{&a, w}}, o, no_files, out);
  EXPECT_NE(out.str().find("dynamic-update-slice"), std::string::npos);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 20.0);  // generous: sanitizer builds
}

// --------------------------------------------------------------------------- annotate

std::string Annotate(Session& session, AnnotateRequest request = {}) {
  std::ostringstream out;
  RunAnnotateCommand(session, request, out);
  return out.str();
}

// The output line of source line `n` (the gutter starts with the number).
std::string GutterLine(const std::string& text, int64_t n) {
  std::istringstream in(text);
  std::string line, want = fmt::format("{:>5}  ", n);
  while (std::getline(in, line))
    if (line.rfind("  " + want, 0) == 0) return line;
  return "";
}

TEST(ExploreAnnotate, CopyShowsOnTheLineThatCausesIt) {
  auto session = Fixture("loop_read_after_write");
  ASSERT_TRUE(session);
  AnnotateRequest o;
  o.source_roots = {kRoot.string()};
  std::string text = Annotate(*session, o);
  int64_t write = LineOf("loops.py", "new = buf.at[i].set(0.0)", "def loop_read_after_write");
  int64_t read = LineOf("loops.py", "acc = acc + buf[(i + 1) % n]", "def loop_read_after_write");
  std::string w = GutterLine(text, write), r = GutterLine(text, read);
  EXPECT_NE(w.find("■"), std::string::npos) << text;
  EXPECT_NE(w.find("800.0 KiB"), std::string::npos) << w;
  EXPECT_NE(w.find("new = buf.at[i].set(0.0)"), std::string::npos) << w;
  EXPECT_NE(w.find("→ select_dynamic-update-slice_fusion"), std::string::npos) << w;
  EXPECT_NE(r.find("▲"), std::string::npos) << text;
  EXPECT_NE(text.find("│ copy copy f32[1024]{0} 4.0 KiB × 100 = 400.0 KiB per call — read-after-update"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("in-place-on-copy on copy"), std::string::npos) << text;
}

TEST(ExploreAnnotate, CopyOnTheUpdateLineInsideANamedScope) {
  auto session = Fixture("scoped_cond_remat");
  ASSERT_TRUE(session);
  AnnotateRequest o;
  o.source_roots = {kRoot.string()};
  o.text.scope = "update";
  std::string text = Annotate(*session, o);
  std::string w = GutterLine(text, LineOf("scopes.py", "new = buf.at[i].set(v)"));
  EXPECT_NE(w.find("■"), std::string::npos) << text;
  std::string r =
      GutterLine(text, LineOf("scopes.py", "acc = acc + buf[(i + 1) % n]", "def scoped_cond_remat"));
  EXPECT_NE(r.find("▲"), std::string::npos) << text;
}

TEST(ExploreAnnotate, LinesOfMissingFilesStillListed) {
  auto module = ParseText(R"(HloModule jit_f, entry_computation_layout={(f32[8]{0})->f32[8]{0}}

ENTRY %main (p: f32[8]) -> f32[8] {
  %p = f32[8]{0} parameter(0), metadata={op_name="x"}
  %c = f32[1]{0} constant({1})
  %i = s32[] constant(0)
  %copy = f32[8]{0} copy(%p)
  ROOT %dus = f32[8]{0} dynamic-update-slice(%copy, %c, %i), metadata={op_name="jit(f)/scatter" source_file="/nonexistent/proj/train.py" source_line=41}
}
)");
  ASSERT_TRUE(module);
  std::string text = Annotate(*module);
  EXPECT_NE(text.find("source not found: /nonexistent/proj/train.py"), std::string::npos) << text;
  std::string l = GutterLine(text, 41);
  EXPECT_NE(l.find("■"), std::string::npos) << text;
  EXPECT_NE(l.find("32 B"), std::string::npos) << text;
  EXPECT_NE(text.find("non-donated-parameter (via the update)"), std::string::npos) << text;
  std::ostringstream json;
  AnnotateRequest o;
  o.format = OutputFormat::kJson;
  RunAnnotateCommand(*module, o, json);
  nlohmann::json j = nlohmann::json::parse(json.str());
  const auto& f = j["modules"][0]["files"][0];
  EXPECT_EQ(f["found"], false);
  EXPECT_EQ(f["lines"][0]["line"], 41);
  EXPECT_TRUE(f["lines"][0]["text"].is_null());
  EXPECT_EQ(f["lines"][0]["copies"][0]["instruction"], "copy");
}

TEST(ExploreAnnotate, InlineFramesFixture) {
  auto session = Fixture("seed_at_set_sum", "module.inline-frames.hlo.txt");
  ASSERT_TRUE(session);
  AnnotateRequest o;
  o.source_roots = {kRoot.string()};
  std::string text = Annotate(*session, o);
  std::string l = GutterLine(text, LineOf("updates.py", ".at[0].set(1)", "def seed_at_set_sum"));
  EXPECT_NE(l.find(".at[0].set(1)"), std::string::npos) << text;
  EXPECT_NE(l.find("■"), std::string::npos) << text;
}

// --------------------------------------------------------------------------- fusions

TEST(ExploreFusions, KernelWithItsLinesBytesAndVerdict) {
  auto session = Fixture("loop_read_after_write");
  ASSERT_TRUE(session);
  ModuleAnalysis& a = session->Analysis(0);
  ModuleFusions mf = SummarizeFusions(a.EnsureSources(), a.counts, &a.check);
  EXPECT_EQ(mf.fusions.size(), 4u);
  const FusionSummary* dus = nullptr;
  for (const FusionSummary& f : mf.fusions)
    if (f.fusion->name() == "select_dynamic-update-slice_fusion") dus = &f;
  ASSERT_TRUE(dus);
  EXPECT_EQ(dus->fusion->fusion_kind(), FusionKind::kLoop);
  EXPECT_EQ(dus->executions, 100);
  // In place (on a copy): the kernel reads the one element its
  // dynamic-slice selects and the index, and writes the one element it
  // updates — not the 4 KiB buffer.
  EXPECT_EQ(dus->bytes_read, 4 + 4);
  EXPECT_EQ(dus->bytes_written, 4);
  ASSERT_EQ(dus->enclosing_loops.size(), 1u);
  EXPECT_EQ(dus->enclosing_loops[0]->name(), "while.1");
  int64_t write = LineOf("loops.py", "new = buf.at[i].set(0.0)", "def loop_read_after_write");
  ASSERT_EQ(dus->lines.size(), 1u);
  EXPECT_NE(std::find(dus->lines[0].lines.begin(), dus->lines[0].lines.end(), write),
            dus->lines[0].lines.end());
  EXPECT_EQ(FileLinesText(dus->lines).rfind("fixture_programs/loops.py:", 0), 0u);
  bool named = false;
  for (const FusedOp& op : dus->interesting) named |= op.instruction->name() == "dynamic-update-slice.2";
  EXPECT_TRUE(named);
  std::vector<std::string> findings = KernelFindingLines(*dus);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_NE(findings[0].find("in-place-on-copy (on copy)"), std::string::npos);
}

TEST(ExploreFusions, UnionOfLinesAcrossAScanStep) {
  auto session = Fixture("scoped_train_step");
  ASSERT_TRUE(session);
  ModuleAnalysis& a = session->Analysis(0);
  ModuleFusions mf = SummarizeFusions(a.EnsureSources(), a.counts, &a.check);
  bool ynn = false, multi_line = false;
  for (const FusionSummary& f : mf.fusions) {
    if (f.fusion->fusion_kind() == FusionKind::kCustom) {
      EXPECT_EQ(f.backend_kind, "__ynn_fusion");
      ynn = true;
    }
    if (!f.lines.empty() && f.lines[0].lines.size() > 1) multi_line = true;
  }
  EXPECT_TRUE(ynn);
  EXPECT_TRUE(multi_line);
  FusionsOptions scoped;
  scoped.scope = "grad_step";
  ModuleFusions sf = SummarizeFusions(a.EnsureSources(), a.counts, &a.check, scoped);
  EXPECT_GT(sf.fusions.size(), 0u);
  EXPECT_LT(sf.fusions.size(), mf.fusions.size());
  EXPECT_EQ(sf.kernels_total, static_cast<int64_t>(mf.fusions.size()));
}

// The kernels that cost the most lead: bytes read + written per call, never
// increasing down the list, unknown last.
TEST(ExploreFusions, KernelsAreRankedByBytesPerCall) {
  for (const char* name : {"scoped_train_step", "loop_read_after_write", "replay_scan_rollout"}) {
    auto session = Fixture(name);
    ASSERT_TRUE(session) << name;
    ModuleAnalysis& a = session->Analysis(0);
    ModuleFusions mf = SummarizeFusions(a.EnsureSources(), a.counts, &a.check);
    ASSERT_GE(mf.fusions.size(), 3u) << name;
    for (size_t i = 1; i < mf.fusions.size(); ++i)
      EXPECT_GE(mf.fusions[i - 1].bytes_per_call().value_or(-1), mf.fusions[i].bytes_per_call().value_or(-1))
          << name << ": " << mf.fusions[i - 1].fusion->name() << " before " << mf.fusions[i].fusion->name();
    EXPECT_GT(mf.fusions.front().bytes_per_call().value_or(-1),
              mf.fusions.back().bytes_per_call().value_or(-1))
        << name;
  }
}

TEST(ExploreFusions, GpuCustomFusionBackendKind) {
  auto module = ParseText(R"(HloModule m

%triton_softmax_computation.2 (p: f32[8,2048]) -> f32[8,2048] {
  %p = f32[8,2048]{1,0} parameter(0)
  ROOT %e = f32[8,2048]{1,0} exponential(%p), metadata={op_name="jit(f)/exp" source_file="f.py" source_line=3}
}

ENTRY %main (x: f32[8,2048]) -> f32[8,2048] {
  %x.1 = f32[8,2048]{1,0} parameter(0)
  ROOT %fusion = f32[8,2048]{1,0} fusion(%x.1), kind=kCustom, calls=%triton_softmax_computation.2, backend_config={"fusion_backend_config":{"kind":"__triton","block_level_fusion_config":{"num_warps":"4"}}}
}
)");
  ASSERT_TRUE(module);
  ModuleAnalysis& a = module->Analysis(0);
  ModuleFusions mf = SummarizeFusions(a.EnsureSources(), a.counts, &a.check);
  ASSERT_EQ(mf.fusions.size(), 1u);
  EXPECT_EQ(mf.fusions[0].fusion->fusion_kind(), FusionKind::kCustom);
  EXPECT_EQ(mf.fusions[0].backend_kind, "__triton");
  EXPECT_EQ(FileLinesText(mf.fusions[0].lines), "f.py:3");
  EXPECT_EQ(mf.fusions[0].bytes_read, 8 * 2048 * 4);
  std::ostringstream json;
  FusionsRequest fr;
  fr.format = OutputFormat::kJson;
  RunFusionsCommand(*module, fr, json);
  nlohmann::json j = nlohmann::json::parse(json.str());
  EXPECT_EQ(j["modules"][0]["fusions"][0]["backend_kind"], "__triton");
  EXPECT_EQ(j["modules"][0]["fusions"][0]["instruction"], "fusion");
  EXPECT_EQ(j["modules"][0]["fusions"][0]["opcode_counts"]["exponential"], 1);
}

// --------------------------------------------------------------------------- explain

TEST(ExploreExplain, EveryCommonOpcodeHasWords) {
  for (const char* op : {"add",           "multiply",    "dynamic-update-slice",
                         "dynamic-slice", "scatter",     "gather",
                         "reduce",        "dot",         "copy",
                         "transpose",     "concatenate", "broadcast",
                         "bitcast",       "reshape",     "fusion",
                         "while",         "conditional", "call",
                         "custom-call",   "tuple",       "get-tuple-element",
                         "parameter",     "constant",    "select",
                         "compare",       "convert",     "slice",
                         "pad",           "iota",        "copy-start",
                         "copy-done",     "all-reduce",  "sort"})
    EXPECT_FALSE(DescribeOpcode(op).empty()) << op;
  EXPECT_TRUE(DescribeOpcode("not-an-opcode").empty());
}

TEST(ExploreExplain, ShapesLayoutsTilesMemorySpaces) {
  auto module = ParseText(R"(HloModule m

ENTRY %main (a: f32[256,64], b: s4[1024]) -> f32[64,256] {
  %a = f32[256,64]{0,1:T(8,128)S(1)} parameter(0)
  %b = s4[1024]{0:E(4)} parameter(1)
  ROOT %t = f32[64,256]{1,0} transpose(%a), dimensions={1,0}
}
)");
  ASSERT_TRUE(module);
  const HloInstruction* a = Named(module->module(0), "a");
  const HloInstruction* b = Named(module->module(0), "%b");
  const HloInstruction* t = Named(module->module(0), "t");
  ASSERT_TRUE(a && b && t);
  std::string sa = fmt::format("{}", fmt::join(DescribeShape(a->shape()), "\n"));
  EXPECT_NE(sa.find("a 256×64 array (16384 elements) of 32-bit floats"), std::string::npos) << sa;
  EXPECT_NE(sa.find("NOT the default row-major order {1,0}"), std::string::npos) << sa;
  EXPECT_NE(sa.find("T(8,128)"), std::string::npos) << sa;
  EXPECT_NE(sa.find("S(1)"), std::string::npos) << sa;
  std::string sb = fmt::format("{}", fmt::join(DescribeShape(b->shape()), "\n"));
  EXPECT_NE(sb.find("E(4): elements are packed at 4 bits"), std::string::npos) << sb;
  std::string st = fmt::format("{}", fmt::join(DescribeShape(t->shape()), "\n"));
  EXPECT_NE(st.find("default row-major order"), std::string::npos) << st;
  EXPECT_NE(DescribeFusionKind("kInput").find("reduction"), std::string::npos);
  EXPECT_NE(DescribeFusionKind("kCustom", "__triton").find("Triton"), std::string::npos);
}

TEST(ExploreExplain, OpNameInWords) {
  std::string s = fmt::format(
      "{}",
      fmt::join(DescribeOpName("jit(train)/while/body/closed_call/grad_step/transpose(jvp(encoder))/mul"),
                "\n"));
  EXPECT_NE(s.find("jitted function: train"), std::string::npos) << s;
  EXPECT_NE(s.find("your named scopes (jax.named_scope): grad_step/encoder"), std::string::npos) << s;
  EXPECT_NE(s.find("backward pass"), std::string::npos) << s;
  EXPECT_NE(s.find("JAX primitive: mul"), std::string::npos) << s;
  std::string at = fmt::format("{}", fmt::join(DescribeOpName("jit(f)/scatter"), "\n"));
  EXPECT_NE(at.find("x.at[i].set(v)"), std::string::npos) << at;
}

TEST(ExploreExplain, CopyInALoopInPlainWords) {
  auto session = Fixture("loop_read_after_write");
  ASSERT_TRUE(session);
  ModuleAnalysis& a = session->Analysis(0);
  a.EnsureSources();
  Explanation e = ExplainInstruction(a, FactsOf(a, *Named(a.module, "copy")));
  std::ostringstream out;
  RenderExplanationText(e, out);
  std::string text = out.str();
  EXPECT_NE(text.find("%copy = f32[1024]{0} copy(%copy.5)"), std::string::npos) << text;
  EXPECT_NE(text.find("inside loop while.1 (100 iterations"), std::string::npos) << text;
  EXPECT_NE(text.find("runs 100 times per call"), std::string::npos) << text;
  EXPECT_NE(text.find("cause: read-after-update"), std::string::npos) << text;
  EXPECT_NE(text.find("attributed via the update"), std::string::npos) << text;

  Explanation d = ExplainInstruction(a, FactsOf(a, *Named(a.module, "dynamic-update-slice.2")));
  std::ostringstream dout;
  RenderExplanationText(d, dout);
  std::string dt = dout.str();
  EXPECT_NE(dt.find("part of the kernel of select_dynamic-update-slice_fusion"), std::string::npos) << dt;
  EXPECT_NE(dt.find("kLoop — a loop fusion"), std::string::npos) << dt;
  EXPECT_NE(dt.find("in-place-on-copy"), std::string::npos) << dt;
  EXPECT_NE(dt.find("JAX primitive: scatter"), std::string::npos) << dt;
}

TEST(ExploreExplain, GuidedReadingOfAModule) {
  auto session = Fixture("nested_fori");
  ASSERT_TRUE(session);
  std::ostringstream out, err;
  ExplainRequest o;
  ASSERT_EQ(RunExplainCommand(*session, o, out, err), kExitOk);
  std::string text = out.str();
  EXPECT_NE(text.find("1. Start at ENTRY"), std::string::npos) << text;
  EXPECT_NE(text.find("32 iterations (known_trip_count)"), std::string::npos) << text;
  EXPECT_NE(text.find("64 iterations (known_trip_count)"), std::string::npos) << text;
  EXPECT_NE(text.find("4. Kernels (fusions and unfused work)"), std::string::npos) << text;
  o.instruction = "no-such-instruction";
  o.input_name = "nested_fori";
  std::ostringstream none, none_err;
  EXPECT_EQ(RunExplainCommand(*session, o, none, none_err), kExitError);
  EXPECT_TRUE(none.str().empty());
  EXPECT_EQ(none_err.str(),
            "hloscope explain: no instruction or computation named 'no-such-instruction' in nested_fori\n");
}

// A fusion of the user's code that XLA's fusion passes left without
// metadata of its own: not "created by XLA itself", and no "keeps only none".
TEST(ExploreExplain, AUserFusionWithoutMetadataIsTheUsersCode) {
  auto session = ParseText(R"(HloModule m

%fused (p: f32[8]) -> f32[8] {
  %p = f32[8]{0} parameter(0)
  %c = f32[] constant(2)
  %b = f32[8]{0} broadcast(%c), dimensions={}
  ROOT %m = f32[8]{0} multiply(%p, %b), metadata={op_name="jit(f)/vmap(jit(_scale))/mul" source_file="f.py" source_line=5}
}

ENTRY %main (x: f32[8]) -> f32[8] {
  %x = f32[8]{0} parameter(0)
  ROOT %fusion = f32[8]{0} fusion(%x), kind=kLoop, calls=%fused
}
)");
  ASSERT_TRUE(session);
  ModuleAnalysis& a = session->Analysis(0);
  a.EnsureSources();
  Explanation e = ExplainInstruction(a, FactsOf(a, *Named(a.module, "fusion")));
  std::ostringstream out;
  RenderExplanationText(e, out);
  std::string text = out.str();
  EXPECT_NE(text.find("source lines fused into it: f.py:5 (the fusion itself carries no line)"),
            std::string::npos)
      << text;
  EXPECT_NE(
      text.find("no metadata on the fusion itself (XLA's fusion passes do not always carry it over); the "
                "code fused into it comes from f.py:5"),
      std::string::npos)
      << text;
  EXPECT_EQ(text.find("keeps only none"), std::string::npos) << text;
  EXPECT_EQ(text.find("created this instruction itself"), std::string::npos) << text;

  // The fused multiply's op_name: a vmapped private helper, in words.
  Explanation m = ExplainInstruction(a, FactsOf(a, *Named(a.module, "m")));
  std::ostringstream mout;
  RenderExplanationText(m, mout);
  EXPECT_NE(mout.str().find("vmap (batched by jax.vmap)"), std::string::npos) << mout.str();
}

}  // namespace
}  // namespace hloscope
