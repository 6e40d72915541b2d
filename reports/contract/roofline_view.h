// The report's `roofline` section (docs/report_schema.md, docs/roofline.md) as its readers see
// it: typed, and lenient as render/ has always been (a missing field, or one of another type, is
// nullopt / "" / an empty list, never an exception). The section's field names are declared here
// once (roofline_key): the reader (roofline_view.cc) and the writer (reports/roofline_json.cc)
// both use them, so a rename is one edit.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ampscope::reports {

namespace roofline_key {
inline constexpr const char kRoofline[] = "roofline";  // the section: top level, and ranks[].roofline
inline constexpr const char kAvailable[] = "available";
inline constexpr const char kReason[] = "reason";
inline constexpr const char kGpu[] = "gpu";
inline constexpr const char kPeakId[] = "peak_id";
inline constexpr const char kMatch[] = "match";
inline constexpr const char kHbmTbps[] = "hbm_tbps";
inline constexpr const char kRoofs[] = "roofs";
inline constexpr const char kPrecision[] = "precision";
inline constexpr const char kUnit[] = "unit";
inline constexpr const char kTflops[] = "tflops";
inline constexpr const char kWindow[] = "window";
inline constexpr const char kStepGflop[] = "step_gflop";
inline constexpr const char kAchievedTflops[] = "achieved_tflops";
inline constexpr const char kPeakTflops[] = "peak_tflops";
inline constexpr const char kPeakPrecision[] = "peak_precision";
inline constexpr const char kMfuPct[] = "mfu_pct";
inline constexpr const char kMfuReason[] = "mfu_reason";
inline constexpr const char kHfuPct[] = "hfu_pct";
inline constexpr const char kSteps[] = "steps";
inline constexpr const char kStep[] = "step";
inline constexpr const char kTimeUs[] = "time_us";
inline constexpr const char kModelGflop[] = "model_gflop";
inline constexpr const char kOps[] = "ops";
inline constexpr const char kOp[] = "op";
inline constexpr const char kInputDims[] = "input_dims";
inline constexpr const char kDtype[] = "dtype";
inline constexpr const char kPass[] = "pass";
inline constexpr const char kCount[] = "count";
inline constexpr const char kGflop[] = "gflop";
inline constexpr const char kFlopPerByte[] = "flop_per_byte";
inline constexpr const char kKernelTimeUs[] = "kernel_time_us";
inline constexpr const char kTbps[] = "tbps";
inline constexpr const char kBound[] = "bound";
inline constexpr const char kPctOfPeak[] = "pct_of_peak";
inline constexpr const char kPctNote[] = "pct_note";
inline constexpr const char kNote[] = "note";
inline constexpr const char kOpsTotal[] = "ops_total";
inline constexpr const char kCoverage[] = "coverage";
inline constexpr const char kModelledKernelTimeUs[] = "modelled_kernel_time_us";
}  // namespace roofline_key

// gpu.roofs[]: one line of the chart.
struct RooflineRoof {
  std::string precision;  // "bf16", "fp32", ...
  std::string unit;       // "matrix" | "vector"
  std::optional<double> tflops;
};

struct RooflineGpu {
  std::optional<std::string> peak_id;  // the peak table's row; null when the GPU is not known
  std::string match;                   // how the row was found, or why none was
  std::optional<double> hbm_tbps;      // TB/s
  std::vector<RooflineRoof> roofs;
};

// steps[]: one per listed step.
struct RooflineStep {
  std::optional<double> step;  // the step's number; < 0: the window of a trace without steps
  std::optional<double> time_us, model_gflop, achieved_tflops, mfu_pct;
};

// ops[]: the top ops by kernel time.
struct RooflineOp {
  std::string op;                    // "aten::mm"
  std::string input_dims;            // the report's string, else the JSON text of its value ("null" when absent)
  std::optional<std::string> dtype;  // "bf16", ...
  std::string pass;                  // "forward" | "backward"
  std::optional<double> count;       // calls
  std::optional<double> gflop;       // per call; null when the op's FLOPs are not known
  std::optional<double> flop_per_byte, kernel_time_us, tflops, tbps;
  std::optional<std::string> bound;  // "compute" | "memory"; null when not known
  std::optional<double> pct_of_peak;  // % of the attainable at the op's FLOP per byte
  std::string pct_note;               // why it is above 100%; "" when none
  std::string note;                   // why the FLOPs are not known; "" when none
};

struct RooflineCoverage {
  std::optional<double> kernel_time_us, modelled_kernel_time_us;
};

// One `roofline` object.
struct RooflineSection {
  bool present = false;    // the report has the object
  bool available = false;  // `available` is true
  std::optional<std::string> reason;  // why not available
  RooflineGpu gpu;
  std::string window;  // "steps" | "trace"
  std::optional<double> step_gflop, achieved_tflops, peak_tflops;
  std::string peak_precision;
  std::optional<double> mfu_pct;
  std::optional<std::string> mfu_reason;
  std::optional<double> hfu_pct;
  std::vector<RooflineStep> steps;  // one per element of steps[]
  std::vector<RooflineOp> ops;      // one per element of ops[]
  std::optional<double> ops_total;  // ops the rank has (ops[] lists the first)
  RooflineCoverage coverage;
};

// The report's rooflines: its own (top level) and, in a job report, the first rank's (a job's
// top-level roofline is unavailable: each rank has its own in ranks[].roofline).
struct RooflineView {
  RooflineSection report;
  size_t ranks = 0;                       // elements of ranks[]
  std::optional<double> first_rank;       // ranks[0].rank
  RooflineSection first_rank_roofline;    // ranks[0].roofline
};
RooflineView ReadRooflineView(const nlohmann::json& report);

// One `roofline` object (a null or non-object json: not present).
RooflineSection ReadRooflineSection(const nlohmann::json& roofline);

}  // namespace ampscope::reports
