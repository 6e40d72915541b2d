// The contract's view of the report's `steps` section (reports/contract/steps_view.h), from report
// JSON written here by hand: every field read with its type, and a missing or mistyped field read
// as absent, never as an exception.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reports/contract/steps_view.h"

namespace ampscope::reports {
namespace steps_view_test {
namespace {

using json = nlohmann::json;

TEST(StepsView, ReadsEveryFieldOfAFullSection) {
  const json report = json::parse(R"({"steps": {"count": 3, "listed": {"count": 3, "listed": 2, "truncated": true},
    "source": "profiler_step", "time_us": {"mean": 1500.5, "median": 1400, "p90": 2000, "min": 1000, "max": 2100},
    "durations_us": [1000, 1400, 2100], "anchor": "forward",
    "windows": [{"number": 4, "name": "ProfilerStep#4", "start_us": 10.5, "end_us": 1010.5, "cpu_end_us": 900}],
    "flagged": [{"number": 1, "kind": "warmup", "excluded": true, "duration_us": 9000, "reason": "slow"}],
    "per_step": [{"number": 4, "start_us": 10.5, "end_us": 1010.5, "duration_us": 1000, "busy_pct": 80.5,
      "kernel_busy_pct": 70.25, "tensor_core_kernel_pct": 12.5, "kernels": 40, "syncs": 1}]}})");
  const StepsView v = ReadStepsView(report);
  EXPECT_EQ(v.count, 3);
  EXPECT_TRUE(v.listed_truncated);
  EXPECT_EQ(v.source, "profiler_step");
  EXPECT_EQ(v.mean_us, 1500.5);
  EXPECT_EQ(v.median_us, 1400);
  EXPECT_EQ(v.p90_us, 2000);
  EXPECT_EQ(v.durations_us, (std::vector<std::optional<double>>{1000, 1400, 2100}));
  EXPECT_EQ(v.anchor, "forward");
  ASSERT_EQ(v.windows.size(), 1u);
  EXPECT_EQ(v.windows[0].number, 4);
  EXPECT_TRUE(v.windows[0].number_is_integer);
  EXPECT_EQ(v.windows[0].start_us, 10.5);
  EXPECT_EQ(v.windows[0].end_us, 1010.5);
  ASSERT_EQ(v.flagged.size(), 1u);
  EXPECT_EQ(v.flagged[0].kind, "warmup");
  EXPECT_TRUE(v.flagged[0].excluded);
  ASSERT_EQ(v.per_step.size(), 1u);
  const StepView& s = v.per_step[0];
  EXPECT_EQ(s.duration_us, 1000);
  EXPECT_EQ(s.busy_pct, 80.5);
  EXPECT_EQ(s.kernel_busy_pct, 70.25);
  EXPECT_EQ(s.tensor_core_kernel_pct, 12.5);
}

TEST(StepsView, AMissingOrMistypedFieldIsAbsent) {
  const json report = json::parse(R"({"steps": {"count": "3", "listed": {"truncated": "yes"}, "source": null,
    "time_us": {"mean": null, "median": "1", "p90": []}, "durations_us": [1000, "x", null], "anchor": null,
    "windows": [{"number": 4.5, "start_us": "10"}, 7], "flagged": ["warmup", {"kind": 1, "excluded": "true"}],
    "per_step": {"number": 4}}})");
  const StepsView v = ReadStepsView(report);
  EXPECT_FALSE(v.count);
  EXPECT_FALSE(v.listed_truncated);
  EXPECT_FALSE(v.source);
  EXPECT_FALSE(v.mean_us);
  EXPECT_FALSE(v.median_us);
  EXPECT_FALSE(v.p90_us);
  EXPECT_EQ(v.durations_us, (std::vector<std::optional<double>>{1000, std::nullopt, std::nullopt}));  // one per element
  EXPECT_EQ(v.anchor, "");
  ASSERT_EQ(v.windows.size(), 2u);  // one per element; a non-object reads as all absent
  EXPECT_EQ(v.windows[0].number, 4.5);
  EXPECT_FALSE(v.windows[0].number_is_integer);
  EXPECT_FALSE(v.windows[0].start_us);
  EXPECT_FALSE(v.windows[1].number);
  ASSERT_EQ(v.flagged.size(), 1u);  // the objects only
  EXPECT_EQ(v.flagged[0].kind, "");
  EXPECT_FALSE(v.flagged[0].excluded);
  EXPECT_TRUE(v.per_step.empty());  // an object, not a list
  const StepsView none = ReadStepsView(json::array());
  EXPECT_FALSE(none.count);
  EXPECT_TRUE(none.windows.empty());
  EXPECT_TRUE(none.durations_us.empty());
}

}  // namespace
}  // namespace steps_view_test
}  // namespace ampscope::reports
