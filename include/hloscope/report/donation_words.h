// Donation as the program asked for it against what XLA kept, in words
// (ParameterFinding::request): the reason a donation was dropped and the fix.
#ifndef HLOSCOPE_REPORT_DONATION_WORDS_H_
#define HLOSCOPE_REPORT_DONATION_WORDS_H_

#include <string>

#include "hloscope/analysis/findings.h"

namespace hloscope {

// "donated" / "dropped" / "not donated": the PARAMETERS column.
std::string DonationColumn(const ParameterFinding& parameter);
// For a requested donation XLA dropped: "no output has its per-device shape
// and dtype f32[128,256] (outputs: f32[1024,256]); XLA reuses a donated
// buffer only for such an output"; "" otherwise.
std::string DroppedDonationReason(const ModuleCheck& module, const ParameterFinding& parameter);
// The fix for that reason; "" when nothing was dropped.
std::string DroppedDonationFix(const ParameterFinding& parameter);
// The reason for several dropped donations of one kind at once (their
// shapes listed once).
std::string DroppedDonationsReason(const ModuleCheck& module,
                                   const std::vector<const ParameterFinding*>& group);
// The headline's "x (argument 0), 128.0 KiB, was donated, but XLA could
// not reuse it"; "" when no donation was dropped.
std::string DroppedDonationsLine(const ModuleCheck& module);
// A kept donation: "its memory is reused for output {1}"; "" when the
// argument is aliased with no output.
std::string AliasedOutputsText(const ParameterFinding& parameter);
// An argument copied only because it is not donated: "donating it would
// save 1.0 MiB moved per call: …"; "" otherwise.
std::string DonationSavesText(const ModuleCheck& module, const ParameterFinding& parameter);
// Where the request was read: "JAX's donate_argnums", "the module before
// optimization (PATH)".
std::string DonationRequestSourceText(const ModuleCheck& module);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_DONATION_WORDS_H_
