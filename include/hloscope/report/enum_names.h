// The spellings of the analysis's closed sets: one name per value, the
// same in text and JSON (docs/json-format.md lists them).
#ifndef HLOSCOPE_REPORT_ENUM_NAMES_H_
#define HLOSCOPE_REPORT_ENUM_NAMES_H_

#include <string_view>

#include "hloscope/analysis/call_graph.h"
#include "hloscope/analysis/findings.h"
#include "hloscope/analysis/memory_usage.h"
#include "hloscope/analysis/policy.h"

namespace hloscope {

// CopyCauseName and CauseRuleName: analysis/cause_catalog.h (the catalog's rows).
std::string_view CopyClassName(CopyClass c);
std::string_view CopyKindName(CopyKind kind);
std::string_view UpdateVerdictName(UpdateVerdict v);
std::string_view TripCountSourceName(TripCountSource source);
std::string_view SourceViaName(SourceVia via);
std::string_view DonationName(DonationKind kind);              // "" for kNotDonated
std::string_view DroppedDonationName(DroppedDonation reason);  // "no-output-of-shape", …
std::string_view ConfirmationBasisName(Confirmation::Basis basis);
std::string_view FeedKindName(CopyFeed::Kind kind);
std::string_view ScalingKindName(LoopScaling::Kind kind);
std::string_view ComputationRoleName(ComputationRole role);
std::string_view ViolationKindName(Violation::Kind kind);
std::string_view AllocationRoleName(AllocationRole role);
std::string_view ArgumentMemoryName(ArgumentMemory memory);
std::string_view LiveValueKindName(LiveValueKind kind);
// What a kCopy thunk that is no listed copy runs: fused-update, slice, other.
std::string_view MemcpyOfName(ThunkCheck::MemcpyOf m);
// A kernel's kind: a fusion's "kLoop", "kInput", "kOutput", "kCustom" (or
// the kind as written); an unfused kernel's opcode ("dot", "sort").
std::string_view FusionKindText(const HloInstruction& kernel);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_ENUM_NAMES_H_
