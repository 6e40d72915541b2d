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
// All results are typed (roofline_result.h, what reports/ may see); nothing here prints or
// builds JSON.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyzers/results/analysis.h"
#include "analyzers/peaks/gpu_peaks.h"
#include "analyzers/context/op_tree.h"
#include "analyzers/roofline/op_models.h"
#include "analyzers/roofline/roofline_result.h"

namespace ampscope::roofline {

struct RooflineOptions {
  std::string gpu_override;                     // --gpu: a row id or device name (exact)
  const std::vector<GpuPeak>* peaks = nullptr;  // nullptr: the built-in table
  // The rank's devices with the row found for each (InputInfo::devices: the one lookup,
  // analyzers/peaks/device_peak.h); a device not listed there is looked up the same way.
  const std::vector<DeviceInfo>* devices = nullptr;
};

RooflineResult AnalyzeRoofline(const Trace& trace, const OpTree& tree, const StepAnalysis& steps,
                               const RooflineOptions& options);

}  // namespace ampscope::roofline
