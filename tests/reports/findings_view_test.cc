// The contract's view of the report's `findings` section (reports/contract/findings_view.h), from
// report JSON written here by hand: every field read with its type, the evidence kept as written,
// and a missing or mistyped field read as absent, never as an exception.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reports/contract/findings_view.h"

namespace ampscope::reports {
namespace findings_view_test {
namespace {

using json = nlohmann::json;

TEST(FindingsView, ReadsEveryFieldOfAFullSection) {
  const json report = json::parse(R"({"findings": [
    {"id": "fp32_gemm", "severity": "warning", "dimension": "precision", "checklist": "tensor_core_utilization",
     "title": "GEMMs run in fp32", "evidence": {"fp32_gemm_pct": 41.5, "numbers_of_rank": 2},
     "evidence_units": {"fp32_gemm_pct": "%"}, "recommendation": "enable autocast", "est_saving_pct": 12.5,
     "confidence": "low", "confidence_reason": "warm-up steps", "time_ranges_us": [[10.5, 20.25], [30, 40]]}]})");
  const std::vector<FindingView> findings = ReadFindingsView(report);
  ASSERT_EQ(findings.size(), 1u);
  const FindingView& f = findings[0];
  EXPECT_EQ(f.id, "fp32_gemm");
  EXPECT_EQ(f.severity, "warning");
  EXPECT_EQ(f.dimension, "precision");
  EXPECT_EQ(f.checklist, "tensor_core_utilization");
  EXPECT_EQ(f.title, "GEMMs run in fp32");
  EXPECT_EQ(f.evidence, json::parse(R"({"fp32_gemm_pct": 41.5, "numbers_of_rank": 2})"));
  EXPECT_EQ(f.evidence_units, json::parse(R"({"fp32_gemm_pct": "%"})"));
  EXPECT_EQ(f.recommendation, "enable autocast");
  EXPECT_EQ(f.est_saving_pct, 12.5);
  EXPECT_EQ(f.confidence, "low");
  EXPECT_EQ(f.confidence_reason, "warm-up steps");
  ASSERT_EQ(f.time_ranges_us.size(), 2u);
  EXPECT_EQ(f.time_ranges_us[0].start_us, 10.5);
  EXPECT_EQ(f.time_ranges_us[0].end_us, 20.25);
  EXPECT_EQ(f.time_ranges_us[1].start_us, 30);
  EXPECT_EQ(f.numbers_of_rank, 2);
}

TEST(FindingsView, AMissingOrMistypedFieldIsAbsent) {
  const json report = json::parse(R"({"findings": [
    {"id": 1, "severity": null, "dimension": null, "checklist": null, "est_saving_pct": "12", "confidence_reason": null,
     "evidence": [1], "time_ranges_us": [[5], "x", [1, "2"]]}, "not an object", {}]})");
  const std::vector<FindingView> findings = ReadFindingsView(report);
  ASSERT_EQ(findings.size(), 2u);  // the objects only
  const FindingView& f = findings[0];
  EXPECT_EQ(f.id, "");
  EXPECT_FALSE(f.severity);
  EXPECT_EQ(f.dimension, "");
  EXPECT_EQ(f.checklist, "");
  EXPECT_FALSE(f.est_saving_pct);
  EXPECT_FALSE(f.confidence_reason);
  EXPECT_FALSE(f.numbers_of_rank);  // evidence is not an object
  ASSERT_EQ(f.time_ranges_us.size(), 3u);  // one per element
  EXPECT_EQ(f.time_ranges_us[0].start_us, 5);
  EXPECT_FALSE(f.time_ranges_us[0].end_us);
  EXPECT_FALSE(f.time_ranges_us[1].start_us);
  EXPECT_EQ(f.time_ranges_us[2].start_us, 1);
  EXPECT_FALSE(f.time_ranges_us[2].end_us);
  EXPECT_TRUE(findings[1].evidence.is_null());
  EXPECT_TRUE(findings[1].evidence_units.is_null());
  EXPECT_TRUE(findings[1].time_ranges_us.empty());
  EXPECT_TRUE(ReadFindingsView(json{{"findings", {{"id", "x"}}}}).empty());  // an object, not a list
  EXPECT_TRUE(ReadFindingsView(json::array()).empty());
  EXPECT_EQ(ReadFinding(json("not an object")).id, "");
}

}  // namespace
}  // namespace findings_view_test
}  // namespace ampscope::reports
