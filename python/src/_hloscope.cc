// hloscope._hloscope: the C++ engine for Python (nanobind).
//
// Deliberately thin: a Session (app/session.h) is opened exactly as the CLI
// opens one, and everything leaves as the CLI's own output — the JSON
// documents of check and fusions, check's text, the gate failure message of
// the one gate policy (analysis/policy.h) — so Python, the CLI and
// docs/json-format.md cannot drift apart. The typed dataclasses are built
// from that JSON in hloscope/_report.py. Diagnostics become
// hloscope.ParseError (defined in Python, hloscope/_errors.py).
//
// Robustness (docs/robustness.md): every string handed to Python is valid
// UTF-8 with no control character from the input (EscapeForTerminal; the
// JSON documents already are), so Python never raises UnicodeDecodeError
// and str(report) cannot drive the user's terminal. Files are read, not
// mapped: a file that shrinks under a mapping would kill the interpreter.
// A Session's analyses are built lazily with the GIL released, so each
// PySession serializes its calls with a mutex (taken after the GIL is
// released: a thread waiting for it never holds the GIL).
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "hloscope/app/cli.h"
#include "hloscope/app/commands.h"
#include "hloscope/app/session.h"
#include "hloscope/parser/dump_naming.h"
#include "hloscope/report/check_document_reader.h"
#include "hloscope/report/json_input.h"
#include "hloscope/report/json_model.h"
#include "hloscope/report/render_diff.h"
#include "hloscope/report/render_fusions.h"
#include "hloscope/report/wording.h"
#include "hloscope/support/terminal_text.h"
#include "hloscope/support/version.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using hloscope::Session;

// Text for Python: valid UTF-8, control characters escaped.
std::string Safe(std::string_view text) { return hloscope::EscapeForTerminal(text, {.keep_newlines = true}); }

// A Diagnostic on its way to Python; translated to hloscope.ParseError.
struct DiagnosticError {
  hloscope::Diagnostic diagnostic;
};

// The option structs are the engine's own (analysis/finding_filter.h,
// analysis/policy.h), bound below: the CLI's flags and Python's keywords
// set the very same fields.

// The lines of a selection, parsed as `--line` parses them.
std::vector<hloscope::LineSpec> ParseLines(const std::vector<std::string>& texts) {
  std::vector<hloscope::LineSpec> out;
  for (const std::string& text : texts) {
    std::string error;
    std::optional<hloscope::LineSpec> spec = hloscope::ParseLineSpec(text, &error);
    if (!spec) throw nb::value_error(Safe("bad line '" + text + "': " + error).c_str());
    out.push_back(*spec);
  }
  return out;
}

hloscope::GateSet GatesNamed(const std::vector<std::string>& names) {
  hloscope::GateSet gates;
  for (const std::string& name : names) {
    std::optional<hloscope::GateSet> g = hloscope::GatesNamed(name);
    if (!g) {
      std::string known;
      for (const hloscope::GatePreset& p : hloscope::GatePresets()) known += std::string(p.name) + ", ";
      for (const hloscope::GateEntry& e : hloscope::GateCatalog()) known += std::string(e.name) + ", ";
      throw nb::value_error(
          Safe("unknown gate '" + name + "': expected one of " + known.substr(0, known.size() - 2)).c_str());
    }
    gates.Add(*g);
  }
  return gates;
}

std::vector<std::string> GateNames(const hloscope::GateSet& gates) {
  std::vector<std::string> names;
  for (const hloscope::GateEntry& e : hloscope::GateCatalog())
    if (gates.Has(e.gate)) names.push_back(std::string(e.name));
  return names;
}

// An open input and its analyses; what a Report holds on to.
class PySession {
 public:
  explicit PySession(std::unique_ptr<Session> s) : s_(std::move(s)), mu_(std::make_unique<std::mutex>()) {}

  static PySession Open(hloscope::SessionRequest request) {
    hloscope::Result<std::unique_ptr<Session>> s = [&] {
      nb::gil_scoped_release release;
      return Session::Open(std::move(request));
    }();
    if (!s.ok()) throw DiagnosticError{s.error()};
    return PySession(std::move(s).value());
  }

  static PySession OpenText(std::string text, std::string path, std::optional<std::string> ba_text,
                            std::string ba_path, bool require_optimized, std::optional<std::string> pre_text,
                            std::string pre_path, std::optional<std::vector<bool>> donation_requested,
                            std::optional<std::string> before_optimizations_text) {
    hloscope::SessionRequest r;
    r.require_optimized = require_optimized;
    r.path = path;
    r.text = std::move(text);
    r.buffer_assignment_text = std::move(ba_text);
    r.buffer_assignment_path = std::move(ba_path);
    r.find_buffer_assignment = false;
    r.pre_partition_text = std::move(pre_text);
    r.pre_partition_path =
        r.pre_partition_text && pre_path.empty() ? "<before-partitioning>" : std::move(pre_path);
    r.find_pre_partition = false;
    r.donation_requested = std::move(donation_requested);
    r.find_donation_request = false;
    r.before_optimizations_text = std::move(before_optimizations_text);
    r.find_before_optimizations = false;
    return Open(std::move(r));
  }

  static PySession OpenFile(std::string path, std::optional<std::string> ba_path, bool find,
                            bool require_optimized) {
    hloscope::SessionRequest r;
    r.require_optimized = require_optimized;
    r.path = std::move(path);
    r.buffer_assignment_path = ba_path.value_or("");
    r.find_buffer_assignment = find;
    r.input.map_regular_files = false;
    return Open(std::move(r));
  }

  std::vector<std::string> module_names() const {
    std::vector<std::string> out;
    for (const hloscope::HloModule* m : s_->modules()) out.push_back(Safe(m->name()));
    return out;
  }
  std::string buffer_assignment_path() const { return Safe(s_->buffer_assignment_path()); }

  // The session's notes (the one warning channel), worded.
  std::vector<std::string> notes() {
    nb::gil_scoped_release release;
    std::lock_guard lock(*mu_);
    std::vector<std::string> out;
    for (const hloscope::SessionNote& n : s_->Notes()) out.push_back(Safe(hloscope::NoteText(n)));
    return out;
  }

  std::string check_json(const std::string& scope, bool kernels) {
    nb::gil_scoped_release release;
    std::lock_guard lock(*mu_);
    RequireScope(scope);
    hloscope::ScopedChecks checks(*s_, scope);
    if (!kernels) return hloscope::CheckJsonText(checks.modules());
    std::vector<hloscope::FusionSelection> selections = hloscope::SessionKernels(*s_, scope);
    return hloscope::CheckJsonText(checks.modules(), nullptr, &selections);
  }

  std::string check_text(const hloscope::FindingFilter& filter) {
    nb::gil_scoped_release release;
    std::lock_guard lock(*mu_);
    RequireScope(filter.scope);
    hloscope::ScopedChecks checks(*s_, filter);
    hloscope::CheckTextOptions options{filter};
    std::ostringstream out;
    hloscope::RenderCheckText(checks.modules(), options, out);
    return Safe(out.str());
  }

  std::string fusions_json(const std::string& scope) {
    nb::gil_scoped_release release;
    std::lock_guard lock(*mu_);
    RequireScope(scope);
    std::ostringstream out;
    hloscope::WriteFusionsJson(hloscope::SessionKernels(*s_, scope), scope, out);
    return out.str();
  }

  // What `hloscope report` writes (render_html.h); `compact`: the notebook form.
  std::string report_html(const std::string& scope, bool compact,
                          const std::vector<std::string>& source_roots, const std::string& title) {
    nb::gil_scoped_release release;
    std::lock_guard lock(*mu_);
    RequireScope(scope);
    hloscope::ReportRequest request;
    request.filter.scope = scope;
    request.html.compact = compact;
    request.html.title = title;
    request.source_roots = source_roots;
    return hloscope::ReportHtml(*s_, request);
  }

  // What `hloscope check --format sarif` prints.
  std::string check_sarif(const std::string& scope, const std::vector<std::string>& source_roots,
                          const std::string& input_path) {
    nb::gil_scoped_release release;
    std::lock_guard lock(*mu_);
    RequireScope(scope);
    hloscope::ScopedChecks checks(*s_, scope);
    hloscope::SarifOptions options;
    options.source_roots = source_roots;
    options.input_path = input_path;
    std::ostringstream out;
    hloscope::WriteCheckSarif(checks.modules(), options, out);
    return out.str();
  }

  // The failure message of the gates (None when they pass), titled like
  // "hloscope.assert_inplace".
  std::optional<std::string> gate_failure(const hloscope::GateOptions& gates,
                                          const hloscope::FindingFilter& filter, const std::string& title) {
    nb::gil_scoped_release release;
    std::lock_guard lock(*mu_);
    hloscope::ScopedChecks checks(*s_, filter);
    std::vector<hloscope::Violation> violations = hloscope::EvaluateGates(checks.modules(), gates, filter);
    if (violations.empty()) return std::nullopt;
    return Safe(hloscope::GateFailureMessage(title, violations, checks.modules()));
  }

  // One line per violation (watch's problems, run's summary lines).
  std::vector<std::string> violation_lines(const hloscope::GateOptions& gates,
                                           const hloscope::FindingFilter& filter) {
    nb::gil_scoped_release release;
    std::lock_guard lock(*mu_);
    hloscope::ScopedChecks checks(*s_, filter);
    std::vector<std::string> out;
    for (const hloscope::Violation& v : hloscope::EvaluateGates(checks.modules(), gates, filter))
      out.push_back(Safe(hloscope::ViolationLine(v)));
    return out;
  }

  // The check document with the gates' verdict ("gate"), as `check
  // --format json` with the same flags prints it.
  std::string gate_json(const hloscope::GateOptions& gates, const hloscope::FindingFilter& filter) {
    nb::gil_scoped_release release;
    std::lock_guard lock(*mu_);
    hloscope::ScopedChecks checks(*s_, filter);
    std::vector<hloscope::Violation> violations = hloscope::EvaluateGates(checks.modules(), gates, filter);
    return hloscope::CheckJsonText(checks.modules(), &violations);
  }

 private:
  // A misspelt scope is an error, as on the command line (CheckScopeExists),
  // not an empty answer. Thrown with the GIL released: nanobind translates
  // it to ValueError once the release has ended.
  void RequireScope(const std::string& scope) {
    std::ostringstream err;
    if (hloscope::CheckScopeExists(*s_, scope, err)) return;
    std::string message = err.str();
    constexpr std::string_view kPrefix = "hloscope: error: ";
    if (message.starts_with(kPrefix)) message.erase(0, kPrefix.size());
    while (!message.empty() && message.back() == '\n') message.pop_back();
    throw nb::value_error(Safe(message).c_str());
  }

  std::unique_ptr<Session> s_;
  std::unique_ptr<std::mutex> mu_;  // a pointer: PySession is returned by value
};

std::tuple<int, std::string, std::string> RunCli(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  int code;
  {
    nb::gil_scoped_release release;
    code = hloscope::RunCli(args, out, err);
  }
  return {code, out.str(), err.str()};
}

void TranslateDiagnostic(const std::exception_ptr& p, void*) {
  try {
    std::rethrow_exception(p);
  } catch (const DiagnosticError& e) {
    const hloscope::Diagnostic& d = e.diagnostic;
    std::string formatted = Safe(d.Format());
    while (!formatted.empty() && formatted.back() == '\n') formatted.pop_back();
    try {
      nb::object cls = nb::module_::import_("hloscope._errors").attr("ParseError");
      nb::object exc = cls(Safe(d.message), "path"_a = Safe(d.path), "line"_a = d.line, "column"_a = d.column,
                           "formatted"_a = formatted);
      PyErr_SetObject(cls.ptr(), exc.ptr());
    } catch (nb::python_error& err) {
      // hloscope._errors unavailable (the bare extension): a plain ValueError.
      err.discard_as_unraisable("hloscope._hloscope diagnostic translation");
      PyErr_SetString(PyExc_ValueError, formatted.c_str());
    }
  }
}

}  // namespace

NB_MODULE(_hloscope, m) {
  m.doc() = "hloscope's C++ engine: parse optimized HLO text and check every copy and update.";
  m.attr("__version__") = hloscope::kHloscopeVersion;
  m.attr("JSON_SCHEMA_VERSION") = hloscope::kJsonSchemaVersion;

  nb::register_exception_translator(TranslateDiagnostic);

  nb::class_<hloscope::FindingFilter>(
      m, "FindingFilter",
      "Which findings count (analysis/finding_filter.h): --include-minor, --include-library, --min-bytes, "
      "--scope.")
      .def(nb::init<>())
      .def_rw("include_minor", &hloscope::FindingFilter::include_minor,
              "count minor copies too (scalars, small constants moved to another memory space)")
      .def_rw("include_library", &hloscope::FindingFilter::include_library,
              "count findings made inside library code too")
      .def_rw("min_bytes", &hloscope::FindingFilter::min_bytes,
              "leave out findings moving fewer bytes per call")
      .def_rw("scope", &hloscope::FindingFilter::scope, "only findings inside this jax.named_scope path");

  nb::class_<hloscope::GateOptions>(
      m, "GateOptions",
      "What fails (analysis/policy.h): gates and presets by name (--fail-on), budgets (--max-*), and a "
      "selection (--update, --line).")
      .def(nb::init<>())
      .def_prop_rw(
          "gates", [](const hloscope::GateOptions& o) { return GateNames(o.gates); },
          [](hloscope::GateOptions& o, const std::vector<std::string>& names) {
            o.gates = GatesNamed(names);
          },
          "the gates that fail, by name; presets ('default', 'strict', 'regressions') expand to their gates")
      .def_prop_rw(
          "max_copy_bytes", [](const hloscope::GateOptions& o) { return o.budgets.max_copy_bytes; },
          [](hloscope::GateOptions& o, std::optional<int64_t> v) { o.budgets.max_copy_bytes = v; })
      .def_prop_rw(
          "max_copies", [](const hloscope::GateOptions& o) { return o.budgets.max_copies; },
          [](hloscope::GateOptions& o, std::optional<int64_t> v) { o.budgets.max_copies = v; })
      .def_prop_rw(
          "max_copies_in_loops", [](const hloscope::GateOptions& o) { return o.budgets.max_copies_in_loops; },
          [](hloscope::GateOptions& o, std::optional<int64_t> v) { o.budgets.max_copies_in_loops = v; })
      .def_prop_rw(
          "max_copy_bytes_in_loops",
          [](const hloscope::GateOptions& o) { return o.budgets.max_copy_bytes_in_loops; },
          [](hloscope::GateOptions& o, std::optional<int64_t> v) { o.budgets.max_copy_bytes_in_loops = v; })
      .def_prop_rw(
          "max_peak_bytes", [](const hloscope::GateOptions& o) { return o.budgets.max_peak_bytes; },
          [](hloscope::GateOptions& o, std::optional<int64_t> v) { o.budgets.max_peak_bytes = v; },
          "the memory one call needs per device (unknown without the buffer assignment: fails)")
      .def_rw("updates", &hloscope::GateOptions::update_names,
              "restrict to these updates (instruction or fusion names)")
      .def_prop_rw(
          "lines",
          [](const hloscope::GateOptions& o) {
            std::vector<std::string> out;
            for (const hloscope::LineSpec& s : o.lines) out.push_back(s.text);
            return out;
          },
          [](hloscope::GateOptions& o, const std::vector<std::string>& texts) {
            o.lines = ParseLines(texts);
          },
          "restrict to the updates of these lines ('train.py:42', '42')");

  m.def(
      "gate_names",
      [] {
        std::vector<std::tuple<std::string, std::string, bool, bool>> out;
        for (const hloscope::GatePreset& p : hloscope::GatePresets()) {
          bool diff_only = true;
          for (const hloscope::GateEntry& g : hloscope::GateCatalog())
            diff_only &= !p.gates.Has(g.gate) || g.diff_only;
          out.emplace_back(std::string(p.name), std::string(p.help), true, diff_only);
        }
        for (const hloscope::GateEntry& g : hloscope::GateCatalog())
          out.emplace_back(std::string(g.name), std::string(g.help), false, g.diff_only);
        return out;
      },
      "(name, help, is_preset, diff_only) of every gate and preset (analysis/policy.h).");

  nb::class_<PySession>(m, "Session", "An opened HLO input and its analyses (app/session.h).")
      .def_static("open_text", &PySession::OpenText, "hlo_text"_a, "path"_a = "<input>",
                  "buffer_assignment_text"_a = nb::none(), "buffer_assignment_path"_a = "",
                  "require_optimized"_a = false, "pre_partition_text"_a = nb::none(),
                  "pre_partition_path"_a = "", "donation_requested"_a = nb::none(),
                  "before_optimizations_text"_a = nb::none(),
                  "Parse HLO text (and optionally XLA's buffer-assignment dump, and the module before SPMD\n"
                  "partitioning: a --xla_dump_hlo_pass_re=spmd-partitioning dump).\n\n"
                  "`donation_requested`: one flag per entry parameter, the donation the program asked\n"
                  "for (JAX's donate_argnums); each one XLA dropped gets its reason.\n"
                  "`before_optimizations_text`: the module before optimization (its header line is\n"
                  "enough): the user's mesh axis names (Shardy's xla.sdy.meshes).\n"
                  "`path`, `buffer_assignment_path` and `pre_partition_path` only name the inputs in\n"
                  "diagnostics and reports.\n"
                  "Raises hloscope.ParseError on malformed input.")
      .def_static("open_file", &PySession::OpenFile, "path"_a, "buffer_assignment_path"_a = nb::none(),
                  "find_buffer_assignment"_a = true, "require_optimized"_a = false,
                  "Read an HLO dump as `hloscope check PATH [--buffer-assignment BA]` does (the dump\n"
                  "beside PATH is found unless find_buffer_assignment is False).\n"
                  "Raises hloscope.ParseError on malformed input or unreadable files.")
      .def("module_names", &PySession::module_names, "Names of the modules, in order.")
      .def_prop_ro("buffer_assignment_path", &PySession::buffer_assignment_path,
                   "The dump the verdicts are checked against, or ''.")
      .def("notes", &PySession::notes,
           "What to know about how the report was made (app/session.h notes), one sentence each.")
      .def("check_json", &PySession::check_json, "scope"_a = "", "kernels"_a = false,
           "What `hloscope check --format json [--scope S] [--kernels]` prints.")
      .def("check_text", &PySession::check_text, "filter"_a = hloscope::FindingFilter(),
           "What `hloscope check` prints with this filter (--scope, --min-bytes, --include-*).")
      .def("fusions_json", &PySession::fusions_json, "scope"_a = "",
           "What `hloscope fusions --format json [--scope S]` prints.")
      .def("report_html", &PySession::report_html, "scope"_a = "", "compact"_a = false,
           "source_roots"_a = std::vector<std::string>(), "title"_a = "",
           "What `hloscope report` writes: one self-contained HTML page (compact: the notebook form).")
      .def("check_sarif", &PySession::check_sarif, "scope"_a = "",
           "source_roots"_a = std::vector<std::string>(), "input_path"_a = "",
           "What `hloscope check --format sarif [--sarif-root R]` prints (SARIF 2.1.0).")
      .def("gate_failure", &PySession::gate_failure, "gates"_a, "filter"_a, "title"_a,
           "The failure message of these gates, or None when they pass.")
      .def("violation_lines", &PySession::violation_lines, "gates"_a, "filter"_a,
           "One line per violation of these gates (empty when they pass).")
      .def("gate_json", &PySession::gate_json, "gates"_a, "filter"_a,
           "The check document with the gates' verdict, as `hloscope check --format json` with the\n"
           "same flags prints it.");

  m.def(
      "load_check_document",
      [](const std::string& path) {
        hloscope::DiffRequest request;
        request.input.map_regular_files = false;
        hloscope::Result<hloscope::Json> doc = [&] {
          nb::gil_scoped_release release;
          return hloscope::LoadCheckDocument(path, request);
        }();
        if (!doc.ok()) throw DiagnosticError{doc.error()};
        return hloscope::JsonText(*doc);
      },
      "path"_a,
      "One side of `hloscope diff`: a check JSON baseline as saved, optimized HLO checked now (with its\n"
      "kernels), or every optimized module of a dump folder. Raises hloscope.ParseError.");
  m.def(
      "diff",
      [](const std::string& a_json, const std::string& b_json, const std::string& a_name,
         const std::string& b_name, const hloscope::GateOptions& gates,
         const hloscope::FindingFilter& filter) {
        // Hostile documents (too deep, numbers out of range) raise ParseError, never crash.
        constexpr std::string_view kWhat = "diff() compares check documents (Report.to_json())";
        hloscope::Result<hloscope::Json> ra = hloscope::ParseJsonInput(a_json, a_name, kWhat);
        if (!ra.ok()) throw DiagnosticError{ra.error()};
        hloscope::Result<hloscope::Json> rb = hloscope::ParseJsonInput(b_json, b_name, kWhat);
        if (!rb.ok()) throw DiagnosticError{rb.error()};
        const hloscope::Json& a = *ra;
        const hloscope::Json& b = *rb;
        hloscope::DiffResult result =
            hloscope::DiffDocuments(hloscope::ReadCheckDocument(a), hloscope::ReadCheckDocument(b), filter);
        std::vector<hloscope::Violation> regressions = hloscope::EvaluateDiffGates(result, gates, filter);
        hloscope::DiffInputs inputs{a_name, b_name};
        std::ostringstream text;
        hloscope::RenderDiffText(result, inputs, text);
        std::vector<std::string> failures;
        for (const hloscope::Violation& v : regressions)
          failures.push_back(Safe(std::string(v.gate ? hloscope::EntryOf(*v.gate).name : "") + ": " +
                                  hloscope::ViolationText(v)));
        return std::make_tuple(
            Safe(text.str()),
            hloscope::DiffJsonText(result, inputs, gates.gates.empty() ? nullptr : &regressions), failures);
      },
      "a_json"_a, "b_json"_a, "a_name"_a = "A", "b_name"_a = "B", "gates"_a = hloscope::GateOptions(),
      "filter"_a = hloscope::FindingFilter(),
      "`hloscope diff` of two check documents: (text, JSON document, regressions of the gates asked for).");
  m.def("run_cli", &RunCli, "args"_a, "Run `hloscope ARGS...` in-process: (exit code, stdout, stderr).");
  m.def(
      "is_optimized_dump_name",
      [](const std::string& file_name) { return hloscope::IsOptimizedDumpName(file_name); }, "file_name"_a,
      "True if `file_name` is an optimized module's HLO as XLA's --xla_dump_to names it "
      "(parser/dump_naming.h).");
  m.def(
      "find_pre_partition_beside",
      [](const std::string& hlo_path) { return hloscope::FindPrePartitionBeside(hlo_path); }, "hlo_path"_a,
      "The dump of the module before SPMD partitioning that belongs to an HLO dump (XLA's naming), or None.");
  m.def(
      "find_before_optimizations_beside",
      [](const std::string& hlo_path) { return hloscope::FindBeforeOptimizationsBeside(hlo_path); },
      "hlo_path"_a,
      "The dump of the module before optimization that belongs to an HLO dump (XLA's naming), or None.");
  m.def(
      "find_buffer_assignment_beside",
      [](const std::string& hlo_path) { return hloscope::FindBufferAssignmentBeside(hlo_path); },
      "hlo_path"_a, "The buffer-assignment dump that belongs to an HLO dump (XLA's naming), or None.");
}
