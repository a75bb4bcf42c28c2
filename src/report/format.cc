#include "hloscope/report/format.h"

namespace hloscope {
namespace {

constexpr FormatEntry kFormats[] = {
    {OutputFormat::kText, "text", "for people (the default)"},
    {OutputFormat::kJson, "json", "versioned JSON (docs/json-format.md, docs/schema/)"},
    {OutputFormat::kSarif, "sarif", "SARIF 2.1.0, for code review"},
    {OutputFormat::kHtml, "html", "one self-contained HTML page"},
    {OutputFormat::kMarkdown, "markdown", "Markdown tables (docs)"},
};

const std::function<void(std::ostream&)>& RendererFor(const Renderers& r, OutputFormat format) {
  switch (format) {
    case OutputFormat::kText:
      return r.text;
    case OutputFormat::kJson:
      return r.json;
    case OutputFormat::kSarif:
      return r.sarif;
    case OutputFormat::kHtml:
      return r.html;
    case OutputFormat::kMarkdown:
      return r.markdown;
  }
  return r.text;
}

}  // namespace

std::span<const FormatEntry> FormatCatalog() { return kFormats; }

std::string_view FormatName(OutputFormat format) {
  for (const FormatEntry& f : kFormats)
    if (f.format == format) return f.name;
  return "text";
}

std::optional<OutputFormat> FormatNamed(std::string_view name) {
  for (const FormatEntry& f : kFormats)
    if (f.name == name) return f.format;
  return std::nullopt;
}

bool Renderers::Supports(OutputFormat format) const { return static_cast<bool>(RendererFor(*this, format)); }

bool Render(const Renderers& renderers, OutputFormat format, std::ostream& out) {
  const std::function<void(std::ostream&)>& fn = RendererFor(renderers, format);
  if (!fn) return false;
  fn(out);
  return true;
}

}  // namespace hloscope
