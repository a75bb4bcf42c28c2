// Reading a profiler trace: the Chrome trace JSON jax.profiler writes.
#include "hloscope/parser/profile_trace.h"

#include <gtest/gtest.h>

namespace hloscope {
namespace {

TEST(ProfileTrace, SumsEachOpsEvents) {
  auto t = ParseProfileTrace(R"({"displayTimeUnit": "ns", "traceEvents": [
    {"ph": "X", "name": "fusion.1", "dur": 10.0, "args": {"hlo_op": "fusion.1", "hlo_module": "jit_f"}},
    {"ph": "X", "name": "fusion.1", "dur": 30.0, "args": {"hlo_op": "fusion.1", "hlo_module": "jit_f"}},
    {"ph": "X", "name": "dot.2", "dur": 5, "args": {"hlo_op": "dot.2", "hlo_module": "jit_f"}},
    {"ph": "X", "name": "$api.py:12 block_until_ready", "dur": 100},
    {"ph": "i", "name": "marker"},
    {"ph": "X", "name": "fusion.1", "dur": 7, "args": {"hlo_op": "fusion.1", "hlo_module": "jit_g"}}
  ]})",
                             "t.json");
  ASSERT_TRUE(t.ok()) << t.error().Format();
  EXPECT_EQ(t->events, 5);
  EXPECT_EQ(t->events_without_op, 1);
  const TracedOp* f = t->Find("jit_f", "fusion.1");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->events, 2);
  EXPECT_NEAR(f->total_seconds, 40e-6, 1e-12);
  EXPECT_NE(t->Find("jit_g", "fusion.1"), nullptr);
  EXPECT_EQ(t->Find("jit_f", "fusion.9"), nullptr);
  EXPECT_TRUE(t->HasModule("jit_f"));
  EXPECT_FALSE(t->HasModule("jit_h"));
}

TEST(ProfileTrace, RejectsWhatIsNoTrace) {
  auto not_json = ParseProfileTrace("{", "t.json");
  ASSERT_FALSE(not_json.ok());
  EXPECT_EQ(not_json.error().Format(), "t.json: error: not a trace: the file is not JSON\n");
  auto no_events = ParseProfileTrace(R"({"events": []})", "t.json");
  ASSERT_FALSE(no_events.ok());
  EXPECT_NE(no_events.error().message.find("no \"traceEvents\" array"), std::string::npos);
  // Events of the wrong types are skipped, never a crash.
  auto odd = ParseProfileTrace(R"({"traceEvents": [1, "x", {"ph": "X", "dur": "long"},
      {"ph": "X", "dur": -5, "args": {"hlo_op": 3}}, {"ph": "X", "dur": 1e300, "args": {"hlo_op": "a"}}]})",
                               "t.json");
  ASSERT_TRUE(odd.ok());
  ASSERT_EQ(odd->ops.size(), 1u);
  EXPECT_EQ(odd->ops[0].total_seconds, 0);  // an absurd duration is not time
}

}  // namespace
}  // namespace hloscope
