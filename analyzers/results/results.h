// Typed per-rank results that used to travel as JSON objects: Tensor Core use, the per-step
// series and the step-time statistics. The JSON report serialises them (reports/json_report.cc)
// with the field names of docs/report_schema.md; nothing here knows JSON.
// Times are ns (fields end in _ns) unless they end in _us; percentages are 0-100; an optional
// that is empty is a value that could not be computed (null in the report).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trace/classify/kernel_classifier.h"
#include "trace/model.h"

namespace ampscope {

// A kernel name's share of the analysed kernel time (top lists of the Tensor Core and precision
// results).
struct KernelShare {
  std::string name;
  uint64_t count = 0;
  double time_us = 0;                       // rounded to ns
  std::optional<double> pct_of_kernel_time;  // of all kernel time in the window
  KernelCategory category = KernelCategory::kOther;
  Precision precision = Precision::kUnknown;
};

// Tensor Core use of the kernels in the analysed window (AnalyzePrecision).
struct TensorCoreResult {
  bool computed = false;                     // false: not analysed (only the defaults are reported)
  std::optional<double> kernel_time_pct;     // Tensor Core kernel time / kernel time (by name: estimated)
  double tc_kernel_time_us = 0;
  double kernel_time_us = 0;
  std::optional<double> unknown_tc_kernel_time_pct;  // kernels whose Tensor Core use the name cannot tell
  std::vector<KernelShare> top_kernels;
  std::vector<KernelShare> unknown_top_kernels;
  std::optional<double> rocm_kernel_time_pct;  // set when ROCm kernels ran (with `rocm_note`)
  std::string rocm_note;
  std::optional<double> active_pct;          // mean PM-sampled tensor_active_pct (measured)
  std::optional<uint64_t> active_samples;    // samples behind active_pct
  const char* source() const { return active_pct ? "measured" : "estimated"; }
};

// One analysed step's GPU numbers (charts, gates, the Chrome trace's step spans).
struct StepMetrics {
  int64_t number = -1;
  std::string name;
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  double busy_pct = 0;                // kernels + memcpy + memset, merged, per device mean
  double kernel_busy_pct = 0;         // kernels alone
  double tensor_core_kernel_pct = 0;  // Tensor Core kernel time / kernel time in the step
  uint64_t kernels = 0;
  uint64_t syncs = 0;                 // sync points in the step
  int32_t slowest_rank = -1;          // job view: the rank this step was taken from (-1: one rank)
  TimeNs duration_ns() const { return end_ns - start_ns; }
};

// Step durations: the statistics the report shows (numpy's default percentile: linear
// interpolation between closest ranks).
struct StepStats {
  std::vector<double> durations_us;  // in step order
  bool known() const { return !durations_us.empty(); }
  double mean_us = 0, median_us = 0, p90_us = 0, min_us = 0, max_us = 0;  // valid when known()
};

struct StepAnalysis;
StepStats ComputeStepStats(const StepAnalysis& steps);

}  // namespace ampscope
