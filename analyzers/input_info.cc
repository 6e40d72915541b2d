// InputInfo: the facts of one input the report needs once its trace is gone.
#include <filesystem>
#include <set>

#include "analyzers/analysis.h"

namespace ampscope {

namespace {

// The peak table of the run: --gpu-peaks when given (the CLI has checked that it loads), else
// the built-in one. The same table the roofline and the diagnosis use.
std::vector<GpuPeak> PeakTable(const AnalysisOptions& options) {
  if (!options.gpu_peaks_path.empty()) {
    StatusOr<std::vector<GpuPeak>> loaded = LoadGpuPeaksTsv(options.gpu_peaks_path);
    if (loaded.ok()) return std::move(loaded).value();
  }
  return BuiltinGpuPeaks();
}

DeviceInfo DescribeDevice(const Device& d, const AnalysisOptions& options, const std::vector<GpuPeak>& table) {
  DeviceInfo info{d, std::nullopt, ""};
  // --gpu names the row for every device; otherwise the device's own name, SM count, memory and
  // (no name) the architecture its kernel names prove.
  GpuQuery q = QueryFor(d);
  if (!options.gpu_override.empty()) {
    q = GpuQuery{};
    q.name = options.gpu_override;
  }
  const GpuMatch m = MatchGpu(q, table);
  if (m.peak != nullptr) info.peak = *m.peak;
  info.peak_match = options.gpu_override.empty() ? m.reason : "--gpu " + options.gpu_override;
  return info;
}

}  // namespace

InputInfo DescribeInput(const Trace& t, const AnalysisOptions& options) {
  InputInfo in;
  const TraceMetadata& m = t.metadata;
  in.path = m.path;
  in.format = m.format;
  in.events = m.event_count;
  in.bytes = m.input_bytes;
  std::error_code ec;
  const uintmax_t size = m.path.empty() ? 0 : std::filesystem::file_size(m.path, ec);
  in.file_bytes = ec ? 0 : static_cast<uint64_t>(size);
  in.trace_rank = m.rank;
  in.world_size = m.world_size;
  in.host = m.host;
  in.driver_version = m.driver_version;
  in.cuda_runtime_version = m.cuda_runtime_version;
  in.cupti_version = m.cupti_version;
  in.framework_version = m.framework_version;
  in.diagnostics = t.diagnostics;
  // Kineto lists every visible device; keep the ones this process used (all of them when it
  // recorded no GPU work).
  std::set<int32_t> used;
  for (const KernelEvent& k : t.kernels) used.insert(k.device);
  for (const MemcpyEvent& c : t.memcpys) used.insert(c.device);
  for (const MemsetEvent& s : t.memsets) used.insert(s.device);
  const std::vector<GpuPeak> table = PeakTable(options);
  for (const Device& d : t.devices) {
    if (!used.empty() && used.count(d.id) == 0) continue;
    in.devices.push_back(DescribeDevice(d, options, table));
  }
  return in;
}

}  // namespace ampscope
