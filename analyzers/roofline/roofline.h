// Roofline and MFU: how close each op and each step is to the GPU's peaks.
//
// From the op tree (each op's kernels and kernel time), the FLOP/byte models (op_models.h), the
// GPU's dense peaks (gpu_peaks.h) and the step windows, it computes:
//   - per op name + input shapes: FLOP and bytes per call, achieved TFLOP/s and TB/s over the op's
//     kernel time, compute- or memory-bound from the ridge point of its precision, % of the
//     attainable peak (docs/roofline.md);
//   - per step: the model FLOPs that ran (forward and backward as executed), achieved TFLOP/s,
//     and MFU against the dense peak of the dominant math precision; HFU when recompute is seen.
// Which ops are counted: a row of the op table is the innermost op with a model (the op whose
// kernels they are: aten::mm under aten::linear, as TraceLens reports it); the step total counts
// the outermost op with a usable model and its children only when it has none, so no FLOP is
// counted twice.
// All results are typed; nothing here prints or builds JSON.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyzers/analysis.h"
#include "analyzers/gpu_peaks.h"
#include "analyzers/op_tree.h"
#include "analyzers/roofline/op_models.h"

namespace ampscope::roofline {

struct RooflineOptions {
  std::string gpu_override;                     // --gpu: a row id or device name (exact)
  const std::vector<GpuPeak>* peaks = nullptr;  // nullptr: the built-in table
};

// The GPU whose peaks are used.
struct RooflineGpu {
  int32_t device = -1;            // the trace's device id (the one with the most kernel time)
  std::string device_name;        // as the trace names it
  std::optional<GpuPeak> peak;    // absent: not known (reason says why)
  std::string match;              // how the row was found ("device name", "--gpu", ...) or why not
};

// One op name + input shapes (+ pass), aggregated over its calls.
struct OpRow {
  struct Identity {
    std::string op;             // e.g. "aten::mm"
    std::string input_dims;     // the trace's "Input Dims", as recorded
    std::string input_types;    // the trace's "Input type", as recorded
    Precision precision = Precision::kUnknown;  // of the math: from its kernels, else its input types
    OpFamily family = OpFamily::kCount;
    MathUnit unit = MathUnit::kVector;
    bool backward = false;      // ran in the backward pass (under an autograd node)
  } id;
  struct Work {
    bool known = false;
    double gflop = 0;           // per call
    std::optional<double> bytes;          // per call
    std::optional<double> flop_per_byte;
    std::string note;           // unknown: why; known: an assumption
  } work;
  struct Timing {
    uint64_t count = 0;                  // calls in the analysed window
    uint64_t calls_with_kernels = 0;
    double kernel_time_us = 0;           // sum over calls of the kernels under each call
    std::optional<double> tflops;        // achieved, mean over calls with kernels
    std::optional<double> tbps;          // achieved, mean over calls with kernels
  } timing;
  struct Roof {
    std::string bound;                   // "compute" | "memory" | "" (unknown)
    std::optional<double> peak_tflops;   // of this precision and math unit
    std::optional<double> pct_of_peak;   // achieved / attainable (min(peak, intensity x bandwidth)) x 100
  } roof;
};

struct StepRoofline {
  int64_t number = -1;            // ProfilerStep#N, else the index; -1 for the whole window
  double time_us = 0;             // the step's analysed window
  double model_gflop = 0;         // FLOPs of the ops that ran, counted once, without recompute
  double hardware_gflop = 0;      // model + recomputed FLOPs
  double achieved_tflops = 0;     // model FLOPs / step time
  std::optional<double> mfu_pct;
  std::optional<double> hfu_pct;  // only when recompute was seen
};

struct RooflineSummary {
  double step_gflop = 0;                  // mean model GFLOP per step (or over the window)
  double achieved_tflops = 0;             // total model FLOPs / total step time
  Precision peak_precision = Precision::kUnknown;  // dominant math precision (most modelled FLOPs)
  std::optional<double> peak_tflops;      // dense peak of that precision on this GPU
  std::string peak_source;                // the peak row and its source
  std::optional<double> mfu_pct;
  std::string mfu_reason;                 // why mfu_pct is null, or "" when it is known
  std::optional<double> hfu_pct;          // when recompute was detected
  double recompute_gflop = 0;             // per step: forward ops re-run in backward + attention recompute
  bool activation_recompute = false;      // forward ops ran again inside the backward pass
  bool steps_used = false;                // false: over the analysed window
};

struct RooflineCoverage {
  double kernel_time_us = 0;              // all kernels in the window
  double modelled_kernel_time_us = 0;     // under a row op with known FLOPs
  uint64_t modelled_calls = 0;
  uint64_t unknown_calls = 0;             // modelled op names whose FLOPs are unknown for the call
  struct Unmodelled {
    std::string op;
    std::string reason;
    uint64_t count = 0;
    double kernel_time_us = 0;
  };
  // By kernel time, at most 10: modelled ops whose FLOPs are unknown for the call (with why), and
  // ops outside every row that launched kernels ("no FLOP model"; count = calls).
  std::vector<Unmodelled> top_unknown;
};

struct RooflineResult {
  bool available = false;
  std::string reason;                     // when not available: why (no shapes, no kernels, ...)
  RooflineGpu gpu;
  std::vector<OpRow> ops;                 // by kernel time, descending
  std::vector<StepRoofline> steps;        // per step, or one entry for the window
  RooflineSummary summary;
  RooflineCoverage coverage;
};

RooflineResult AnalyzeRoofline(const Trace& trace, const OpTree& tree, const StepAnalysis& steps,
                               const RooflineOptions& options);

}  // namespace ampscope::roofline
