// InputInfo: the facts of one input the report needs once its trace is gone.
#include <filesystem>
#include <set>

#include "analyzers/peaks/device_peak.h"
#include "analyzers/results/analysis.h"

namespace ampscope {

InputInfo DescribeInput(const Trace& t, const AnalysisOptions& options) { return DescribeInput(t, options, RunPeakTable(options)); }

InputInfo DescribeInput(const Trace& t, const AnalysisOptions& options, const std::vector<GpuPeak>& peaks) {
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
  for (const Device& d : t.devices) {
    if (!used.empty() && used.count(d.id) == 0) continue;
    in.devices.push_back(DescribeDevice(d, options.gpu_override, peaks));
  }
  return in;
}

}  // namespace ampscope
