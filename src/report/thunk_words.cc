#include "hloscope/report/thunk_words.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "hloscope/report/enum_names.h"
#include "hloscope/report/wording.h"

namespace hloscope {
namespace {

std::string Plural(int64_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

}  // namespace

std::string ThunkCheckLine(const ThunkCheck& t) {
  if (!t.applied())
    return fmt::format(
        "the thunk dump {} names none of this module's instructions (another module's?): copies not "
        "checked against what XLA:GPU runs",
        Shown(t.path));
  int64_t copies =
      t.copies_as_copy_thunks + t.copies_as_kernels + static_cast<int64_t>(t.copies_not_run.size());
  std::string line = fmt::format("copies checked against the thunks XLA:GPU runs ({}): ", Shown(t.path));
  int64_t run = t.copies_as_copy_thunks + t.copies_as_kernels;
  std::vector<std::string> how;
  if (t.copies_as_copy_thunks)
    how.push_back(t.copies_as_copy_thunks == 1 && run == 1 ? "as a memcpy (kCopy thunk)"
                  : run == t.copies_as_copy_thunks
                      ? "as memcpys (kCopy thunks)"
                      : fmt::format("{} as {}", t.copies_as_copy_thunks,
                                    t.copies_as_copy_thunks == 1 ? "a memcpy (kCopy thunk)"
                                                                 : "memcpys (kCopy thunks)"));
  if (t.copies_as_kernels)
    how.push_back(run == t.copies_as_kernels ? (run == 1 ? "as a kernel" : "as kernels")
                                             : Plural(t.copies_as_kernels, "as a kernel", "as kernels"));
  std::string ways = fmt::format("{}", fmt::join(how, ", "));
  if (t.thunks == 0) return line + "the executable runs no thunks";
  if (copies == 0)
    line += "hloscope lists no copies";
  else if (run == 0)
    line.resize(line.size() - 2);  // only the copies no thunk runs, below
  else if (copies == 1)
    line += "the copy runs " + ways;
  else if (run == copies)
    line += fmt::format("all {} copies run{}{}", copies, how.size() > 1 ? ": " : " ", ways);
  else
    line += fmt::format("{} of {} copies run{}{}", run, copies, how.size() > 1 ? ": " : " ", ways);
  if (!t.copies_not_run.empty()) {
    std::vector<std::string> names;
    for (const HloPosition& p : t.copies_not_run) {
      if (names.size() == 4) {
        names.push_back(fmt::format("+{} more", t.copies_not_run.size() - 4));
        break;
      }
      names.push_back(Shown(p.instruction->name()));
    }
    line += fmt::format("{} no thunk runs {} (XLA does not execute {})", run ? ";" : ":",
                        fmt::join(names, ", "), t.copies_not_run.size() == 1 ? "that copy" : "those copies");
  }
  if (!t.other_copy_thunks.empty()) {
    std::vector<std::string> others;
    constexpr size_t kShown = 4;  // a 500-step unrolled loop runs 500 such memcpys
    for (const ThunkCheck::OtherCopyThunk& o : t.other_copy_thunks) {
      if (others.size() == kShown) {
        others.push_back(fmt::format("+{} more", t.other_copy_thunks.size() - kShown));
        break;
      }
      std::string_view what = o.runs == ThunkCheck::MemcpyOf::kFusedUpdate ? "a fused update"
                              : o.runs == ThunkCheck::MemcpyOf::kSlice     ? "a slice"
                                                                           : "not a copy hloscope lists";
      others.push_back(fmt::format("{} ({})", Shown(o.instruction->name()), what));
    }
    line += fmt::format("; also memcpys (kCopy thunks), not copies: {}", fmt::join(others, ", "));
  }
  return line;
}

Json ThunkCheckJson(const std::optional<ThunkCheck>& t) {
  if (!t) return Json(nullptr);
  Json j;
  j["path"] = t->path;
  j["applied"] = t->applied();
  j["thunks"] = t->thunks;
  j["copy_thunks"] = t->copy_thunks;
  j["unmatched_thunks"] = t->unmatched;
  j["copies_as_copy_thunks"] = t->copies_as_copy_thunks;
  j["copies_as_kernels"] = t->copies_as_kernels;
  j["copies_not_run"] = Json::array();
  for (const HloPosition& p : t->copies_not_run) j["copies_not_run"].push_back(PositionJson(p));
  j["other_copy_thunks"] = Json::array();
  for (const ThunkCheck::OtherCopyThunk& o : t->other_copy_thunks)
    j["other_copy_thunks"].push_back(
        {{"instruction", RefJson(o.instruction)}, {"runs", MemcpyOfName(o.runs)}});
  return j;
}

}  // namespace hloscope
