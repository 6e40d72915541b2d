#include "analyzers/peaks/device_peak.h"

#include <string>
#include <utility>

namespace ampscope {

std::vector<GpuPeak> RunPeakTable(const AnalysisOptions& options) {
  if (!options.gpu_peaks_path.empty()) {
    StatusOr<std::vector<GpuPeak>> loaded = LoadGpuPeaksTsv(options.gpu_peaks_path);
    if (loaded.ok()) return std::move(loaded).value();
  }
  return BuiltinGpuPeaks();
}

DeviceInfo DescribeDevice(const Device& d, std::string_view gpu_override, const std::vector<GpuPeak>& table) {
  DeviceInfo info{d, std::nullopt, ""};
  GpuQuery q = QueryFor(d);
  if (!gpu_override.empty()) {
    q = GpuQuery{};
    q.name = gpu_override;
  }
  const GpuMatch m = MatchGpu(q, table);
  if (m.peak != nullptr) info.peak = *m.peak;
  info.peak_match = gpu_override.empty() ? m.reason : "--gpu " + std::string(gpu_override);
  return info;
}

DeviceInfo DevicePeakOf(const std::vector<DeviceInfo>& devices, int32_t id, const Device& fallback,
                        std::string_view gpu_override, const std::vector<GpuPeak>& table) {
  for (const DeviceInfo& d : devices)
    if (d.device.id == id) return d;
  return DescribeDevice(fallback, gpu_override, table);
}

}  // namespace ampscope
