// `hloscope diff A B`: each side is loaded as a check document, then the
// diff analysis matches and compares them (analysis/check_diff.h).
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "hloscope/app/commands.h"
#include "hloscope/parser/dump_folder.h"
#include "hloscope/report/check_document_reader.h"
#include "hloscope/report/json_input.h"
#include "hloscope/report/render_check.h"
#include "hloscope/report/render_diff.h"
#include "hloscope/report/wording.h"
#include "hloscope/support/found_file.h"
#include "hloscope/support/input_file.h"

namespace hloscope {
namespace {

// One input checked as `diff` checks it, with its kernels when asked for.
struct CheckedSide {
  std::unique_ptr<Session> session;
  std::vector<FusionSelection> kernels;
};

Result<CheckedSide> CheckSide(const std::string& path, const DiffRequest& request) {
  SessionRequest r;
  r.path = path;
  r.use_buffer_assignment = request.use_buffer_assignment;
  r.require_optimized = !request.allow_unoptimized;
  r.input = request.input;
  Result<std::unique_ptr<Session>> s = Session::Open(r);
  if (!s.ok()) return s.error();
  CheckedSide side{std::move(s).value(), {}};
  if (request.kernels) side.kernels = SessionKernels(*side.session, "");
  return side;
}

Result<Json> CheckHlo(const std::string& path, const DiffRequest& request) {
  Result<CheckedSide> side = CheckSide(path, request);
  if (!side.ok()) return side.error();
  std::string text =
      CheckJsonText(side->session->Checks(), nullptr, request.kernels ? &side->kernels : nullptr);
  return Json::parse(text);
}

// One side as the typed document, module by module: checked now, each
// module's JSON tree read back and dropped (never the whole document as
// text, nor as one tree: `diff` of two checks costs about two checks).
// Appends to `into`; the error, if the input does not check.
std::optional<Diagnostic> CheckHloTyped(const std::string& path, const DiffRequest& request,
                                        CheckDocument* into) {
  Result<CheckedSide> side = CheckSide(path, request);
  if (!side.ok()) return side.error();
  std::vector<const ModuleCheck*> checks = side->session->Checks();
  for (size_t i = 0; i < checks.size(); ++i)
    into->modules.push_back(ReadDocModule(CheckModuleJson(
        *checks[i], request.kernels && i < side->kernels.size() ? &side->kernels[i] : nullptr)));
  return std::nullopt;
}

// The optimized modules of a dump folder (what its `check` reads).
Result<std::vector<std::string>> OptimizedFiles(const std::string& path) {
  Result<DumpFolder> folder = ListDumpFolder(path);
  if (!folder.ok()) return folder.error();
  std::vector<std::string> files;
  for (const DumpModule& m : folder->modules)
    for (const DumpHloFile& f : m.files)
      if (f.optimized) files.push_back(f.path);
  if (files.empty())
    return InputDiagnostic(path,
                           "no optimized HLO dump in this folder (XLA's *after_optimizations.txt files)");
  return files;
}

Result<Json> LoadFolder(const std::string& path, const DiffRequest& request) {
  Result<std::vector<std::string>> files = OptimizedFiles(path);
  if (!files.ok()) return files.error();
  Json doc = JsonEnvelope("check");
  doc["modules"] = Json::array();
  for (const std::string& file : *files) {
    Result<Json> one = CheckHlo(file, request);
    // The user named the folder, not this file: where it fails, never its text.
    if (!one.ok()) return UnquotedFoundFileError(one.error(), "this module, found in the dump folder,");
    for (Json& m : (*one)["modules"]) doc["modules"].push_back(std::move(m));
  }
  return doc;
}

}  // namespace

Result<Json> LoadCheckDocument(const std::string& path, const DiffRequest& request) {
  std::error_code ec;
  if (path != "-" && std::filesystem::is_directory(path, ec)) return LoadFolder(path, request);
  if (path == "-") return CheckHlo(path, request);
  Result<InputBytes> bytes = ReadInput(path, request.input);
  if (!bytes.ok()) return bytes.error();
  std::string_view text = bytes->text;
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || text[first] != '{') return CheckHlo(path, request);

  // A JSON document: it must be hloscope's check document, of this schema.
  Result<Json> parsed =
      ParseJsonInput(text, path, "a baseline is the output of `hloscope check FILE --format json`");
  if (!parsed.ok()) return parsed.error();
  Json doc = std::move(parsed).value();
  const Json& tool = doc.contains("tool") ? doc["tool"] : Json();
  const Json& command = doc.contains("command") ? doc["command"] : Json();
  if (!tool.is_string() || tool.get<std::string>() != "hloscope")
    return InputDiagnostic(
        path,
        "a JSON document not written by hloscope (a baseline is the output of `hloscope check "
        "FILE --format json`)");
  if (!command.is_string() || command.get<std::string>() != "check")
    return InputDiagnostic(
        path, fmt::format("a hloscope `{}` document; diff compares `check --format json` documents",
                          command.is_string() ? command.get<std::string>() : "?"));
  if (!doc.contains("schema_version") || doc["schema_version"] != kJsonSchemaVersion)
    return InputDiagnostic(
        path,
        fmt::format("schema version {} (this hloscope reads version {}): save the baseline again",
                    doc.contains("schema_version") ? doc["schema_version"].dump() : "?", kJsonSchemaVersion));
  if (!doc.contains("modules") || !doc["modules"].is_array())
    return InputDiagnostic(path, "a check document without \"modules\"");
  return doc;
}

namespace {

// A side of `diff` as the typed document: HLO and dump folders checked
// module by module (CheckHloTyped), a saved baseline read from its JSON.
Result<CheckDocument> LoadSide(const std::string& path, const DiffRequest& request) {
  std::error_code ec;
  bool folder = path != "-" && std::filesystem::is_directory(path, ec);
  std::vector<std::string> files;
  if (folder) {
    Result<std::vector<std::string>> listed = OptimizedFiles(path);
    if (!listed.ok()) return listed.error();
    files = std::move(listed).value();
  } else if (path == "-") {
    files.push_back(path);
  } else {
    Result<InputBytes> bytes = ReadInput(path, request.input);
    if (!bytes.ok()) return bytes.error();
    size_t first = bytes->text.find_first_not_of(" \t\r\n");
    if (first != std::string_view::npos && bytes->text[first] == '{') {
      Result<Json> doc = LoadCheckDocument(path, request);  // a saved baseline: its checks
      if (!doc.ok()) return doc.error();
      return ReadCheckDocument(*doc);
    }
    files.push_back(path);
  }
  CheckDocument doc;
  for (const std::string& file : files)
    if (std::optional<Diagnostic> error = CheckHloTyped(file, request, &doc))
      // The user named the folder, not this file: where it fails, never its text.
      return folder ? UnquotedFoundFileError(*error, "this module, found in the dump folder,") : *error;
  return doc;
}

}  // namespace

int RunDiffCommand(const DiffRequest& request, std::ostream& out, std::ostream& err) {
  Result<CheckDocument> a = LoadSide(request.a, request);
  if (!a.ok()) {
    err << a.error().Format();
    return kExitError;
  }
  Result<CheckDocument> b = LoadSide(request.b, request);
  if (!b.ok()) {
    err << b.error().Format();
    return kExitError;
  }
  DiffResult result = DiffDocuments(*a, *b, request.filter);
  DiffInputs inputs{request.a, request.b};
  std::vector<Violation> regressions = EvaluateDiffGates(result, request.gates, request.filter);
  bool gated = !request.gates.gates.empty();
  Renderers r;
  r.text = [&](std::ostream& o) { RenderDiffText(result, inputs, o); };
  r.json = [&](std::ostream& o) { WriteDiffJson(result, inputs, gated ? &regressions : nullptr, o); };
  Render(r, request.format, out);
  if (regressions.empty()) return kExitOk;
  err << fmt::format("hloscope: diff failed: {} regression{} in B\n", regressions.size(),
                     regressions.size() == 1 ? "" : "s");
  for (const Violation& v : regressions)
    err << fmt::format("  {}: {}\n", v.gate ? EntryOf(*v.gate).name : "", ViolationText(v));
  return kExitFindings;
}

}  // namespace hloscope
