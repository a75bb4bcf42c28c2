// The sentences about one collective: why it is there (from the template of
// its rule's row in the catalog, analysis/cause_catalog.def), the fix where
// one is proven, and the group it runs over.
#ifndef HLOSCOPE_REPORT_COLLECTIVE_WORDS_H_
#define HLOSCOPE_REPORT_COLLECTIVE_WORDS_H_

#include <string>

#include "hloscope/analysis/findings.h"
#include "hloscope/report/wording_template.h"

namespace hloscope {

std::string CollectiveCauseDetail(const CollectiveFinding& collective);
// "before partitioning, add.0 (f.py:8) is split 1×8 and its operand b.0
// (argument 1) is split 8×1": the re-shard the module before SPMD
// partitioning shows (analysis/reshard_origin.h).
std::string CollectiveOriginText(const CollectiveCauseFacts::Origin& origin);
std::string CollectiveCauseHint(const CollectiveFinding& collective);
WordArgs CollectiveWords(const CollectiveFinding& collective);
// "4 devices (mesh axis 'x')", "2 groups of 4", "every device".
std::string CollectiveGroupText(const CollectiveFinding& collective);
// "all-gather.7 all-gather f32[4096,64] 1.0 MiB × 32 = 32.0 MiB per device per call".
std::string CollectiveSummaryLine(const CollectiveFinding& collective);
// Under an update a gather serves: "all-gather.7 gathers the whole
// f32[4096,64] first: 768.0 KiB per device × 32 = 24.0 MiB per call".
std::string GatheredByText(const CollectiveFinding& collective);
// "sharded 2×4 of global f32[1024,512] (2.0 MiB): {devices=[2,4]<=[8]}".
std::string ParameterShardingText(const ParameterFinding& parameter);
// The module's layout: "8 devices (num_partitions=8), mesh 'a'=2 'b'=4"; "" for one device.
std::string SpmdText(const SpmdFacts& spmd);

}  // namespace hloscope

#endif  // HLOSCOPE_REPORT_COLLECTIVE_WORDS_H_
