// Text in the HTML report and the anchors that link its parts.
//
// Every string from the input (instruction names, op_name, source paths,
// lines of the user's files) goes through HtmlShown: control characters and
// invalid UTF-8 escaped as on the terminal (Shown), then & < > " ' as
// entities, so a name such as `<img src=x onerror=…>` stays inert text in
// an element, in an attribute value and in the SVG picture alike.
#ifndef HLOSCOPE_REPORT_HTML_TEXT_H_
#define HLOSCOPE_REPORT_HTML_TEXT_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace hloscope {

// & < > " ' as entities (text we wrote ourselves).
std::string HtmlEscape(std::string_view text);
// A string from the input, inert: Shown() then HtmlEscape.
std::string HtmlShown(std::string_view input_text);

// Anchors: "m0-copy-3", "m0-loop-1", "m0-src-2-40" (module 0, file 2, line 40).
enum class AnchorKind { kCopy, kUpdate, kLoop, kParameter };
std::string Anchor(size_t module, AnchorKind kind, size_t index);
std::string SourceAnchor(size_t module, size_t file, int64_t line);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_HTML_TEXT_H_
