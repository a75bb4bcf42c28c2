// The exploring subcommands: fusions, where, annotate, explain. They answer
// "where in my code is this?" and "what is one kernel?"; the analyses live
// in the library (analysis/source_index.h, fusion_summary.h, explain.h) and
// each command here only reads flags and the input.
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/commands.h"
#include "hloscope/parser/buffer_assignment.h"
#include "hloscope/parser/parser.h"
#include "hloscope/report/render_annotate.h"
#include "hloscope/report/render_explain.h"
#include "hloscope/report/render_fusions.h"
#include "hloscope/report/render_where.h"

namespace hloscope::cli {
namespace {

std::vector<const HloModule*> Modules(const HloModuleGroup& group) {
  std::vector<const HloModule*> out;
  for (const auto& m : group.modules) out.push_back(m.get());
  return out;
}

void AddScope(CLI::App* cmd, std::string* scope) {
  cmd->add_option("--scope", *scope,
                  "only operations inside this jax.named_scope path (e.g. 'grad_step/encoder'; "
                  "JAX's jit(..)/jvp(..)/while/body wrappers are skipped; * and ? match)");
}

struct FusionsFlags {
  std::string file;
  std::string format = "text";
  FusionsOptions options;
};

struct WhereFlags {
  std::string file;
  std::string format = "text";
  std::string location;
  WhereOptions options;
};

struct AnnotateFlags {
  std::string file;
  std::string format = "text";
  AnnotateOptions options;
};

struct ExplainFlags {
  std::string file;
  std::string format = "text";
  std::string instruction;
  std::string buffer_assignment;
  bool no_buffer_assignment = false;
};

}  // namespace

Subcommand AddFusionsCommand(CLI::App& app) {
  auto flags = std::make_shared<FusionsFlags>();
  CLI::App* cmd = app.add_subcommand(
      "fusions", "Every kernel (fusion): its kind, the operations and source lines fused into it, "
                 "bytes read and written, executions per call");
  AddFileAndFormat(cmd, &flags->file, &flags->format);
  AddScope(cmd, &flags->options.scope);
  return {cmd, [flags] {
            auto group = ParseHloFile(flags->file);
            if (!group.ok()) {
              std::cerr << group.error().Format();
              return kExitError;
            }
            ReportFusions(Modules(*group), flags->options, FormatOf(flags->format), std::cout);
            return kExitOk;
          }};
}

Subcommand AddWhereCommand(CLI::App& app) {
  auto flags = std::make_shared<WhereFlags>();
  CLI::App* cmd = app.add_subcommand(
      "where", "The HLO instructions that come from a line of your code (train.py:42, :42-50, "
               "train.py:42-50, or a function name), with their kernel, loop, copies and updates");
  AddFileAndFormat(cmd, &flags->file, &flags->format);
  cmd->add_option("LOCATION", flags->location,
                  "FILE.py:LINE, FILE.py:FIRST-LAST, :LINE, FILE.py, or a function name");
  AddScope(cmd, &flags->options.scope);
  cmd->add_option("--source-root", flags->options.source_roots,
                  "directory holding your sources (metadata paths are tried under it by suffix)");
  return {cmd, [flags] {
            if (flags->location.empty() && flags->options.scope.empty()) {
              std::cerr << "hloscope where: give a LOCATION (train.py:42) or --scope\n";
              return kExitError;
            }
            if (!flags->location.empty()) {
              std::string error;
              flags->options.spec = ParseLineSpec(flags->location, &error);
              if (!flags->options.spec) {
                std::cerr << "hloscope where: " << error << "\n";
                return kExitError;
              }
            }
            auto group = ParseHloFile(flags->file);
            if (!group.ok()) {
              std::cerr << group.error().Format();
              return kExitError;
            }
            ReportWhere(Modules(*group), flags->options, FormatOf(flags->format), std::cout);
            return kExitOk;
          }};
}

Subcommand AddAnnotateCommand(CLI::App& app) {
  auto flags = std::make_shared<AnnotateFlags>();
  CLI::App* cmd = app.add_subcommand(
      "annotate", "Your Python source with each line's copies, update verdicts and kernels in a "
                  "gutter (like pprof -list)");
  AddFileAndFormat(cmd, &flags->file, &flags->format);
  cmd->add_option("--source-root", flags->options.source_roots,
                  "directory holding your sources (metadata paths are tried under it by suffix)");
  AddScope(cmd, &flags->options.scope);
  cmd->add_option("--file", flags->options.file, "only this source file (train.py or a path suffix)");
  cmd->add_option("--context", flags->options.context, "source lines shown around annotated lines")
      ->check(CLI::Range(0, 1000));
  cmd->add_flag("--all", flags->options.whole_files, "print every line of each file");
  return {cmd, [flags] {
            auto group = ParseHloFile(flags->file);
            if (!group.ok()) {
              std::cerr << group.error().Format();
              return kExitError;
            }
            ReportAnnotate(Modules(*group), flags->options, FormatOf(flags->format), std::cout);
            return kExitOk;
          }};
}

Subcommand AddExplainCommand(CLI::App& app) {
  auto flags = std::make_shared<ExplainFlags>();
  CLI::App* cmd = app.add_subcommand(
      "explain", "One instruction in plain words (opcode, shape and layout, fusion kind, metadata, "
                 "in place or not); without INSTRUCTION, a guided reading of the module");
  AddFileAndFormat(cmd, &flags->file, &flags->format);
  cmd->add_option("INSTRUCTION", flags->instruction, "instruction name, e.g. copy.7 or %fusion.3");
  cmd->add_option("--buffer-assignment", flags->buffer_assignment,
                  "XLA's -buffer-assignment.txt dump (found automatically beside a dump)");
  cmd->add_flag("--no-buffer-assignment", flags->no_buffer_assignment,
                "do not look for the buffer-assignment dump");
  return {cmd, [flags] {
            auto group = ParseHloFile(flags->file);
            if (!group.ok()) {
              std::cerr << group.error().Format();
              return kExitError;
            }
            ExplainOptions options;
            options.instruction = flags->instruction;
            std::optional<BufferAssignment> ba;
            std::string ba_path = flags->buffer_assignment;
            if (ba_path.empty() && !flags->no_buffer_assignment && flags->file != "-")
              if (std::optional<std::string> found = FindBufferAssignmentBeside(flags->file))
                ba_path = *found;
            if (!ba_path.empty() && !flags->no_buffer_assignment && group->modules.size() == 1) {
              auto read = ReadBufferAssignmentFile(ba_path);
              if (!read.ok()) {
                std::cerr << read.error().Format();
                return kExitError;
              }
              ba = std::move(read).value();
              options.check.buffer_assignment = &*ba;
              options.check.buffer_assignment_path = ba_path;
            }
            if (!ReportExplain(Modules(*group), options, FormatOf(flags->format), std::cout)) {
              std::cerr << fmt::format("hloscope explain: no instruction named '{}' in {}\n",
                                       flags->instruction, flags->file);
              return kExitError;
            }
            return kExitOk;
          }};
}

}  // namespace hloscope::cli
