// Memory rules: allocation churn after warm-up, peak memory near capacity, allocator
// fragmentation, and layout transforms around convolutions.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analyzers/diagnosis/rules.h"
#include "base/saturating.h"
#include "base/units.h"
#include "trace/classify/api_roles.h"

namespace ampscope::diagnosis {

MemoryOutcome RuleMemory(const Facts& in, FindingSink& out) {
  MemoryOutcome o;
  ChecklistItem& item = out.Item("memory_fragmentation");
  item.threshold = fmt::format("no cudaMalloc/cudaFree after the first step [heur]; peak allocated <= {:.0f}% of device [kineto]; "
                               "reserved - allocated < {:.0f}% of reserved or < 1 GiB [heur]",
                               kMemoryPeakPct, kFragmentationPct);
  item.source = "[heur] DL-04 allocation churn; [kineto] peak memory > 90%; [memory] events (profile_memory=True)";
  // Allocation churn after warm-up.
  int64_t steady_calls = 0, steady_frees = 0;
  std::map<std::string, int64_t> by_name;
  for (const AllocCall& a : in.ctx.host().alloc_calls) {
    if (a.step < kWarmupStepsExcluded) continue;
    ++steady_calls;
    by_name[a.name]++;
    if (ClassifyApi(a.name) == ApiRole::kFree) ++steady_frees;
  }
  const size_t steady_steps = in.steps.size() > static_cast<size_t>(kWarmupStepsExcluded) ? in.steps.size() - kWarmupStepsExcluded : 0;
  std::vector<std::string> parts;
  parts.push_back(steady_steps > 0 ? fmt::format("{:.1f} cudaMalloc/cudaFree calls per step after the first step",
                                                 static_cast<double>(steady_calls) / steady_steps)
                                   : std::string("one step: allocation churn after warm-up unknown"));
  if (steady_calls > 0) {
    const double pct = in.CausePct(IdleCause::kAlloc);
    // The fix: the allocator calls after warm-up are gone (and the device syncs cudaFree makes).
    std::vector<uint32_t> alloc_calls;
    for (uint32_t i = 0; i < in.t.api_calls.size(); ++i) {
      const ApiRole role = in.ctx.api_role(i);
      if ((role != ApiRole::kAlloc && role != ApiRole::kFree) || !in.ctx.InWindows(in.t.api_calls[i].start_ns)) continue;
      if (in.ctx.StepOfLaunch(in.t.api_calls[i].start_ns) >= kWarmupStepsExcluded) alloc_calls.push_back(i);
    }
    FieldList calls;
    for (const auto& [n, c] : by_name) calls.push_back({n, c, Unit::kCount});
    Finding& x = out.Add("allocation_churn", 0.0,
                     fmt::format("{:.1f} cudaMalloc/cudaFree calls per step after warm-up", static_cast<double>(steady_calls) / std::max<size_t>(1, steady_steps)),
                     "The caching allocator keeps returning memory to the driver and asking for it again (cudaFree synchronizes "
                     "the device). Remove torch.cuda.empty_cache() from the loop, keep tensor shapes stable (pad variable "
                     "lengths to buckets), or set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.", steady_frees > 0);
    x.evidence = {{"calls_after_warmup", calls}, {"steps_after_warmup", steady_steps, Unit::kCount},
                  {"gpu_idle_from_allocator_pct", Round(pct), Unit::kPct},
                  {"estimate", "replayed: the cudaMalloc/cudaFree calls after warm-up removed, with the device syncs "
                               "cudaFree makes"}};
    x.time_ranges = in.TopRanges(IdleCause::kAlloc);
    out.Fix(x, graph::RemoveNodes(in.t, {}, std::move(alloc_calls), "cudaMalloc/cudaFree calls after the first step"));
  }
  // [memory] events: peak allocated and reserved on the device.
  // Fragmentation is judged when memory is scarcest: at the peak of allocated memory, how
  // much of what the allocator reserved is not in use.
  int64_t peak_alloc = -1, peak_res = -1, alloc_at_peak_res = -1;
  uint64_t events = 0;
  for (const MemoryEvent& m : in.t.memory_events) {
    if (m.device < 0) continue;
    if (in.gpu.device >= 0 && m.device != in.gpu.device) continue;
    ++events;
    if (m.total_allocated > peak_alloc || (m.total_allocated == peak_alloc && m.total_reserved > peak_res)) {
      peak_alloc = m.total_allocated;
      peak_res = m.total_reserved;
      alloc_at_peak_res = m.total_allocated;
    }
  }
  const int64_t capacity = in.gpu.info ? in.gpu.info->total_memory_bytes : -1;
  if (events > 0 && peak_alloc >= 0) {
    const double peak_pct = capacity > 0 ? 100.0 * static_cast<double>(peak_alloc) / static_cast<double>(capacity) : -1;
    o.peak_mem_pct = peak_pct;
    parts.push_back(capacity > 0 ? fmt::format("peak allocated {:.1f} GB ({:.1f}% of {:.1f} GB)", peak_alloc / 1e9, peak_pct, capacity / 1e9)
                                 : fmt::format("peak allocated {:.1f} GB (device memory unknown)", peak_alloc / 1e9));
    if (peak_pct > kMemoryPeakPct) {
      Finding& x = out.Add("memory_peak_near_capacity", 0.0,
                       fmt::format("Peak allocated memory is {:.1f}% of the GPU's", peak_pct),
                       "The run is close to out-of-memory and the batch cannot grow. Use activation checkpointing "
                       "(torch.utils.checkpoint), AMP for activations, a smaller micro-batch with gradient accumulation, "
                       "or free large resident buffers.");
      x.evidence = {{"peak_allocated_bytes", peak_alloc, Unit::kBytes}, {"device_memory_bytes", capacity, Unit::kBytes}, {"peak_pct", Round(peak_pct), Unit::kPct}};
    }
    if (peak_res > 0 && alloc_at_peak_res >= 0) {
      const int64_t gap = peak_res - alloc_at_peak_res;
      const double frag = 100.0 * static_cast<double>(gap) / static_cast<double>(peak_res);
      o.frag_pct = frag;
      parts.push_back(fmt::format("at peak allocated, {:.1f} GB reserved of which {:.1f}% unallocated", peak_res / 1e9, frag));
      if (frag >= kFragmentationPct && gap >= kFragmentationMinBytes) {
        const double res_pct = capacity > 0 ? 100.0 * static_cast<double>(peak_res) / static_cast<double>(capacity) : 0.0;
        Finding& x = out.Add("allocator_fragmentation", 0.0,
                         fmt::format("{:.1f} GB of reserved GPU memory is not allocated ({:.0f}% of reserved)", gap / 1e9, frag),
                         fmt::format("The caching allocator holds {:.1f} GB it cannot reuse{}: typical of varying tensor "
                                     "shapes. Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True, bucket sequence "
                                     "lengths, or preallocate the largest batch first.",
                                     gap / 1e9, res_pct > kMemoryPeakPct ? fmt::format(" while reserved memory is at {:.0f}% of the GPU", res_pct) : ""), res_pct > kMemoryPeakPct);
        x.evidence = {{"reserved_at_peak_allocated_bytes", peak_res, Unit::kBytes}, {"peak_allocated_bytes", alloc_at_peak_res, Unit::kBytes},
                      {"fragmentation_pct", Round(frag), Unit::kPct}, {"reserved_pct_of_device", Round(res_pct), Unit::kPct}};
      }
    }
  } else {
    parts.push_back("reserved vs allocated unknown (no [memory] events)");
  }
  item.evidence = fmt::format("{}", fmt::join(parts, "; "));
  item.value = steady_steps > 0 ? std::optional<double>(Round(static_cast<double>(steady_calls) / steady_steps)) : std::nullopt;
  const bool any_info = in.t.api_calls.size() > 0 || events > 0;
  if (!any_info) {
    item.status = CheckStatus::kUnknown;
    item.how_to_know = "profile with profile_memory=True (and CUDA runtime events) to see allocations";
    return o;
  }
  // The status follows from the findings' replayed savings (RefreshChecklist).
  item.status = CheckStatus::kPass;
  if (!out.HasFinding("memory_fragmentation") && events == 0)
    item.how_to_know = "profile with profile_memory=True to also check reserved vs allocated memory";
  o.alloc_calls_per_step = steady_steps > 0 ? static_cast<double>(steady_calls) / steady_steps : 0.0;
  // Layout transforms around convolutions (data_locality).
  TimeNs layout = 0, conv = 0;
  for (size_t i = 0; i < in.t.kernels.size(); ++i) {
    if (!in.InWindow(i)) continue;
    if (in.cls(i).category == KernelCategory::kLayoutTransform) layout = SaturatingAdd(layout, in.t.kernels[i].duration_ns());
    if (in.cls(i).category == KernelCategory::kConv) conv = SaturatingAdd(conv, in.t.kernels[i].duration_ns());
  }
  o.layout_pct_of_conv = conv > 0 ? 100.0 * static_cast<double>(layout) / static_cast<double>(conv) : 0.0;
  if (conv > 0 && o.layout_pct_of_conv > kLayoutPctOfConv) {
    std::vector<KernelTime> top = in.TopKernels([&](size_t i) { return in.cls(i).category == KernelCategory::kLayoutTransform; }, 3);
    std::set<std::string> ops;
    for (size_t i = 0; i < in.t.kernels.size() && ops.size() < 4; ++i) {
      if (!in.InWindow(i) || in.cls(i).category != KernelCategory::kLayoutTransform) continue;
      const int64_t op = in.ctx.CpuOpOfKernel(i);
      if (op >= 0) ops.insert(std::string(in.t.str(in.t.cpu_ops[op].name)));
    }
    Finding& x = out.Add("layout_transforms", 0.0,
                     fmt::format("NCHW<->NHWC transposes cost {:.0f}% of convolution time", o.layout_pct_of_conv),
                     fmt::format("cuDNN's Tensor Core convolutions work in NHWC, so every NCHW tensor is transposed in and "
                                 "out ({}{}). Convert the model and inputs to channels_last: "
                                 "model.to(memory_format=torch.channels_last), x.to(memory_format=torch.channels_last).",
                                 in.KernelList(top), ops.empty() ? "" : fmt::format("; around {}", fmt::join(ops, ", "))));
    x.evidence = {{"layout_transform_time_us", NsToUsRounded3(layout), Unit::kUs}, {"conv_time_us", NsToUsRounded3(conv), Unit::kUs}, {"pct_of_conv", Round(o.layout_pct_of_conv), Unit::kPct},
                  {"top_kernels", top}, {"estimate", "replayed: the transpose kernels removed (channels_last removes them)"}};
    std::vector<uint32_t> kernels;
    for (size_t i = 0; i < in.t.kernels.size(); ++i)
      if (in.InWindow(i) && in.cls(i).category == KernelCategory::kLayoutTransform) kernels.push_back(static_cast<uint32_t>(i));
    out.Fix(x, graph::RemoveNodes(in.t, std::move(kernels), {}, "NCHW<->NHWC transpose kernels"));
  }
  return o;
}

}  // namespace ampscope::diagnosis
