// The contract's view of the report's `critical_path` section
// (reports/contract/critical_path_view.h), from report JSON written here by hand: every field read
// with its type, and a missing or mistyped field read as absent, never as an exception.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reports/contract/critical_path_view.h"

namespace ampscope::reports {
namespace critical_path_view_test {
namespace {

using json = nlohmann::json;

json CriticalPath() {
  return json::parse(R"({
    "available": true,
    "breakdown_pct": {"gpu_compute": 97.9, "kernel_launch_delay": 2.1, "sync_wait": 0},
    "breakdown_us": {"gpu_compute": 468500.5, "kernel_launch_delay": 10049.5, "sync_wait": 0},
    "gpu_gap_pct": 1.25,
    "length_us": [95700.0, 95800.5],
    "mean_length_us": 95750.25,
    "steps": [],
    "listed": {"count": 5, "listed": 2, "truncated": true, "rule": "first, last, longest"},
    "replay_error_pct": 0.004,
    "worst_step": 102
  })");
}

TEST(CriticalPathView, ReadsEveryFieldOfAFullSection) {
  const CriticalPathSection s = ReadCriticalPathSection(json{{"critical_path", CriticalPath()}});
  EXPECT_TRUE(s.present);
  EXPECT_TRUE(s.available);
  EXPECT_FALSE(s.reason);
  using Entries = std::vector<std::pair<std::string, double>>;
  EXPECT_EQ(s.breakdown_pct, (Entries{{"gpu_compute", 97.9}, {"kernel_launch_delay", 2.1}, {"sync_wait", 0}}));
  EXPECT_EQ(s.breakdown_us, (Entries{{"gpu_compute", 468500.5}, {"kernel_launch_delay", 10049.5}, {"sync_wait", 0}}));
  EXPECT_EQ(s.gpu_gap_pct, 1.25);
  ASSERT_EQ(s.length_us.size(), 2u);
  EXPECT_EQ(s.length_us[1], 95800.5);
  EXPECT_EQ(s.mean_length_us, 95750.25);
  EXPECT_EQ(s.listed_count, 5);
  EXPECT_EQ(s.replay_error_pct, 0.004);
  EXPECT_EQ(s.worst_step, 102);
}

TEST(CriticalPathView, AMissingOrMistypedFieldIsAbsent) {
  json cp = CriticalPath();
  cp["available"] = 1;                                       // not a boolean: not available
  cp["reason"] = nullptr;
  cp["breakdown_pct"] = {{"gpu_compute", "97.9"}, {"sync_wait", 1.5}};  // only the numbers
  cp["breakdown_us"] = json::array({1, 2});                  // not an object
  cp["length_us"] = {95700.0, "x", nullptr};                 // one per element
  cp["listed"] = 5;                                          // not an object
  cp.erase("worst_step");
  const CriticalPathSection s = ReadCriticalPathSection(json{{"critical_path", cp}});
  EXPECT_TRUE(s.present);
  EXPECT_FALSE(s.available);
  EXPECT_FALSE(s.reason);
  ASSERT_EQ(s.breakdown_pct.size(), 1u);
  EXPECT_EQ(s.breakdown_pct[0].first, "sync_wait");
  EXPECT_TRUE(s.breakdown_us.empty());
  ASSERT_EQ(s.length_us.size(), 3u);
  EXPECT_EQ(s.length_us[0], 95700.0);
  EXPECT_FALSE(s.length_us[1]);
  EXPECT_FALSE(s.length_us[2]);
  EXPECT_FALSE(s.listed_count);
  EXPECT_FALSE(s.worst_step);

  const CriticalPathSection unavailable =
      ReadCriticalPathSection(json{{"critical_path", {{"available", false}, {"reason", "no steps"}}}});
  EXPECT_TRUE(unavailable.present);
  EXPECT_FALSE(unavailable.available);
  EXPECT_EQ(unavailable.reason, "no steps");
  EXPECT_FALSE(ReadCriticalPathSection(json{{"critical_path", "none"}}).present);
  EXPECT_FALSE(ReadCriticalPathSection(json{{"schema", "ampscope.report/1"}}).present);
  EXPECT_FALSE(ReadCriticalPathSection(json(3)).present);
}

}  // namespace
}  // namespace critical_path_view_test
}  // namespace ampscope::reports
