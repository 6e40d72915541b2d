// A job report's ranks (docs/report_schema.md: `ranks[]`, one section per rank, and `job`) as the
// per-rank table reads them: typed, and lenient as render/ has always been (a missing field, or
// one of another type, is nullopt / "" / an empty list, never an exception). The names of a rank
// entry's own fields and of `job`'s imbalance and warnings are declared here once (ranks_key,
// job_key): the reader (ranks_view.cc) and the writer (reports/json_report.cc) both use them. A
// rank's steps, GPU and Tensor Core numbers are the top level's fields (report_fields.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ampscope::reports {

// ranks[] entries (and job.per_rank[]).
namespace ranks_key {
inline constexpr const char kRank[] = "rank";
inline constexpr const char kInput[] = "input";
inline constexpr const char kDevice[] = "device";
}  // namespace ranks_key

namespace job_key {
inline constexpr const char kJob[] = "job";
inline constexpr const char kImbalance[] = "imbalance";
inline constexpr const char kStepTime[] = "step_time";
inline constexpr const char kCompute[] = "compute";
inline constexpr const char kCommunication[] = "communication";
inline constexpr const char kWarnings[] = "warnings";
}  // namespace job_key

// One rank's row.
struct RankRow {
  std::optional<double> rank;
  std::string input;   // the rank's trace
  std::string device;  // its first device's name
  std::optional<double> steps;  // steps.count
  std::optional<double> step_time_mean_us, step_time_p90_us;
  std::optional<double> gpu_busy_pct, gpu_kernel_busy_pct, gpu_idle_host_wait_pct;
  std::optional<double> tensor_core_kernel_time_pct;
};

// job.imbalance: max / mean over ranks (1 = balanced).
struct JobImbalance {
  std::optional<double> step_time, compute, communication;
};

struct RanksView {
  std::vector<RankRow> ranks;               // one per element of ranks[], in report order
  std::optional<JobImbalance> imbalance;    // nullopt: job.imbalance is not an object
  std::vector<std::string> warnings;        // job.warnings[]' strings
};

RanksView ReadRanksView(const nlohmann::json& report);

}  // namespace ampscope::reports
