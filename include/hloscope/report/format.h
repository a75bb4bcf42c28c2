// Output formats shared by the renderers.
#ifndef HLOSCOPE_REPORT_FORMAT_H_
#define HLOSCOPE_REPORT_FORMAT_H_

namespace hloscope {

enum class OutputFormat { kText, kJson, kSarif };  // SARIF: check only

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_FORMAT_H_
