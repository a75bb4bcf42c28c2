// `hloscope diff` on real compilations (tests/fixtures/diff/, made by
// tools/gen_diff_fixtures.py from tools/fixture_programs/ring_buffer.py):
// a ring buffer whose slow version copies the ring every step and whose
// fixed version updates it in place, each at two ring sizes, plus a
// regression (one more read of the old ring) and two JAX versions.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "run_cli.h"

namespace hloscope {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kDiff = fs::path(HLOSCOPE_SOURCE_DIR) / "tests" / "fixtures" / "diff";

std::string Case(const std::string& name) { return (kDiff / name).string(); }

// The optimized module file inside a case folder.
std::string ModuleFile(const std::string& name) {
  for (const auto& e : fs::directory_iterator(kDiff / name)) {
    std::string f = e.path().filename().string();
    if (f.size() > 23 && f.substr(f.size() - 23) == "after_optimizations.txt") return e.path().string();
  }
  ADD_FAILURE() << "no module in " << name;
  return "";
}

json DiffJson(const std::string& a, const std::string& b) {
  CliRun r = Cli({"diff", a, b, "--format", "json"});
  EXPECT_EQ(r.code, 0) << r.err;
  return json::parse(r.out);
}

std::vector<const json*> Growing(const json& module) {
  std::vector<const json*> out;
  for (const json& it : module["items"])
    if (it["grows"].get<bool>()) out.push_back(&it);
  return out;
}

// The slow program at 1024 and 2048 rows: exactly the ring's copies and
// their loop grow, linearly, with the ring — nothing else.
TEST(Diff, SlowProgramTheCopiesThatDoubleAndNothingElse) {
  json d = DiffJson(Case("slow_1024"), Case("slow_2048"));
  ASSERT_EQ(d["modules"].size(), 1u);
  const json& m = d["modules"][0];
  EXPECT_EQ(m["size_parameter"], "ring.1");
  EXPECT_DOUBLE_EQ(m["size_ratio"].get<double>(), 2.0);
  std::vector<const json*> growing = Growing(m);
  ASSERT_EQ(growing.size(), 2u);
  const json& copy = *growing[0];
  EXPECT_EQ(copy["kind"], "copy");
  EXPECT_EQ(copy["a"]["count"], 2);
  EXPECT_EQ(copy["a"]["state"], "read-after-update");
  EXPECT_EQ(copy["a"]["bytes"], 2 * 1024 * 64 * 4);
  EXPECT_EQ(copy["b"]["bytes"], 2 * 2048 * 64 * 4);
  EXPECT_DOUBLE_EQ(copy["exponent"].get<double>(), 1.0);
  EXPECT_EQ(copy["grows_with"], "ring.1");
  EXPECT_EQ((*growing[1])["kind"], "loop");
  EXPECT_EQ(m["summary"]["only_in_a"], 0);
  EXPECT_EQ(m["summary"]["only_in_b"], 0);

  CliRun text = Cli({"diff", Case("slow_1024"), Case("slow_2048")});
  EXPECT_EQ(text.code, 0);
  EXPECT_NE(text.out.find("What scales (as ring.1 grows ×2): copy f32[_,_] (read-after-update) ×2 at "
                          "fixture_programs/ring_buffer.py:"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("512.0 KiB → 1.0 MiB per run, ×2 as ring.1 grows ×2 — linear in ring.1"),
            std::string::npos)
      << text.out;
}

// The fixed program at the same two sizes: nothing grows.
TEST(Diff, FixedProgramNothingGrows) {
  json d = DiffJson(Case("fixed_1024"), Case("fixed_2048"));
  const json& m = d["modules"][0];
  EXPECT_EQ(m["size_ratio"], 2.0);
  EXPECT_TRUE(Growing(m).empty());
  EXPECT_EQ(m["summary"]["scales"], 0);
  CliRun text = Cli({"diff", Case("fixed_1024"), Case("fixed_2048")});
  EXPECT_NE(
      text.out.find("What scales: nothing — no copy, update, loop or kernel moves more per run as ring.1 "
                    "grows ×2."),
      std::string::npos)
      << text.out;
}

// The fix: the ring's copies are gone, its update is in place, the loop
// moves 1000 times less per iteration.
TEST(Diff, BeforeAndAfterTheFix) {
  json d = DiffJson(ModuleFile("slow_1024"), ModuleFile("fixed_1024"));
  const json& m = d["modules"][0];
  bool ring_copy_gone = false, update_in_place = false;
  for (const json& it : m["items"]) {
    if (it["kind"] == "copy" && it["status"] == "only-in-a" && it["a"]["shape"] == "f32[1024,64]")
      ring_copy_gone = it["a"]["count"] == 2;
    if (it["kind"] == "update" && it["status"] == "changed" && it["a"]["state"] == "in-place-on-copy")
      update_in_place = it["b"]["state"] == "in-place";
    EXPECT_FALSE(it["kind"] == "copy" && it["status"] == "only-in-b" &&
                 it["b"]["bytes"].get<int64_t>() > 1024)
        << it.dump();
  }
  EXPECT_TRUE(ring_copy_gone);
  EXPECT_TRUE(update_in_place);
}

// The gate: one more read of the old ring after the update adds two copies
// of it, puts the update on a copy and multiplies the loop's bytes.
TEST(Diff, GateFailsOnAnAddedCopyAndPassesWithout) {
  // --min-bytes counts per call, as everywhere: the carried rows of the
  // fixed ring move 256 B × 50 = 12.5 KiB per call, and so does the update
  // that now runs on a copy (its 256 B row, 50 times).
  std::vector<std::string> gates = {"--fail-on-new-copies", "--fail-on-new-out-of-place",
                                    "--fail-on-more-bytes-per-iteration", "--min-bytes", "16384"};
  std::vector<std::string> bad = {"diff", Case("fixed_1024"), Case("extra_copy_1024")};
  bad.insert(bad.end(), gates.begin(), gates.end());
  CliRun r = Cli(bad);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("hloscope: diff failed: 2 regressions in B"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("new-copies: jit_rollout_extra_copy: copy f32[_,_] (read-after-update) at "
                       "fixture_programs/ring_buffer.py:"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("more-bytes-per-iteration:"), std::string::npos);
  // Without the threshold the update on the copy counts too.
  CliRun all = Cli({"diff", Case("fixed_1024"), Case("extra_copy_1024"), "--fail-on", "regressions"});
  EXPECT_NE(all.err.find("hloscope: diff failed: 3 regressions in B"), std::string::npos) << all.err;
  EXPECT_NE(all.err.find("new-not-in-place: jit_rollout_extra_copy: dynamic-update-slice (fused) at"),
            std::string::npos)
      << all.err;
  // The default gates judge B's new findings as check judges them: the two
  // copies inside the loop.
  CliRun fail = Cli({"diff", Case("fixed_1024"), Case("extra_copy_1024"), "--fail"});
  EXPECT_EQ(fail.code, 1);
  EXPECT_NE(fail.err.find("copies-in-loops: jit_rollout_extra_copy: copy f32[_,_]"), std::string::npos)
      << fail.err;

  std::vector<std::string> same = {"diff", Case("fixed_1024"), Case("fixed_1024")};
  same.insert(same.end(), gates.begin(), gates.end());
  EXPECT_EQ(Cli(same).code, 0);
  // The fix itself passes: its two carried 256 B rows are under --min-bytes.
  std::vector<std::string> fix = {"diff", Case("slow_1024"), Case("fixed_1024")};
  fix.insert(fix.end(), gates.begin(), gates.end());
  CliRun f = Cli(fix);
  EXPECT_EQ(f.code, 0) << f.err;
}

// The baseline workflow: check --format json saved once, then diffed.
TEST(Diff, AgainstASavedBaseline) {
  CliRun check = Cli({"check", ModuleFile("fixed_1024"), "--format", "json", "--kernels"});
  ASSERT_EQ(check.code, 0);
  fs::path baseline = fs::temp_directory_path() / "hloscope_diff_baseline.json";
  std::ofstream(baseline) << check.out;
  CliRun pass = Cli({"diff", baseline.string(), ModuleFile("fixed_1024"), "--fail-on-new-copies"});
  EXPECT_EQ(pass.code, 0) << pass.err;
  EXPECT_NE(pass.out.find("What is new: nothing."), std::string::npos) << pass.out;
  EXPECT_EQ(pass.out.find("kernels not compared"), std::string::npos);
  CliRun fail = Cli(
      {"diff", baseline.string(), ModuleFile("extra_copy_1024"), "--fail-on-new-copies", "--format", "json"});
  EXPECT_EQ(fail.code, 1);
  json doc = json::parse(fail.out);
  EXPECT_FALSE(doc["gate"]["passed"].get<bool>());
  EXPECT_EQ(doc["gate"]["regressions"][0]["gate"], "new-copies");

  // Without --kernels the baseline has none: said, not guessed.
  CliRun plain = Cli({"check", ModuleFile("fixed_1024"), "--format", "json"});
  std::ofstream(baseline) << plain.out;
  CliRun r = Cli({"diff", baseline.string(), ModuleFile("fixed_1024")});
  EXPECT_NE(r.out.find("kernels not compared (a baseline without them: check --kernels)"), std::string::npos);
  fs::remove(baseline);
}

// The same program compiled by JAX 0.10.2 (Python 3.11) and 0.12 (Python
// 3.12): op_names and line attributions differ, the findings do not.
TEST(Diff, TwoJaxVersionsSameFindings) {
  for (const char* name : {"slow_1024", "fixed_1024"}) {
    std::string newest;
    for (const auto& e : fs::directory_iterator(kDiff))
      if (e.path().filename().string().rfind(std::string(name) + ".jax", 0) == 0) newest = e.path().string();
    ASSERT_FALSE(newest.empty()) << name;
    json d = DiffJson(Case(name), newest);
    const json& s = d["modules"][0]["summary"];
    EXPECT_EQ(s["only_in_a"], 0) << name << "\n" << d.dump(1);
    EXPECT_EQ(s["only_in_b"], 0) << name;
    EXPECT_EQ(s["changed"], 0) << name;
  }
}

// Folders: modules paired by name and entry signature; unpaired said.
TEST(Diff, FoldersPairModulesByNameAndSignature) {
  fs::path a = fs::temp_directory_path() / "hloscope_diff_a",
           b = fs::temp_directory_path() / "hloscope_diff_b";
  fs::remove_all(a);
  fs::remove_all(b);
  fs::create_directories(a);
  fs::create_directories(b);
  for (const char* c : {"slow_1024", "fixed_1024"})
    for (const auto& e : fs::directory_iterator(kDiff / c))
      if (e.path().filename() != "meta.json") fs::copy(e.path(), a / e.path().filename());
  for (const char* c : {"fixed_2048", "slow_2048", "extra_copy_1024"})
    for (const auto& e : fs::directory_iterator(kDiff / c))
      if (e.path().filename() != "meta.json") fs::copy(e.path(), b / e.path().filename());
  json d = DiffJson(a.string(), b.string());
  ASSERT_EQ(d["modules"].size(), 2u);
  for (const json& m : d["modules"]) {
    EXPECT_EQ(m["a"]["name"], m["b"]["name"]);
    EXPECT_EQ(m["size_ratio"], 2.0);
  }
  ASSERT_EQ(d["only_in_b"].size(), 1u);
  EXPECT_NE(d["only_in_b"][0].get<std::string>().find("jit_rollout_extra_copy"), std::string::npos);
  fs::remove_all(a);
  fs::remove_all(b);
}

// A loop's carry rewritten in full every iteration is an item of its own
// (matched by its loop and carry number).
TEST(Diff, CarriesRewrittenInFullAreItems) {
  std::string hlo =
      (fs::path(HLOSCOPE_SOURCE_DIR) / "tests/fixtures/jax/loop_matmul_accumulate/module.hlo.txt").string();
  json d = DiffJson(hlo, hlo);
  int carries = 0;
  for (const json& it : d["modules"][0]["items"])
    if (it["kind"] == "carry") {
      ++carries;
      EXPECT_EQ(it["status"], "unchanged");
      EXPECT_EQ(it["what"], "carry 1 f32[_,_] of the loop (rewritten in full)");
      EXPECT_EQ(it["a"]["bytes"], 64 * 64 * 4);
      EXPECT_EQ(it["a"]["instructions"][0], "multiply_add_fusion");
    }
  EXPECT_EQ(carries, 1);
}

TEST(Diff, InputsItCannotCompareExitTwo) {
  CliRun fusions = Cli({"fusions", ModuleFile("fixed_1024"), "--format", "json"});
  fs::path doc = fs::temp_directory_path() / "hloscope_diff_fusions.json";
  std::ofstream(doc) << fusions.out;
  CliRun r = Cli({"diff", doc.string(), ModuleFile("fixed_1024")});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            doc.string() +
                ": error: a hloscope `fusions` document; diff compares `check --format json` documents\n");

  std::ofstream(doc) << "{\n  \"tool\": \"hloscope\",\n  \"modules\": [1,]\n}\n";
  r = Cli({"diff", doc.string(), ModuleFile("fixed_1024")});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            doc.string() +
                ":3:17: error: not valid JSON (a baseline is the output of `hloscope check FILE --format "
                "json`)\n  \"modules\": [1,]\n                ^\n");

  fs::path empty = fs::temp_directory_path() / "hloscope_diff_empty";
  fs::create_directories(empty);
  r = Cli({"diff", empty.string(), ModuleFile("fixed_1024")});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            empty.string() +
                ": error: no optimized HLO dump in this folder (XLA's *after_optimizations.txt files)\n");
  fs::remove(doc);
  fs::remove_all(empty);
}

}  // namespace
}  // namespace hloscope
