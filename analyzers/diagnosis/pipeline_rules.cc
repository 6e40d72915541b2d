// Pipeline rules: the input pipeline (DataLoader, idle at step start, pageable copies), host
// syncs, launch-bound steps and GPU utilization the other findings do not explain.
#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analyzers/diagnosis/rules.h"
#include "analyzers/graph/critical_path_result.h"
#include "analyzers/graph/dep_graph.h"
#include "base/saturating.h"
#include "base/units.h"

namespace ampscope::diagnosis {
namespace {

double SmallKernelPct(const Facts& in) {
  uint64_t n = 0, small = 0;
  for (size_t i = 0; i < in.t.kernels.size(); ++i) {
    if (!in.InWindow(i)) continue;
    ++n;
    if (in.t.kernels[i].duration_ns() < kSmallKernelNs) ++small;
  }
  return n ? 100.0 * small / n : 0.0;
}
uint64_t KernelsInWindow(const Facts& in) {
  uint64_t n = 0;
  for (uint8_t b : in.ctx.kernels().in_window) n += b;
  return n;
}

std::vector<TimeSpan> RangesJson(const std::vector<std::pair<TimeNs, TimeNs>>& r) {
  std::vector<TimeSpan> a;
  for (const auto& [s, e] : r) a.push_back({NsToUsRounded3(s), NsToUsRounded3(e), NsToUsRounded3(e - s)});
  return a;
}

}  // namespace

void RuleDataPipeline(const Facts& in, FindingSink& out, PipelineOutcome& o) {
  ChecklistItem& item = out.Item("data_pipeline");
  item.threshold = fmt::format("exposed DataLoader time <= {:.0f}% of step [kineto]; GPU idle at step start <= {:.0f}% [heur]; "
                               "no pageable H2D copies [nsys]",
                               kDataLoaderPct, kIdleAtStepStartPct);
  item.source = "[kineto] DataLoader/step > 5%; [nsys] cuda_memcpy_async pageable copies";
  // Exposed DataLoader: its ranges minus GPU activity and runtime calls (the TensorBoard
  // plugin's step breakdown, where Kernel/Memcpy/Memset/Runtime take precedence).
  std::vector<Interval> runtime;  // merged as read: api_calls are in start order (FinalizeTrace)
  for (const ApiCall& a : in.t.api_calls) AppendMerged(runtime, a.start_ns, a.end_ns);
  TimeNs dl_total = 0, dl_exposed = 0;
  for (const Interval& w : in.ctx.windows()) {
    std::vector<Interval> pieces;
    auto it = std::upper_bound(in.ctx.host().dataloader.begin(), in.ctx.host().dataloader.end(), w.start_ns, [](TimeNs x, const Interval& iv) { return x < iv.end_ns; });
    for (; it != in.ctx.host().dataloader.end() && it->start_ns < w.end_ns; ++it)
      pieces.push_back({std::max(w.start_ns, it->start_ns), std::min(w.end_ns, it->end_ns)});
    for (const Interval& p : pieces) dl_total = SaturatingAdd(dl_total, p.end_ns - p.start_ns);
    CutOut(pieces, in.ctx.busy().main());
    CutOut(pieces, runtime);
    for (const Interval& p : pieces) dl_exposed = SaturatingAdd(dl_exposed, p.end_ns - p.start_ns);
  }
  const double dl_pct = in.PctOfWindow(static_cast<double>(dl_exposed));
  const double dl_raw_pct = in.PctOfWindow(static_cast<double>(dl_total));
  TimeNs idle_start = 0;
  for (const StepFacts& s : in.steps) idle_start = SaturatingAdd(idle_start, s.idle_at_start_ns);
  const double idle_start_pct = in.PctOfWindow(static_cast<double>(idle_start));
  // Pageable H2D copies.
  uint64_t pg_count = 0, pg_bytes = 0, pinned_bytes = 0;
  TimeNs pg_ns = 0, pinned_ns = 0;
  for (const MemcpyEvent& m : in.t.memcpys) {
    if (!in.ctx.InWindows(m.start_ns) || m.kind != MemcpyKind::kHtoD) continue;
    if (m.src_kind == MemoryKind::kPageable) {
      ++pg_count;
      pg_bytes += m.bytes;
      pg_ns = SaturatingAdd(pg_ns, m.duration_ns());
    } else if (m.src_kind == MemoryKind::kPinned && m.bytes >= (1u << 20)) {
      pinned_bytes += m.bytes;
      pinned_ns = SaturatingAdd(pinned_ns, m.duration_ns());
    }
  }
  item.value = Round(dl_pct);
  std::string ev = in.ctx.host().dataloader.empty() ? std::string("no DataLoader ranges")
                                       : fmt::format("DataLoader {:.1f}% of step ({:.1f}% exposed: GPU idle and no runtime call)", dl_raw_pct, dl_pct);
  ev += fmt::format("; GPU idle at step start {:.1f}%; {} pageable H2D copies ({:.1f} MB)", idle_start_pct, pg_count, pg_bytes / 1e6);
  item.evidence = ev;
  if (in.ctx.windows().empty()) {
    item.status = CheckStatus::kUnknown;
    item.how_to_know = "profile several training steps with torch.profiler.schedule so ProfilerStep#N ranges exist";
    return;
  }
  item.status = CheckStatus::kPass;
  if (dl_pct > kDataLoaderPct) {
    Finding& x = out.Add("dataloader_bottleneck", dl_pct,
                     fmt::format("Input loading takes {:.1f}% of the step while the GPU waits", dl_pct),
                     fmt::format("{} runs {:.1f} ms per step with the GPU idle. Load data in worker processes "
                                 "(DataLoader(num_workers=N, pin_memory=True, persistent_workers=True, prefetch_factor=2+)) "
                                 "and move decoding/augmentation off the training process.",
                                 in.ctx.host().dataloader_names.empty() ? std::string("The DataLoader") : *in.ctx.host().dataloader_names.begin(),
                                 Ms(dl_exposed) / in.nsteps));
    x.evidence = {{"dataloader_pct_of_step", Round(dl_raw_pct), Unit::kPctOfStep}, {"exposed_pct_of_step", Round(dl_pct), Unit::kPctOfStep},
                  {"exposed_per_step_us", NsToUsRounded3(dl_exposed / static_cast<TimeNs>(in.nsteps)), Unit::kUs},
                  {"ranges", std::vector<std::string>(in.ctx.host().dataloader_names.begin(), in.ctx.host().dataloader_names.end())},
                  {"estimate", "DataLoader time not overlapped by GPU work or runtime calls"}};
    x.time_ranges = in.TopRanges(IdleCause::kDataLoader);
    out.Fix(x, graph::NoDataLoaderWait("host time inside DataLoader ranges"));
    item.status = CheckStatus::kFail;
  }
  // Idle at step start not explained by a DataLoader range (a custom loader, host preprocessing).
  if (idle_start_pct > kIdleAtStepStartPct && dl_pct <= kDataLoaderPct) {
    Finding& x = out.Add("gpu_idle_at_step_start", idle_start_pct,
                     fmt::format("The GPU is idle for the first {:.1f}% of each step", idle_start_pct),
                     in.run.dataloader
                         ? "Each step starts with the GPU idle while the host prepares the batch. Prefetch the next batch "
                           "(DataLoader(num_workers=N, pin_memory=True) and .to(device, non_blocking=True) issued one step ahead) "
                           "and move per-step host work after the forward launch."
                         : "Each step starts with the GPU idle while the host prepares its input (no DataLoader ranges in the "
                           "trace: a custom loader or host preprocessing). Prepare the next input while the GPU runs the "
                           "current one (a background thread, pinned host buffers and .to(device, non_blocking=True) issued "
                           "one step ahead) and move per-step host work after the forward launch.");
    x.evidence = {{"idle_at_step_start_us_per_step", NsToUsRounded3(idle_start / static_cast<TimeNs>(in.nsteps)), Unit::kUsPerStep}};
    // The fix: the host work before each step's first launch happens while the GPU runs the
    // previous step, so it no longer delays this one.
    std::vector<Interval> before_launch;
    const auto& by_launch = in.ctx.kernels().by_launch;
    for (const StepWindow& st : in.ctx.steps().steps) {
      auto it = std::lower_bound(by_launch.begin(), by_launch.end(), std::make_pair(st.cpu_start_ns, uint32_t{0}));
      if (it != by_launch.end() && it->first < st.cpu_end_ns) before_launch.push_back({st.cpu_start_ns, it->first});
    }
    out.Fix(x, graph::RemoveHostTime(std::move(before_launch), "host time from each step's start to its first kernel launch"));
    item.status = CheckStatus::kFail;
    item.value = Round(idle_start_pct);  // the measure that failed (the exposed DataLoader time passed)
  }
  if (pg_count > 0) {
    double pinned_bw = pinned_ns > 0 ? static_cast<double>(pinned_bytes) / static_cast<double>(pinned_ns) : 0.0;  // bytes/ns = GB/s
    std::string bw_basis = "pinned H2D copies in this trace";
    if (pinned_bw <= 0) {
      pinned_bw = in.gpu.peak ? in.gpu.peak->pcie_per_direction_gbs() : 16.0;
      bw_basis = in.gpu.peak ? fmt::format("{} PCIe per direction", in.gpu.peak->id) : "PCIe Gen3 x16 per direction (GPU unknown)";
    }
    // The fix: each copy at the pinned bandwidth, and its call no longer blocks the host.
    std::vector<std::pair<uint32_t, TimeNs>> pinned;
    for (uint32_t i = 0; i < in.t.memcpys.size(); ++i) {
      const MemcpyEvent& m = in.t.memcpys[i];
      if (!in.ctx.InWindows(m.start_ns) || m.kind != MemcpyKind::kHtoD || m.src_kind != MemoryKind::kPageable) continue;
      pinned.push_back({i, std::min(m.duration_ns(), static_cast<TimeNs>(static_cast<double>(m.bytes) / pinned_bw))});
    }
    Finding& x = out.Add("pageable_h2d_copies", 0.0,
                     fmt::format("{:.1f} pageable host-to-device copies per step ({:.1f} MB/step at {:.1f} GB/s)",
                                 static_cast<double>(pg_count) / in.nsteps, pg_bytes / 1e6 / in.nsteps,
                                 pg_ns > 0 ? static_cast<double>(pg_bytes) / static_cast<double>(pg_ns) : 0.0),
                     fmt::format("Copies from pageable memory are staged by the driver and block the host ({} returns only "
                                 "after the transfer). {}",
                                 in.gpu.amd ? "hipMemcpyAsync" : "cudaMemcpyAsync",
                                 in.run.dataloader
                                     ? "Use DataLoader(pin_memory=True) (or tensor.pin_memory()) and .to('cuda', non_blocking=True)."
                                     : "Copy from pinned memory (tensor.pin_memory(), or allocate the host buffers with "
                                       "pin_memory=True) with .to('cuda', non_blocking=True)."));
    uint64_t blocking = 0;  // sync points that are blocking input copies (the copy, and PyTorch's stream sync after it)
    for (const SyncPoint& p : in.ctx.sync_points()) blocking += p.input_copy;
    x.evidence = {{"copies", pg_count, Unit::kCount}, {"bytes", pg_bytes, Unit::kBytes}, {"time_us", NsToUsRounded3(pg_ns), Unit::kUs},
                  {"blocking_input_copies", blocking, Unit::kCount},
                  {"pinned_bandwidth_gbs", Round(pinned_bw), Unit::kGbs}, {"pinned_bandwidth_basis", bw_basis},
                  {"estimate", "replayed: each copy takes bytes / pinned bandwidth and its call no longer blocks the host"}};
    out.Fix(x, graph::PinnedCopies(in.ctx, std::move(pinned), "pageable host-to-device copies made pinned and asynchronous"));
    if (item.status == CheckStatus::kPass) item.status = CheckStatus::kWarn;
  }
  o.dataloader_exposed_pct = dl_pct;
}

// ---- host-device syncs ------------------------------------------------------------------
void RuleSyncs(const Facts& in, FindingSink& out, PipelineOutcome& o) {
  // GradScaler's found_inf check is expected once per step; a blocking input copy
  // (.to('cuda')) is a copy problem, the pageable-copy rule's (context.cc, SyncPoint).
  int64_t beyond = 0, scaler = 0, copies = 0;
  std::map<std::string, int64_t> labels;
  std::map<std::string, int64_t> waited;
  for (const SyncPoint& p : in.ctx.sync_points()) {
    if (p.scaler) {
      ++scaler;
      continue;
    }
    if (p.input_copy) {
      ++copies;
      continue;
    }
    ++beyond;
    labels[p.label]++;
    if (!p.waited_for.empty()) waited[p.waited_for]++;
  }
  o.syncs_beyond_scaler_per_step = static_cast<double>(beyond) / in.nsteps;
  o.input_copy_syncs_per_step = static_cast<double>(copies) / in.nsteps;
  if (o.syncs_beyond_scaler_per_step <= kSyncsBeyondScalerPerStep) return;
  const TimeNs sync_idle = in.CauseNs(IdleCause::kSync);
  std::vector<std::pair<int64_t, std::string>> by_count;
  for (const auto& [l, n] : labels) by_count.push_back({n, l});
  std::sort(by_count.rbegin(), by_count.rend());
  std::vector<FieldList> calls;
  std::string top;
  for (size_t i = 0; i < by_count.size() && i < 5; ++i) {
    calls.push_back({{"call", by_count[i].second}, {"count", by_count[i].first, Unit::kCount}});
    if (i < 2) top += fmt::format("{}{} x {}", i ? "; " : "", by_count[i].first, by_count[i].second);
  }
  std::vector<std::pair<int64_t, std::string>> wv;
  for (const auto& [l, n] : waited) wv.push_back({n, l});
  std::sort(wv.rbegin(), wv.rend());
  std::vector<FieldList> after;
  for (size_t i = 0; i < wv.size() && i < 3; ++i) after.push_back({{"kernel", wv[i].second}, {"count", wv[i].first, Unit::kCount}});
  Finding& x = out.Add("host_device_sync", 0.0,
                   fmt::format("{:.1f} host-device syncs per step beyond GradScaler's (GPU idle {:.1f}% of the step after them)",
                               o.syncs_beyond_scaler_per_step, in.CausePct(IdleCause::kSync)),
                   fmt::format("Each sync drains the GPU queue, so the GPU waits for the host to launch the next work "
                               "({:.2f} ms of idle per step). Top: {}. Remove .item()/.cpu()/.tolist()/print(tensor) and "
                               "data-dependent Python branches from the step (keep metrics on the GPU and read them every N "
                               "steps); see torch.cuda.set_sync_debug_mode('warn').",
                               Ms(sync_idle) / in.nsteps, top));
  x.evidence = {{"syncs_per_step_beyond_scaler", Round(o.syncs_beyond_scaler_per_step), Unit::kPerStep},
                {"grad_scaler_syncs", scaler, Unit::kCount},
                {"input_copy_syncs", copies, Unit::kCount},
                {"sync_calls", calls},
                {"waited_for_kernels", after},
                {"idle_after_syncs_pct", Round(in.CausePct(IdleCause::kSync)), Unit::kPct},
                {"host_wait_pct", Round(in.PctOfWindow(static_cast<double>(in.ra.gpu.idle.host_wait_ns))), Unit::kPct},
                {"gpu_busy_pct", Round(in.PctOfWindow(static_cast<double>(in.busy_in_windows_ns))), Unit::kPct},
                {"host_active_pct", Round(in.PctOfWindow(static_cast<double>(in.idle.host_active_ns))), Unit::kPct},
                {"estimate", "replayed: the runtime calls of these sync points removed (the host no longer waits), with the "
                             "unrecorded host time right after each up to the next recorded op (the Python that read the "
                             "value); a sync followed by a DataLoader range keeps its wait: removing it moves no loading "
                             "under the GPU work (that is dataloader_bottleneck's fix)"}};
  x.time_ranges = in.TopRanges(IdleCause::kSync);
  out.Fix(x, graph::RemoveSyncs(in.ctx, SyncPointCalls(in, false),
                                "the runtime calls of the sync points beyond GradScaler's, and the unrecorded host time "
                                "right after each (the Python that read the value, up to the next recorded op); a sync "
                                "the host follows with a DataLoader range keeps its wait"));
}

namespace {

// Where the host time that no event covers lies on the steps' thread: the recorded op (or range)
// that ended just before each of the longest GPU idle pieces with that cause (Facts::TopRanges:
// a gap less its DataLoader, pageable-copy and allocation parts) and the one that began just
// after, within the innermost op or range around the stretch (`inside`: the step's range,
// usually), grouped by the three; `after` / `before` are "" when no child op lies on that side.
// `pageable_copy`: the op before copied from pageable memory to the GPU.
struct UntracedSite {
  std::string inside, after, before;
  size_t stretches = 0;
  TimeNs ns = 0;
  bool pageable_copy = false;
};

constexpr size_t kUntracedStretches = 8;

// A range's name without its instance number ("ProfilerStep#3" -> "ProfilerStep"), so that the
// same place in every step groups as one.
std::string SiteName(std::string_view name) {
  const size_t hash = name.rfind('#');
  if (hash != std::string_view::npos && hash + 1 < name.size() &&
      std::all_of(name.begin() + static_cast<std::ptrdiff_t>(hash) + 1, name.end(), [](char c) { return c >= '0' && c <= '9'; }))
    name = name.substr(0, hash);
  return std::string(name);
}

std::vector<UntracedSite> UntracedSites(const Facts& in) {
  std::vector<UntracedSite> sites;
  const int64_t tid = in.ctx.StepsThread();
  if (tid < 0) return sites;
  const OpTree& tree = in.ctx.op_tree();
  for (const auto& [s, e] : in.TopRanges(IdleCause::kHostUntraced, kUntracedStretches)) {
    const TimeNs mid = s + (e - s) / 2;
    const OpTree::NodeId around = tree.InnermostAt(tid, mid);
    if (around == OpTree::kNoNode) continue;
    const IdSpan<OpTree::NodeId> kids = tree.children(around);
    size_t next = 0;  // the first child that starts after mid (children are in start order)
    while (next < kids.size() && tree.start_ns(kids[next]) <= mid) ++next;
    UntracedSite site;
    site.inside = SiteName(in.t.str(tree.name(around)));
    if (next > 0) site.after = SiteName(in.t.str(tree.name(kids[next - 1])));
    if (next < kids.size()) site.before = SiteName(in.t.str(tree.name(kids[next])));
    // The context's pageable H2D copy calls (merged), the ones the idle causes cut out too.
    if (next > 0) site.pageable_copy = OverlapNs(in.ctx.host().pageable_h2d_calls, tree.start_ns(kids[next - 1]), tree.end_ns(kids[next - 1])) > 0;
    auto it = std::find_if(sites.begin(), sites.end(), [&](const UntracedSite& x) {
      return x.inside == site.inside && x.after == site.after && x.before == site.before;
    });
    if (it == sites.end()) it = sites.insert(sites.end(), site);
    ++it->stretches;
    it->ns += e - s;
    it->pageable_copy = it->pageable_copy || site.pageable_copy;
  }
  std::stable_sort(sites.begin(), sites.end(), [](const UntracedSite& a, const UntracedSite& b) { return a.ns > b.ns; });
  return sites;
}

std::string UntracedSitesText(const std::vector<UntracedSite>& sites) {
  if (sites.empty()) return "";
  const UntracedSite& top = sites.front();
  std::string where;
  if (!top.after.empty() && !top.before.empty()) where = fmt::format("between {} and {}", top.after, top.before);
  else if (!top.after.empty()) where = fmt::format("after {}, at the end of {}", top.after, top.inside);
  else if (!top.before.empty()) where = fmt::format("before {}, at the start of {}", top.before, top.inside);
  else where = fmt::format("inside {}, which records nothing within", top.inside);
  return fmt::format(" The longest GPU idle gaps with it ({:.1f} ms in {}) lie {}{}.", Ms(top.ns), top.stretches, where,
                     top.pageable_copy ? fmt::format(" ({} copied from pageable memory to the GPU: pageable_h2d_copies)", top.after) : "");
}

}  // namespace

void RuleLaunchAndUtilization(const Facts& in, FindingSink& out, PipelineOutcome& o) {
  const double busy_pct = in.PctOfWindow(static_cast<double>(in.busy_in_windows_ns));
  o.busy_pct = busy_pct;
  const double small_pct = in.ra.launches.pct_kernels_under_10us > 0 ? in.ra.launches.pct_kernels_under_10us : SmallKernelPct(in);
  o.small_kernel_pct = small_pct;
  const TimeNs host = in.CauseNs(IdleCause::kHost);
  if (small_pct > kLaunchBoundSmallPct && busy_pct < kLaunchBoundBusyPct && in.kernel_total_ns > 0) {
    std::vector<KernelTime> top = in.TopKernels([&](size_t i) { return in.t.kernels[i].duration_ns() < kSmallKernelNs; }, 5);
    Finding& x = out.Add("launch_bound", 0.0,
                     fmt::format("Launch-bound: {:.0f}% of kernels run under 10 us and the GPU is busy {:.0f}% of the step",
                                 small_pct, busy_pct),
                     fmt::format("The host cannot launch {:.0f} kernels per step (median {:.1f} us) as fast as the GPU runs "
                                 "them: the GPU waits {:.1f} ms per step for launches. Capture the step in a CUDA graph "
                                 "(torch.compile(mode='reduce-overhead') or torch.cuda.graphs), fuse small ops "
                                 "(torch.compile), or give each kernel more work (larger batch).",
                                 in.ra.launches.kernels_per_step > 0 ? in.ra.launches.kernels_per_step : static_cast<double>(KernelsInWindow(in)) / in.nsteps,
                                 static_cast<double>(in.ra.launches.median_kernel_ns) / 1e3, Ms(host) / in.nsteps));
    x.evidence = {{"kernels_under_10us_pct", Round(small_pct), Unit::kPct}, {"gpu_busy_pct", Round(busy_pct), Unit::kPct},
                  {"host_launch_idle_pct", Round(in.CausePct(IdleCause::kHost)), Unit::kPct}, {"top_small_kernels", top},
                  {"estimate", "replayed: every kernel launch collapsed as a CUDA graph replays it (no launch call, "
                               "the kernels back to back, no host time between two launches)"}};
    x.time_ranges = in.TopRanges(IdleCause::kHost);
    std::vector<uint32_t> launched;
    for (size_t i = 0; i < in.t.kernels.size(); ++i)
      if (in.InWindow(i) && in.ctx.kernels().launch_call[i] >= 0) launched.push_back(static_cast<uint32_t>(i));
    out.Fix(x, graph::CudaGraphLaunch(in.ctx, launched, "every kernel launch in the steps"));
  }
  // Low utilization: the host time that no event covers (Python, logging, waiting on other
  // threads) keeps the GPU waiting; what removing it saves is replayed.
  if (busy_pct < kBusyBadPct && in.window_ns > 0 && in.kernel_total_ns > 0) {
    std::vector<std::pair<TimeNs, TimeNs>> long_gaps;
    for (const IdleGap& g : in.ctx.idle_gaps())
      if (g.device == in.gpu.device && static_cast<double>(g.end_ns - g.start_ns) >= kLongGapNs) long_gaps.emplace_back(g.start_ns, g.end_ns);
    const double untraced = in.CausePct(IdleCause::kHostUntraced);
    const std::vector<UntracedSite> sites = untraced > 0 ? UntracedSites(in) : std::vector<UntracedSite>{};
    Finding& x = out.Add("low_gpu_utilization", 0.0,
                         fmt::format("The GPU is busy only {:.0f}% of the step", busy_pct),
                         fmt::format("The GPU idles {:.1f}% of the step (host work between launches {:.1f}%, host time with no "
                                     "recorded op or runtime call {:.1f}%, other {:.1f}%){}.{} Look for host work in the step that "
                                     "no profiler event covers (Python outside torch ops, logging, checkpointing, a GIL held by "
                                     "another thread), increase the batch size, and overlap input with compute.",
                                     100.0 - busy_pct, in.PctOfWindow(static_cast<double>(host)), untraced,
                                     in.CausePct(IdleCause::kOther),
                                     long_gaps.empty() ? "" : fmt::format("; {} idle gaps of >= 500 ms [nsys gpu_gaps]", long_gaps.size()),
                                     UntracedSitesText(sites)));
    x.evidence = {{"gpu_busy_pct", Round(busy_pct), Unit::kPct},
                  {"host_untraced_pct", Round(untraced), Unit::kPct},
                  {"idle_by_cause_pct", in.CausesJson()},
                  {"long_gaps", RangesJson(long_gaps)}};
    if (!sites.empty()) {
      std::vector<FieldList> where;
      for (const UntracedSite& s : sites)
        where.push_back({{"inside", s.inside}, {"after", s.after}, {"before", s.before}, {"stretches", static_cast<uint64_t>(s.stretches), Unit::kCount},
                         {"gpu_idle_us", NsToUsRounded3(s.ns), Unit::kUs}, {"after_pageable_h2d_copy", s.pageable_copy}});
      x.evidence.push_back({"untraced_host_sites", where});
    }
    x.time_ranges = long_gaps;
    out.Fix(x, graph::NoUnrecordedHost("host time no CPU op, range or runtime call covers"), SavingGate::kResidual);
  }
}


}  // namespace ampscope::diagnosis

namespace ampscope::diagnosis {

void RuleHostBound(const Facts& in, FindingSink& out, const RankAnalysis& ra) {
  const graph::CriticalPathResult* path = ra.critical_path.get();
  if (path == nullptr || !path->available || path->window.length_ns <= 0 || in.window_ns <= 0) return;
  const TimeNs recorded = path->window.ns[static_cast<size_t>(graph::PathCategory::kHostBound)];
  const TimeNs unrecorded = path->window.ns[static_cast<size_t>(graph::PathCategory::kUnrecordedHost)];
  const double host_pct = 100.0 * static_cast<double>(SaturatingAdd(recorded, unrecorded)) / static_cast<double>(path->window.length_ns);
  // And the GPU waits: a GPU busy most of the window is not held back by the host, whatever
  // path the replay walks back (a host that runs ahead of a busy GPU is on it too).
  const double busy_pct = in.PctOfWindow(static_cast<double>(in.busy_in_windows_ns));
  if (host_pct < kHostBoundPathPct || busy_pct >= kBusyBadPct) return;
  // Explained: a finding whose replayed fix gives back a clear share of the window.
  for (const Finding& f : out.findings())
    if (f.est_saving_pct >= kWarningSavingPct) return;
  // The host's time by op, each op's own time (its span less its children's), in the windows.
  const OpTree& tree = in.ctx.op_tree();
  std::map<StringId, TimeNs> self;
  for (OpTree::NodeId n = 0; n < tree.size(); ++n) {
    if (tree.kind(n) != OpTree::NodeKind::kCpuOp || !in.ctx.InWindows(tree.start_ns(n))) continue;
    TimeNs own = tree.end_ns(n) - tree.start_ns(n);
    for (OpTree::NodeId c : tree.children(n)) own -= tree.end_ns(c) - tree.start_ns(c);
    SatAccumulate(self[tree.name(n)], std::max<TimeNs>(0, own));
  }
  std::vector<std::pair<TimeNs, StringId>> top;
  for (const auto& [name, ns] : self) top.push_back({ns, name});
  std::sort(top.begin(), top.end(), [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  if (top.size() > 5) top.resize(5);
  std::vector<FieldList> ops;
  std::string list;
  for (const auto& [ns, name] : top) {
    ops.push_back({{"op", std::string(in.t.str(name))},
                   {"self_us_per_step", NsToUsRounded3(ns / static_cast<TimeNs>(in.nsteps)), Unit::kUsPerStep},
                   {"pct_of_window", Round(in.PctOfWindow(static_cast<double>(ns))), Unit::kPctOfStep}});
    list += fmt::format("{}{} {:.1f} ms", list.empty() ? "" : ", ", in.t.str(name), Ms(ns) / in.nsteps);
  }
  Finding& x = out.Add(
      "host_bound", 0.0, fmt::format("Host-bound: {:.0f}% of the critical path is host time and the GPU is busy {:.0f}% of the step", host_pct, busy_pct),
      fmt::format("The GPU waits for the host: {:.1f}% of the critical path is host work ({:.1f}% in recorded ops and runtime "
                  "calls, {:.1f}% that no event covers), so no GPU-side fix (AMP, fusion, faster kernels) shortens this run; "
                  "the host's own work does. Where the host's time goes (each op's own time, per step): {}. Issue fewer, "
                  "larger calls: batch per-parameter loops into foreach/multi-tensor ops and bucketed collectives, capture "
                  "the step in a CUDA graph or compile it (torch.compile, mode='reduce-overhead'), move Python work out of "
                  "the step, or give each call more work (a larger batch).",
                  host_pct, 100.0 * static_cast<double>(recorded) / static_cast<double>(path->window.length_ns),
                  100.0 * static_cast<double>(unrecorded) / static_cast<double>(path->window.length_ns),
                  list.empty() ? "no CPU op recorded" : list));
  x.evidence = {{"host_pct_of_critical_path", Round(host_pct), Unit::kPct},
                {"host_recorded_pct_of_critical_path", Round(100.0 * static_cast<double>(recorded) / static_cast<double>(path->window.length_ns)), Unit::kPct},
                {"host_unrecorded_pct_of_critical_path", Round(100.0 * static_cast<double>(unrecorded) / static_cast<double>(path->window.length_ns)), Unit::kPct},
                {"gpu_busy_pct", Round(busy_pct), Unit::kPct},
                {"top_host_ops_by_self_time", ops},
                {"estimate", "none: no finding's fix explains the host time, and no GPU-side fix shortens a host-bound run"}};
}

}  // namespace ampscope::diagnosis
