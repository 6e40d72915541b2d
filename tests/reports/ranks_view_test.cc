// The contract's view of a job report's ranks and job imbalance (reports/contract/ranks_view.h),
// from report JSON written here by hand: every field read with its type, and a missing or
// mistyped field read as absent, never as an exception.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reports/contract/ranks_view.h"

namespace ampscope::reports {
namespace ranks_view_test {
namespace {

using json = nlohmann::json;

TEST(RanksView, ReadsEveryFieldOfAJobReport) {
  const json report = json::parse(R"({
    "ranks": [{"rank": 3, "input": "/runs/w3.json.gz", "device": "NVIDIA A100-SXM4-80GB",
               "steps": {"count": 6, "time_us": {"mean": 95700.5, "p90": 99000.25}},
               "gpu": {"busy_pct": 88.5, "kernel_busy_pct": 80.25, "idle_breakdown_pct": {"host_wait": 7.5}},
               "tensor_cores": {"kernel_time_pct": 61.0}},
              {"rank": 4}],
    "job": {"imbalance": {"definition": "max / mean", "step_time": 1.02, "compute": 1.5, "communication": null},
            "warnings": ["two inputs name rank 4", 7]}
  })");
  const RanksView v = ReadRanksView(report);
  ASSERT_EQ(v.ranks.size(), 2u);
  const RankRow& r = v.ranks[0];
  EXPECT_EQ(r.rank, 3);
  EXPECT_EQ(r.input, "/runs/w3.json.gz");
  EXPECT_EQ(r.device, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(r.steps, 6);
  EXPECT_EQ(r.step_time_mean_us, 95700.5);
  EXPECT_EQ(r.step_time_p90_us, 99000.25);
  EXPECT_EQ(r.gpu_busy_pct, 88.5);
  EXPECT_EQ(r.gpu_kernel_busy_pct, 80.25);
  EXPECT_EQ(r.gpu_idle_host_wait_pct, 7.5);
  EXPECT_EQ(r.tensor_core_kernel_time_pct, 61.0);
  EXPECT_EQ(v.ranks[1].rank, 4);
  EXPECT_FALSE(v.ranks[1].step_time_mean_us);
  ASSERT_TRUE(v.imbalance);
  EXPECT_EQ(v.imbalance->step_time, 1.02);
  EXPECT_EQ(v.imbalance->compute, 1.5);
  EXPECT_FALSE(v.imbalance->communication);  // null
  EXPECT_EQ(v.warnings, std::vector<std::string>{"two inputs name rank 4"});  // strings only
}

TEST(RanksView, AMissingOrMistypedFieldIsAbsent) {
  const json report = json::parse(R"({
    "ranks": [{"rank": "3", "input": 5, "steps": [], "gpu": {"busy_pct": "88"}}, "rank 4"],
    "job": {"imbalance": [1.02], "warnings": "one string, not a list"}
  })");
  const RanksView v = ReadRanksView(report);
  ASSERT_EQ(v.ranks.size(), 2u);  // one per element; a non-object one all absent
  for (const RankRow& r : v.ranks) {
    EXPECT_FALSE(r.rank);
    EXPECT_EQ(r.input, "");
    EXPECT_EQ(r.device, "");
    EXPECT_FALSE(r.steps);
    EXPECT_FALSE(r.gpu_busy_pct);
  }
  EXPECT_FALSE(v.imbalance);
  EXPECT_TRUE(v.warnings.empty());
  EXPECT_TRUE(ReadRanksView(json{{"ranks", {{"rank", 1}}}}).ranks.empty());  // an object, not a list
  EXPECT_TRUE(ReadRanksView(json::array()).ranks.empty());
  EXPECT_FALSE(ReadRanksView(json{{"job", nullptr}}).imbalance);
}

}  // namespace
}  // namespace ranks_view_test
}  // namespace ampscope::reports
