// Linking after the last event: correlation ids join GPU work to its runtime call
// (unmatched_correlation, synchronous copies, ROCm launch parameters), then devices, rank and
// the final sort.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "trace/classify/api_roles.h"
#include "trace/formats/kineto/kineto_event_parser.h"

namespace ampscope::kineto {

Trace TraceBuilder::Finish(uint64_t input_bytes) {
  trace_.metadata.input_bytes = input_bytes;
  trace_.metadata.event_count = event_count_;
  FlushDiagnostics();
  LinkCorrelations();
  FinishDevices();
  if (!evidence_.have_rank) trace_.metadata.rank = RankFromFileName(name_);
  FinalizeTrace(trace_);
  return std::move(trace_);
}

// correlation -> runtime call, for unmatched_correlation and synchronous copies.
void TraceBuilder::LinkCorrelations() {
  std::vector<std::pair<int64_t, uint32_t>> by_corr;
  by_corr.reserve(trace_.api_calls.size());
  for (size_t i = 0; i < trace_.api_calls.size(); ++i)
    if (trace_.api_calls[i].correlation >= 0)
      by_corr.emplace_back(trace_.api_calls[i].correlation, static_cast<uint32_t>(i));
  std::sort(by_corr.begin(), by_corr.end());
  auto find_call = [&](int64_t corr) -> const ApiCall* {
    auto it = std::lower_bound(by_corr.begin(), by_corr.end(), std::make_pair(corr, uint32_t{0}));
    return it != by_corr.end() && it->first == corr ? &trace_.api_calls[it->second] : nullptr;
  };
  auto unmatched = [&](const char* what, int64_t corr, uint64_t offset) {
    trace_.diagnostics.Add(DiagCode::kUnmatchedCorrelation, static_cast<int64_t>(offset),
                           std::string(what) + " with correlation " + std::to_string(corr) +
                               " has no runtime call in the trace");
  };
  for (size_t i = 0; i < trace_.kernels.size(); ++i) {
    KernelEvent& k = trace_.kernels[i];
    if (find_call(k.correlation) == nullptr) unmatched("kernel", k.correlation, links_.kernel_offsets[i]);
    if (!links_.runtime_launch_info.empty() && k.grid[0] == 0) {
      auto it = links_.runtime_launch_info.find(k.correlation);
      if (it != links_.runtime_launch_info.end() && it->second.has_dims) {
        std::copy(it->second.grid, it->second.grid + 3, k.grid);
        std::copy(it->second.block, it->second.block + 3, k.block);
      }
    }
  }
  for (size_t i = 0; i < trace_.memcpys.size(); ++i) {
    MemcpyEvent& m = trace_.memcpys[i];
    const ApiCall* call = find_call(m.correlation);
    if (call == nullptr) {
      unmatched("memcpy", m.correlation, links_.memcpy_offsets[i]);
      continue;
    }
    std::string_view api = trace_.str(call->name);
    // cudaMemcpy / cuMemcpyDtoH / hipMemcpy... without "Async" block the host.
    if (ClassifyApi(api) == ApiRole::kMemcpySync) m.async = false;
    if (m.bytes == 0 && !links_.runtime_launch_info.empty()) {
      auto it = links_.runtime_launch_info.find(m.correlation);
      if (it != links_.runtime_launch_info.end() && it->second.size_bytes > 0)
        m.bytes = static_cast<uint64_t>(it->second.size_bytes);
    }
  }
  for (size_t i = 0; i < trace_.memsets.size(); ++i)
    if (find_call(trace_.memsets[i].correlation) == nullptr)
      unmatched("memset", trace_.memsets[i].correlation, links_.memset_offsets[i]);
  links_.kernel_offsets = {};
  links_.memcpy_offsets = {};
  links_.memset_offsets = {};
}

}  // namespace ampscope::kineto
