// Diagnostics: what a user sees for broken input, with exact messages and
// positions; and hostile input (truncated modules, binary garbage, deep
// nesting, huge numbers) that must give a diagnostic, never a crash.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "parse_helpers.h"

namespace hloscope {
namespace {

using testing::ParseError;
using testing::ParseErrorLine;

TEST(DiagnosticsTest, FullFormatWithSourceLineAndCaret) {
  ParseOptions options;
  options.path = "model.hlo";
  EXPECT_EQ(ParseError("HloModule m\n\nENTRY e {\n  ROOT r = f32[4]{0} negate(q)\n}\n", options),
            "model.hlo:4:29: error: use of undefined instruction 'q' in computation 'e'\n"
            "  ROOT r = f32[4]{0} negate(q)\n"
            "                            ^\n");
}

TEST(DiagnosticsTest, UndefinedOperand) {
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n  p = f32[] parameter(0)\n"
                           "  ROOT a = f32[] add(p, %missing.1)\n}\n"),
            "3:25: error: use of undefined instruction 'missing.1' in computation 'e'");
  // Operands resolve in their own computation only.
  EXPECT_EQ(ParseErrorLine("c {\n  x = f32[] parameter(0)\n  ROOT y = f32[] negate(x)\n}\n"
                           "ENTRY e {\n  ROOT z = f32[] negate(x)\n}\n"),
            "6:25: error: use of undefined instruction 'x' in computation 'e'");
}

TEST(DiagnosticsTest, DuplicateInstructionName) {
  EXPECT_EQ(ParseError("ENTRY e {\n  p = f32[] parameter(0)\n  p = f32[] negate(p)\n}\n"),
            "<input>:3:3: error: duplicate instruction name 'p' (first defined at line 2)\n"
            "  p = f32[] negate(p)\n"
            "  ^\n");
}

TEST(DiagnosticsTest, SameInstructionNameInTwoComputationsIsFine) {
  testing::ParseOne(
      "c {\n  ROOT p = f32[] parameter(0)\n}\n"
      "ENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n");
}

TEST(DiagnosticsTest, DuplicateComputation) {
  EXPECT_EQ(ParseErrorLine("HloModule m\n"
                           "%c {\n  ROOT p = f32[] parameter(0)\n}\n"
                           "%c {\n  ROOT p = f32[] parameter(0)\n}\n"),
            "5:1: error: duplicate computation name 'c' (first defined at line 2)");
}

TEST(DiagnosticsTest, UndefinedComputation) {
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n  p = f32[] parameter(0)\n"
                           "  ROOT c = f32[] call(p), to_apply=%nowhere\n}\n"),
            "3:36: error: use of undefined computation 'nowhere'");
}

TEST(DiagnosticsTest, UnbalancedBrackets) {
  // An attribute's braces run to the end of the input.
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n  ROOT p = f32[] parameter(0), sharding={{replicated}\n"
                           "  ROOT q = f32[] parameter(1)\n"),
            "2:41: error: unbalanced '{': no matching '}' before end of input");
  // An attribute's braces swallow the computation's closing brace (values
  // may span lines): the diagnostic points at the value.
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n  ROOT p = f32[] parameter(0), sharding={{replicated}\n"
                           "}\n"),
            "2:41: error: computation 'e' is not closed before end of input; the value "
            "of 'sharding' here spans lines and may lack its closing bracket");
  // A closing bracket of the wrong kind.
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n  ROOT p = f32[] parameter(0), slice={[0:2}\n}\n"),
            "2:43: error: unbalanced '}': expected ']'");
  // A missing ')' in the operand list.
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n  p = f32[] parameter(0)\n"
                           "  ROOT n = f32[] negate(p\n}\n"),
            "4:1: error: expected ',' or ')' in the operand list, found '}'");
  // A computation that is never closed.
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n  ROOT p = f32[] parameter(0)\n"),
            "1:9: error: computation 'e' is not closed: expected '}' before end of input");
  // Unclosed tuple shape.
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n  ROOT p = (f32[], s32[] parameter(0)\n}\n"),
            "2:12: error: unbalanced '(' in tuple shape: no matching ')' before end of "
            "input");
  // Unclosed dimensions.
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n  ROOT p = f32[4 parameter(0)\n}\n"),
            "2:27: error: expected ']' to close the dimensions, found '('");
  // Unclosed layout.
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n  ROOT p = f32[4]{0 parameter(0)\n}\n"),
            "2:33: error: expected '}' to close the layout, found end of line");
}

TEST(DiagnosticsTest, StringsAndComments) {
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n  ROOT p = f32[] parameter(0), metadata={op_name=\"x}\n}\n"),
            "2:50: error: unterminated string literal");
  EXPECT_EQ(ParseErrorLine("ENTRY e { /* never closed\n  ROOT p = f32[] parameter(0)\n}\n"),
            "1:11: error: unterminated '/*' comment");
}

TEST(DiagnosticsTest, StructuralErrors) {
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n  ROOT a = f32[] parameter(0)\n"
                           "  ROOT b = f32[] negate(a)\n}\n"),
            "3:8: error: computation 'e' has more than one ROOT (first: 'a')");
  EXPECT_EQ(ParseErrorLine("ENTRY a {\n  ROOT p = f32[] parameter(0)\n}\n"
                           "ENTRY b {\n  ROOT p = f32[] parameter(0)\n}\n"),
            "4:1: error: more than one ENTRY computation in module");
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n}\n"), "1:9: error: computation 'e' has no instructions");
  EXPECT_EQ(ParseErrorLine("HloModule m, is_scheduled=true\n"), "1:1: error: module 'm' has no computations");
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n  a = f32[] parameter(0)\n  b = f32[] parameter(0)\n}\n"),
            "3:3: error: duplicate parameter number 0 in computation 'e'");
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n  ROOT a = f32[] parameter(-1)\n}\n"),
            "2:28: error: parameter number -1 out of range");
  // Regression: numbers beyond 32 bits must not wrap around to valid ones.
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n  ROOT a = f32[] parameter(4294967297)\n}\n"),
            "2:28: error: parameter number 4294967297 out of range");
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n  p = (f32[]) parameter(0)\n"
                           "  ROOT g = f32[] get-tuple-element(p), index=4294967296\n}\n"),
            "3:46: error: tuple index 4294967296 out of range");
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n  ROOT a f32[] parameter(0)\n}\n"),
            "2:10: error: expected '=' after instruction name 'a', found 'f'");
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n  ROOT a = f32[] parameter\n}\n"),
            "3:1: error: expected '(' after opcode 'parameter', found '}'");
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n  ROOT a = f32[] 42(x)\n}\n"),
            "2:18: error: expected an opcode, found '4'");
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n  ROOT a = f32[] parameter(0), =3\n}\n"),
            "2:32: error: expected an attribute name, found '='");
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n  ROOT a = f32[] parameter(0), x=\n}\n"),
            "3:1: error: expected an attribute value, found '}'");
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n  ROOT a = f32[] parameter(0)\n}, thread=\"x\"\n"),
            "3:4: error: expected 'execution_thread' after ',', found 't'");
  EXPECT_EQ(ParseErrorLine("ENTRY e (p: f32[]) f32[] {\n  ROOT p = f32[] parameter(0)\n}\n"),
            "1:20: error: expected '->' after the computation's parameters, found 'f'");
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n  ROOT a = f32[] parameter(0), metadata=x\n}\n"),
            "2:41: error: expected '{' after metadata=");
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n  ROOT a = f32[] parameter(0), metadata={op_name}\n}\n"),
            "2:49: error: expected '=' after metadata field 'op_name', found '}'");
}

TEST(DiagnosticsTest, CompactOperandsCannotBeParsed) {
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n  p = f32[] parameter(0)\n"
                           "  ROOT t = (f32[], f32[]) tuple(p, ...)\n}\n"),
            "3:36: error: elided operand list '...' (printed with compact_operands) "
            "cannot be parsed");
}

TEST(DiagnosticsTest, EmptyInput) {
  EXPECT_EQ(ParseError(""), "<input>:1:1: error: no HLO module in input\n\n^\n");
  EXPECT_EQ(ParseErrorLine("  \n\n"), "3:1: error: no HLO module in input");
  EXPECT_EQ(ParseErrorLine("// only a comment\n/* and another */\n"), "3:1: error: no HLO module in input");
}

// Files are mapped, not read (MappedFile): input that ends exactly at a page
// boundary, mid-token, must still parse or fail cleanly (ASan checks that no
// scan reads past the end).
TEST(DiagnosticsTest, FilesEndingAtAPageBoundary) {
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  std::string head =
      "HloModule m\n\nENTRY e {\n  p = f32[4]{0} parameter(0)\n  ROOT n = f32[4]{0} negate(p)\n}\n";
  std::string valid = head + "//" + std::string(page - head.size() - 2, '-');
  std::string truncated = std::string(page - 24, ' ') + "ENTRY e {\n  ROOT r = f32";
  std::filesystem::path dir = std::filesystem::temp_directory_path();
  std::string pid = std::to_string(getpid());
  std::string vpath = (dir / ("hloscope_page_valid_" + pid + ".hlo")).string();
  std::string tpath = (dir / ("hloscope_page_trunc_" + pid + ".hlo")).string();
  ASSERT_EQ(valid.size(), page);
  ASSERT_EQ(truncated.size(), page);
  std::ofstream(vpath, std::ios::binary) << valid;
  std::ofstream(tpath, std::ios::binary) << truncated;
  auto ok = ParseHloFile(vpath);
  ASSERT_TRUE(ok.ok()) << ok.error().Format();
  EXPECT_EQ(ok->modules[0]->entry_computation()->root_instruction()->name(), "n");
  auto bad = ParseHloFile(tpath);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().Format().substr(tpath.size()),
            ":2:15: error: expected '(' after opcode 'f32', found end of input\n"
            "  ROOT r = f32\n"
            "              ^\n");
  std::filesystem::remove(vpath);
  std::filesystem::remove(tpath);
}

TEST(DiagnosticsTest, NotHloText) {
  EXPECT_EQ(ParseErrorLine("# RUN: hlo-translate %s\nhlo_module {\n  name: \"main\"\n}\n"),
            "1:1: error: expected 'HloModule', 'ENTRY' or a computation, found '#'");
  EXPECT_EQ(ParseErrorLine("hlo_module {\n  name: \"main\"\n}\n"),
            "2:7: error: expected '=' after instruction name 'name', found ':'");
}

TEST(DiagnosticsTest, BinaryGarbage) {
  std::string garbage("\x00\x01\xff\xfe\x7f", 5);
  EXPECT_EQ(ParseError(garbage),
            "<input>:1:1: error: expected 'HloModule', 'ENTRY' or a computation, found "
            "byte 0x00\n\\x00\\x01\\xff\\xfe\\x7f\n^\n");
  EXPECT_EQ(ParseErrorLine(garbage),
            "1:1: error: expected 'HloModule', 'ENTRY' or a computation, found byte 0x00");
  // Control characters are not echoed to the terminal.
  std::string formatted = ParseError(garbage);
  EXPECT_EQ(formatted.find('\x01'), std::string::npos);
  EXPECT_EQ(formatted.find('\x00'), std::string::npos);

  // Random bytes, and random bytes after a valid prefix: a diagnostic every
  // time, no crash.
  std::mt19937 rng(1234);
  for (int round = 0; round < 300; ++round) {
    std::string text = round % 2 ? "ENTRY e {\n  p = f32[4]{0} parameter(0)\n  " : "";
    int n = 1 + static_cast<int>(rng() % 200);
    for (int i = 0; i < n; ++i) text += static_cast<char>(rng() & 0xff);
    auto r = ParseHloText(text);
    ASSERT_FALSE(r.ok()) << "round " << round;
    EXPECT_GE(r.error().line, 1);
    EXPECT_FALSE(r.error().Format().empty());
  }
}

TEST(DiagnosticsTest, HugeNumbers) {
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n  ROOT p = f32[123456789012345678901234567890] "
                           "parameter(0)\n}\n"),
            "2:16: error: integer '123456789012345678901234567890' does not fit in 64 bits");
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n  ROOT p = f32[9223372036854775808] parameter(0)\n}\n"),
            "2:16: error: integer '9223372036854775808' does not fit in 64 bits");
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n  ROOT p = f32[] parameter(99999999999999999999)\n}\n"),
            "2:28: error: integer '99999999999999999999' does not fit in 64 bits");
  EXPECT_EQ(ParseErrorLine("ENTRY e {\n  ROOT p = f32[2]{99999999999999999999} parameter(0)\n}\n"),
            "2:19: error: integer in the layout does not fit in 64 bits");
  // The largest int64 is a valid dimension; its byte size is unknowable.
  auto m = testing::ParseOne("ENTRY e {\n  ROOT p = f32[9223372036854775807] parameter(0)\n}\n");
  ASSERT_NE(m, nullptr);
  const Shape& s = m->entry_computation()->root_instruction()->shape();
  EXPECT_EQ(s.dimensions[0], INT64_MAX);
  EXPECT_EQ(ByteSizeOf(s), std::nullopt);
}

std::string Repeat(std::string_view s, int n) {
  std::string out;
  out.reserve(s.size() * n);
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

TEST(DiagnosticsTest, DeeplyNestedTupleShapeIsAnErrorNotAStackOverflow) {
  std::string text =
      "ENTRY e {\n  ROOT p = " + Repeat("(", 10000) + "f32[]" + Repeat(")", 10000) + " parameter(0)\n}\n";
  // The 513th '(' is one level too deep; it is at column 12 + 512.
  EXPECT_EQ(ParseErrorLine(text), "2:524: error: shape nested deeper than 512 levels");
  // Also in an operand's shape and in a computation signature.
  std::string operand = "ENTRY e {\n  p = f32[] parameter(0)\n  ROOT n = f32[] negate(" + Repeat("(", 10000) +
                        "f32[]" + Repeat(")", 10000) + " p)\n}\n";
  EXPECT_EQ(ParseErrorLine(operand), "3:537: error: shape nested deeper than 512 levels");
  std::string sig =
      "ENTRY e () -> " + Repeat("(", 10000) + Repeat(")", 10000) + " {\n  ROOT p = f32[] parameter(0)\n}\n";
  EXPECT_EQ(ParseErrorLine(sig), "1:527: error: shape nested deeper than 512 levels");
  // Nesting up to the limit is fine.
  std::string ok =
      "ENTRY e {\n  ROOT p = " + Repeat("(", 512) + "f32[]" + Repeat(")", 512) + " parameter(0)\n}\n";
  auto m = testing::ParseOne(ok);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->entry_computation()->root_instruction()->shape().LeafCount(), 1);
}

TEST(DiagnosticsTest, NestingLimitIsAnOption) {
  ParseOptions options;
  options.max_nesting_depth = 3;
  auto r = ParseHloText(std::string("ENTRY e {\n  ROOT p = ((((f32[])))) parameter(0)\n}\n"), options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "shape nested deeper than 3 levels");
  EXPECT_EQ(r.error().column, 15);
}

TEST(DiagnosticsTest, DeeplyNestedBufferShape) {
  std::string text =
      "ENTRY e {\n  ROOT p = " + Repeat("b(", 10000) + "f32[]" + Repeat(")", 10000) + " parameter(0)\n}\n";
  EXPECT_EQ(ParseErrorLine(text), "2:1037: error: shape nested deeper than 512 levels");
}

TEST(DiagnosticsTest, DeeplyNestedOperandsAreAnErrorNotAStackOverflow) {
  std::string text = "ENTRY e {\n  p = f32[] parameter(0)\n  ROOT n = f32[] negate(" +
                     Repeat("negate(", 10000) + "p" + Repeat(")", 10001) + "\n}\n";
  // The 513th nested operand starts at column 25 + 512 * 7.
  EXPECT_EQ(ParseErrorLine(text), "3:3609: error: operands nested deeper than 512 levels");
}

TEST(DiagnosticsTest, DeeplyNestedBracesInAttributesAreFine) {
  // Attribute values are scanned with an explicit stack: no depth limit.
  std::string text =
      "ENTRY e {\n  ROOT p = f32[] parameter(0), x=" + Repeat("{", 100000) + Repeat("}", 100000) + "\n}\n";
  auto m = testing::ParseOne(text);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->entry_computation()->root_instruction()->attribute("x")->size(), 200000u);
}

TEST(DiagnosticsTest, DeeplyNestedInlineComputations) {
  std::string text = "ENTRY e {\n  p = f32[] parameter(0)\n  ROOT f = f32[] ";
  for (int i = 0; i < 10000; ++i) text += "fusion(), kind=kLoop, calls={ROOT x = f32[] ";
  text += "parameter(0)" + Repeat("}", 10000) + "\n}\n";
  std::string error = ParseErrorLine(text);
  EXPECT_NE(error.find("error: inline computations nested deeper than 512 levels"), std::string::npos)
      << error;
}

// A module exercising most of the grammar, with one computation so that any
// cut before its closing brace leaves it unclosed.
constexpr const char* kRichModule =
    R"(HloModule jit_f, is_scheduled=true, input_output_alias={ {0}: (0, {}, may-alias) }, entry_computation_layout={(f32[8]{0}, s32[])->(f32[8]{0})}

FileNames
1 "/tmp/f.py"

FunctionNames
1 "f"

FileLocations
1 {file_name_id=1 function_name_id=1 line=3 end_line=3 column=2 end_column=9}

StackFrames
1 {file_location_id=1 parent_frame_id=1}

ENTRY %main.9 (Arg_0.1: f32[8], Arg_1.2: s32[]) -> (f32[8]) {
  %Arg_0.1 = f32[8]{0} parameter(0), metadata={op_name="x"}
  %Arg_1.2 = s32[] parameter(1)
  %c = f32[2]{0} constant({1, -inf})
  /* comment */ %dus = f32[8]{0} dynamic-update-slice(f32[8]{0} %Arg_0.1, %c, %Arg_1.2), metadata={op_type="dynamic_update_slice" op_name="jit(f)/dus" stack_frame_id=1}
  %cc = (f32[8]{0}, s8[4]{0}) custom-call(%dus), custom_call_target="__cublas$gemm", backend_config={"alpha":{"x":[1,2]}}, output_to_operand_aliasing={{0}: (0, {})}
  %g = f32[8]{0} get-tuple-element(%cc), index=0, sharding={replicated}
  ROOT %t = (f32[8]{0}) tuple(%g)
}
)";

TEST(DiagnosticsTest, TruncatedModuleAlwaysGivesADiagnostic) {
  std::string full = kRichModule;
  ASSERT_NE(testing::ParseOne(full), nullptr);
  size_t last_brace = full.rfind('}');
  for (size_t cut = 0; cut <= last_brace; ++cut) {
    std::string prefix = full.substr(0, cut);
    auto r = ParseHloText(prefix);
    ASSERT_FALSE(r.ok()) << "cut at " << cut << " parsed:\n" << prefix;
    const Diagnostic& d = r.error();
    // The position is inside the prefix (or just past its end).
    int64_t lines = 1 + std::count(prefix.begin(), prefix.end(), '\n');
    EXPECT_GE(d.line, 1);
    EXPECT_LE(d.line, lines) << "cut at " << cut << ": " << d.Format();
    EXPECT_GE(d.column, 1);
  }
}

TEST(DiagnosticsTest, TruncatedRealModulesNeverCrash) {
  // A real JAX dump with several computations: cutting between two
  // computations leaves a valid (smaller) module; everything else must be
  // a diagnostic.
  std::ifstream in(HLOSCOPE_SOURCE_DIR "/tests/fixtures/jax/loop_dus_donated/module.hlo.txt");
  if (!in) GTEST_SKIP() << "fixture missing";
  std::stringstream ss;
  ss << in.rdbuf();
  std::string full = ss.str();
  ASSERT_NE(testing::ParseOne(full), nullptr);
  size_t entry = full.find("ENTRY");
  size_t last_brace = full.rfind('}');
  ASSERT_NE(entry, std::string::npos);
  int errors = 0;
  for (size_t cut = 0; cut < full.size(); cut += 1) {
    auto r = ParseHloText(full.substr(0, cut));
    if (cut > entry && cut <= last_brace) {
      ASSERT_FALSE(r.ok()) << "cut at " << cut;
    }
    if (!r.ok()) {
      ++errors;
      EXPECT_GE(r.error().line, 1);
    }
  }
  EXPECT_GT(errors, 0);
}

}  // namespace
}  // namespace hloscope
