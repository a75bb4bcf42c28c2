#include "hloscope/app/session.h"

#include <fmt/format.h>

#include "hloscope/analysis/collective_traffic.h"
#include "hloscope/parser/dump_naming.h"
#include "hloscope/parser/input_kind.h"
#include "hloscope/support/found_file.h"

namespace hloscope {
namespace {

// The donation the module before optimization asks for: a flag per entry
// parameter of `module` (the optimized one: XLA keeps the entry's
// parameters), set for those in its input_output_alias or buffer_donor
// (what JAX's donate_argnums lowers to). Only its header is read (a module
// before optimization is as large as the optimized one). Nothing when it
// does not read or names a parameter `module` lacks: the request is then
// unknown, which is what the report says without it.
// The module before optimization, its header only (`text`, or the file at
// `path`); nullptr when it does not parse or holds several modules.
std::unique_ptr<HloModule> BeforeOptimizationsHeader(const std::string& path, std::optional<std::string> text,
                                                     const InputOptions& input) {
  ParseOptions parse;
  parse.path = path;
  parse.input = input;
  parse.header_only = true;
  Result<HloModuleGroup> before = text ? ParseHloText(std::move(*text), parse) : ParseHloFile(path, parse);
  if (!before.ok() || before->modules.size() != 1) return nullptr;
  return std::move(before->modules[0]);
}

std::optional<std::vector<bool>> DonationAskedIn(const HloModule& m, const HloModule& module) {
  if (!module.entry_computation()) return std::nullopt;
  std::vector<bool> asked(module.entry_computation()->parameters().size(), false);
  std::vector<int64_t> numbers;
  for (const InputOutputAlias& a : m.input_output_aliases()) numbers.push_back(a.parameter_number);
  for (const BufferDonor& d : m.buffer_donors()) numbers.push_back(d.parameter_number);
  for (int64_t n : numbers) {
    if (n < 0 || static_cast<size_t>(n) >= asked.size()) return std::nullopt;
    asked[static_cast<size_t>(n)] = true;
  }
  return asked;
}

}  // namespace

Result<std::unique_ptr<Session>> Session::Open(SessionRequest request) {
  std::unique_ptr<Session> s(new Session());
  // Files found beside the input that were not read (support/found_file.h).
  std::vector<RefusedFile> refused;
  ParseOptions parse;
  parse.path = request.path.empty() ? "<input>" : request.path;
  parse.input = request.input;
  bool from_text = request.text.has_value();
  Result<HloModuleGroup> group =
      from_text ? ParseHloText(std::move(*request.text), parse) : ParseHloFile(request.path, parse);
  if (!group.ok()) {
    // A foreign format fails on its first line: say what it is instead.
    Diagnostic d = group.error();
    if (d.line == 1)
      if (std::optional<std::string> hint = ForeignInputHint(SniffInputKind(d.line_text))) {
        d.message = *hint;
        d.column = 1;
        d.caret = 1;
      }
    return d;
  }
  s->group_ = std::move(group).value();
  if (request.require_optimized)
    for (const auto& m : s->group_.modules)
      if (!IsOptimizedModule(*m)) {
        return InputDiagnostic(parse.path, UnoptimizedInputMessage(*m));
      }

  if (request.use_buffer_assignment) {
    std::string ba_path = request.buffer_assignment_path;
    if (request.buffer_assignment_text) {
      if (ba_path.empty()) ba_path = "<buffer-assignment>";
      Result<BufferAssignment> ba = ParseBufferAssignment(*request.buffer_assignment_text, ba_path);
      if (!ba.ok()) return ba.error();
      s->ba_ = std::move(ba).value();
    } else {
      bool found_ba = false;
      if (ba_path.empty() && request.find_buffer_assignment && !from_text && request.path != "-")
        if (std::optional<std::string> found = FindBufferAssignmentBeside(request.path, &refused)) {
          ba_path = *found;
          found_ba = true;
        }
      if (!ba_path.empty()) {
        Result<BufferAssignment> ba = ReadBufferAssignmentFile(ba_path, request.input);
        if (!ba.ok())
          return found_ba ? UnquotedFoundFileError(ba.error(), "the buffer assignment found beside the input")
                          : ba.error();
        s->ba_ = std::move(ba).value();
      }
    }
    // A dump describes one module: with several in the input it is not
    // applied (the reports say so).
    if (s->ba_) s->check_options_.buffer_assignment_path = ba_path;
    if (s->ba_ && s->group_.modules.size() == 1) {
      s->applied_path_ = ba_path;
      s->check_options_.buffer_assignment = &*s->ba_;
    } else if (s->ba_) {
      s->notes_.push_back({SessionNote::Kind::kBufferAssignmentNotApplied, ba_path,
                           static_cast<int64_t>(s->group_.modules.size()), ""});
    }
  }
  // XLA:GPU's thunks: like the buffer assignment, one module's.
  std::string thunk_path = request.thunk_metadata_path;
  bool found_thunks = false;
  if (thunk_path.empty() && request.find_thunk_metadata && !from_text && request.path != "-")
    if (std::optional<std::string> found = FindThunkMetadataBeside(request.path, &refused)) {
      thunk_path = *found;
      found_thunks = true;
    }
  if (!thunk_path.empty()) {
    Result<ThunkMetadata> thunks = ReadThunkMetadataFile(thunk_path, request.input);
    if (!thunks.ok())
      return found_thunks ? UnquotedFoundFileError(thunks.error(), "the thunk dump found beside the input")
                          : thunks.error();
    s->thunks_ = std::move(thunks).value();
    if (s->group_.modules.size() == 1) {
      s->check_options_.thunk_metadata = &*s->thunks_;
      s->check_options_.thunk_metadata_path = thunk_path;
    } else {
      s->notes_.push_back({SessionNote::Kind::kThunkMetadataNotApplied, thunk_path,
                           static_cast<int64_t>(s->group_.modules.size()), ""});
    }
  }
  // The module before SPMD partitioning: which sharding asked for each
  // re-shard. Optional: a dump that does not read or fit only says so.
  std::string pre_path = request.pre_partition_path;
  bool given = (!pre_path.empty() && !request.pre_partition_found) || request.pre_partition_text;
  if (!given && request.find_pre_partition && !from_text && request.path != "-")
    if (std::optional<std::string> found = FindPrePartitionBeside(request.path, &refused)) pre_path = *found;
  if (!pre_path.empty()) {
    auto note = [&](std::string detail) {
      s->notes_.push_back({SessionNote::Kind::kPrePartitionNotApplied, pre_path, 0, std::move(detail)});
    };
    ParseOptions pre_parse;
    pre_parse.path = pre_path;
    pre_parse.input = request.input;
    Result<HloModuleGroup> pre = request.pre_partition_text
                                     ? ParseHloText(std::move(*request.pre_partition_text), pre_parse)
                                     : ParseHloFile(pre_path, pre_parse);
    if (!pre.ok()) {
      if (given) return pre.error();
      // Found, not named: where it fails, not what it holds.
      const Diagnostic& d = pre.error();
      note(d.line == 0 ? d.message : fmt::format("it does not read at line {}, column {}", d.line, d.column));
    } else if (pre->modules.size() != 1 || s->group_.modules.size() != 1) {
      note("it and the input must hold one module each");
    } else {
      s->pre_partition_ = std::move(pre).value();
      s->check_options_.pre_partition = s->pre_partition_->modules[0].get();
      s->check_options_.pre_partition_path = pre_path;
    }
  }
  if (request.donation_requested) {
    s->check_options_.donation_requested = request.donation_requested;
    s->check_options_.donation_request_source = "donate_argnums";
  }
  // The module before optimization: given (Python passes its header), or
  // beside the dump. Its header holds the donation asked for and, with
  // Shardy, the user's mesh (analysis/mesh_names.h).
  std::unique_ptr<HloModule> before;
  std::string before_path;
  if (request.before_optimizations_text) {
    before_path = "<before-optimizations>";
    before =
        BeforeOptimizationsHeader(before_path, std::move(request.before_optimizations_text), request.input);
  } else if (request.find_before_optimizations && !from_text && request.path != "-" &&
             s->group_.modules.size() == 1) {
    if (std::optional<std::string> found = FindBeforeOptimizationsBeside(request.path, &refused)) {
      before_path = *found;
      before = BeforeOptimizationsHeader(before_path, std::nullopt, request.input);
    }
  }
  if (before && s->group_.modules.size() == 1) {
    if (!request.donation_requested && request.find_donation_request)
      if (std::optional<std::vector<bool>> asked = DonationAskedIn(*before, *s->group_.modules[0])) {
        s->check_options_.donation_requested = std::move(asked);
        s->check_options_.donation_request_source = before_path;
      }
    s->check_options_.user_mesh = SdyMeshIn(before->attribute("frontend_attributes").value_or(""));
  }
  for (RefusedFile& r : refused)
    s->notes_.push_back({SessionNote::Kind::kFoundFileRefused, std::move(r.path), 0, std::move(r.reason)});
  s->check_options_.source = request.source;
  s->analyses_.resize(s->group_.modules.size());
  return s;
}

std::vector<SessionNote> Session::Notes() const {
  std::vector<SessionNote> out = notes_;
  for (const auto& a : analyses_) {
    if (a && a->check.buffer_assignment_mismatch)
      out.push_back({SessionNote::Kind::kBufferAssignmentForeign, a->check.buffer_assignment_path, 0,
                     *a->check.buffer_assignment_mismatch});
    if (a && !a->check.pre_partition_path.empty() && !a->check.pre_partition_applied)
      out.push_back({SessionNote::Kind::kPrePartitionNotApplied, a->check.pre_partition_path, 0,
                     "it describes another module"});
    // A collective whose replica groups do not decode is left out of the
    // report: say so, with the diagnostic's first line.
    if (a)
      for (const std::string& d : a->check.undecoded)
        out.push_back({SessionNote::Kind::kUndecodedAttribute,
                       "a collective of " + std::string(a->check.module->name()) + " is not counted", 0,
                       d.substr(0, d.find('\n'))});
    if (a && a->check.collectives_past_id_budget > 0)
      out.push_back(
          {SessionNote::Kind::kUndecodedAttribute,
           fmt::format("the replica groups of {} collectives of {} were not read against the mesh",
                       a->check.collectives_past_id_budget, a->check.module->name()),
           0,
           fmt::format("past the budget of {} device ids written out per module; their mesh axes are "
                       "unknown",
                       kModuleDeviceIdBudget)});
  }
  return out;
}

std::vector<const HloModule*> Session::modules() const {
  std::vector<const HloModule*> out;
  for (const auto& m : group_.modules) out.push_back(m.get());
  return out;
}

ModuleAnalysis& Session::Analysis(size_t i) {
  if (!analyses_[i]) analyses_[i] = std::make_unique<ModuleAnalysis>(*group_.modules[i], check_options_);
  return *analyses_[i];
}

std::vector<ModuleAnalysis*> Session::Analyses() {
  std::vector<ModuleAnalysis*> out;
  for (size_t i = 0; i < module_count(); ++i) out.push_back(&Analysis(i));
  return out;
}

std::vector<const ModuleCheck*> Session::Checks() {
  std::vector<const ModuleCheck*> out;
  for (size_t i = 0; i < module_count(); ++i) out.push_back(&Analysis(i).check);
  return out;
}

}  // namespace hloscope
