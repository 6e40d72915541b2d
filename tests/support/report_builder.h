// Builds valid ampscope reports (schema "ampscope.report/1") for the gate and diff tests, from
// per-step times and counters. The analyzer that writes real reports is developed separately, so
// these tests follow the contract directly: the field names and meanings are those of
// shared/DESIGN.md ("JSON report contract") and docs/report_schema.md (environment, gate_metrics,
// steps.durations_us, kernels.top). Header-only so tests/cli can use it too.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace ampscope::testing {

struct TestKernel {
  std::string name;
  std::string category;
  std::string precision;
  bool tensor_core = false;
  double count = 0;     // launches in the whole window
  double total_us = 0;  // kernel time in the whole window
};

struct TestFinding {
  std::string id;
  std::string severity;  // info | warning | critical
  std::string title;
};

struct TestReport {
  std::vector<double> step_us;  // steps.durations_us
  // gate_metrics (per step). A realistic fp16 AMP ResNet-like step on an A100.
  double kernels_per_step = 412;
  double syncs_per_step = 1;  // GradScaler's found_inf check
  double h2d_bytes_per_step = 9633792;  // 32 x 3 x 224 x 224 fp16 images + labels
  double fp32_gemm_share_pct = 0.4;
  double tensor_core_kernel_pct = 71.5;
  double cast_kernels_per_step = 38;
  bool null_fp32_gemm_share = false;  // write null (not computable) instead of the value
  std::vector<std::pair<std::string, std::string>> checklist = {
      {"tensor_core_utilization", "pass"}, {"autocast_coverage", "pass"},        {"grad_scaler", "pass"},
      {"kernel_fusion", "warn"},           {"data_pipeline", "pass"},            {"distributed_sync", "not_applicable"},
      {"memory_fragmentation", "unknown"}};
  std::vector<TestFinding> findings = {{"MB-02", "info", "cast kernels take 3% of the step"}};
  // Real kernel names from shared/reference/kernel_names.tsv, with their labels there.
  std::vector<TestKernel> top_kernels = {
      {"ampere_fp16_s16816gemm_fp16_128x128_ldg8_relu_f2f_stages_32x5_tn", "gemm", "fp16", true, 2000, 410000},
      {"sm80_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize256x64x32_stage3_warpsize4x1x1_g1_"
       "tensor16x8x16_execute_kernel__5x_cudnn",
       "conv", "fp16", true, 5300, 380000},
      {"ampere_fp16_s16816gemm_fp16_64x64_ldg8_f2f_stages_64x5_tn", "gemm", "fp16", true, 4000, 120000},
      {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::Half>, "
       "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::Half>, at::detail::Array<char*, 3>)",
       "elementwise", "fp16", false, 12000, 96000},
      {"void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)",
       "cast", "fp32", false, 3800, 30400},
      {"void cudnn::bn_fw_tr_1C11_kernel_NCHW<__half, float, 512, true, 1>", "normalization", "fp16", false, 5300,
       53000},
  };
  int steps_for_kernels = 100;  // steps.count when step_us is empty; kernels.top totals cover these steps
  std::string gpu = "NVIDIA A100-SXM4-80GB";
  std::string driver = "535.104.05";
  std::string cuda = "12.2";
  std::string framework = "torch 2.3.1+cu121";
  std::string host = "ci-runner-7";
};

// Builds the JSON report. steps.time_us is computed here with a plain sort (independent of the
// gate's own Median), so a report is self-consistent.
inline nlohmann::json BuildTestReport(const TestReport& r) {
  using nlohmann::json;
  json report;
  report["schema"] = "ampscope.report/1";
  report["tool"] = {{"name", "ampscope"}, {"version", "test"}};
  report["inputs"] = json::array({{{"path", "synthetic.amptrace"}, {"format", "amptrace"}, {"rank", 0}, {"events", 0}}});
  report["devices"] = json::array({{{"id", 0},
                                    {"name", r.gpu},
                                    {"vendor", "nvidia"},
                                    {"compute_capability", "8.0"},
                                    {"peak", {{"fp16_tflops", 312}, {"hbm_gbs", 2039}}}}});
  report["environment"] = {{"gpu", r.gpu},        {"driver", r.driver}, {"cuda", r.cuda},
                           {"cupti", r.cuda},     {"framework", r.framework}, {"host", r.host}};
  std::vector<double> sorted = r.step_us;
  std::sort(sorted.begin(), sorted.end());
  json time_us = {{"mean", nullptr}, {"median", nullptr}, {"p90", nullptr}};
  if (!sorted.empty()) {
    double sum = 0;
    for (double v : sorted) sum += v;
    const size_t n = sorted.size();
    time_us["mean"] = sum / static_cast<double>(n);
    time_us["median"] = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    time_us["p90"] = sorted[std::min(n - 1, static_cast<size_t>(std::ceil(0.9 * static_cast<double>(n))) - 1)];
  }
  const int steps = r.step_us.empty() ? r.steps_for_kernels : static_cast<int>(r.step_us.size());
  report["steps"] = {{"count", steps}, {"source", "profiler_step"}, {"time_us", time_us}, {"durations_us", r.step_us}};
  report["gpu"] = {{"busy_pct", 93.0},
                   {"idle_pct", 7.0},
                   {"kernel_busy_pct", 90.5},
                   {"idle_breakdown_pct", {{"host_wait", 4.0}, {"kernel_wait", 2.0}, {"other", 1.0}}},
                   {"kernel_time_by_category_pct", {{"gemm", 48.0}, {"conv", 34.0}, {"elementwise", 9.0}, {"cast", 2.7}}},
                   {"kernel_time_by_precision_pct", {{"fp16", 95.0}, {"fp32", 5.0}}}};
  report["tensor_cores"] = {{"kernel_time_pct", r.tensor_core_kernel_pct}, {"active_pct", nullptr}, {"source", "estimated"}};
  report["gate_metrics"] = {{"kernels_per_step", r.kernels_per_step},
                            {"syncs_per_step", r.syncs_per_step},
                            {"h2d_bytes_per_step", r.h2d_bytes_per_step},
                            {"fp32_gemm_share_pct", r.null_fp32_gemm_share ? json(nullptr) : json(r.fp32_gemm_share_pct)},
                            {"tensor_core_kernel_pct", r.tensor_core_kernel_pct},
                            {"cast_kernels_per_step", r.cast_kernels_per_step}};
  report["checklist"] = json::array();
  for (const auto& [id, status] : r.checklist)
    report["checklist"].push_back(
        {{"id", id}, {"status", status}, {"value", nullptr}, {"threshold", ""}, {"source", "test"}, {"evidence", ""}});
  report["findings"] = json::array();
  for (const auto& f : r.findings)
    report["findings"].push_back({{"id", f.id},
                                  {"severity", f.severity},
                                  {"dimension", "memory_bandwidth"},
                                  {"checklist", nullptr},
                                  {"title", f.title},
                                  {"evidence", json::object()},
                                  {"recommendation", ""},
                                  {"est_saving_pct", 0}});
  double kernel_total = 0;
  for (const auto& k : r.top_kernels) kernel_total += k.total_us;
  json top = json::array();
  for (const auto& k : r.top_kernels)
    top.push_back({{"name", k.name},
                   {"count", k.count},
                   {"total_us", k.total_us},
                   {"mean_us", k.count > 0 ? k.total_us / k.count : 0.0},
                   {"pct", kernel_total > 0 ? k.total_us / kernel_total * 100.0 : 0.0},
                   {"category", k.category},
                   {"precision", k.precision},
                   {"tensor_core", k.tensor_core}});
  report["kernels"] = {{"top", top}, {"all_count", r.top_kernels.size()}};
  report["ranks"] = json::array();
  report["diagnostics"] = {{"counters", json::object()}, {"messages", json::array()}};
  return report;
}

// Deterministic, platform-independent pseudo-random numbers (splitmix64; std:: distributions
// differ between standard libraries, so they are not used).
class TestRng {
 public:
  explicit TestRng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double Uniform() { return static_cast<double>(Next() >> 11) * (1.0 / 9007199254740992.0); }  // [0, 1)
  double Normal() {  // Box-Muller
    double u1 = Uniform();
    while (u1 <= 0) u1 = Uniform();
    const double u2 = Uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  uint64_t state_;
};

// A realistic per-step time series of one training run (µs): log-normal jitter around the
// median (right-skewed like real step times) plus occasional hiccups (data loader, GC,
// logging) of +8..20% in about 5% of steps. Step times rounded to 0.1 µs like a trace's.
inline std::vector<double> RealisticStepTimesUs(int steps, double median_us, double jitter_cv, uint64_t seed) {
  TestRng rng(seed);
  std::vector<double> out;
  for (int i = 0; i < steps; ++i) {
    double t = median_us * std::exp(jitter_cv * rng.Normal());
    if (rng.Uniform() < 0.05) t *= 1.08 + 0.12 * rng.Uniform();
    out.push_back(std::round(t * 10.0) / 10.0);
  }
  return out;
}

inline std::vector<double> Scaled(std::vector<double> values, double factor) {
  for (double& v : values) v = std::round(v * factor * 10.0) / 10.0;
  return values;
}

}  // namespace ampscope::testing
