// The one lookup of a device's peak-table row: the run's table (--gpu-peaks FILE, else the
// built-in one) and the row found for a device (--gpu names it for every device). InputInfo's
// `devices[].peak` is made here, and the roofline and the diagnosis take their row from it.
#pragma once

#include <string_view>
#include <vector>

#include "analyzers/peaks/gpu_peaks.h"
#include "analyzers/results/analysis.h"

namespace ampscope {

// The run's peak table: --gpu-peaks when given (the CLI has checked that it loads), else the
// built-in one.
std::vector<GpuPeak> RunPeakTable(const AnalysisOptions& options);

// The row of `device` in `table`: by --gpu when given, else by the device's name, SM count and
// memory, or (no name) the architecture its kernel names prove.
DeviceInfo DescribeDevice(const Device& device, std::string_view gpu_override, const std::vector<GpuPeak>& table);

// The row of device `id` as the input describes it (`devices`: InputInfo::devices), or, for a
// device the input does not list, the same lookup on `fallback`.
DeviceInfo DevicePeakOf(const std::vector<DeviceInfo>& devices, int32_t id, const Device& fallback,
                        std::string_view gpu_override, const std::vector<GpuPeak>& table);

}  // namespace ampscope
