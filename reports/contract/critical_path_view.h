// The report's `critical_path` section (docs/report_schema.md, docs/whatif.md) as its readers
// see it: typed, and lenient as render/ has always been (a missing field, or one of another type,
// is nullopt / "" / an empty list, never an exception). The section's field names are declared
// here once (critical_path_key): the reader (critical_path_view.cc) and the writer
// (reports/critical_path_json.cc) both use them, so a rename is one edit. The breakdown's
// category keys ("gpu_compute", ...) are the analyzers' BreakdownName, kept as the report has them.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace ampscope::reports {

namespace critical_path_key {
inline constexpr const char kCriticalPath[] = "critical_path";  // the section: top level, and ranks[]
inline constexpr const char kAvailable[] = "available";
inline constexpr const char kReason[] = "reason";
inline constexpr const char kBreakdownPct[] = "breakdown_pct";
inline constexpr const char kBreakdownUs[] = "breakdown_us";
inline constexpr const char kGpuGapPct[] = "gpu_gap_pct";
inline constexpr const char kLengthUs[] = "length_us";
inline constexpr const char kMeanLengthUs[] = "mean_length_us";
inline constexpr const char kListed[] = "listed";
inline constexpr const char kCount[] = "count";  // listed.count: every step, listed or not
inline constexpr const char kReplayErrorPct[] = "replay_error_pct";
inline constexpr const char kWorstStep[] = "worst_step";
inline constexpr const char kGraph[] = "graph";
inline constexpr const char kHiddenWaits[] = "hidden_waits";  // graph.hidden_waits
}  // namespace critical_path_key

// The report's critical_path object.
struct CriticalPathSection {
  bool present = false;    // the report has the object
  bool available = false;  // `available` is true
  std::optional<std::string> reason;  // why not available
  // Category -> share of the steps' paths together (%) and time (µs), in report order; only
  // the entries that are numbers.
  std::vector<std::pair<std::string, double>> breakdown_pct, breakdown_us;
  std::optional<double> gpu_gap_pct;
  // length_us[]: the listed steps' path lengths (µs), one per element (nullopt: not a number).
  // A report from before the list was bounded has every step here and no `listed`.
  std::vector<std::optional<double>> length_us;
  std::optional<double> mean_length_us;  // over every step
  std::optional<double> listed_count;    // steps in all
  std::optional<double> replay_error_pct;
  std::optional<double> worst_step;      // the step of the worst replay error; < 0: the window
  std::optional<double> hidden_waits;    // graph.hidden_waits: host waits no sync call records
};

CriticalPathSection ReadCriticalPathSection(const nlohmann::json& report);

}  // namespace ampscope::reports
