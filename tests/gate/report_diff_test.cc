// `ampscope diff`: side-by-side metrics and kernel-level changes. Expected numbers are hand
// computed from the kernels planted in the test reports (µs totals divided by steps.count).
#include "gate/report_diff.h"

#include <gtest/gtest.h>

#include "reports/contract/report_reader.h"
#include "support/report_builder.h"

namespace ampscope::gate {
namespace report_diff_test {

// The report is read through the contract's reader (reports/contract/).
using reports::ValidateReport;
using reports::ReportUse;
namespace {

using ampscope::testing::BuildTestReport;
using ampscope::testing::RealisticStepTimesUs;
using ampscope::testing::TestKernel;
using ampscope::testing::TestReport;
using nlohmann::json;

TestReport ReportA() {
  TestReport r;
  r.step_us = RealisticStepTimesUs(30, 105000, 0.015, 1);  // steps.count = 30
  return r;
}

// B: the big fp16 GEMM got slower (410000 -> 500000 µs in 30 steps), the add kernel faster
// (96000 -> 60000), the cast kernel is gone, and an FP32 sgemm appeared (390000).
TestReport ReportB() {
  TestReport r = ReportA();
  r.top_kernels[0].total_us = 500000;
  r.top_kernels[3].total_us = 60000;
  r.top_kernels.erase(r.top_kernels.begin() + 4);
  r.top_kernels.push_back(TestKernel{"ampere_sgemm_128x64_tn", "gemm", "fp32", false, 3000, 390000});
  r.syncs_per_step = 2;
  r.checklist[2].second = "fail";
  return r;
}

const MetricDiff* FindMetric(const ReportDiff& diff, const std::string& name) {
  for (const MetricDiff& m : diff.metrics)
    if (m.name == name) return &m;
  return nullptr;
}

TEST(ReportDiffTest, IdenticalReportsHaveNoChanges) {
  json a = BuildTestReport(ReportA());
  ReportDiff diff = DiffReports(a, a, DiffOptions{});
  EXPECT_TRUE(diff.kernels_available);
  EXPECT_TRUE(diff.per_step);
  EXPECT_TRUE(diff.added.empty());
  EXPECT_TRUE(diff.removed.empty());
  EXPECT_TRUE(diff.slower.empty());
  EXPECT_TRUE(diff.faster.empty());
  for (const MetricDiff& m : diff.metrics) {
    if (m.a && m.b) {
      EXPECT_EQ(*m.a, *m.b) << m.name;
    }
  }
  for (const ChecklistDiff& c : diff.checklist) EXPECT_EQ(c.change, "same") << c.id;
}

TEST(ReportDiffTest, KernelChanges) {
  ReportDiff diff = DiffReports(BuildTestReport(ReportA()), BuildTestReport(ReportB()), DiffOptions{});
  ASSERT_EQ(diff.slower.size(), 1u);
  EXPECT_EQ(diff.slower[0].name, "ampere_fp16_s16816gemm_fp16_128x128_ldg8_relu_f2f_stages_32x5_tn");
  EXPECT_EQ(diff.slower[0].category, "gemm");
  EXPECT_NEAR(diff.slower[0].delta_us_per_step(), 90000.0 / 30, 1e-9);  // (500000 - 410000) / 30 steps
  EXPECT_NEAR(*diff.slower[0].a_mean_us, 410000.0 / 2000, 1e-9);
  ASSERT_EQ(diff.faster.size(), 1u);
  EXPECT_EQ(diff.faster[0].category, "elementwise");
  EXPECT_NEAR(diff.faster[0].delta_us_per_step(), -36000.0 / 30, 1e-9);
  ASSERT_EQ(diff.added.size(), 1u);
  EXPECT_EQ(diff.added[0].name, "ampere_sgemm_128x64_tn");
  EXPECT_EQ(diff.added[0].precision, "fp32");
  EXPECT_NEAR(*diff.added[0].b_us_per_step, 13000.0, 1e-9);  // 390000 / 30
  EXPECT_FALSE(diff.added[0].a_us_per_step.has_value());
  ASSERT_EQ(diff.removed.size(), 1u);
  EXPECT_EQ(diff.removed[0].category, "cast");
  EXPECT_NEAR(*diff.removed[0].a_us_per_step, 30400.0 / 30, 1e-9);

  // Categories from kernels.top: gemm went from (410000+120000)/30 to (500000+120000+390000)/30,
  // the largest change, so it comes first.
  ASSERT_FALSE(diff.categories.empty());
  EXPECT_EQ(diff.categories[0].category, "gemm");
  EXPECT_NEAR(diff.categories[0].a_us_per_step, 530000.0 / 30, 1e-9);
  EXPECT_NEAR(diff.categories[0].b_us_per_step, 1010000.0 / 30, 1e-9);

  const MetricDiff* syncs = FindMetric(diff, "gate_metrics.syncs_per_step");
  ASSERT_NE(syncs, nullptr);
  EXPECT_EQ(*syncs->a, 1);
  EXPECT_EQ(*syncs->b, 2);
  bool grad_scaler_worse = false;
  for (const ChecklistDiff& c : diff.checklist) grad_scaler_worse |= c.id == "grad_scaler" && c.change == "worse";
  EXPECT_TRUE(grad_scaler_worse);
  ASSERT_NE(FindMetric(diff, "gpu.idle_breakdown_pct.host_wait"), nullptr);
  ASSERT_NE(FindMetric(diff, "gpu.kernel_time_by_precision_pct.fp16"), nullptr);
  ASSERT_NE(FindMetric(diff, "tensor_cores.kernel_time_pct"), nullptr);
}

TEST(ReportDiffTest, KernelTimesAreComparedPerStep) {
  // B recorded twice as many steps with the same per-step work: nothing changed.
  TestReport a = ReportA();
  TestReport b = a;
  b.step_us = RealisticStepTimesUs(60, 105000, 0.015, 3);
  for (TestKernel& k : b.top_kernels) {
    k.total_us *= 2;
    k.count *= 2;
  }
  ReportDiff diff = DiffReports(BuildTestReport(a), BuildTestReport(b), DiffOptions{});
  for (const KernelDiff& k : diff.slower) EXPECT_NEAR(k.delta_us_per_step(), 0, 1e-6) << k.name;
  for (const KernelDiff& k : diff.faster) EXPECT_NEAR(k.delta_us_per_step(), 0, 1e-6) << k.name;
}

TEST(ReportDiffTest, TopLimitsSlowerAndFaster) {
  TestReport a = ReportA();
  TestReport b = a;
  for (TestKernel& k : b.top_kernels) k.total_us *= 1.5;  // every kernel slower
  DiffOptions options;
  options.top = 2;
  ReportDiff diff = DiffReports(BuildTestReport(a), BuildTestReport(b), options);
  ASSERT_EQ(diff.slower.size(), 2u);
  // Largest growth first: the 410000 µs GEMM, then the 380000 µs conv.
  EXPECT_EQ(diff.slower[0].category, "gemm");
  EXPECT_EQ(diff.slower[1].category, "conv");
}

TEST(ReportDiffTest, MissingSectionsShowAsUnavailable) {
  json a = BuildTestReport(ReportA());
  json b = a;
  b.erase("kernels");
  b.erase("gate_metrics");
  ASSERT_TRUE(ValidateReport(b, "b.json", ReportUse::kDiff).ok());
  ReportDiff diff = DiffReports(a, b, DiffOptions{});
  EXPECT_FALSE(diff.kernels_available);
  const MetricDiff* syncs = FindMetric(diff, "gate_metrics.syncs_per_step");
  ASSERT_NE(syncs, nullptr);
  EXPECT_FALSE(syncs->b.has_value());
  EXPECT_NE(FormatDiffText(diff).find("kernels.top missing"), std::string::npos);
}

TEST(ReportDiffTest, TextAndJsonOutputs) {
  ReportDiff diff = DiffReports(BuildTestReport(ReportA()), BuildTestReport(ReportB()), DiffOptions{10, "a.json", "b.json"});
  const std::string text = FormatDiffText(diff);
  EXPECT_NE(text.find("A: a.json"), std::string::npos);
  EXPECT_NE(text.find("kernels added in B"), std::string::npos);
  EXPECT_NE(text.find("ampere_sgemm_128x64_tn"), std::string::npos);
  EXPECT_NE(text.find("grad_scaler"), std::string::npos);
  const json j = DiffToJson(diff);
  EXPECT_EQ(j["schema"], "ampscope.diff/1");
  EXPECT_EQ(j["kernels"]["normalization"], "per_step");
  ASSERT_EQ(j["kernels"]["added"].size(), 1u);
  EXPECT_EQ(j["kernels"]["added"][0]["name"], "ampere_sgemm_128x64_tn");
  EXPECT_TRUE(j["kernels"]["added"][0]["a_us"].is_null());
  ASSERT_EQ(j["kernels"]["removed"].size(), 1u);
  EXPECT_FALSE(j["metrics"].empty());
  // Round trip through text: the JSON is valid.
  EXPECT_EQ(json::parse(j.dump()), j);
}

}  // namespace
}  // namespace report_diff_test
}  // namespace ampscope::gate
