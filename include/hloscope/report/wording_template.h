// The catalog's wording templates (analysis/cause_catalog.def) filled in.
//
//   {name}        the value `name` (a missing one reads "?")
//   {?flag:A|B}   A when `flag` holds, else B; "|B" may be left out; they nest
//
// Templates are data in the catalog; the values and flags come from the
// words of a rule family (report/cause_words.cc), so a sentence is written
// once, in its row.
#ifndef HLOSCOPE_REPORT_WORDING_TEMPLATE_H_
#define HLOSCOPE_REPORT_WORDING_TEMPLATE_H_

#include <map>
#include <set>
#include <string>
#include <string_view>

namespace hloscope {

struct WordArgs {
  std::map<std::string, std::string, std::less<>> values;
  std::set<std::string, std::less<>> flags;  // the flags that hold

  WordArgs& Set(std::string name, std::string value) {
    values[std::move(name)] = std::move(value);
    return *this;
  }
  WordArgs& Flag(std::string name, bool holds) {
    if (holds) flags.insert(std::move(name));
    return *this;
  }
};

std::string FillTemplate(std::string_view text, const WordArgs& args);
// The template for a reader (docs, `hloscope rules`): values as <name>,
// conditions spelled out: "A (if flag; otherwise: B)".
std::string DescribeTemplate(std::string_view text);

// The names and flags a template uses (for the catalog test: every name a
// row uses is one its family's words supply).
struct TemplateNames {
  std::set<std::string> values, flags;
};
TemplateNames NamesIn(std::string_view text);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_WORDING_TEMPLATE_H_
