// Output formats, as data, and the one dispatch from a format to a
// renderer. A command builds its Renderers (one function per format it
// supports) and calls Render; nothing else switches on a format
// (tests/python/test_architecture.py checks that no other file does).
#ifndef HLOSCOPE_REPORT_FORMAT_H_
#define HLOSCOPE_REPORT_FORMAT_H_

#include <functional>
#include <optional>
#include <ostream>
#include <span>
#include <string_view>

namespace hloscope {

enum class OutputFormat : uint8_t { kText, kJson, kSarif, kHtml, kMarkdown };

struct FormatEntry {
  OutputFormat format;
  std::string_view name;  // --format NAME
  std::string_view help;
};
std::span<const FormatEntry> FormatCatalog();
std::string_view FormatName(OutputFormat format);
std::optional<OutputFormat> FormatNamed(std::string_view name);

// One command's output in each format it supports (an empty function: not
// supported).
struct Renderers {
  std::function<void(std::ostream&)> text, json, sarif, html, markdown;

  bool Supports(OutputFormat format) const;
};

// The one dispatch. Returns false (writing nothing) for a format the
// command does not support — the CLI refuses those before (the command
// table lists each command's formats).
bool Render(const Renderers& renderers, OutputFormat format, std::ostream& out);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_FORMAT_H_
