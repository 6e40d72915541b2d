// What must never change a result, checked on every shared Kineto trace (the whole JSON report
// and the rank summary, byte for byte):
//   - AnalysisOptions::threads, which runs parts of one rank's analysis side by side (the op
//     tree beside the busy intervals and idle gaps, the roofline beside the other analyzers);
//   - ReadOptions::keep_export_only_events = false, which leaves out of the Trace the events
//     only the timeline exporters draw (what `analyze` does when it writes no timeline).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analyzers/analyze.h"
#include "pipeline/job.h"
#include "reports/json_report.h"
#include "reports/summary_json.h"
#include "support/test_support.h"
#include "trace/reader.h"

namespace ampscope {
namespace analysis_invariance_test {
namespace {

struct Outputs {
  std::string report;
  std::string summary;
};

Outputs AnalyseWith(const Trace& trace, int threads) {
  AnalysisOptions options;
  options.threads = threads;
  StatusOr<RankAnalysis> ra = AnalyzeTrace(trace, options);
  EXPECT_TRUE(ra.ok());
  if (!ra.ok()) return {};
  Outputs out;
  out.summary = RankSummaryText(*ra, options);
  std::vector<RankAnalysis> ranks;
  ranks.push_back(std::move(ra).value());
  out.report = BuildJsonReport(BuildJob(std::move(ranks)), options).dump(2);
  return out;
}


TEST(AnalysisInvariance, SameReportWithOneAndTwoThreads) {
  AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=...)");
  for (const std::string& path : testing::SharedKinetoTraceKinds()) {
    SCOPED_TRACE(path);
    StatusOr<Trace> trace = ReadTrace(testing::SharedPath(path));
    ASSERT_TRUE(trace.ok()) << (trace.ok() ? "" : trace.status().message());
    const Outputs one = AnalyseWith(*trace, 1);
    const Outputs two = AnalyseWith(*trace, 2);
    ASSERT_FALSE(one.report.empty());
    EXPECT_EQ(one.report, two.report);
    EXPECT_EQ(one.summary, two.summary);
  }
}

TEST(AnalysisInvariance, SameReportWithoutTheExportOnlyEvents) {
  AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=...)");
  size_t left_out = 0;
  for (const std::string& path : testing::SharedKinetoTraceKinds()) {
    SCOPED_TRACE(path);
    StatusOr<Trace> full = ReadTrace(testing::SharedPath(path));
    ReadOptions lean_options;
    lean_options.keep_export_only_events = false;
    StatusOr<Trace> lean = ReadTrace(testing::SharedPath(path), lean_options);
    ASSERT_TRUE(full.ok() && lean.ok());
    left_out += (full->flows.size() - lean->flows.size()) + (full->other_events.size() - lean->other_events.size());
    const Outputs a = AnalyseWith(*full, 1);
    const Outputs b = AnalyseWith(*lean, 1);
    ASSERT_FALSE(a.report.empty());
    EXPECT_EQ(a.report, b.report);
    EXPECT_EQ(a.summary, b.summary);
  }
  EXPECT_GT(left_out, 0u);  // the shared traces have launch flows and python_function events
}

}  // namespace
}  // namespace analysis_invariance_test
}  // namespace ampscope
