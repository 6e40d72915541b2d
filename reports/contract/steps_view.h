// The report's `steps` section (docs/report_schema.md: the training steps found and analysed) as
// its readers see it: typed, and lenient as render/ has always been (a missing field, or one of
// another type, is nullopt / "" / false / absent, never an exception). Its field names are
// declared here once (steps_key): the reader (steps_view.cc) and the writer
// (reports/json_report.cc, StepsSection and StepMetricsJson) both use them. The gate reads
// durations_us and the time_us numbers through report_field's pointers (report_fields.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ampscope::reports {

namespace steps_key {
inline constexpr const char kSteps[] = "steps";  // the section: top level, and ranks[]
inline constexpr const char kCount[] = "count";
inline constexpr const char kListed[] = "listed";
inline constexpr const char kTruncated[] = "truncated";  // in listed
inline constexpr const char kSource[] = "source";
inline constexpr const char kTimeUs[] = "time_us";
inline constexpr const char kMean[] = "mean";
inline constexpr const char kMedian[] = "median";
inline constexpr const char kP90[] = "p90";
inline constexpr const char kMin[] = "min";
inline constexpr const char kMax[] = "max";
inline constexpr const char kDurationsUs[] = "durations_us";
inline constexpr const char kWindows[] = "windows";
inline constexpr const char kDetected[] = "detected";
inline constexpr const char kAnchor[] = "anchor";
inline constexpr const char kFlagged[] = "flagged";
inline constexpr const char kKernelsPerStep[] = "kernels_per_step";
inline constexpr const char kPerStep[] = "per_step";
// A trace read for some of its steps (`analyze --detail-steps`): null when every step is analysed.
inline constexpr const char kSampled[] = "sampled";
inline constexpr const char kInTrace[] = "in_trace";        // in sampled: ProfilerSteps in the file
inline constexpr const char kAnalysed[] = "analysed";       // in sampled: steps whose events were kept
inline constexpr const char kRule[] = "rule";               // in sampled: which, in words
inline constexpr const char kEventsLeftOut[] = "events_left_out";
// One step (windows[], per_step[], flagged[]).
inline constexpr const char kNumber[] = "number";
inline constexpr const char kName[] = "name";
inline constexpr const char kStartUs[] = "start_us";
inline constexpr const char kEndUs[] = "end_us";
inline constexpr const char kCpuEndUs[] = "cpu_end_us";
inline constexpr const char kDurationUs[] = "duration_us";
inline constexpr const char kBusyPct[] = "busy_pct";
inline constexpr const char kKernelBusyPct[] = "kernel_busy_pct";
inline constexpr const char kTensorCoreKernelPct[] = "tensor_core_kernel_pct";
inline constexpr const char kKernels[] = "kernels";
inline constexpr const char kSyncs[] = "syncs";
inline constexpr const char kSlowestRank[] = "slowest_rank";
inline constexpr const char kKind[] = "kind";
inline constexpr const char kExcluded[] = "excluded";
inline constexpr const char kReason[] = "reason";
}  // namespace steps_key

// windows[] and per_step[]: one listed step, µs on the trace's clock.
struct StepView {
  std::optional<double> number;  // ProfilerStep#N's N
  bool number_is_integer = false;  // number was written as an integer
  std::optional<double> start_us;
  std::optional<double> end_us;
  std::optional<double> duration_us;             // per_step only
  std::optional<double> busy_pct;                // per_step only
  std::optional<double> kernel_busy_pct;         // per_step only
  std::optional<double> tensor_core_kernel_pct;  // per_step only
};

// flagged[]: a warm-up or cut step.
struct FlaggedStepView {
  std::string kind;       // "warmup" | "cut"
  bool excluded = false;  // left out of the analysed window
};

struct StepsView {
  std::optional<double> count;
  bool listed_truncated = false;  // listed.truncated: windows and per_step list some steps only
  std::optional<std::string> source;  // "profiler_step", "nvtx", ...
  std::optional<double> mean_us, median_us, p90_us;  // time_us
  std::vector<std::optional<double>> durations_us;   // one per element, every step
  std::vector<StepView> windows;    // one per element of windows[]
  std::vector<StepView> per_step;   // one per element of per_step[]
  std::vector<FlaggedStepView> flagged;  // the objects of flagged[]
  std::string anchor;               // the range that the iterations were found from; "" when null
  std::optional<double> sampled_in_trace;  // sampled.in_trace: the steps in the file, when only some were analysed
  std::string sampled_rule;                // sampled.rule
};

// The steps section of `report`, or of one ranks[] element (it has its own steps).
StepsView ReadStepsView(const nlohmann::json& report);

}  // namespace ampscope::reports
