#include "hloscope/report/enum_names.h"

namespace hloscope {

std::string_view CopyClassName(CopyClass c) {
  switch (c) {
    case CopyClass::kProtective:
      return "protective";
    case CopyClass::kLayoutChange:
      return "layout-change";
    case CopyClass::kMemorySpaceMove:
      return "memory-space-move";
  }
  return "protective";
}

std::string_view CopyKindName(CopyKind kind) {
  switch (kind) {
    case CopyKind::kCopy:
      return "copy";
    case CopyKind::kCopyStart:
      return "copy-start";
    case CopyKind::kCopyFusion:
      return "copy-fusion";
  }
  return "copy";
}

std::string_view UpdateVerdictName(UpdateVerdict v) {
  switch (v) {
    case UpdateVerdict::kInPlace:
      return "in-place";
    case UpdateVerdict::kInPlaceOnCopy:
      return "in-place-on-copy";
    case UpdateVerdict::kOutOfPlace:
      return "out-of-place";
    case UpdateVerdict::kNotMaterialized:
      return "not-materialized";
  }
  return "in-place";
}

std::string_view TripCountSourceName(TripCountSource source) {
  switch (source) {
    case TripCountSource::kKnownTripCount:
      return "known_trip_count";
    case TripCountSource::kInductionVariable:
      return "induction-variable";
    case TripCountSource::kUnknown:
      return "unknown";
  }
  return "unknown";
}

std::string_view SourceViaName(SourceVia via) {
  switch (via) {
    case SourceVia::kMetadata:
      return "metadata";
    case SourceVia::kUpdate:
      return "update";
    case SourceVia::kCopiedValue:
      return "copied value";
    case SourceVia::kLoop:
      return "loop";
  }
  return "metadata";
}

std::string_view DroppedDonationName(DroppedDonation reason) {
  switch (reason) {
    case DroppedDonation::kNoOutputOfShape:
      return "no-output-of-shape";
    case DroppedDonation::kOutputNotAliased:
      return "output-not-aliased";
  }
  return "";
}

std::string_view DonationName(DonationKind kind) {
  switch (kind) {
    case DonationKind::kNotDonated:
      return "";
    case DonationKind::kInputOutputAlias:
      return "input-output-alias";
    case DonationKind::kBufferDonor:
      return "buffer-donor";
  }
  return "";
}

std::string_view ConfirmationBasisName(Confirmation::Basis basis) {
  switch (basis) {
    case Confirmation::Basis::kNoDump:
      return "no-dump";
    case Confirmation::Basis::kNotListed:
      return "not-listed";
    case Confirmation::Basis::kSlicesCompared:
      return "slices-compared";
    case Confirmation::Basis::kOwnSlice:
      return "own-slice";
    case Confirmation::Basis::kReusedDyingOperand:
      return "reused-dying-operand";
    case Confirmation::Basis::kNoBuffer:
      return "no-buffer";
    case Confirmation::Basis::kListed:
      return "listed";
    case Confirmation::Basis::kOutputNotListed:
      return "output-not-listed";
  }
  return "no-dump";
}

std::string_view FeedKindName(CopyFeed::Kind kind) {
  return kind == CopyFeed::Kind::kUpdate ? "update" : "loop-state";
}

std::string_view ScalingKindName(LoopScaling::Kind kind) {
  switch (kind) {
    case LoopScaling::Kind::kCopy:
      return "copy";
    case LoopScaling::Kind::kCarryRewritten:
      return "carry-rewrite";
    case LoopScaling::Kind::kCollective:
      return "collective";
    case LoopScaling::Kind::kWholeRead:
      return "whole-read";
  }
  return "copy";
}

std::string_view ComputationRoleName(ComputationRole role) {
  switch (role) {
    case ComputationRole::kEntry:
      return "entry";
    case ComputationRole::kFused:
      return "fused";
    case ComputationRole::kWhileBody:
      return "while body";
    case ComputationRole::kWhileCondition:
      return "while condition";
    case ComputationRole::kBranch:
      return "branch";
    case ComputationRole::kCall:
      return "call";
    case ComputationRole::kAsync:
      return "async";
    case ComputationRole::kEmbedded:
      return "reducer";
    case ComputationRole::kCustomCall:
      return "custom-call";
    case ComputationRole::kUnreachable:
      return "unreachable";
  }
  return "unknown";
}

std::string_view ViolationKindName(Violation::Kind kind) {
  switch (kind) {
    case Violation::Kind::kCopyInLoop:
      return "copy-in-loop";
    case Violation::Kind::kUpdateNotInPlace:
      return "update-not-in-place";
    case Violation::Kind::kFullRewrite:
      return "full-rewrite";
    case Violation::Kind::kUndonatedCopy:
      return "undonated-copy";
    case Violation::Kind::kContradiction:
      return "contradiction";
    case Violation::Kind::kReshardInLoop:
      return "reshard-in-loop";
    case Violation::Kind::kCopyBytes:
      return "copy-bytes";
    case Violation::Kind::kCopyCount:
      return "copy-count";
    case Violation::Kind::kCopiesInLoops:
      return "copies-in-loops";
    case Violation::Kind::kCopyBytesInLoops:
      return "copy-bytes-in-loops";
    case Violation::Kind::kPeakBytes:
      return "peak-bytes";
    case Violation::Kind::kNothingSelected:
      return "nothing-selected";
    case Violation::Kind::kAmbiguousName:
      return "ambiguous-name";
    case Violation::Kind::kNewCopy:
      return "new-copy";
    case Violation::Kind::kNewNotInPlace:
      return "new-not-in-place";
    case Violation::Kind::kMoreBytesPerIteration:
      return "more-bytes-per-iteration";
    case Violation::Kind::kMorePeakBytes:
      return "more-peak-bytes";
  }
  return "copy-in-loop";
}

std::string_view FusionKindText(const HloInstruction& fusion) {
  if (fusion.opcode() != HloOpcode::kFusion) return fusion.opcode_text();
  switch (fusion.fusion_kind()) {
    case FusionKind::kLoop:
      return "kLoop";
    case FusionKind::kInput:
      return "kInput";
    case FusionKind::kOutput:
      return "kOutput";
    case FusionKind::kCustom:
      return "kCustom";
    case FusionKind::kNone:
      return "";
    case FusionKind::kOther:
      break;
  }
  if (std::optional<std::string_view> k = fusion.attribute("kind")) return *k;
  return "";
}

std::string_view MemcpyOfName(ThunkCheck::MemcpyOf m) {
  switch (m) {
    case ThunkCheck::MemcpyOf::kFusedUpdate:
      return "fused-update";
    case ThunkCheck::MemcpyOf::kSlice:
      return "slice";
    case ThunkCheck::MemcpyOf::kOther:
      return "other";
  }
  return "other";
}

std::string_view AllocationRoleName(AllocationRole role) {
  switch (role) {
    case AllocationRole::kArgument:
      return "argument";
    case AllocationRole::kDonatedArgument:
      return "donated-argument";
    case AllocationRole::kOutput:
      return "output";
    case AllocationRole::kTemporary:
      return "temporaries";
    case AllocationRole::kConstant:
      return "constant";
    case AllocationRole::kThreadLocal:
      return "thread-local";
    case AllocationRole::kOther:
      return "other";
  }
  return "";
}

std::string_view ArgumentMemoryName(ArgumentMemory memory) {
  switch (memory) {
    case ArgumentMemory::kDonatedReused:
      return "donated-reused";
    case ArgumentMemory::kDonatedNotReused:
      return "donated-not-reused";
    case ArgumentMemory::kDonorOnly:
      return "donor-only";
    case ArgumentMemory::kKept:
      return "kept";
    case ArgumentMemory::kKeptAndCopied:
      return "kept-and-copied";
  }
  return "";
}

std::string_view LiveValueKindName(LiveValueKind kind) {
  switch (kind) {
    case LiveValueKind::kTemporary:
      return "temporary";
    case LiveValueKind::kCopy:
      return "copy";
    case LiveValueKind::kLoopCarry:
      return "loop-carry";
    case LiveValueKind::kLoopUpdate:
      return "loop-update";
  }
  return "";
}

}  // namespace hloscope
