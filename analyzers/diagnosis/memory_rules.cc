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

namespace {

// [heur] A run of frees on one thread with no launch between, this long, is the cache being handed
// back at once (torch.cuda.empty_cache()); frees of a bypassed cache come a few per op. On the
// shared MI300X ResNet18 run (PYTORCH_NO_CUDA_MEMORY_CACHING-like: 272 hipFree per iteration)
// the runs are 1-4 frees between launches, and one run of 62 per iteration (zero_grad freeing
// ResNet18's 62 gradients).
constexpr int64_t kFreeBurstCalls = 16;
// [heur] Allocations without frees: at least this many per free means the cache grows.
constexpr int64_t kChurnGrowingAllocsPerFree = 2;

// Time of `merged` inside `windows` (both sorted and merged).
TimeNs OverlapWithWindows(const std::vector<Interval>& merged, const std::vector<Interval>& windows) {
  TimeNs t = 0;
  for (const Interval& w : windows) SatAccumulate(t, OverlapNs(merged, w.start_ns, w.end_ns));
  return t;
}

// The allocator's API names as the trace spells them ("hipMalloc/hipFree", "cudaMalloc/cudaFree"):
// the most called allocation and free names, else the CUDA pair.
std::string AllocatorNames(const std::map<std::string, int64_t>& by_name) {
  std::string alloc, free;
  int64_t alloc_n = 0, free_n = 0;
  for (const auto& [name, n] : by_name) {
    const bool is_free = ClassifyApi(name) == ApiRole::kFree;
    if (is_free && n > free_n) free = name, free_n = n;
    if (!is_free && n > alloc_n) alloc = name, alloc_n = n;
  }
  if (alloc.empty() && free.empty()) return "cudaMalloc/cudaFree";
  if (alloc.empty() || free.empty()) return alloc.empty() ? free : alloc;
  return alloc + "/" + free;
}

// How the allocator calls are spread, which tells the likely cause apart (docs/findings.md):
// the caching allocator keeps freed blocks, so in steady state it calls the driver only when it
// is bypassed (every tensor is allocated and freed: frees interleave with the kernel launches),
// when empty_cache() returns its cache (frees in one burst, then allocations to grow it again),
// or when new shapes need blocks the cache does not hold (allocations without frees).
struct ChurnShape {
  int64_t allocs = 0, frees = 0;
  int64_t burst_frees = 0;       // frees in runs of >= kFreeBurstCalls on one thread with no launch between
  TimeNs host_ns = 0;            // allocator call time (merged) inside the counted windows
  TimeNs windows_ns = 0;         // the counted windows
};

enum class ChurnCause : uint8_t { kCachingBypassed, kEmptyCache, kGrowingShapes };

ChurnCause LikelyCause(const ChurnShape& c) {
  if (c.frees == 0 || c.allocs >= kChurnGrowingAllocsPerFree * c.frees) return ChurnCause::kGrowingShapes;
  if (c.burst_frees * 2 >= c.frees) return ChurnCause::kEmptyCache;
  return ChurnCause::kCachingBypassed;
}

std::string CauseAdvice(ChurnCause likely, const ChurnShape& c) {
  const std::string bypassed =
      "the caching allocator is bypassed: PYTORCH_NO_CUDA_MEMORY_CACHING=1 in the environment makes every tensor "
      "a driver allocation and free; unset it";
  const std::string empty_cache =
      "torch.cuda.empty_cache() runs inside the loop and hands the cache back every time; call it only outside "
      "the training loop, if at all";
  const std::string shapes =
      "a growing set of tensor shapes (variable sequence lengths, a last partial batch) keeps needing blocks the "
      "cache does not hold; pad to a few fixed sizes (bucketing, drop_last=True) or set "
      "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True";
  const std::string interleaved = fmt::format("{} of {} frees interleave with kernel launches", c.frees - c.burst_frees, c.frees);
  switch (likely) {
    case ChurnCause::kCachingBypassed:
      return fmt::format("Most likely {} ({}). Otherwise: {}; or {}.", bypassed, interleaved, empty_cache, shapes);
    case ChurnCause::kEmptyCache:
      return fmt::format("Most likely {} ({} of {} frees come in bursts of >= {} with no launch between). Otherwise: {}; "
                         "or {}.",
                         empty_cache, c.burst_frees, c.frees, kFreeBurstCalls, bypassed, shapes);
    case ChurnCause::kGrowingShapes:
      return fmt::format("Most likely {} ({} allocations, {} frees). Otherwise: {}; or {}.", shapes, c.allocs, c.frees,
                         bypassed, empty_cache);
  }
  return "";
}

const char* CauseName(ChurnCause c) {
  switch (c) {
    case ChurnCause::kCachingBypassed: return "caching_allocator_bypassed";
    case ChurnCause::kEmptyCache: return "empty_cache_in_loop";
    case ChurnCause::kGrowingShapes: return "growing_set_of_shapes";
  }
  return "";
}

// The allocator calls counted (after the warm-up step; every call when there are not two steps),
// their host time inside the counted windows, and how the frees are spread.
ChurnShape MeasureChurn(const Facts& in, bool per_step) {
  ChurnShape c;
  const RankContext& ctx = in.ctx;
  std::vector<Interval> counted;
  for (size_t s = 0; s < in.steps.size(); ++s)
    if (!per_step || s >= static_cast<size_t>(kWarmupStepsExcluded)) counted.push_back({in.ra.steps.steps[s].start_ns, in.ra.steps.steps[s].end_ns});
  if (in.steps.empty()) counted = ctx.windows();
  counted = MergeIntervals(std::move(counted));
  for (const Interval& w : counted) SatAccumulate(c.windows_ns, w.end_ns - w.start_ns);
  c.host_ns = OverlapWithWindows(ctx.host().alloc_calls_merged, counted);
  // Runs of frees per thread, broken by a launch on that thread.
  std::map<int64_t, int64_t> run;
  auto close = [&](int64_t tid) {
    auto it = run.find(tid);
    if (it == run.end()) return;
    if (it->second >= kFreeBurstCalls) c.burst_frees += it->second;
    it->second = 0;
  };
  for (size_t i = 0; i < in.t.api_calls.size(); ++i) {
    const ApiCall& a = in.t.api_calls[i];
    const ApiRole role = ctx.api_role(i);
    if (role == ApiRole::kLaunch) close(a.tid);
    if (role != ApiRole::kAlloc && role != ApiRole::kFree) continue;
    if (OverlapNs(counted, a.start_ns, a.start_ns + 1) == 0) continue;
    if (role == ApiRole::kAlloc) {
      ++c.allocs;
    } else {
      ++c.frees;
      ++run[a.tid];
    }
  }
  for (auto& [tid, n] : run) close(tid);
  return c;
}

// Allocation churn (DL-04): driver allocations and frees after warm-up. With fewer than two steps
// (no ProfilerStep, or one), warm-up cannot be told from the steady state by step, so only frees
// count: the caching allocator frees nothing in steady state, while its warm-up only allocates.
void RuleAllocationChurn(const Facts& in, FindingSink& out, std::vector<std::string>& parts, MemoryOutcome& o) {
  const bool per_step = in.steps.size() > static_cast<size_t>(kWarmupStepsExcluded);
  int64_t steady_calls = 0, steady_frees = 0;
  std::map<std::string, int64_t> by_name;
  for (const AllocCall& a : in.ctx.host().alloc_calls) {
    if (per_step && a.step < kWarmupStepsExcluded) continue;
    by_name[a.name]++;
    const bool is_free = ClassifyApi(a.name) == ApiRole::kFree;
    if (per_step || is_free) ++steady_calls;
    if (is_free) ++steady_frees;
  }
  const std::string names = AllocatorNames(by_name);
  const size_t steady_steps = per_step ? in.steps.size() - kWarmupStepsExcluded : 0;
  // Without two steps the window is the one step the report speaks of: its frees are the churn.
  o.alloc_calls_per_step = per_step ? static_cast<double>(steady_calls) / steady_steps : static_cast<double>(steady_frees);
  if (per_step) {
    parts.push_back(fmt::format("{:.1f} {} calls per step after the first step", o.alloc_calls_per_step, names));
  } else {
    parts.push_back(fmt::format("{} frees ({}) in the window (fewer than two steps: only frees count as churn)", steady_frees, names));
  }
  if (steady_calls == 0) return;
  const ChurnShape shape = MeasureChurn(in, per_step);
  const double host_pct = shape.windows_ns > 0 ? 100.0 * static_cast<double>(shape.host_ns) / static_cast<double>(shape.windows_ns) : 0.0;
  // Without steps only a free is churn, and a stray one (a context's cudaFree(0)) is not worth a finding.
  if (!per_step && host_pct < kMinSavingPct) return;
  // The fix removes the allocator's host time: the GPU idle it caused, never more than that time.
  const TimeNs host_in_windows = OverlapWithWindows(in.ctx.host().alloc_calls_merged, in.ctx.windows());
  const double pct = std::min(in.CausePct(IdleCause::kAlloc), in.PctOfWindow(static_cast<double>(host_in_windows)));
  const ChurnCause likely = LikelyCause(shape);
  FieldList calls;
  for (const auto& [n, c] : by_name) calls.push_back({n, c, Unit::kCount});
  const double steps = per_step ? static_cast<double>(steady_steps) : 1.0;
  Finding& x = out.Add("allocation_churn", pct,
                       fmt::format("{} take {:.0f}% of the {}: {:.0f} frees and {:.0f} allocations {}", names, host_pct,
                                   per_step ? "step after warm-up" : "window", static_cast<double>(shape.frees) / steps,
                                   static_cast<double>(shape.allocs) / steps, per_step ? "per step" : "in the window (no steps)"),
                       fmt::format("The caching allocator keeps returning memory to the driver and asking for it again, and "
                                   "each free synchronizes the device. {}",
                                   CauseAdvice(likely, shape)),
                       steady_frees > 0);
  x.evidence = {{per_step ? "calls_after_warmup" : "calls_in_window", calls}};
  if (per_step) x.evidence.push_back({"steps_after_warmup", steady_steps, Unit::kCount});
  x.evidence.insert(x.evidence.end(), {
                {"allocs", shape.allocs, Unit::kCount},
                {"frees", shape.frees, Unit::kCount},
                {"frees_in_bursts", shape.burst_frees, Unit::kCount},
                {"allocator_time_pct_of_step", Round(host_pct), Unit::kPctOfStep},
                {"gpu_idle_from_allocator_pct", Round(in.CausePct(IdleCause::kAlloc)), Unit::kPct},
                {"likely_cause", CauseName(likely)},
                {"estimate", "replayed: the allocator calls counted here removed, with the device syncs a free makes"}});
  x.time_ranges = in.TopRanges(IdleCause::kAlloc);
  // The fix: the counted allocator calls are gone (after warm-up; without steps, the frees).
  std::vector<uint32_t> alloc_calls;
  for (uint32_t i = 0; i < in.t.api_calls.size(); ++i) {
    const ApiRole role = in.ctx.api_role(i);
    if ((role != ApiRole::kAlloc && role != ApiRole::kFree) || !in.ctx.InWindows(in.t.api_calls[i].start_ns)) continue;
    if (per_step ? in.ctx.StepOfLaunch(in.t.api_calls[i].start_ns) >= kWarmupStepsExcluded : role == ApiRole::kFree)
      alloc_calls.push_back(i);
  }
  out.Fix(x, graph::RemoveNodes(in.t, {}, std::move(alloc_calls),
                                per_step ? "allocator calls after the first step" : "allocator frees in the window"));
}

}  // namespace

MemoryOutcome RuleMemory(const Facts& in, FindingSink& out) {
  MemoryOutcome o;
  ChecklistItem& item = out.Item("memory_fragmentation");
  item.threshold = fmt::format("no allocator calls (cudaMalloc/cudaFree, hipMalloc/hipFree) after the first step [heur]; "
                               "peak allocated <= {:.0f}% of device [kineto]; "
                               "reserved - allocated < {:.0f}% of reserved or < 1 GiB [heur]",
                               kMemoryPeakPct, kFragmentationPct);
  item.source = "[heur] DL-04 allocation churn; [kineto] peak memory > 90%; [memory] events (profile_memory=True)";
  std::vector<std::string> parts;
  RuleAllocationChurn(in, out, parts, o);
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
  if (!in.t.api_calls.empty()) item.value = Round(o.alloc_calls_per_step);
  const bool any_info = in.t.api_calls.size() > 0 || events > 0;
  if (!any_info) {
    item.status = CheckStatus::kUnknown;
    item.how_to_know = "profile with profile_memory=True (and CUDA runtime events) to see allocations";
    return o;
  }
  const FindingSeverity worst = out.WorstSeverity("memory_fragmentation");
  if (!out.HasFinding("memory_fragmentation")) {
    item.status = CheckStatus::kPass;
    if (events == 0) item.how_to_know = "profile with profile_memory=True to also check reserved vs allocated memory";
  } else {
    item.status = worst == FindingSeverity::kInfo ? CheckStatus::kWarn : CheckStatus::kFail;
  }
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
                     fmt::format("{}'s {} convolutions work in NHWC, so every NCHW tensor is transposed in and "
                                 "out ({}{}). Convert the model and inputs to channels_last: "
                                 "model.to(memory_format=torch.channels_last), x.to(memory_format=torch.channels_last).",
                                 in.DnnLibrary(), in.MatrixUnit(), in.KernelList(top),
                                 ops.empty() ? "" : fmt::format("; around {}", fmt::join(ops, ", "))));
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
