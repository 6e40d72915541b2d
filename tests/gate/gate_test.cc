// The gate's rules on reports built from per-step times and counters (tests/support/report_builder.h).
// Expected verdicts follow from the documented default thresholds (docs/ci.md) and, for step
// times, from the Mann-Whitney p-values that mann_whitney_test.cc checks against scipy.
#include "gate/gate.h"

#include <string>

#include <gtest/gtest.h>

#include "reports/contract/report_reader.h"
#include "support/report_builder.h"

namespace ampscope::gate {
namespace gate_test {

// The report is read through the contract's reader (reports/contract/).
using reports::ParseJsonText;
using reports::ValidateReport;
using reports::LoadReport;
using reports::ReportUse;
namespace {

using ampscope::testing::BuildTestReport;
using ampscope::testing::RealisticStepTimesUs;
using ampscope::testing::Scaled;
using ampscope::testing::TestFinding;
using ampscope::testing::TestKernel;
using ampscope::testing::TestReport;
using nlohmann::json;

constexpr double kStepUs = 105000;  // a 105 ms step

TestReport BaseReport() {
  TestReport r;
  r.step_us = RealisticStepTimesUs(30, kStepUs, 0.015, 1);
  return r;
}

GateResult Gate(const TestReport& baseline, const TestReport& current, const GateConfig& config = DefaultGateConfig(),
                bool allow_env_mismatch = false) {
  json b = BuildTestReport(baseline);
  json c = BuildTestReport(current);
  // The builder must produce what the contract requires, or the tests prove nothing.
  EXPECT_TRUE(ValidateReport(b, "baseline.json", ReportUse::kGate).ok());
  EXPECT_TRUE(ValidateReport(c, "current.json", ReportUse::kGate).ok());
  GateOptions options;
  options.allow_env_mismatch = allow_env_mismatch;
  return RunGate(b, c, config, options);
}

const GateCheck* Find(const GateResult& result, const std::string& name) {
  for (const GateCheck& c : result.checks)
    if (c.name == name) return &c;
  return nullptr;
}

// Names of checks with the given verdict.
std::vector<std::string> With(const GateResult& result, Verdict verdict) {
  std::vector<std::string> names;
  for (const GateCheck& c : result.checks)
    if (c.verdict == verdict) names.push_back(c.name);
  return names;
}

TEST(GateTest, IdenticalReportsPass) {
  const TestReport r = BaseReport();
  GateResult result = Gate(r, r);
  EXPECT_EQ(result.overall, Verdict::kPass);
  EXPECT_EQ(result.ExitCode(), 0);
  EXPECT_TRUE(With(result, Verdict::kFail).empty());
  EXPECT_TRUE(With(result, Verdict::kWarn).empty());
  EXPECT_TRUE(With(result, Verdict::kSkipped).empty());
  // One check per gated metric: environment, step time, 6 counters, new FP32 GEMMs, 7 checklist items, findings.
  EXPECT_EQ(result.checks.size(), 1u + 1u + 6u + 1u + 7u + 1u);
  ASSERT_NE(Find(result, "step_time"), nullptr);
  EXPECT_DOUBLE_EQ(Find(result, "step_time")->details["change_pct"].get<double>(), 0.0);
}

TEST(GateTest, StepTimeTenPercentSlowerAndSignificantFails) {
  TestReport base = BaseReport();
  TestReport cur = base;
  cur.step_us = Scaled(RealisticStepTimesUs(30, kStepUs, 0.015, 2), 1.10);
  GateResult result = Gate(base, cur);
  EXPECT_EQ(With(result, Verdict::kFail), std::vector<std::string>{"step_time"});
  EXPECT_EQ(result.ExitCode(), 1);
  const GateCheck* c = Find(result, "step_time");
  EXPECT_GT(c->details["change_pct"].get<double>(), 5.0);
  EXPECT_LT(c->details["p_value"].get<double>(), 0.01);
}

TEST(GateTest, OneMoreSyncPerStepFails) {
  TestReport base = BaseReport();
  TestReport cur = base;
  cur.syncs_per_step = base.syncs_per_step + 1;  // e.g. a loss.item() crept into the loop
  GateResult result = Gate(base, cur);
  EXPECT_EQ(With(result, Verdict::kFail), std::vector<std::string>{"gate_metrics.syncs_per_step"});
  EXPECT_EQ(result.ExitCode(), 1);
  EXPECT_EQ(Find(result, "gate_metrics.syncs_per_step")->change, "+1 (+100.0%)");
}

TEST(GateTest, TensorCoreShareDownTwentyPointsFails) {
  TestReport base = BaseReport();
  TestReport cur = base;
  cur.tensor_core_kernel_pct = base.tensor_core_kernel_pct - 20;
  GateResult result = Gate(base, cur);
  EXPECT_EQ(With(result, Verdict::kFail), std::vector<std::string>{"gate_metrics.tensor_core_kernel_pct"});
  EXPECT_EQ(Find(result, "gate_metrics.tensor_core_kernel_pct")->change, "-20.0 pts");
  // The message's sign is the change column's (it read "got worse by +20.0 pts").
  EXPECT_EQ(Find(result, "gate_metrics.tensor_core_kernel_pct")->message,
            "tensor_core_kernel_pct got worse by -20.0 pts (fail tier <-10 pts)");
  // Up 20 points is an improvement, never a failure.
  cur.tensor_core_kernel_pct = base.tensor_core_kernel_pct + 20;
  EXPECT_EQ(Gate(base, cur).overall, Verdict::kPass);
}

// A GEMM that autocast no longer covers: the fp16 Tensor Core GEMM becomes an FP32 SIMT sgemm.
TestReport GemmMovedToFp32(TestReport r) {
  r.fp32_gemm_share_pct = 18.0;
  r.top_kernels[2] = TestKernel{"ampere_sgemm_128x64_tn", "gemm", "fp32", false, 4000, 390000};
  return r;
}

TEST(GateTest, GemmMovedToFp32Fails) {
  TestReport base = BaseReport();
  GateResult result = Gate(base, GemmMovedToFp32(base));
  EXPECT_EQ(result.ExitCode(), 1);
  ASSERT_NE(Find(result, "gate_metrics.fp32_gemm_share_pct"), nullptr);
  EXPECT_EQ(Find(result, "gate_metrics.fp32_gemm_share_pct")->verdict, Verdict::kFail);
  ASSERT_NE(Find(result, "kernels.new_fp32_gemm"), nullptr);
  EXPECT_EQ(Find(result, "kernels.new_fp32_gemm")->verdict, Verdict::kFail);
  EXPECT_NE(Find(result, "kernels.new_fp32_gemm")->message.find("ampere_sgemm_128x64_tn"), std::string::npos);
}

TEST(GateTest, GemmMovedToFp32CaughtByKernelsWhenShareIsNotComputable) {
  TestReport base = BaseReport();
  base.null_fp32_gemm_share = true;
  TestReport cur = GemmMovedToFp32(base);
  GateResult result = Gate(base, cur);
  EXPECT_EQ(Find(result, "gate_metrics.fp32_gemm_share_pct")->verdict, Verdict::kSkipped);
  EXPECT_EQ(With(result, Verdict::kFail), std::vector<std::string>{"kernels.new_fp32_gemm"});
}

// Expected shares by hand from the builder's pct = total_us / sum(total_us) * 100.
TEST(GateTest, GemmMovedToFp32CountsOnlyWhatLeftALowerPrecision) {
  // BaseReport's top kernels: fp16 Tensor Core GEMM/conv 410000 + 380000 + 120000 = 910000 of
  // 1089400 us = 83.53%. GemmMovedToFp32 swaps the 120000-us fp16 GEMM for a 390000-us sgemm:
  // total 1359400, lower precision 790000 / 1359400 = 58.11%, new FP32 390000 / 1359400 = 28.69%;
  // moved = 83.53 - 58.11 = 25.42% (the smaller of the two) > fail 2%.
  const TestReport base = BaseReport();
  const GateResult c_result = Gate(base, GemmMovedToFp32(base));
  const GateCheck* c = Find(c_result, "kernels.new_fp32_gemm");
  EXPECT_NEAR(c->details["new_pct"].get<double>(), 390000.0 / 1359400 * 100, 1e-9);
  EXPECT_NEAR(c->details["moved_to_fp32_pct"].get<double>(), 910000.0 / 1089400 * 100 - 790000.0 / 1359400 * 100, 1e-9);
  EXPECT_EQ(c->verdict, Verdict::kFail);
}

TEST(GateTest, TwoFp32RunsWithOtherCudnnAlgorithmsAreNotANewFp32Gemm) {
  // An FP32 model both times; cuDNN/cuBLAS picked other FP32 SIMT kernels (names from
  // shared/reference/kernel_names.tsv). Nothing moved from a lower precision.
  TestReport base = BaseReport();
  base.top_kernels = {{"volta_sgemm_128x64_nn", "gemm", "fp32", false, 1000, 500000},
                      {"volta_sgemm_128x64_tn", "gemm", "fp32", false, 1000, 300000},
                      {"void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)",
                       "cast", "fp32", false, 1000, 200000}};
  TestReport cur = base;
  cur.top_kernels[0].name = "volta_sgemm_128x32_nt";
  cur.top_kernels[1].name = "volta_sgemm_64x32_sliced1x4_nn";
  const GateResult result = Gate(base, cur);
  const GateCheck* c = Find(result, "kernels.new_fp32_gemm");
  EXPECT_EQ(c->details["new_kernels"].size(), 2u);
  EXPECT_DOUBLE_EQ(c->details["new_pct"].get<double>(), 80.0);  // (500000 + 300000) / 1000000
  EXPECT_DOUBLE_EQ(c->details["moved_to_fp32_pct"].get<double>(), 0.0);
  EXPECT_EQ(c->verdict, Verdict::kPass) << c->message;
  EXPECT_NE(c->message.find("not a precision change"), std::string::npos) << c->message;
  EXPECT_EQ(result.ExitCode(), 0);
}

TEST(GateTest, NewFp32GemmTiersUseTheShareThatMoved) {
  // Baseline: fp16 Tensor Core GEMM 600 + elementwise 400 of 1000 -> lower precision 60%.
  TestReport base = BaseReport();
  base.top_kernels = {{"ampere_fp16_s16816gemm_fp16_128x128_ldg8_relu_f2f_stages_32x5_tn", "gemm", "fp16", true, 10, 600},
                      {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::Half>, "
                       "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::Half>, at::detail::Array<char*, 3>)",
                       "elementwise", "fp16", false, 10, 400}};
  // 1% of the time leaves fp16 for a new sgemm (590 + 10 + 400): moved 1% > warn 0.5%, <= fail 2%.
  TestReport cur = base;
  cur.top_kernels[0].total_us = 590;
  cur.top_kernels.push_back({"ampere_sgemm_128x64_tn", "gemm", "fp32", false, 10, 10});
  const GateResult warn_result = Gate(base, cur);
  const GateCheck* warn = Find(warn_result, "kernels.new_fp32_gemm");
  EXPECT_NEAR(warn->details["moved_to_fp32_pct"].get<double>(), 1.0, 1e-9);
  EXPECT_EQ(warn->verdict, Verdict::kWarn) << warn->message;
  // A new 3% sgemm while the fp16 share stays at 60% (600 + 30 + 370): nothing moved.
  cur = base;
  cur.top_kernels[1].total_us = 370;
  cur.top_kernels.push_back({"ampere_sgemm_128x64_tn", "gemm", "fp32", false, 10, 30});
  const GateResult kept_result = Gate(base, cur);
  const GateCheck* kept = Find(kept_result, "kernels.new_fp32_gemm");
  EXPECT_NEAR(kept->details["new_pct"].get<double>(), 3.0, 1e-9);
  EXPECT_DOUBLE_EQ(kept->details["moved_to_fp32_pct"].get<double>(), 0.0);
  EXPECT_EQ(kept->verdict, Verdict::kPass) << kept->message;
}

TEST(GateTest, NoiseFromOneRunSplitInHalvesPasses) {
  // One 60-step run; the first half is the baseline and the second the current.
  const std::vector<double> run = RealisticStepTimesUs(60, kStepUs, 0.02, 42);
  TestReport base = BaseReport(), cur = BaseReport();
  base.step_us.assign(run.begin(), run.begin() + 30);
  cur.step_us.assign(run.begin() + 30, run.end());
  GateResult result = Gate(base, cur);
  EXPECT_EQ(result.overall, Verdict::kPass) << Find(result, "step_time")->message;
}

TEST(GateTest, NoiseNeverFailsAcrossManyRuns) {
  // Statistical soundness: 300 independent runs split in halves. With the default thresholds no
  // run may fail. With the magnitude threshold set to 0 only the significance test stands
  // between noise and a failure, so the failure rate must stay near alpha = 1% (the exact
  // test is conservative): at most 9 of 300 (binomial(300, 0.01) exceeds 9 with p < 0.002).
  GateConfig no_threshold = DefaultGateConfig();
  no_threshold.step_time.fail_pct = 0.0;
  no_threshold.step_time.warn_pct.reset();
  int default_failures = 0, significance_only_failures = 0;
  for (uint64_t seed = 1000; seed < 1300; ++seed) {
    const std::vector<double> run = RealisticStepTimesUs(40, kStepUs, 0.02, seed);
    TestReport base = BaseReport(), cur = BaseReport();
    base.step_us.assign(run.begin(), run.begin() + 20);
    cur.step_us.assign(run.begin() + 20, run.end());
    default_failures += Gate(base, cur).overall == Verdict::kFail ? 1 : 0;
    significance_only_failures += Gate(base, cur, no_threshold).overall == Verdict::kFail ? 1 : 0;
  }
  EXPECT_EQ(default_failures, 0);
  EXPECT_LE(significance_only_failures, 9);
  RecordProperty("significance_only_failures_of_300", significance_only_failures);
}

TEST(GateTest, ThreePercentSlowdownThatIsNotSignificantPasses) {
  // Noisy steps (6% jitter), few of them: a 3% shift cannot be told from noise.
  TestReport base = BaseReport(), cur = BaseReport();
  base.step_us = RealisticStepTimesUs(10, kStepUs, 0.06, 7);
  cur.step_us = Scaled(RealisticStepTimesUs(10, kStepUs, 0.06, 8), 1.03);
  GateConfig strict = DefaultGateConfig();
  strict.step_time.fail_pct = 2.0;  // even a 2% threshold: the change is above it, but not significant
  strict.step_time.warn_pct = 1.0;
  for (const GateConfig& config : {DefaultGateConfig(), strict}) {
    GateResult result = Gate(base, cur, config);
    const GateCheck* c = Find(result, "step_time");
    EXPECT_GE(c->details["p_value"].get<double>(), 0.01) << c->message;
    EXPECT_EQ(c->verdict, Verdict::kPass) << c->message;
    EXPECT_EQ(result.ExitCode(), 0);
  }
  // The significance requirement is what made it pass: the same 3% with steady steps fails the strict
  // config and warns under the defaults (warn 2.5%, fail 5%).
  base.step_us = RealisticStepTimesUs(30, kStepUs, 0.003, 7);
  cur.step_us = Scaled(RealisticStepTimesUs(30, kStepUs, 0.003, 8), 1.03);
  EXPECT_EQ(Find(Gate(base, cur, strict), "step_time")->verdict, Verdict::kFail);
  GateResult defaults = Gate(base, cur);
  EXPECT_EQ(Find(defaults, "step_time")->verdict, Verdict::kWarn);
  EXPECT_EQ(defaults.ExitCode(), 0);
}

TEST(GateTest, SlowdownOnTooFewStepsToTestWarnsAndSaysHowManyToRecord) {
  // +45% on 3 steps each: above the thresholds, but the smallest possible one-sided exact p for
  // 3 vs 3 is 1/C(6,3) = 1/20 = 0.05, not below alpha 0.01, so the test can never be significant.
  // With k steps in each run the bound is 1/C(2k,k): k=4 gives 1/70 = 0.0143 (still not below
  // 0.01), k=5 gives 1/252 = 0.00397, so 5 steps per run are needed.
  TestReport base = BaseReport(), cur = BaseReport();
  base.step_us = {100000, 130000, 90000};
  cur.step_us = {140000, 150000, 145000};  // every current step slower than every baseline step
  const GateResult result = Gate(base, cur);
  const GateCheck* c = Find(result, "step_time");
  EXPECT_DOUBLE_EQ(c->details["p_value"].get<double>(), 0.05);
  EXPECT_NEAR(c->details["smallest_possible_p"].get<double>(), 0.05, 1e-12);
  EXPECT_EQ(c->details["steps_needed"].get<int>(), 5);
  EXPECT_EQ(c->verdict, Verdict::kWarn) << c->message;
  EXPECT_NE(c->message.find("no change can be significant; record at least 5 steps in each run"), std::string::npos)
      << c->message;
  EXPECT_EQ(result.ExitCode(), 0);  // a warning, never a failure on untestable data
  // Unchanged times on 3 steps: passes, but still says that nothing could have been detected.
  cur.step_us = base.step_us;
  const GateResult same_result = Gate(base, cur);
  const GateCheck* same = Find(same_result, "step_time");
  EXPECT_EQ(same->verdict, Verdict::kPass);
  EXPECT_NE(same->message.find("record at least 5 steps"), std::string::npos) << same->message;
  // alpha 0.05: 3 vs 4 steps gives 1/C(7,3) = 1/35 = 0.029 < 0.05: testable, no such warning.
  GateConfig loose = DefaultGateConfig();
  loose.step_time.alpha = 0.05;
  cur.step_us = {140000, 150000, 145000, 148000};
  const GateResult testable_result = Gate(base, cur, loose);
  const GateCheck* testable = Find(testable_result, "step_time");
  EXPECT_NEAR(testable->details["smallest_possible_p"].get<double>(), 1.0 / 35, 1e-12);
  EXPECT_EQ(testable->verdict, Verdict::kFail) << testable->message;
}

TEST(GateTest, InsignificantSlowdownSaysHowManyStepsWouldTellIt) {
  // 6 vs 6 overlapping steps (ms): baseline {100,101,102,98,97,104}, current {103,104,106,107,110,96}.
  // Medians 100.5 and 105: +4.48%, above warn 2.5%. By hand: pooled ranks of the current steps
  // 1, 7, 8.5, 10, 11, 12 (104 is tied) -> R = 49.5, U = 49.5 - 21 = 28.5; with the tie the
  // normal method applies: sigma^2 = 36/12 * (13 - 6/132) = 38.8636, z = (28.5 - 18 - 0.5) / 6.23407
  // = 1.60409, p = 0.0543 (not below alpha 0.01). Steps for a change this size: 6 (z_0.01 / z)^2
  // = 6 (2.326348 / 1.60409)^2 = 12.62 -> 13 per run.
  TestReport base = BaseReport(), cur = BaseReport();
  base.step_us = {100000, 101000, 102000, 98000, 97000, 104000};
  cur.step_us = {103000, 104000, 106000, 107000, 110000, 96000};
  const GateResult c_result = Gate(base, cur);
  const GateCheck* c = Find(c_result, "step_time");
  ASSERT_NE(c, nullptr);
  EXPECT_DOUBLE_EQ(c->details["u"].get<double>(), 28.5);
  EXPECT_NEAR(c->details["p_value"].get<double>(), 0.0543, 0.0005);
  EXPECT_EQ(c->verdict, Verdict::kPass);
  EXPECT_EQ(c->details["steps_needed"].get<int>(), 13);
  EXPECT_NE(c->message.find("about 13 steps in each run would tell a change this size from this noise"),
            std::string::npos)
      << c->message;
}

TEST(GateTest, TooFewStepsSkipsTheTimingRule) {
  TestReport base = BaseReport(), cur = BaseReport();
  cur.step_us = {200000, 210000};  // twice as slow, but only 2 steps
  GateResult result = Gate(base, cur);
  const GateCheck* c = Find(result, "step_time");
  EXPECT_EQ(c->verdict, Verdict::kSkipped);
  EXPECT_NE(c->message.find("at least 3"), std::string::npos);
  EXPECT_EQ(result.ExitCode(), 0);
  cur.step_us.clear();
  EXPECT_EQ(Find(Gate(base, cur), "step_time")->verdict, Verdict::kSkipped);
}

TEST(GateTest, CounterTiersAndTolerances) {
  TestReport base = BaseReport();
  // kernels_per_step: relative, warn >5%, fail >10%, changes <= 2 kernels ignored.
  TestReport cur = base;
  cur.kernels_per_step = base.kernels_per_step * 1.07;  // +7%
  EXPECT_EQ(Find(Gate(base, cur), "gate_metrics.kernels_per_step")->verdict, Verdict::kWarn);
  cur.kernels_per_step = base.kernels_per_step * 1.12;  // +12%
  EXPECT_EQ(Find(Gate(base, cur), "gate_metrics.kernels_per_step")->verdict, Verdict::kFail);
  {
    const GateResult up = Gate(base, cur);
    EXPECT_EQ(Find(up, "gate_metrics.kernels_per_step")->message,
              "kernels_per_step got worse by +12.0% of the baseline (fail tier >+10%)");
  }
  cur.kernels_per_step = base.kernels_per_step * 0.5;  // fewer kernels: better
  EXPECT_EQ(Find(Gate(base, cur), "gate_metrics.kernels_per_step")->verdict, Verdict::kPass);
  TestReport tiny = base;
  tiny.kernels_per_step = 10;
  TestReport tiny_cur = tiny;
  tiny_cur.kernels_per_step = 12;  // +20% but only 2 kernels: within min_change
  EXPECT_EQ(Find(Gate(tiny, tiny_cur), "gate_metrics.kernels_per_step")->verdict, Verdict::kPass);

  // h2d_bytes_per_step: relative, warn >10%, fail >25%; from 0 is infinitely worse once above 64 KiB.
  cur = base;
  cur.h2d_bytes_per_step = base.h2d_bytes_per_step * 1.3;
  EXPECT_EQ(Find(Gate(base, cur), "gate_metrics.h2d_bytes_per_step")->verdict, Verdict::kFail);
  TestReport zero = base;
  zero.h2d_bytes_per_step = 0;
  cur = zero;
  cur.h2d_bytes_per_step = 4096;  // 4 KiB: below min_change
  EXPECT_EQ(Find(Gate(zero, cur), "gate_metrics.h2d_bytes_per_step")->verdict, Verdict::kPass);
  cur.h2d_bytes_per_step = 1 << 20;
  EXPECT_EQ(Find(Gate(zero, cur), "gate_metrics.h2d_bytes_per_step")->verdict, Verdict::kFail);

  // syncs_per_step: absolute, warn >0.1, fail >0.5.
  cur = base;
  cur.syncs_per_step = base.syncs_per_step + 0.2;
  EXPECT_EQ(Find(Gate(base, cur), "gate_metrics.syncs_per_step")->verdict, Verdict::kWarn);

  // cast_kernels_per_step: relative, warn >10%, fail >25%.
  cur = base;
  cur.cast_kernels_per_step = base.cast_kernels_per_step * 2;
  EXPECT_EQ(Find(Gate(base, cur), "gate_metrics.cast_kernels_per_step")->verdict, Verdict::kFail);

  // A null (not computable) counter is skipped, never failed.
  cur = base;
  cur.null_fp32_gemm_share = true;
  GateResult result = Gate(base, cur);
  EXPECT_EQ(Find(result, "gate_metrics.fp32_gemm_share_pct")->verdict, Verdict::kSkipped);
  EXPECT_EQ(result.ExitCode(), 0);
}

TEST(GateTest, ChecklistStatusesThatGetWorse) {
  TestReport base = BaseReport();
  TestReport cur = base;
  cur.checklist[2].second = "fail";  // grad_scaler pass -> fail
  cur.checklist[0].second = "warn";  // tensor_core_utilization pass -> warn
  cur.checklist[3].second = "pass";  // kernel_fusion warn -> pass (better)
  cur.checklist[5].second = "fail";  // distributed_sync not_applicable -> fail: not ordered, never a regression
  cur.checklist[6].second = "fail";  // memory_fragmentation unknown -> fail: same
  GateResult result = Gate(base, cur);
  EXPECT_EQ(With(result, Verdict::kFail), std::vector<std::string>{"checklist.grad_scaler"});
  EXPECT_EQ(With(result, Verdict::kWarn), std::vector<std::string>{"checklist.tensor_core_utilization"});
  EXPECT_EQ(Find(result, "checklist.kernel_fusion")->change, "better");
  // fail_at "warn": any worsening fails; an ignored item is not gated.
  GateConfig config = DefaultGateConfig();
  config.checklist.fail_at = CheckStatusLevel::kWarn;
  config.checklist.ignore = {"grad_scaler"};
  result = Gate(base, cur, config);
  EXPECT_EQ(With(result, Verdict::kFail), std::vector<std::string>{"checklist.tensor_core_utilization"});
  EXPECT_EQ(Find(result, "checklist.grad_scaler"), nullptr);
}

TEST(GateTest, NewFindingsOfWarningOrCriticalSeverity) {
  TestReport base = BaseReport();
  base.findings.push_back({"TP-03", "warning", "host-device sync in the loop"});
  TestReport cur = base;
  cur.findings.push_back({"CI-01", "info", "informational"});  // info: not gated
  EXPECT_EQ(Find(Gate(base, cur), "findings.new")->verdict, Verdict::kPass);
  cur.findings.push_back({"DL-04", "warning", "allocation churn"});
  EXPECT_EQ(Find(Gate(base, cur), "findings.new")->verdict, Verdict::kWarn);
  cur.findings.push_back({"CI-02", "critical", "GEMM in FP32"});
  GateResult result = Gate(base, cur);
  EXPECT_EQ(Find(result, "findings.new")->verdict, Verdict::kFail);
  EXPECT_EQ(result.ExitCode(), 1);
  EXPECT_NE(Find(result, "findings.new")->message.find("CI-02"), std::string::npos);
  // An existing finding whose severity rose counts as new.
  TestReport raised = base;
  raised.findings[1].severity = "critical";
  EXPECT_EQ(Find(Gate(base, raised), "findings.new")->verdict, Verdict::kFail);
  // A finding that disappeared is fine.
  TestReport fixed = base;
  fixed.findings.pop_back();
  EXPECT_EQ(Find(Gate(base, fixed), "findings.new")->verdict, Verdict::kPass);
}

TEST(GateTest, EnvironmentMismatch) {
  TestReport base = BaseReport();
  TestReport cur = base;
  cur.driver = "550.54.15";
  GateResult blocked = Gate(base, cur);
  EXPECT_TRUE(blocked.environment_blocked);
  EXPECT_EQ(blocked.ExitCode(), 2);
  ASSERT_EQ(blocked.environment_differences.size(), 1u);
  EXPECT_EQ(blocked.environment_differences[0].field, "driver");
  GateResult allowed = Gate(base, cur, DefaultGateConfig(), /*allow_env_mismatch=*/true);
  EXPECT_FALSE(allowed.environment_blocked);
  EXPECT_EQ(Find(allowed, "environment")->verdict, Verdict::kWarn);
  EXPECT_EQ(allowed.ExitCode(), 0);
  // The host and CUPTI are not part of the fingerprint; a field unknown on one side is not a mismatch.
  cur = base;
  cur.host = "another-runner";
  EXPECT_FALSE(Gate(base, cur).environment_blocked);
  json b = BuildTestReport(base);
  json c = BuildTestReport(base);
  c["environment"]["gpu"] = nullptr;
  c["environment"]["framework"] = "torch 2.4.0";
  GateResult r = RunGate(b, c, DefaultGateConfig(), GateOptions{});
  ASSERT_EQ(r.environment_differences.size(), 1u);
  EXPECT_EQ(r.environment_differences[0].field, "framework");
}

TEST(ReportValidationTest, MalformedJsonNamesFileAndByteOffset) {
  // '}' where a value must be: it is the 7th byte of the text (1-based, nlohmann's parse_error::byte).
  auto parsed = ParseJsonText("{\"a\": }", "bad.json");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().message().rfind("bad.json: invalid JSON at byte 7: ", 0), 0u) << parsed.status().message();
  EXPECT_EQ(parsed.status().message().find('\n'), std::string::npos);
  // Truncated file: the end is byte 11 (10 bytes read + end of input).
  parsed = ParseJsonText("{\"schema\":", "cut.json");
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("cut.json: invalid JSON at byte 11"), std::string::npos)
      << parsed.status().message();
}

TEST(ReportValidationTest, WrongSchemaAndMissingFields) {
  json good = BuildTestReport(BaseReport());
  EXPECT_TRUE(ValidateReport(good, "r.json", ReportUse::kGate).ok());

  json wrong = good;
  wrong["schema"] = "ampscope.report/2";
  Status s = ValidateReport(wrong, "r.json", ReportUse::kGate);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "r.json: /schema: expected \"ampscope.report/1\", got \"ampscope.report/2\"");
  EXPECT_FALSE(ValidateReport(wrong, "r.json", ReportUse::kDiff).ok());
  EXPECT_FALSE(ValidateReport(json::array(), "r.json", ReportUse::kDiff).ok());

  json missing = good;
  missing.erase("gate_metrics");
  s = ValidateReport(missing, "r.json", ReportUse::kGate);
  EXPECT_EQ(s.message(), "r.json: /gate_metrics: missing required object");
  EXPECT_TRUE(ValidateReport(missing, "r.json", ReportUse::kDiff).ok());  // the diff shows n/a instead

  json bad_step = good;
  bad_step["steps"]["durations_us"][3] = "fast";
  EXPECT_EQ(ValidateReport(bad_step, "r.json", ReportUse::kGate).message(),
            "r.json: /steps/durations_us/3: expected a finite number >= 0, got string");

  json bad_status = good;
  bad_status["checklist"][1]["status"] = "ok";
  EXPECT_NE(ValidateReport(bad_status, "r.json", ReportUse::kGate).message().find("/checklist/1/status"),
            std::string::npos);

  json bad_metric = good;
  bad_metric["gate_metrics"]["syncs_per_step"] = "1";
  EXPECT_EQ(ValidateReport(bad_metric, "r.json", ReportUse::kGate).message(),
            "r.json: /gate_metrics/syncs_per_step: expected a finite number or null, got string");
}

TEST(ReportValidationTest, LoadReportFromMissingFile) {
  auto r = LoadReport("/nonexistent/dir/report.json", ReportUse::kGate);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("/nonexistent/dir/report.json: cannot read", 0), 0u);
}

}  // namespace
}  // namespace gate_test
}  // namespace ampscope::gate
