// hloscope._hloscope: the C++ engine for Python (nanobind).
//
// Deliberately small: parse + check run in C++ and the findings leave as the
// CLI's own JSON (CheckToJson) and text (RenderCheckText), so Python, the CLI
// and docs/json-format.md can never drift apart. The typed dataclasses are
// built from that JSON in hloscope/_report.py. Diagnostics become
// hloscope.ParseError (defined in Python, hloscope/_errors.py).
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>
#include <nlohmann/json.hpp>

#include "hloscope/analysis/check.h"
#include "hloscope/analysis/source_map.h"
#include "hloscope/ir/computation.h"
#include "hloscope/ir/instruction.h"
#include "hloscope/ir/module.h"
#include "hloscope/parser/buffer_assignment.h"
#include "hloscope/parser/parser.h"
#include "hloscope/report/render_check.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using Json = nlohmann::ordered_json;

// A Diagnostic on its way to Python; translated to hloscope.ParseError.
struct DiagnosticError {
  hloscope::Diagnostic diagnostic;
};

std::string Dump(const Json& j) {
  // The CLI prints dump(2) + "\n"; `replace` only matters for invalid UTF-8,
  // where the CLI would abort instead.
  return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

// Fusion instructions of a module: name, kind, where, what they fuse.
Json FusionsJson(const hloscope::HloModule& module) {
  Json out = Json::array();
  for (const hloscope::HloComputation* comp : module.computations()) {
    for (const hloscope::HloInstruction* instr : comp->instructions()) {
      if (instr->opcode_text() != "fusion") continue;
      Json j;
      j["instruction"] = std::string(instr->name());
      std::optional<std::string_view> kind = instr->attribute("kind");
      j["kind"] = kind ? Json(std::string(*kind)) : Json(nullptr);
      j["computation"] = std::string(comp->name());
      j["shape"] = instr->shape().ToString();
      const hloscope::HloComputation* fused = instr->fused_computation();
      j["fused_computation"] = fused ? Json(std::string(fused->name())) : Json(nullptr);
      Json ops = Json::array();
      if (fused) {
        for (const hloscope::HloInstruction* f : fused->instructions()) {
          std::string op(f->opcode_text());
          if (op == "parameter" || op == "constant") continue;
          bool seen = false;
          for (const auto& o : ops) seen |= o.get<std::string>() == op;
          if (!seen) ops.push_back(op);
        }
      }
      j["fused_opcodes"] = std::move(ops);
      std::optional<hloscope::SourceLocation> src = hloscope::ResolveSource(module, *instr);
      j["source"] = src && !src->file.empty() ? hloscope::SourceJson(src) : Json(nullptr);
      out.push_back(std::move(j));
    }
  }
  return out;
}

// The findings of one `check` run, kept in C++ so text and JSON come from
// the very renderers the CLI uses.
class CheckResult {
 public:
  std::vector<hloscope::ModuleCheck> modules;

  std::string json() const { return Dump(hloscope::CheckToJson(modules)); }

  std::string text(int64_t min_copy_bytes_shown, bool color) const {
    hloscope::RenderOptions options;
    options.min_copy_bytes_shown = min_copy_bytes_shown;
    options.color = color;
    std::ostringstream out;
    hloscope::RenderCheckText(modules, options, out);
    return out.str();
  }

  std::vector<std::string> module_names() const {
    std::vector<std::string> names;
    for (const auto& m : modules) names.push_back(m.name);
    return names;
  }
};

// What `hloscope check` does after reading its inputs: a dump describes one
// module, so with several modules it is applied only when there is exactly one.
CheckResult CheckGroup(const hloscope::HloModuleGroup& group,
                       const hloscope::BufferAssignment* ba, const std::string& ba_path) {
  CheckResult result;
  for (const auto& m : group.modules) {
    hloscope::CheckOptions options;
    if (ba && group.modules.size() == 1) {
      options.buffer_assignment = ba;
      options.buffer_assignment_path = ba_path;
    }
    result.modules.push_back(hloscope::CheckModule(*m, options));
  }
  return result;
}

CheckResult CheckText(std::string hlo_text, std::string path,
                      std::optional<std::string> ba_text, std::string ba_path) {
  hloscope::ParseOptions options;
  options.path = path;
  std::optional<hloscope::BufferAssignment> ba;
  CheckResult result;
  {
    nb::gil_scoped_release release;
    auto group = hloscope::ParseHloText(std::move(hlo_text), options);
    if (!group.ok()) throw DiagnosticError{group.error()};
    if (ba_text) {
      auto parsed = hloscope::ParseBufferAssignment(*ba_text, ba_path);
      if (!parsed.ok()) throw DiagnosticError{parsed.error()};
      ba = std::move(parsed).value();
    }
    result = CheckGroup(*group, ba ? &*ba : nullptr, ba_path);
  }
  return result;
}

// `hloscope check FILE [--buffer-assignment BA]`, reading the files in C++.
CheckResult CheckFile(std::string path, std::optional<std::string> ba_path) {
  CheckResult result;
  {
    nb::gil_scoped_release release;
    auto group = hloscope::ParseHloFile(path);
    if (!group.ok()) throw DiagnosticError{group.error()};
    std::optional<hloscope::BufferAssignment> ba;
    if (ba_path) {
      auto read = hloscope::ReadBufferAssignmentFile(*ba_path);
      if (!read.ok()) throw DiagnosticError{read.error()};
      ba = std::move(read).value();
    }
    result = CheckGroup(*group, ba ? &*ba : nullptr, ba_path.value_or(""));
  }
  return result;
}

// The fusion instructions of every module, as JSON: one array per module.
std::string ListFusions(std::string hlo_text, std::string path) {
  hloscope::ParseOptions options;
  options.path = path;
  std::string out;
  {
    nb::gil_scoped_release release;
    auto group = hloscope::ParseHloText(std::move(hlo_text), options);
    if (!group.ok()) throw DiagnosticError{group.error()};
    Json all = Json::array();
    for (const auto& m : group->modules) all.push_back(FusionsJson(*m));
    out = Dump(all);
  }
  return out;
}

void TranslateDiagnostic(const std::exception_ptr& p, void*) {
  try {
    std::rethrow_exception(p);
  } catch (const DiagnosticError& e) {
    const hloscope::Diagnostic& d = e.diagnostic;
    std::string formatted = d.Format();
    while (!formatted.empty() && formatted.back() == '\n') formatted.pop_back();
    try {
      nb::object cls = nb::module_::import_("hloscope._errors").attr("ParseError");
      nb::object exc = cls(d.message, "path"_a = d.path, "line"_a = d.line,
                           "column"_a = d.column, "formatted"_a = formatted);
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
  m.attr("__version__") = "0.1.0";
  m.attr("JSON_SCHEMA_VERSION") = hloscope::kJsonSchemaVersion;

  nb::register_exception_translator(TranslateDiagnostic);

  nb::class_<CheckResult>(m, "CheckResult",
                          "Findings of one check run (one entry per HLO module).")
      .def("json", &CheckResult::json,
           "The report as JSON, byte for byte what `hloscope check --format json` prints.")
      .def("text", &CheckResult::text, "min_copy_bytes_shown"_a = 0, "color"_a = false,
           "The report as text, what `hloscope check` prints.")
      .def("module_names", &CheckResult::module_names, "Names of the checked modules, in order.")
      .def("__len__", [](const CheckResult& r) { return r.modules.size(); });

  m.def("check_text", &CheckText, "hlo_text"_a, "path"_a = "<input>",
        "buffer_assignment_text"_a = nb::none(), "buffer_assignment_path"_a = "",
        "Parse optimized HLO text (and optionally XLA's buffer-assignment dump) and check it.\n\n"
        "`path` and `buffer_assignment_path` only name the inputs in diagnostics and reports.\n"
        "Raises hloscope.ParseError on malformed input.");
  m.def("check_file", &CheckFile, "path"_a, "buffer_assignment_path"_a = nb::none(),
        "Read and check an HLO dump, as `hloscope check PATH [--buffer-assignment BA]`.\n\n"
        "Raises hloscope.ParseError on malformed input or unreadable files.");
  m.def("list_fusions", &ListFusions, "hlo_text"_a, "path"_a = "<input>",
        "The fusion instructions (kind, fused opcodes, source) of every module in the HLO\n"
        "text, as JSON: one array per module. Not part of the CLI's check schema.\n"
        "Raises hloscope.ParseError on malformed input.");
  m.def(
      "find_buffer_assignment_beside",
      [](const std::string& hlo_path) { return hloscope::FindBufferAssignmentBeside(hlo_path); },
      "hlo_path"_a,
      "The buffer-assignment dump that belongs to an HLO dump (XLA's naming), or None.");
}
