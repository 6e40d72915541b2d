// Linking after the last event: correlation ids join GPU work to its runtime call
// (unmatched_correlation, synchronous copies, ROCm launch parameters), then devices, rank and
// the final sort.
#include <algorithm>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/saturating.h"
#include "trace/classify/api_roles.h"
#include "trace/formats/kineto/kineto_event_parser.h"

namespace ampscope::kineto {

Trace TraceBuilder::Finish(uint64_t input_bytes, int threads) {
  trace_.metadata.input_bytes = input_bytes;
  trace_.metadata.event_count = event_count_;
  FlushDiagnostics();
  LinkCorrelations();
  CheckProfilerSteps();
  FinishDevices();
  if (!evidence_.have_rank) trace_.metadata.rank = RankFromFileName(name_);
  FinalizeTrace(trace_, threads);
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
  // GPU work cannot start before the call that launched it; when it does, the host and GPU
  // clocks disagree (a bad clock calibration, clocks of two hosts), and every launch delay
  // taken from them is wrong. Counted once per event, first offset kept.
  auto before_launch = [&](const char* what, TimeNs start_ns, const ApiCall* call, uint64_t offset) {
    if (call == nullptr || start_ns >= call->start_ns) return;
    trace_.diagnostics.Add(DiagCode::kKernelBeforeLaunch, static_cast<int64_t>(offset),
                           std::string(what) + " starts " + std::to_string(SaturatingSub(call->start_ns, start_ns)) +
                               " ns before the runtime call that launched it (correlation " +
                               std::to_string(call->correlation) + ")");
  };
  for (size_t i = 0; i < trace_.kernels.size(); ++i) {
    KernelEvent& k = trace_.kernels[i];
    const ApiCall* call = find_call(k.correlation);
    if (call == nullptr) unmatched("kernel", k.correlation, links_.kernel_offsets[i]);
    before_launch("kernel", k.start_ns, call, links_.kernel_offsets[i]);
    if (!links_.runtime_launch_info.empty() && trace_.launch(k).grid[0] == 0) {
      auto it = links_.runtime_launch_info.find(k.correlation);
      if (it != links_.runtime_launch_info.end() && it->second.has_dims) {
        LaunchConfig lc = trace_.launch(k);
        std::copy(it->second.grid, it->second.grid + 3, lc.grid);
        std::copy(it->second.block, it->second.block + 3, lc.block);
        k.launch_config = trace_.InternLaunch(lc);
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
    before_launch("memcpy", m.start_ns, call, links_.memcpy_offsets[i]);
    std::string_view api = trace_.str(call->name);
    // cudaMemcpy / cuMemcpyDtoH / hipMemcpy... without "Async" block the host.
    if (ClassifyApi(api) == ApiRole::kMemcpySync) m.async = false;
    if (m.bytes == 0 && !links_.runtime_launch_info.empty()) {
      auto it = links_.runtime_launch_info.find(m.correlation);
      if (it != links_.runtime_launch_info.end() && it->second.size_bytes > 0)
        m.bytes = static_cast<uint64_t>(it->second.size_bytes);
    }
  }
  for (size_t i = 0; i < trace_.memsets.size(); ++i) {
    const ApiCall* call = find_call(trace_.memsets[i].correlation);
    if (call == nullptr) unmatched("memset", trace_.memsets[i].correlation, links_.memset_offsets[i]);
    before_launch("memset", trace_.memsets[i].start_ns, call, links_.memset_offsets[i]);
  }
  links_.kernel_offsets = {};
  links_.memcpy_offsets = {};
  links_.memset_offsets = {};
}

// ProfilerStep#N ranges as the step detection (analyzers/) sees them: every CPU annotation of
// that name, on any thread. Counted here, in file order of the later range, because a reader
// is where the byte offset is known; the analyzers decide what to do with them.
// - the same name twice with other times: duplicate_profiler_step (an identical copy, same
//   start and end, is what 2021-format traces write for an Operator and its annotation: fine);
// - a step starting before an earlier, differently named one ends: overlapping_profiler_steps.
void TraceBuilder::CheckProfilerSteps() {
  std::vector<std::pair<uint32_t, uint64_t>>& steps = links_.step_ranges;
  if (steps.size() < 2) return;
  auto range = [&](const std::pair<uint32_t, uint64_t>& s) -> const Range& { return trace_.ranges[s.first]; };
  // By start, longer first (as FinalizeTrace orders ranges), then file order.
  std::sort(steps.begin(), steps.end(), [&](const auto& a, const auto& b) {
    const Range &x = range(a), &y = range(b);
    if (x.start_ns != y.start_ns) return x.start_ns < y.start_ns;
    if (x.end_ns != y.end_ns) return x.end_ns > y.end_ns;
    return a.second < b.second;
  });
  struct Seen {
    TimeNs start_ns, end_ns;
  };
  std::unordered_map<StringId, Seen> by_name;
  // The diagnostics keep the first occurrence in file order, so collect and sort by offset.
  std::vector<std::pair<uint64_t, std::string>> duplicates, overlaps;
  const Range* open = nullptr;  // the latest-ending step so far
  for (const auto& s : steps) {
    const Range& r = range(s);
    auto [it, fresh] = by_name.emplace(r.name, Seen{r.start_ns, r.end_ns});
    if (!fresh) {
      if (it->second.start_ns != r.start_ns || it->second.end_ns != r.end_ns)
        duplicates.emplace_back(s.second, std::string(trace_.str(r.name)) + " occurs again with other times");
      continue;  // an identical copy, or a duplicate already counted
    }
    if (open != nullptr && r.start_ns < open->end_ns)
      overlaps.emplace_back(s.second, std::string(trace_.str(r.name)) + " starts " +
                                          std::to_string(SaturatingSub(open->end_ns, r.start_ns)) +
                                          " ns before " + std::string(trace_.str(open->name)) + " ends");
    if (open == nullptr || r.end_ns > open->end_ns) open = &r;
  }
  auto add = [&](DiagCode code, std::vector<std::pair<uint64_t, std::string>>& found) {
    if (found.empty()) return;
    auto first = std::min_element(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    trace_.diagnostics.AddCount(code, found.size(), static_cast<int64_t>(first->first), first->second);
  };
  add(DiagCode::kDuplicateProfilerStep, duplicates);
  add(DiagCode::kOverlappingProfilerSteps, overlaps);
  links_.step_ranges = {};
}

}  // namespace ampscope::kineto
