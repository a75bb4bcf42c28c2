// Hostile and odd input, end to end through RunCli (docs/robustness.md):
// every command, text and JSON, ends with exit 0, 1 or 2 in bounded time
// (ctest's TIMEOUT catches a hang), writes valid UTF-8 with no control
// character but newline and tab, and JSON that parses. One test per class
// of input the issue lists; the fuzzers' findings land here too.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "hloscope/app/cli.h"
#include "hloscope/support/terminal_text.h"
#include "run_cli.h"

namespace hloscope {
namespace {

namespace fs = std::filesystem;

class HostileInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("hloscope_hostile_" + std::to_string(::getpid()));
    fs::create_directories(dir_ / "src");
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }

  // Every command in both formats. Each must exit 0, 1 or 2 with safe
  // text; JSON that is written must parse. Returns the exit codes.
  std::vector<int> EveryCommand(const std::string& file, const std::vector<std::string>& extra = {}) {
    const std::string root = (dir_ / "src").string();
    const std::vector<std::vector<std::string>> commands = {
        {"check", "--allow-unoptimized", file},
        {"check", "--allow-unoptimized", file, "--max-copy-bytes", "100", "--fail-on-out-of-place"},
        {"stats", file},
        {"fusions", file},
        {"where", file, ":1-1000000", "--source-root", root},
        {"annotate", file, "--source-root", root},
        {"explain", file},
    };
    std::vector<int> codes;
    for (const auto& base : commands)
      for (bool json : {false, true}) {
        std::vector<std::string> args = base;
        args.insert(args.end(), extra.begin(), extra.end());
        if (json) args.insert(args.end(), {"--format", "json"});
        CliRun r = Cli(args);
        std::string what = fmt_args(args);
        EXPECT_TRUE(r.code == 0 || r.code == 1 || r.code == 2) << what << " exit " << r.code;
        EXPECT_TRUE(IsTerminalSafe(r.out, {.keep_newlines = true})) << what;
        EXPECT_TRUE(IsTerminalSafe(r.err, {.keep_newlines = true})) << what;
        if (json && r.code != 2) {
          bool valid = nlohmann::json::accept(r.out);
          EXPECT_TRUE(valid) << what;
          // Sizes, counts and totals are never negative (saturated at
          // INT64_MAX instead); no field of any document is.
          if (valid) {
            EXPECT_EQ(NegativeNumber(nlohmann::json::parse(r.out), ""), "") << what;
          }
        }
        codes.push_back(r.code);
      }
    // SARIF must parse; the HTML page must hold no markup from the input
    // (every input string is entity-escaped: no '<' but the page's own tags).
    std::vector<std::string> sarif_args = {"check", "--allow-unoptimized", file, "--format", "sarif"};
    sarif_args.insert(sarif_args.end(), extra.begin(), extra.end());
    CliRun sarif = Cli(sarif_args);
    EXPECT_TRUE(sarif.code == 0 || sarif.code == 1 || sarif.code == 2) << fmt_args(sarif_args);
    if (sarif.code != 2) {
      EXPECT_TRUE(nlohmann::json::accept(sarif.out)) << fmt_args(sarif_args);
    }
    codes.push_back(sarif.code);
    std::vector<std::string> report_args = {"report", "--allow-unoptimized", file, "--source-root", root};
    report_args.insert(report_args.end(), extra.begin(), extra.end());
    CliRun report = Cli(report_args);
    EXPECT_TRUE(report.code == 0 || report.code == 2) << fmt_args(report_args);
    EXPECT_TRUE(IsTerminalSafe(report.out, {.keep_newlines = true})) << fmt_args(report_args);
    EXPECT_EQ(report.out.find("<script", report.out.find("<script") + 1), std::string::npos)
        << fmt_args(report_args) << ": a second <script> element";
    codes.push_back(report.code);
    CliRun printed = Cli({"print", file});
    EXPECT_TRUE(printed.code == 0 || printed.code == 2);
    codes.push_back(printed.code);
    return codes;
  }

  // The path of the first negative integer in `j`, or "".
  static std::string NegativeNumber(const nlohmann::json& j, const std::string& path) {
    if (j.is_number_integer() && j.get<int64_t>() < 0) return path + " = " + j.dump();
    if (j.is_object())
      for (const auto& [k, v] : j.items())
        if (std::string p = NegativeNumber(v, path + "." + k); !p.empty()) return p;
    if (j.is_array())
      for (size_t i = 0; i < j.size(); ++i)
        if (std::string p = NegativeNumber(j[i], path + "[" + std::to_string(i) + "]"); !p.empty()) return p;
    return "";
  }

  static std::string fmt_args(const std::vector<std::string>& args) {
    std::string s = "hloscope";
    for (const std::string& a : args) s += " " + a;
    return s;
  }

  fs::path dir_;
};

// --- 1. Every analysis terminates -------------------------------------------------

struct Rejected {
  const char* name;
  std::string text;
  std::string error;  // the whole first line of the diagnostic
};

TEST_F(HostileInputTest, ModulesTheAnalysesCannotSurviveAreRejectedByTheVerifier) {
  const std::string entry = "ENTRY %e (p: f32[4]) -> f32[4] {\n  %p = f32[4]{0} parameter(0)\n";
  const std::string head = "HloModule m\n" + entry;
  std::vector<Rejected> cases = {
      {"self_use", head + "  ROOT %a = f32[4]{0} add(%p, %a)\n}\n",
       "self_use.hlo:4:8: error: instruction 'a' is its own operand"},
      {"fusion_calls_entry", head + "  ROOT %a = f32[4]{0} fusion(%p), kind=kLoop, calls=%e\n}\n",
       "fusion_calls_entry.hlo:4:8: error: 'a' calls the entry computation 'e'"},
      {"fusion_calls_itself",
       "HloModule m\n%f (x: f32[4]) -> f32[4] {\n  %x = f32[4]{0} parameter(0)\n"
       "  ROOT %r = f32[4]{0} fusion(%x), kind=kLoop, calls=%f\n}\n" +
           entry + "  ROOT %a = f32[4]{0} fusion(%p), kind=kLoop, calls=%f\n}\n",
       "fusion_calls_itself.hlo:4:8: error: 'r' calls its own computation 'f'"},
      {"copy_two_operands", head + "  ROOT %a = f32[4]{0} copy(%p, %p)\n}\n",
       "copy_two_operands.hlo:4:8: error: copy 'a' has 2 operands; it takes one"},
      {"gte_no_operand", head + "  ROOT %a = f32[4]{0} get-tuple-element(), index=0\n}\n",
       "gte_no_operand.hlo:4:8: error: get-tuple-element 'a' has 0 operands; it takes one"},
  };
  for (const Rejected& c : cases) {
    std::string file = Write(std::string(c.name) + ".hlo", c.text);
    for (const char* command : {"check", "stats", "fusions", "explain", "annotate", "print"}) {
      CliRun r = Cli({command, file});
      EXPECT_EQ(r.code, 2) << c.name << " " << command;
      EXPECT_EQ(r.err.substr(0, r.err.find('\n')), dir_.string() + "/" + c.error) << c.name << " " << command;
      // The line and a caret follow.
      EXPECT_NE(r.err.find("\n       ^\n"), std::string::npos) << r.err;
    }
  }
}

std::string NestedFusions(int depth) {
  std::string t =
      "HloModule m\n%f0 (p: f32[4]) -> f32[4] {\n  %p = f32[4]{0} parameter(0)\n"
      "  ROOT %n = f32[4]{0} negate(%p)\n}\n";
  for (int i = 1; i < depth; ++i)
    t += "%f" + std::to_string(i) + " (p: f32[4]) -> f32[4] {\n  %p = f32[4]{0} parameter(0)\n" +
         "  ROOT %x = f32[4]{0} fusion(%p), kind=kLoop, calls=%f" + std::to_string(i - 1) + "\n}\n";
  t += "ENTRY %e (p: f32[4]) -> f32[4] {\n  %p = f32[4]{0} parameter(0)\n"
       "  ROOT %y = f32[4]{0} fusion(%p), kind=kLoop, calls=%f" +
       std::to_string(depth - 1) + "\n}\n";
  return t;
}

TEST_F(HostileInputTest, ADeepChainOfNestedFusionsIsAnErrorNotAStackOverflow) {
  CliRun r = Cli({"check", "--allow-unoptimized", Write("deep.hlo", NestedFusions(2000))});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("error: computations are nested more than 256 levels deep at"), std::string::npos)
      << r.err;
  // 200 levels are analysed.
  for (int code : EveryCommand(Write("ok.hlo", NestedFusions(200)))) EXPECT_LE(code, 1);
}

// The ladder `t_i = tuple(g_{i-1}, g_{i-1})`, `g_i = add(gte(t_i,0), gte(t_i,1))`:
// 2^60 paths from the root to the parameter, walked once each without
// memoization.
TEST_F(HostileInputTest, ATupleLadderIsLinearNotExponential) {
  std::string t = "HloModule m\nENTRY %e (p: f32[4]) -> f32[4] {\n  %g0 = f32[4]{0} parameter(0)\n";
  for (int i = 1; i < 60; ++i) {
    std::string s = std::to_string(i), prev = std::to_string(i - 1);
    t += "  %t" + s + " = (f32[4]{0}, f32[4]{0}) tuple(%g" + prev + ", %g" + prev + ")\n";
    t += "  %a" + s + " = f32[4]{0} get-tuple-element(%t" + s + "), index=0\n";
    t += "  %b" + s + " = f32[4]{0} get-tuple-element(%t" + s + "), index=1\n";
    t += "  %c" + s + " = f32[4]{0} copy(%a" + s + ")\n";
    t += "  %g" + s + " = f32[4]{0} add(%c" + s + ", %b" + s + ")\n";
  }
  t += "  ROOT %r = f32[4]{0} copy(%g59)\n}\n";
  for (int code : EveryCommand(Write("ladder.hlo", t))) EXPECT_LE(code, 1);
  // The same ladder with tuples of unknown shape (no shapes on operands).
  std::string bare = t;
  for (size_t p; (p = bare.find("(f32[4]{0}, f32[4]{0}) tuple")) != std::string::npos;)
    bare.replace(p, 22, "(f32[4], f32[4])");
  for (int code : EveryCommand(Write("ladder_bare.hlo", bare))) EXPECT_LE(code, 1);
}

TEST_F(HostileInputTest, ALongOperandChainIsWalkedWithoutRecursion) {
  std::string t = "HloModule m\nENTRY %e (p: f32[4]) -> f32[4] {\n  %g0 = f32[4]{0} parameter(0)\n";
  const int n = 100000;
  for (int i = 1; i < n; ++i)
    t += "  %g" + std::to_string(i) + " = f32[4]{0} bitcast(%g" + std::to_string(i - 1) + ")\n";
  t += "  %u = f32[1]{0} constant({1})\n  %i = s32[] constant(0)\n"
       "  ROOT %r = f32[4]{0} dynamic-update-slice(%g" +
       std::to_string(n - 1) + ", %u, %i)\n}\n";
  std::string file = Write("chain.hlo", t);
  CliRun r = Cli({"check", "--allow-unoptimized", file});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("UPDATES"), std::string::npos);
}

// A diamond of calls: f_i calls f_{i-1} twice, 60 levels; the copy in f0
// runs 2^59 times per call, and 16 B × 2^59 does not fit in int64.
TEST_F(HostileInputTest, ExecutionCountsAndBytesSaturateToOverflow) {
  std::string t =
      "HloModule m\n%f0 (p: f32[4]) -> f32[4] {\n  %p = f32[4]{0} parameter(0)\n"
      "  %c = f32[4]{0} copy(%p)\n  ROOT %n = f32[4]{0} negate(%c)\n}\n";
  for (int i = 1; i < 61; ++i) {
    std::string prev = "%f" + std::to_string(i - 1);
    t += "%f" + std::to_string(i) + " (p: f32[4]) -> f32[4] {\n  %p = f32[4]{0} parameter(0)\n" +
         "  %a = f32[4]{0} call(%p), to_apply=" + prev + "\n  %b = f32[4]{0} call(%p), to_apply=" + prev +
         "\n  ROOT %x = f32[4]{0} add(%a, %b)\n}\n";
  }
  t += "ENTRY %e (p: f32[4]) -> f32[4] {\n  %p = f32[4]{0} parameter(0)\n"
       "  ROOT %y = f32[4]{0} call(%p), to_apply=%f60\n}\n";
  std::string file = Write("diamond.hlo", t);
  CliRun text = Cli({"check", "--allow-unoptimized", file});
  EXPECT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("\n  In all: 1 copy, overflow moved per call.\n"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(" — overflow per call, "), std::string::npos) << text.out;
  EXPECT_FALSE(std::regex_search(text.out, std::regex("-[0-9]"))) << text.out;  // no negative number
  CliRun json = Cli({"check", "--allow-unoptimized", file, "--format", "json"});
  nlohmann::json doc = nlohmann::json::parse(json.out);
  const auto& copy = doc["modules"][0]["copies"][0];
  EXPECT_EQ(copy["executions"], int64_t{1} << 60);
  EXPECT_EQ(copy["total_bytes"], INT64_MAX);
  // Overflow is over every byte budget.
  EXPECT_EQ(Cli({"check", "--allow-unoptimized", file, "--max-copy-bytes", "9223372036854775806"}).code, 1);
  EXPECT_EQ(Cli({"check", "--allow-unoptimized", file, "--max-copy-bytes", "9223372036854775807"}).code, 1);
  for (int code : EveryCommand(file)) EXPECT_LE(code, 1);
}

std::string NestedLoops(int depth, const std::string& trips) {
  std::string t = "HloModule m\n";
  for (int d = depth; d >= 1; --d) {
    std::string s = std::to_string(d);
    t += "%cond" + s + " (s: (s32[], f32[4])) -> pred[] {\n  %s = (s32[], f32[4]{0}) parameter(0)\n" +
         "  %i = s32[] get-tuple-element(%s), index=0\n  %n = s32[] constant(" + trips + ")\n" +
         "  ROOT %lt = pred[] compare(%i, %n), direction=LT\n}\n";
    t += "%body" + s +
         " (s: (s32[], f32[4])) -> (s32[], f32[4]) {\n  %s = (s32[], f32[4]{0}) parameter(0)\n" +
         "  %i = s32[] get-tuple-element(%s), index=0\n  %one = s32[] constant(1)\n" +
         "  %j = s32[] add(%i, %one)\n  %x = f32[4]{0} get-tuple-element(%s), index=1\n";
    if (d == depth) {
      t += "  %y = f32[4]{0} copy(%x)\n";
    } else {
      std::string inner = std::to_string(d + 1);
      t += "  %z = s32[] constant(0)\n  %init = (s32[], f32[4]{0}) tuple(%z, %x)\n"
           "  %w = (s32[], f32[4]{0}) while(%init), condition=%cond" +
           inner + ", body=%body" + inner + ", backend_config={\"known_trip_count\":{\"n\":\"" + trips +
           "\"}}\n  %y = f32[4]{0} get-tuple-element(%w), index=1\n";
    }
    t += "  ROOT %r = (s32[], f32[4]{0}) tuple(%j, %y)\n}\n";
  }
  t += "ENTRY %e (p: f32[4]) -> f32[4] {\n  %p = f32[4]{0} parameter(0)\n  %z = s32[] constant(0)\n"
       "  %init = (s32[], f32[4]{0}) tuple(%z, %p)\n"
       "  %w = (s32[], f32[4]{0}) while(%init), condition=%cond1, body=%body1, "
       "backend_config={\"known_trip_count\":{\"n\":\"" +
       trips + "\"}}\n  ROOT %y = f32[4]{0} get-tuple-element(%w), index=1\n}\n";
  return t;
}

TEST_F(HostileInputTest, NestedLoopsWhoseCountsOverflowAreOverBudget) {
  std::string file = Write("loops.hlo", NestedLoops(3, "1000000000"));
  CliRun text = Cli({"check", "--allow-unoptimized", file});
  EXPECT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("overflow"), std::string::npos) << text.out;
  CliRun json = Cli({"check", "--allow-unoptimized", file, "--format", "json"});
  nlohmann::json doc = nlohmann::json::parse(json.out);
  for (const auto& c : doc["modules"][0]["copies"])
    if (c["shape"] == "f32[4]{0}") {
      EXPECT_EQ(c["executions"], INT64_MAX) << c.dump();
    }
  EXPECT_EQ(Cli({"check", "--allow-unoptimized", file, "--max-copy-bytes-in-loops", "100"}).code, 1);
  EXPECT_EQ(Cli({"check", "--allow-unoptimized", file, "--max-copies-in-loops", "0"}).code, 1);
  for (int code : EveryCommand(file)) EXPECT_LE(code, 1);
}

// Every input the fuzzers found (tests/fixtures/hostile/README.md says
// what each broke) runs every command cleanly.
TEST_F(HostileInputTest, FuzzerFindingsRunCleanly) {
  const fs::path dir = fs::path(HLOSCOPE_SOURCE_DIR) / "tests" / "fixtures" / "hostile";
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".hlo") continue;
    ++files;
    SCOPED_TRACE(e.path().filename().string());
    // A finding that came with a buffer-assignment dump keeps it beside.
    fs::path ba = e.path();
    ba.replace_extension(".buffer-assignment.txt");
    std::vector<std::string> extra;
    if (fs::exists(ba)) extra = {"--buffer-assignment", ba.string()};
    EveryCommand(e.path().string(), extra);
  }
  EXPECT_GE(files, 1);
}

// --- 2. Arithmetic that cannot wrap ----------------------------------------------

TEST_F(HostileInputTest, ShapesPastInt64AreUnknownNotNegative) {
  const std::string n = "4611686018427387904";  // 2^62 elements of 4 bytes
  std::string t = "HloModule m\nENTRY %e (p: f32[" + n + "], q: f32[" + n + "]) -> f32[" + n +
                  "] {\n  %p = f32[" + n + "]{0} parameter(0)\n  %q = f32[" + n +
                  "]{0} parameter(1)\n  %c = f32[" + n + "]{0} copy(%p)\n  ROOT %a = f32[" + n +
                  "]{0} add(%c, %q)\n}\n";
  std::string file = Write("huge.hlo", t);
  CliRun stats = Cli({"stats", file});
  EXPECT_EQ(stats.code, 0);
  EXPECT_EQ(stats.out.find("-8 B"), std::string::npos) << stats.out;
  // Unknown bytes break a byte budget, whatever its size.
  CliRun gate = Cli({"check", "--allow-unoptimized", file, "--max-copy-bytes", "100"});
  EXPECT_EQ(gate.code, 1);
  EXPECT_NE(gate.err.find("copies move 0 B per call plus an unknown amount, budget 100 B"), std::string::npos)
      << gate.err;
  for (int code : EveryCommand(file)) EXPECT_LE(code, 1);
}

TEST_F(HostileInputTest, BudgetsThatPassEverythingAreUsageErrors) {
  std::string file = Write("m.hlo",
                           "HloModule m\nENTRY %e (p: f32[4]) -> f32[4] {\n"
                           "  ROOT %p = f32[4]{0} parameter(0)\n}\n");
  for (const char* value : {"-1", "nan", "inf", "1e3", "99999999999999999999"}) {
    CliRun r = Cli({"check", "--allow-unoptimized", file, "--max-copy-bytes", value});
    EXPECT_EQ(r.code, 2) << value;
    EXPECT_EQ(r.err.substr(0, r.err.find('\n')), std::string("--max-copy-bytes: ") + value +
                                                     " is not a whole number from 0 to 9223372036854775807");
  }
  EXPECT_EQ(Cli({"check", "--allow-unoptimized", file, "--max-copies", "-5"}).code, 2);
  EXPECT_EQ(Cli({"check", "--allow-unoptimized", file, "--max-copies", "0"}).code, 0);
}

// --- 3. Text that cannot hurt ----------------------------------------------------

TEST_F(HostileInputTest, ControlCharactersFromMetadataAreEscapedEverywhere) {
  std::string t =
      "HloModule m\nENTRY %e (p: f32[1024]) -> f32[1024] {\n"
      "  %p = f32[1024]{0} parameter(0), metadata={op_name=\"a\\x1b]0;pwn\\x07\\x1b[2J\\nCOPIES forged\" "
      "source_file=\"/tmp/\\x1b[31mevil\\xff.py\" source_line=7}\n"
      "  ROOT %c = f32[1024]{0} copy(%p), metadata={op_name=\"jit(f)/\\x9b\\x7f\" source_file=\"t\\x1b.py\" "
      "source_line=3}\n}\n";
  std::string file = Write("esc.hlo", t);
  EveryCommand(file);  // asserts terminal-safe output for every command
  CliRun explain = Cli({"explain", file, "p"});
  EXPECT_EQ(explain.code, 0);
  EXPECT_NE(explain.out.find("op_name \"a\\x1b]0;pwn\\x07\\x1b[2J\\x0aCOPIES forged\""), std::string::npos)
      << explain.out;
  CliRun json = Cli({"check", "--allow-unoptimized", file, "--format", "json"});
  nlohmann::json doc = nlohmann::json::parse(json.out);  // the \xff byte did not abort it
  EXPECT_EQ(doc["modules"][0]["copies"][0]["source"]["file"], "t\x1b.py");
}

// --- 4. Files --------------------------------------------------------------------

TEST_F(HostileInputTest, DirectoriesAndDevicesGetAMessage) {
  CliRun dir = Cli({"stats", dir_.string()});
  EXPECT_EQ(dir.code, 2);
  EXPECT_EQ(dir.err.rfind(dir_.string() + ": error: is a directory, not an HLO file", 0), 0u) << dir.err;
  // check takes a dump folder; this one holds no module dumps.
  CliRun check_dir = Cli({"check", dir_.string()});
  EXPECT_EQ(check_dir.code, 2);
  EXPECT_EQ(check_dir.err.rfind(dir_.string() + ": error: a folder without XLA module dumps", 0), 0u)
      << check_dir.err;
  std::string file = Write("m.hlo",
                           "HloModule m\nENTRY %e (p: f32[4]) -> f32[4] {\n"
                           "  ROOT %p = f32[4]{0} parameter(0)\n}\n");
  CliRun ba_dir = Cli({"check", "--allow-unoptimized", file, "--buffer-assignment", dir_.string()});
  EXPECT_EQ(ba_dir.code, 2);
  EXPECT_EQ(ba_dir.err.rfind(dir_.string() + ": error: is a directory", 0), 0u) << ba_dir.err;
  // /dev/zero never ends: read up to the limit (or stopped at the first
  // NUL byte), never until memory runs out.
  CliRun zero = Cli({"check", "--allow-unoptimized", "/dev/zero", "--max-input-bytes", "4096"});
  EXPECT_EQ(zero.code, 2);
  EXPECT_EQ(zero.err.rfind("/dev/zero", 0), 0u) << zero.err;
  CliRun too_big = Cli({"check", "--allow-unoptimized", file, "--max-input-bytes", "10"});
  EXPECT_EQ(too_big.code, 2);
  EXPECT_NE(too_big.err.find("--max-input-bytes"), std::string::npos) << too_big.err;
}

TEST_F(HostileInputTest, SourceFilesAreReadOnlyUnderTheRoots) {
  std::ofstream(dir_ / "src" / "train.py") << "import jax\n\ndef f(x):\n    return x  # the copy\n";
  std::string t =
      "HloModule m\nENTRY %e (p: f32[1024]) -> f32[1024] {\n"
      "  %p = f32[1024]{0} parameter(0), metadata={source_file=\"/proc/self/environ\" source_line=1}\n"
      "  %q = f32[1024]{0} negate(%p), metadata={source_file=\"/etc/passwd\" source_line=1}\n"
      "  ROOT %c = f32[1024]{0} copy(%q), metadata={source_file=\"train.py\" source_line=4}\n}\n";
  std::string file = Write("src.hlo", t);
  const std::string root = (dir_ / "src").string();
  for (const char* command : {"annotate", "where"}) {
    std::vector<std::string> args = {command, file};
    if (std::string(command) == "where") args.push_back(":1-10");
    args.insert(args.end(), {"--source-root", root});
    CliRun r = Cli(args);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out.find("root:"), std::string::npos) << command << ": /etc/passwd was printed";
    EXPECT_EQ(r.out.find("PATH="), std::string::npos) << command << ": the environment was printed";
    EXPECT_NE(r.out.find("the copy"), std::string::npos) << command << ": train.py under the root is shown\n"
                                                         << r.out;
  }
  // /proc and /etc are not roots even when asked for.
  CliRun proc = Cli({"annotate", file, "--source-root", "/proc/self", "--source-root", "/etc"});
  EXPECT_EQ(proc.out.find("PATH="), std::string::npos);
  // A symbolic link under the root that leads out of it is not followed.
  fs::create_symlink("/etc/passwd", dir_ / "src" / "passwd");
  CliRun link = Cli({"annotate", file, "--source-root", root});
  EXPECT_EQ(link.out.find("root:"), std::string::npos);
}

// A module someone sends you names `.git/config` or `.env`: under the root,
// but hidden, so never read into a page you then share.
TEST_F(HostileInputTest, HiddenFilesUnderTheRootAreNotRead) {
  fs::create_directories(dir_ / "proj" / ".git");
  std::ofstream(dir_ / "proj" / ".git" / "config") << "[remote] url = secret-token@host\n";
  std::ofstream(dir_ / "proj" / ".env") << "API_KEY=secret-token\n";
  std::ofstream(dir_ / "proj" / "train.py") << "import jax\n# visible line\n";
  std::string t =
      "HloModule m\nENTRY %e (p: f32[1024]) -> f32[1024] {\n"
      "  %p = f32[1024]{0} parameter(0), metadata={source_file=\"/home/x/.git/config\" source_line=1}\n"
      "  %q = f32[1024]{0} negate(%p), metadata={source_file=\".env\" source_line=1}\n"
      "  ROOT %c = f32[1024]{0} copy(%q), metadata={source_file=\"train.py\" source_line=2}\n}\n";
  std::string file = Write("hidden.hlo", t);
  CliRun r = Cli({"annotate", file, "--source-root", (dir_ / "proj").string()});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find("secret-token"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("visible line"), std::string::npos) << r.out;
}

// A destination that refuses every write: a full disk.
class FullDisk : public std::streambuf {
 protected:
  int_type overflow(int_type) override { return traits_type::eof(); }
  std::streamsize xsputn(const char*, std::streamsize) override { return 0; }
};

TEST_F(HostileInputTest, AFailedWriteExitsTwo) {
  std::string file = Write("m.hlo",
                           "HloModule m\nENTRY %e (p: f32[4]) -> f32[4] {\n"
                           "  ROOT %p = f32[4]{0} parameter(0)\n}\n");
  FullDisk full;
  std::ostream out(&full);
  std::ostringstream err;
  for (const char* command : {"check", "stats", "print", "fusions", "explain"}) {
    err.str("");
    out.clear();
    std::vector<std::string> args = {command, file};
    if (std::string(command) == "check") args.push_back("--allow-unoptimized");
    EXPECT_EQ(RunCli(args, out, err), 2) << command;
    EXPECT_NE(err.str().find("hloscope: error: cannot write the output"), std::string::npos) << err.str();
  }
}

}  // namespace
}  // namespace hloscope
