#include "hloscope/report/growth_words.h"

#include <fmt/format.h>

#include "hloscope/report/wording.h"
#include "hloscope/support/human_bytes.h"
#include "hloscope/support/saturating.h"

namespace hloscope {

namespace {

// A loop's entries that grow with its buffer: the largest (bytes per
// iteration), how many, and what they move per iteration and per call.
struct GrowingEntries {
  const LoopScaling* top = nullptr;
  std::optional<int64_t> per_call = 0;
  int64_t per_iteration = 0;
  size_t entries = 0;
};

GrowingEntries GrowingEntriesOf(const LoopFinding& l) {
  GrowingEntries g;
  // Ranked by bytes per iteration: every entry runs once per iteration (a
  // data-dependent while has no per-call figure).
  std::optional<int64_t> runs = SatMul(l.executions.value_or(1), l.trip_count);
  for (const LoopScaling& s : l.scaling) {
    if (!s.grows_with_buffer) continue;
    ++g.entries;
    g.per_call = SatAdd(g.per_call, SatMul(s.bytes, runs));
    g.per_iteration = SatAdd(g.per_iteration, s.bytes.value_or(0));
    if (!g.top || s.bytes.value_or(-1) > g.top->bytes.value_or(-1)) g.top = &s;
  }
  return g;
}

std::string DescribeLoopGrowth(const LoopFinding& l, const GrowingEntries& g, bool with_loop) {
  std::string more = g.entries > 1 ? fmt::format(" (and {} more growing with it)", g.entries - 1) : "";
  std::string where = SourceText(l.source);
  std::string in =
      with_loop ? fmt::format(", in {}{}", l.loop->name(), where.empty() ? "" : " at " + where) : "";
  std::string per_call =
      g.per_call ? fmt::format(", {} per call{}", HumanBytes(g.per_call), g.entries > 1 ? " together" : "")
                 : "";
  return ScalingText(*g.top, l) + more + in + per_call;
}

}  // namespace

std::string LoopGrowthText(const LoopFinding& l) {
  GrowingEntries g = GrowingEntriesOf(l);
  return g.top ? DescribeLoopGrowth(l, g, false) : "";
}

std::string GrowthLine(const ModuleCheck& m) {
  // The loop whose growing entries move the most per call together (per
  // iteration where a trip count is unknown).
  const LoopFinding* loop = nullptr;
  GrowingEntries top;
  auto weight = [](const GrowingEntries& g) { return g.per_call.value_or(g.per_iteration); };
  for (const LoopFinding& l : m.loops) {
    if (!l.scales_with_buffer) continue;
    GrowingEntries g = GrowingEntriesOf(l);
    if (g.top && (!top.top || weight(g) > weight(top))) {
      loop = &l;
      top = g;
    }
  }
  if (!top.top) return "";
  const char* why = "";
  switch (top.top->kind) {
    case LoopScaling::Kind::kCopy:
      why = "the buffer is copied whole every iteration (the copy's cause and fix are listed with it)";
      break;
    case LoopScaling::Kind::kCarryRewritten:
      why =
          "the loop writes the whole buffer every iteration where it changes a part (a `jnp.where` or a "
          "one-hot product over it, or an update XLA could not do in place); `buf.at[i].set(...)` (or "
          "`.add`) writes only the part";
      break;
    case LoopScaling::Kind::kWholeRead:
      if (top.top->slice) {
        why =
            "the op reads every row the loop writes, written or not yet, every iteration (attention over "
            "a whole layer of a stacked cache): inherent to the op as written; reading only the filled "
            "rows or a fixed window bounds it";
        break;
      }
      why =
          "the op reads the whole buffer every iteration (attention over a whole cache, a reduction or "
          "sort over all of it): inherent to the op as written; reading only the filled part or a fixed "
          "window bounds it";
      break;
    case LoopScaling::Kind::kCollective:
      why = "the buffer crosses devices whole every iteration (the collective's cause is listed with it)";
      break;
  }
  return fmt::format("{} — {}", DescribeLoopGrowth(*loop, top, true), why);
}

}  // namespace hloscope
