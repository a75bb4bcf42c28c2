// Source attribution on the JAX fixtures, in both metadata forms (stack-frame
// tables and inline source_file=/source_line=), checked against the lines of
// the fixture programs themselves (tools/fixture_programs/*.py); plus the
// pieces behind it: line specs, source-root remapping, scope matching.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "check_test_util.h"
#include "hloscope/analysis/call_graph.h"
#include "hloscope/analysis/check.h"
#include "hloscope/analysis/scope_filter.h"
#include "hloscope/analysis/source_files.h"
#include "hloscope/analysis/source_index.h"
#include "hloscope/parser/parser.h"
#include "hloscope/report/wording.h"

namespace hloscope {
namespace {

namespace fs = std::filesystem;

const fs::path kRoot = HLOSCOPE_SOURCE_DIR;
const fs::path kFixtures = kRoot / "tests" / "fixtures" / "jax";

std::vector<std::string> FixtureNames() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(kFixtures))
    if (fs::exists(e.path() / "meta.json")) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::unique_ptr<HloModule> Parse(const fs::path& path) {
  auto group = ParseHloFile(path.string());
  if (!group.ok()) {
    ADD_FAILURE() << group.error().Format();
    return nullptr;
  }
  EXPECT_EQ(group->modules.size(), 1u);
  return std::move(group->modules.front());
}

nlohmann::json Meta(const std::string& name) {
  std::ifstream in(kFixtures / name / "meta.json");
  return nlohmann::json::parse(in);
}

std::vector<std::string> ReadLines(const fs::path& path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

int Indent(const std::string& s) {
  int n = 0;
  while (n < static_cast<int>(s.size()) && s[n] == ' ') ++n;
  return n;
}

// The name of the function whose body holds 1-based `line`: the nearest
// `def NAME(` above it that is indented less than every line in between.
std::string EnclosingDef(const std::vector<std::string>& lines, int64_t line) {
  static const std::regex def_re(R"(^(\s*)def (\w+)\()");
  int indent = Indent(lines[line - 1]);
  for (int64_t l = line; l >= 1; --l) {
    std::smatch m;
    if (std::regex_search(lines[l - 1], m, def_re) && static_cast<int>(m[1].length()) < indent) return m[2];
    if (lines[l - 1].find_first_not_of(' ') != std::string::npos)
      indent = std::min(indent, Indent(lines[l - 1]));
  }
  return "";
}

std::string LastComponent(const std::string& function) {
  size_t dot = function.rfind('.');
  return dot == std::string::npos ? function : function.substr(dot + 1);
}

// The primitive of an op_name: its last segment, unwrapped.
std::string Primitive(const std::string& op_name) {
  std::vector<ScopeSegment> segs = SplitOpName(op_name);
  return segs.empty() ? "" : segs.back().name;
}

struct Resolved {
  std::string file;
  int64_t line = 0;
  int64_t column = 0;
};

class ExploreSourceFixture : public ::testing::TestWithParam<std::string> {};

// Every instruction that carries metadata resolves to the fixture program's
// own file, to a line inside the function that the frame names, and
// updates written with `.at[...]` resolve to the line that says `.at[`.
TEST_P(ExploreSourceFixture, EveryInstructionResolvesToItsProgramLine) {
  const std::string name = GetParam();
  nlohmann::json meta = Meta(name);
  const fs::path program = kRoot / meta["program_file"].get<std::string>();
  const std::vector<std::string> lines = ReadLines(program);
  ASSERT_FALSE(lines.empty()) << program;

  std::vector<std::string> variants = {"module.hlo.txt"};
  if (fs::exists(kFixtures / name / "module.inline-frames.hlo.txt"))
    variants.push_back("module.inline-frames.hlo.txt");
  for (const std::string& variant : variants) {
    SCOPED_TRACE(variant);
    auto module = Parse(kFixtures / name / variant);
    ASSERT_TRUE(module);
    ModuleCheck check = testing::Check(*module);
    SourceIndex index(*module, &check);
    SourceFiles files({kRoot.string()});
    int64_t with_metadata = 0, resolved = 0;
    for (const HloInstruction* instr : index.instructions()) {
      const OpMetadata* md = instr->metadata();
      bool has_location = md && (md->stack_frame_id > 0 || !md->source_file.empty());
      if (!has_location) continue;
      ++with_metadata;
      std::optional<SourceLocation> loc = index.Of(*instr);
      ASSERT_TRUE(loc && !loc->file.empty()) << instr->name();
      ++resolved;
      SCOPED_TRACE(fmt::format("{} -> {}:{} ({})", instr->name(), loc->file, loc->line, loc->function));
      EXPECT_TRUE(SourceFileMatches(loc->file, meta["program_file"].get<std::string>()));
      ASSERT_GE(loc->line, 1);
      ASSERT_LE(loc->line, static_cast<int64_t>(lines.size()));
      // The file on disk (through --source-root remapping) is the program.
      std::optional<std::string> text = files.Line(loc->file, loc->line);
      ASSERT_TRUE(text);
      EXPECT_EQ(*text, lines[loc->line - 1]);
      // The frame's function is the function around that line.
      if (!loc->function.empty() && variant == "module.hlo.txt") {
        std::string fn = LastComponent(loc->function);
        if (fn == "<lambda>")
          EXPECT_NE(text->find("lambda"), std::string::npos);
        else
          EXPECT_EQ(EnclosingDef(lines, loc->line), fn);
      }
      // `.at[...]` updates: the update instruction sits on the `.at[` line.
      std::string prim = md->op_name.empty() ? "" : Primitive(CUnescape(md->op_name));
      bool update_op =
          instr->opcode() == HloOpcode::kDynamicUpdateSlice || instr->opcode() == HloOpcode::kScatter;
      if (update_op && prim.rfind("scatter", 0) == 0) {
        EXPECT_NE(text->find(".at["), std::string::npos) << *text;
      }
      if (update_op && prim == "dynamic_update_slice") {
        bool expected = text->find("dynamic_update_slice") != std::string::npos ||
                        text->find("scan(") != std::string::npos;
        EXPECT_TRUE(expected) << *text;
      }
      if (prim == "dot_general") {
        EXPECT_NE(text->find('@'), std::string::npos) << *text;
      }
    }
    EXPECT_EQ(resolved, with_metadata);
    // Only programs that merely pass arguments through have nothing to resolve.
    bool computes = false;
    for (const HloInstruction* i : index.instructions())
      computes |= i->opcode() != HloOpcode::kParameter && i->opcode() != HloOpcode::kCopy &&
                  i->opcode() != HloOpcode::kTuple;
    if (computes) {
      EXPECT_GT(with_metadata, 0);
    }
  }
}

// Copies XLA inserts have no metadata; they are attributed through the
// update (or the copied value) and still name a line of the program.
TEST_P(ExploreSourceFixture, BufferCopiesAreAttributedToALine) {
  const std::string name = GetParam();
  auto module = Parse(kFixtures / name / "module.hlo.txt");
  ASSERT_TRUE(module);
  ModuleCheck check = testing::Check(*module);
  SourceIndex index(*module, &check);
  bool any_line = false;
  for (const HloInstruction* i : index.instructions()) any_line |= i->metadata() && index.HasLine(*i);
  if (!any_line) GTEST_SKIP() << "no instruction of " << name << " has a source line";
  for (const CopyFinding& c : check.copies) {
    if (!c.bytes || *c.bytes < 64) continue;  // loop counters and scalars
    EXPECT_TRUE(index.HasLine(*c.instruction())) << c.instruction()->name();
  }
}

INSTANTIATE_TEST_SUITE_P(Jax, ExploreSourceFixture, ::testing::ValuesIn(FixtureNames()),
                         [](const auto& info) { return info.param; });

// The `.at[...]` bar holds on the fixtures that write with `.at[` (at least
// one update per program found and checked).
TEST(ExploreSource, AtSetUpdatesAreFoundInEveryAtProgram) {
  int64_t programs = 0;
  for (const std::string& name : FixtureNames()) {
    auto module = Parse(kFixtures / name / "module.hlo.txt");
    ASSERT_TRUE(module);
    SourceIndex index(*module);
    for (const HloInstruction* instr : index.instructions()) {
      if (instr->opcode() != HloOpcode::kDynamicUpdateSlice && instr->opcode() != HloOpcode::kScatter)
        continue;
      if (!instr->metadata() || Primitive(CUnescape(instr->metadata()->op_name)).rfind("scatter", 0) != 0)
        continue;
      ++programs;
      break;
    }
  }
  EXPECT_GE(programs, 30);
}

// Both metadata forms give the same file:line:column for the same
// instruction (the inline dump is the same compilation printed differently).
TEST(ExploreSource, InlineFramesMatchStackFrameTables) {
  int64_t compared = 0;
  for (const std::string& name : FixtureNames()) {
    if (!fs::exists(kFixtures / name / "module.inline-frames.hlo.txt")) continue;
    auto frames = Parse(kFixtures / name / "module.hlo.txt");
    auto inl = Parse(kFixtures / name / "module.inline-frames.hlo.txt");
    ASSERT_TRUE(frames && inl);
    EXPECT_FALSE(frames->stack_frames().empty());
    SourceIndex a(*frames), b(*inl);
    for (const HloInstruction* i : b.instructions()) {
      if (!i->metadata() || i->metadata()->source_file.empty()) continue;
      EXPECT_EQ(i->metadata()->stack_frame_id, 0);
      const HloInstruction* j = nullptr;
      for (const HloComputation* c : frames->computations())
        if ((j = c->GetInstruction(i->name()))) break;
      ASSERT_TRUE(j) << i->name();
      std::optional<SourceLocation> la = a.Of(*j), lb = b.Of(*i);
      ASSERT_TRUE(la && lb);
      EXPECT_EQ(la->file, lb->file) << i->name();
      EXPECT_EQ(la->line, lb->line) << i->name();
      EXPECT_EQ(la->column, lb->column) << i->name();
      ++compared;
    }
  }
  EXPECT_GT(compared, 100);
}

TEST(ExploreSource, CopyAttributedToTheUpdateThatNeedsIt) {
  auto module = Parse(kFixtures / "loop_read_after_write" / "module.hlo.txt");
  ASSERT_TRUE(module);
  ModuleCheck check = testing::Check(*module);
  SourceIndex index(*module, &check);
  std::vector<std::string> lines = ReadLines(kRoot / "tools/fixture_programs/loops.py");
  for (const char* name : {"copy", "copy.5"}) {
    const HloInstruction* copy = nullptr;
    for (const HloComputation* c : module->computations())
      if ((copy = c->GetInstruction(name))) break;
    ASSERT_TRUE(copy);
    EXPECT_EQ(copy->metadata(), nullptr);
    std::optional<SourceLocation> loc = index.Of(*copy);
    ASSERT_TRUE(loc);
    EXPECT_EQ(loc->via, SourceVia::kUpdate) << name;
    EXPECT_NE(lines[loc->line - 1].find("buf.at[i].set(0.0)"), std::string::npos) << name;
    EXPECT_EQ(loc->op_name, "jit(loop_read_after_write)/while/body/closed_call/scatter");
  }
}

TEST(ExploreSource, KernelOfFusedAndReducerInstructions) {
  auto module = Parse(kFixtures / "large_unrolled" / "module.hlo.txt");
  ASSERT_TRUE(module);
  SourceIndex index(*module);
  int64_t fused = 0;
  for (const HloInstruction* i : index.instructions()) {
    const HloInstruction* k = index.KernelOf(*i);
    ComputationRole role = RoleOf(*i->parent());
    if (IsSequentialRole(role)) {
      EXPECT_EQ(k, i);
    } else {
      ++fused;
      EXPECT_TRUE(IsSequentialRole(RoleOf(*k->parent()))) << i->name();
      EXPECT_NE(k, i);
    }
  }
  EXPECT_GT(fused, 5000);
}

// --------------------------------------------------------------------------- line specs

TEST(ExploreLineSpec, Forms) {
  std::string err;
  auto a = ParseLineSpec("train.py:42", &err);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->file, "train.py");
  EXPECT_EQ(a->first, 42);
  EXPECT_EQ(a->last, 42);
  auto b = ParseLineSpec(":42-50");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->file, "");
  EXPECT_EQ(b->first, 42);
  EXPECT_EQ(b->last, 50);
  auto c = ParseLineSpec("src/train.py:42-50");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->file, "src/train.py");
  EXPECT_EQ(c->last, 50);
  auto d = ParseLineSpec("rollout");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->function, "rollout");
  auto e = ParseLineSpec("42-50");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->first, 42);
  auto f = ParseLineSpec("train.py");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->file, "train.py");
  EXPECT_EQ(f->first, 0);
  auto g = ParseLineSpec("train.py:body");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->function, "body");
  EXPECT_FALSE(ParseLineSpec("train.py:50-42", &err));
  EXPECT_FALSE(ParseLineSpec("train.py:4x", &err));
  EXPECT_FALSE(ParseLineSpec("", &err));
}

TEST(ExploreLineSpec, FileAndFunctionMatching) {
  EXPECT_TRUE(SourceFileMatches("/home/u/proj/train.py", "train.py"));
  EXPECT_TRUE(SourceFileMatches("/home/u/proj/train.py", "proj/train.py"));
  EXPECT_TRUE(SourceFileMatches("/home/u/proj/train.py", "./train.py"));
  EXPECT_TRUE(SourceFileMatches("/home/u/proj/train.py", "/home/u/proj/train.py"));
  EXPECT_FALSE(SourceFileMatches("/home/u/proj/train.py", "rain.py"));
  EXPECT_FALSE(SourceFileMatches("/home/u/proj/train.py", "other/train.py"));
  EXPECT_TRUE(FunctionMatches("loss.<locals>.body", "body"));
  EXPECT_TRUE(FunctionMatches("loss.<locals>.body", "loss"));  // nested in it
  EXPECT_TRUE(FunctionMatches("a.<locals>.loss.<locals>.body", "loss"));
  EXPECT_FALSE(FunctionMatches("gloss.<locals>.body", "loss"));
  EXPECT_FALSE(FunctionMatches("nobody", "body"));
}

TEST(ExploreLineSpec, FormatLineSet) {
  EXPECT_EQ(FormatLineSet("/a/loops.py", {14, 15, 16, 20}), "a/loops.py:14-16,20");
  EXPECT_EQ(FormatLineSet("x.py", {3}), "x.py:3");
}

TEST(ExploreSourceFiles, SourceRootTriesEverySuffix) {
  // Metadata written on another machine: /somewhere/else/tools/fixture_programs/loops.py.
  SourceFiles files({kRoot.string()});
  std::optional<std::string> p = files.Locate("/somewhere/else/tools/fixture_programs/loops.py");
  ASSERT_TRUE(p);
  EXPECT_TRUE(fs::equivalent(*p, kRoot / "tools/fixture_programs/loops.py"));
  std::optional<std::string> l = files.Line("/somewhere/else/tools/fixture_programs/loops.py", 1);
  ASSERT_TRUE(l);
  EXPECT_EQ(*l, ReadLines(kRoot / "tools/fixture_programs/loops.py")[0]);
  SourceFiles none;
  EXPECT_FALSE(none.Locate("/somewhere/else/tools/fixture_programs/loops.py"));
  EXPECT_FALSE(none.Locate("<ipython-input-3-178b9b2715a2>"));
}

// --------------------------------------------------------------------------- scopes

TEST(ExploreScope, UnwrapsJaxWrappers) {
  const char* op = "jit(train)/while/body/closed_call/grad_step/transpose(jvp(encoder))/mul";
  EXPECT_TRUE(MatchesScope(op, "grad_step"));
  EXPECT_TRUE(MatchesScope(op, "encoder"));
  EXPECT_TRUE(MatchesScope(op, "grad_step/encoder"));
  EXPECT_TRUE(MatchesScope(op, "train"));
  EXPECT_TRUE(MatchesScope(op, "train/grad_step/encoder"));
  EXPECT_TRUE(MatchesScope(op, "grad_*"));
  EXPECT_FALSE(MatchesScope(op, "encoder/grad_step"));
  EXPECT_FALSE(MatchesScope(op, "grad"));
  EXPECT_FALSE(MatchesScope(op, "decoder"));
  EXPECT_TRUE(MatchesScope(op, ""));
  EXPECT_FALSE(MatchesScope("", "encoder"));
  // cond branches, remat, vmap with an empty name.
  const char* remat =
      "jit(f)/while/body/closed_call/update/cond/branch_1_fun/transpose(jvp(jvp()))/checkpoint/"
      "rematted_computation/block/cos";
  EXPECT_TRUE(MatchesScope(remat, "update/block"));
  EXPECT_TRUE(MatchesScope(remat, "update"));
  EXPECT_TRUE(MatchesScope(remat, "block"));
  EXPECT_TRUE(MatchesScope("jit(f)/per_example/vmap()/dot_general", "per_example"));
  EXPECT_TRUE(MatchesScope("update/cond/branch_1_fun/reduce_sum", "update"));
  // A wrapper name can still be asked for explicitly.
  EXPECT_TRUE(MatchesScope("jit(f)/while/body/add", "while/body"));
  // Primitive parameters do not hide the primitive.
  EXPECT_TRUE(MatchesScope("jit(f)/head/reduce_sum[axes=(0,)]", "head"));
}

TEST(ExploreScope, UserScopePath) {
  EXPECT_EQ(UserScopePath("jit(train)/while/body/closed_call/grad_step/transpose(jvp(encoder))/mul"),
            "grad_step/encoder");
  EXPECT_EQ(UserScopePath("jit(f)/while/body/jit(remainder)/rem"), "");
  EXPECT_EQ(UserScopePath("buf"), "");
  std::vector<ScopeSegment> segs = SplitOpName("jit(f)/per_example/vmap()/reduce_sum[axes=(0,)]");
  ASSERT_EQ(segs.size(), 3u);
  EXPECT_EQ(segs[0].name, "f");
  EXPECT_TRUE(segs[0].jax_wrapper);
  EXPECT_EQ(segs[1].name, "per_example");
  EXPECT_FALSE(segs[1].jax_wrapper);
  EXPECT_EQ(segs[2].name, "reduce_sum");
}

// On a real grad/scan/vmap program: every instruction in scope 'encoder'
// carries 'encoder' in its op_name; the scopes split the module.
TEST(ExploreScope, ScopesOfARealTrainStep) {
  auto module = Parse(kFixtures / "scoped_train_step" / "module.hlo.txt");
  ASSERT_TRUE(module);
  SourceIndex index(*module);
  LineSpec any;
  std::map<std::string, int64_t> n;
  for (const char* scope :
       {"encoder", "head", "grad_step", "log_write", "per_example", "grad_step/encoder", "grad_step/head"}) {
    for (const HloInstruction* i : index.Find(any, scope)) {
      ++n[scope];
      EXPECT_NE(index.OpNameOf(*i).find(std::string(scope).substr(std::string(scope).rfind('/') + 1)),
                std::string::npos);
    }
    EXPECT_GT(n[scope], 0) << scope;
  }
  EXPECT_EQ(n["grad_step/encoder"], n["encoder"]);
  EXPECT_GE(n["grad_step"], n["encoder"] + n["head"]);
  // jvp(encoder) and transpose(jvp(encoder)) both count as 'encoder'.
  bool fwd = false, bwd = false;
  for (const HloInstruction* i : index.Find(any, "encoder")) {
    std::string op = index.OpNameOf(*i);
    fwd |= op.find("/jvp(encoder)/") != std::string::npos;
    bwd |= op.find("transpose(jvp(encoder))") != std::string::npos;
  }
  EXPECT_TRUE(fwd);
  EXPECT_TRUE(bwd);
}

// `check --scope`: the copy forced by a read after `.at[i].set` inside
// named_scope("update") stays, with its update and loop.
TEST(ExploreScope, FilterCheckFindings) {
  auto module = Parse(kFixtures / "scoped_cond_remat" / "module.hlo.txt");
  ASSERT_TRUE(module);
  ModuleCheck all = testing::Check(*module);
  ModuleCheck in = all;
  FilterFindingsByScope(&in, "update");
  ASSERT_EQ(in.updates.size(), 1u);
  EXPECT_EQ(in.updates[0].instruction()->name(), "dynamic-update-slice.2");
  std::set<const HloInstruction*> copies;
  for (const CopyFinding& c : in.copies) copies.insert(c.instruction());
  for (const CopyFinding& c : all.copies)
    if (c.bytes && *c.bytes >= 64) {
      EXPECT_TRUE(copies.count(c.instruction())) << c.instruction()->name();
    }
  EXPECT_LT(in.copies.size(), all.copies.size());
  ASSERT_EQ(in.loops.size(), 1u);
  EXPECT_EQ(in.parameters.size(), all.parameters.size());
  ModuleCheck none = all;
  FilterFindingsByScope(&none, "no_such_scope");
  EXPECT_TRUE(none.copies.empty());
  EXPECT_TRUE(none.updates.empty());
  EXPECT_TRUE(none.loops.empty());
  ModuleCheck same = all;
  FilterFindingsByScope(&same, "");
  EXPECT_EQ(same.copies.size(), all.copies.size());
}

}  // namespace
}  // namespace hloscope
