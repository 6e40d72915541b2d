// The report's `ncu` section (docs/report_schema.md, docs/ncu.md: measured kernels from an
// Nsight Compute CSV, or the trace's hardware-counter tracks) as its readers see it: typed, and
// lenient as render/ has always been (a missing field, or one of another type, is nullopt / "" /
// an empty list, never an exception). The section's field names are declared here once
// (ncu_key): the reader (ncu_view.cc) and the writer (reports/ncu_json.cc) both use them, so a
// rename is one edit. A launch's metric keys are the trace model's NcuFieldName
// (trace/formats/ncu/ncu_fields.cc), which the writer uses; tests/reports/ncu_view_test.cc checks
// that the two spell them alike.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ampscope::reports {

namespace ncu_key {
inline constexpr const char kNcu[] = "ncu";  // the section, at the top level
inline constexpr const char kSource[] = "source";
inline constexpr const char kMode[] = "mode";
inline constexpr const char kWeighting[] = "weighting";
inline constexpr const char kFile[] = "file";
inline constexpr const char kFiles[] = "files";
inline constexpr const char kShape[] = "shape";
inline constexpr const char kJoin[] = "join";
inline constexpr const char kTraceKernels[] = "trace_kernels";
inline constexpr const char kTraceKernelsMatched[] = "trace_kernels_matched";
inline constexpr const char kKernelTimeCoveredPct[] = "kernel_time_covered_pct";
inline constexpr const char kKernels[] = "kernels";
inline constexpr const char kName[] = "name";
inline constexpr const char kBound[] = "bound";
inline constexpr const char kWeightUs[] = "weight_us";
inline constexpr const char kStallReasons[] = "stall_reasons";
inline constexpr const char kReason[] = "reason";
inline constexpr const char kSharePct[] = "share_pct";
inline constexpr const char kCounters[] = "counters";
inline constexpr const char kField[] = "field";
inline constexpr const char kSamples[] = "samples";
inline constexpr const char kMean[] = "mean";
// kernels[]' metrics, as NcuFieldName spells them.
inline constexpr const char kSmThroughputPct[] = "sm_throughput_pct";
inline constexpr const char kMemoryThroughputPct[] = "memory_throughput_pct";
inline constexpr const char kDramThroughputPct[] = "dram_throughput_pct";
inline constexpr const char kL2HitRatePct[] = "l2_hit_rate_pct";
inline constexpr const char kAchievedOccupancyPct[] = "achieved_occupancy_pct";
}  // namespace ncu_key

// stall_reasons[]: a launch's warp stalls, largest first.
struct NcuStall {
  std::string reason;
  std::optional<double> share_pct;
};

// kernels[]: one profiled launch (null metrics: the file lacks them).
struct NcuKernel {
  std::string name;
  std::string bound;  // "compute", "memory", "latency", ...
  std::optional<double> weight_us;  // the time it stands for
  std::optional<double> sm_throughput_pct, memory_throughput_pct, dram_throughput_pct, l2_hit_rate_pct, achieved_occupancy_pct;
  std::vector<NcuStall> stall_reasons;
};

// counters[]: a hardware-counter track of the trace.
struct NcuCounter {
  std::string name, field;
  std::optional<double> samples, mean;
};

// join: the CSV's launches matched to the trace's kernels.
struct NcuJoin {
  std::optional<double> trace_kernels, trace_kernels_matched, kernel_time_covered_pct;
};

struct NcuView {
  std::string source;
  std::string mode;       // "alone" | "joined" | "counters"
  std::string weighting;
  std::string file;
  std::optional<size_t> files;  // elements of files[]; nullopt when it is not a list
  std::string shape;            // the CSV's form
  NcuJoin join;
  std::vector<NcuKernel> kernels;  // one per element of kernels[], in report order
  std::vector<NcuCounter> counters;
};

// The report's ncu object; nullopt when the report has none (or it is not an object).
std::optional<NcuView> ReadNcuView(const nlohmann::json& report);
// ncu.mode alone (what a finding's saving is a share of depends on it); "" without an ncu object.
std::string NcuMode(const nlohmann::json& report);

}  // namespace ampscope::reports
