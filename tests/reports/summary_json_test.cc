// Rank summaries: merge(summaries) builds the same report as analysing the files together,
// field by field, and a bad summary is refused with its path.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "analyzers/analyze.h"
#include "reports/json_report.h"
#include "reports/summary_json.h"
#include "support/test_support.h"
#include "trace/reader.h"

namespace ampscope {
namespace {

using nlohmann::json;
using ampscope::testing::HaveShared;
using ampscope::testing::SharedPath;

// Every difference between two JSON values, as "path: a != b" lines.
void Diff(const json& a, const json& b, const std::string& path, std::vector<std::string>& out) {
  if (a.type() != b.type()) {
    out.push_back(path + ": " + a.dump() + " != " + b.dump());
    return;
  }
  if (a.is_object()) {
    for (auto it = a.begin(); it != a.end(); ++it) {
      if (!b.contains(it.key())) out.push_back(path + "/" + it.key() + ": missing from the merged report");
      else Diff(it.value(), b[it.key()], path + "/" + it.key(), out);
    }
    for (auto it = b.begin(); it != b.end(); ++it)
      if (!a.contains(it.key())) out.push_back(path + "/" + it.key() + ": only in the merged report");
  } else if (a.is_array()) {
    if (a.size() != b.size()) out.push_back(path + ": " + std::to_string(a.size()) + " != " + std::to_string(b.size()) + " items");
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) Diff(a[i], b[i], path + "/" + std::to_string(i), out);
  } else if (a != b) {
    out.push_back(path + ": " + a.dump() + " != " + b.dump());
  }
}

std::vector<Trace> ReadAll(const std::vector<std::string>& paths) {
  std::vector<Trace> traces;
  for (const std::string& p : paths) {
    StatusOr<Trace> t = ReadTrace(p);
    EXPECT_TRUE(t.ok()) << t.status().message();
    if (t.ok()) traces.push_back(std::move(t).value());
  }
  return traces;
}

// The job report of `paths` analysed together, and the one merged from their summaries (each
// rank written as text and read back, as `analyze --summary-out` and `merge` do).
std::pair<json, json> AnalyzedAndMerged(const std::vector<std::string>& paths, const AnalysisOptions& options) {
  std::vector<Trace> traces = ReadAll(paths);
  const JobAnalysis together = AnalyzeJob(traces, options);
  std::vector<RankAnalysis> read_back;
  for (const Trace& t : traces) {
    StatusOr<RankAnalysis> ra = AnalyzeTrace(t, options);
    EXPECT_TRUE(ra.ok());
    const std::string text = RankSummaryText(*ra, options);
    StatusOr<RankSummary> s = ParseRankSummary(text, t.metadata.path + ".summary.json");
    EXPECT_TRUE(s.ok()) << s.status().message();
    read_back.push_back(std::move(s->rank));
  }
  const JobAnalysis merged = BuildJob(std::move(read_back));
  return {BuildJsonReport(together, options), BuildJsonReport(merged, options)};
}

std::vector<std::string> DlrmRanks() {
  std::vector<std::string> paths;
  for (const auto& e : std::filesystem::directory_iterator(SharedPath("traces/kineto/param_dlrm_8ranks")))
    paths.push_back(e.path().string());
  std::sort(paths.begin(), paths.end());
  return paths;
}

// The shared 8-rank DLRM job (shared/traces/README.md): the merged report equals the report of
// analysing the 8 files together, in every field.
TEST(RankSummary, MergeEqualsAnalyzeOnTheDlrm8RankJob) {
  AMPSCOPE_REQUIRE_INPUT(HaveShared(), "shared traces (../shared/traces/kineto/param_dlrm_8ranks)");
  const std::vector<std::string> paths = DlrmRanks();
  ASSERT_EQ(paths.size(), 8u);
  const auto [analyzed, merged] = AnalyzedAndMerged(paths, AnalysisOptions{});
  std::vector<std::string> diffs;
  Diff(analyzed, merged, "", diffs);
  EXPECT_TRUE(diffs.empty()) << diffs.size() << " differences, first: " << diffs.front();
  EXPECT_EQ(merged["ranks"].size(), 8u);
}

// One rank with shapes (its roofline, precision and op tables travel in the summary) and a
// --steps selection (stated in the report's analysis_options).
TEST(RankSummary, MergeEqualsAnalyzeOnOneRankWithSteps) {
  AMPSCOPE_REQUIRE_INPUT(HaveShared(), "shared traces (../shared/traces/kineto/tb_plugin)");
  AnalysisOptions options;
  options.first_step = 1;
  options.last_step = 4;
  const auto [analyzed, merged] =
      AnalyzedAndMerged({SharedPath("traces/kineto/tb_plugin/worker0.1623143089861.pt.trace.json.gz")}, options);
  std::vector<std::string> diffs;
  Diff(analyzed, merged, "", diffs);
  EXPECT_TRUE(diffs.empty()) << diffs.size() << " differences, first: " << diffs.front();
  EXPECT_TRUE(merged["roofline"].is_object());
}

TEST(RankSummary, BadSummariesAreNamed) {
  StatusOr<RankSummary> not_json = ParseRankSummary("{\"schema\": ", "r3.summary.json");
  ASSERT_FALSE(not_json.ok());
  EXPECT_EQ(not_json.status().message(), "r3.summary.json: not JSON (expected an ampscope rank summary)");
  StatusOr<RankSummary> report = ParseRankSummary("{\"schema\": \"ampscope.report/1\"}", "r.json");
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.status().message().find("r.json: not an ampscope rank summary"), std::string::npos);
  json cut = RankSummaryJson(RankAnalysis{}, AnalysisOptions{});
  cut["rank"].erase("steps");
  StatusOr<RankSummary> missing = ParseRankSummary(cut.dump(), "r7.summary.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "r7.summary.json: bad rank summary: missing field 'steps'");
  // JSON, but not an object: not a summary (rather than "not JSON").
  StatusOr<RankSummary> array = ParseRankSummary("[1, 2]", "a.summary.json");
  ASSERT_FALSE(array.ok());
  EXPECT_NE(array.status().message().find("a.summary.json: not an ampscope rank summary"), std::string::npos);
  // A field of the wrong type is named with the byte where it starts in the summary's "rank".
  json wrong = RankSummaryJson(RankAnalysis{}, AnalysisOptions{});
  wrong["rank"]["steps"] = 5;
  StatusOr<RankSummary> typed = ParseRankSummary(wrong.dump(), "r8.summary.json");
  ASSERT_FALSE(typed.ok());
  EXPECT_NE(typed.status().message().find("r8.summary.json: bad rank summary: an object expected (byte "), std::string::npos)
      << typed.status().message();
  // A count no loop could replay (a hostile summary) is restored as the number it is.
  json counted = RankSummaryJson(RankAnalysis{}, AnalysisOptions{});
  counted["rank"]["input"]["diagnostics"] =
      json::array({json::array({"collector_said_so", {{"severity", 1}, {"count", 1000000000000000000ull},
                                                      {"first_offset", 7}, {"first_message", "m"}}})});
  StatusOr<RankSummary> restored = ParseRankSummary(counted.dump(), "r9.summary.json");
  ASSERT_TRUE(restored.ok()) << restored.status().message();
  EXPECT_EQ(restored->rank.input.diagnostics.Count("collector_said_so"), 1000000000000000000ull);
}

}  // namespace
}  // namespace ampscope
