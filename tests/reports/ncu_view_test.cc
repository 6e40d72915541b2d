// The contract's view of the report's `ncu` section (reports/contract/ncu_view.h), from report
// JSON written here by hand: every field read with its type, a missing or mistyped field read as
// absent (never an exception), and the launch metrics' keys spelled as the writer spells them.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reports/contract/ncu_view.h"
#include "trace/formats/ncu/ncu_model.h"

namespace ampscope::reports {
namespace ncu_view_test {
namespace {

using json = nlohmann::json;

json Ncu() {
  return json::parse(R"({
    "source": "Nsight Compute", "mode": "joined", "weighting": "trace kernel time",
    "file": "run.ncu.csv", "files": ["a.csv", "b.csv"], "shape": "long",
    "join": {"launches": 3, "trace_kernels": 120, "trace_kernels_matched": 40, "kernel_time_covered_pct": 61.5},
    "kernels": [{"name": "ampere_sgemm_128x64_nn", "bound": "compute", "weight_us": 812.5,
                 "sm_throughput_pct": 91.2, "memory_throughput_pct": 40.1, "dram_throughput_pct": 22.4,
                 "l2_hit_rate_pct": 78.0, "achieved_occupancy_pct": 31.9,
                 "stall_reasons": [{"reason": "math_pipe_throttle", "share_pct": 35.0}, {"reason": "wait", "share_pct": 20.0}]}],
    "counters": [{"name": "SM Active", "field": "sm_active_pct", "samples": 1200, "mean": 87.5}]
  })");
}

TEST(NcuView, ReadsEveryFieldOfAFullSection) {
  const json report = {{"ncu", Ncu()}};
  const NcuView v = ReadNcuView(report).value();
  EXPECT_EQ(v.source, "Nsight Compute");
  EXPECT_EQ(v.mode, "joined");
  EXPECT_EQ(NcuMode(report), "joined");
  EXPECT_EQ(v.weighting, "trace kernel time");
  EXPECT_EQ(v.file, "run.ncu.csv");
  EXPECT_EQ(v.files, 2u);
  EXPECT_EQ(v.shape, "long");
  EXPECT_EQ(v.join.trace_kernels, 120);
  EXPECT_EQ(v.join.trace_kernels_matched, 40);
  EXPECT_EQ(v.join.kernel_time_covered_pct, 61.5);
  ASSERT_EQ(v.kernels.size(), 1u);
  const NcuKernel& k = v.kernels[0];
  EXPECT_EQ(k.name, "ampere_sgemm_128x64_nn");
  EXPECT_EQ(k.bound, "compute");
  EXPECT_EQ(k.weight_us, 812.5);
  EXPECT_EQ(k.sm_throughput_pct, 91.2);
  EXPECT_EQ(k.memory_throughput_pct, 40.1);
  EXPECT_EQ(k.dram_throughput_pct, 22.4);
  EXPECT_EQ(k.l2_hit_rate_pct, 78.0);
  EXPECT_EQ(k.achieved_occupancy_pct, 31.9);
  ASSERT_EQ(k.stall_reasons.size(), 2u);
  EXPECT_EQ(k.stall_reasons[0].reason, "math_pipe_throttle");
  EXPECT_EQ(k.stall_reasons[0].share_pct, 35.0);
  ASSERT_EQ(v.counters.size(), 1u);
  EXPECT_EQ(v.counters[0].name, "SM Active");
  EXPECT_EQ(v.counters[0].field, "sm_active_pct");
  EXPECT_EQ(v.counters[0].samples, 1200);
  EXPECT_EQ(v.counters[0].mean, 87.5);
}

TEST(NcuView, AMissingOrMistypedFieldIsAbsent) {
  json n = Ncu();
  n.erase("source");
  n["mode"] = 2;
  n["files"] = "a.csv";                      // not a list
  n["join"] = nullptr;                       // an Nsight Compute CSV analysed alone
  n["kernels"] = {{{"weight_us", "812"}, {"stall_reasons", {{"reason", "wait"}}}}, 3};
  n["counters"] = {{"name", "SM Active"}};  // an object, not a list
  const NcuView v = ReadNcuView(json{{"ncu", n}}).value();
  EXPECT_EQ(v.source, "");
  EXPECT_EQ(v.mode, "");
  EXPECT_FALSE(v.files);
  EXPECT_FALSE(v.join.trace_kernels);
  ASSERT_EQ(v.kernels.size(), 2u);  // one per element, a non-object one all absent
  EXPECT_FALSE(v.kernels[0].weight_us);
  EXPECT_TRUE(v.kernels[0].stall_reasons.empty());
  EXPECT_EQ(v.kernels[1].name, "");
  EXPECT_TRUE(v.counters.empty());

  EXPECT_FALSE(ReadNcuView(json{{"schema", "ampscope.report/1"}}));
  EXPECT_FALSE(ReadNcuView(json{{"ncu", nullptr}}));
  EXPECT_EQ(NcuMode(json{{"ncu", "alone"}}), "");
  EXPECT_EQ(NcuMode(json::array()), "");
}

TEST(NcuView, LaunchMetricKeysAreTheWritersFieldNames) {
  // The writer (reports/ncu_json.cc) names a launch's metrics by NcuFieldName.
  EXPECT_STREQ(NcuFieldName(NcuField::kSmThroughputPct), ncu_key::kSmThroughputPct);
  EXPECT_STREQ(NcuFieldName(NcuField::kMemoryThroughputPct), ncu_key::kMemoryThroughputPct);
  EXPECT_STREQ(NcuFieldName(NcuField::kDramThroughputPct), ncu_key::kDramThroughputPct);
  EXPECT_STREQ(NcuFieldName(NcuField::kL2HitRatePct), ncu_key::kL2HitRatePct);
  EXPECT_STREQ(NcuFieldName(NcuField::kAchievedOccupancyPct), ncu_key::kAchievedOccupancyPct);
}

}  // namespace
}  // namespace ncu_view_test
}  // namespace ampscope::reports
