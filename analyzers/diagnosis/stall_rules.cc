// Stall rules: the GPU idle with its next work already queued (queued_work_stalled).
//
// A GPU idle gap whose closing work had been launched - its launch call had returned - before the
// gap began (IdleGap::queued) is not the host's doing: the GPU had the work and did not start it.
// What held it is outside the trace: a node of a CUDA graph that CUPTI does not trace (a host
// node, an event wait), an event from another process or device, another process on the GPU, or
// activities the profiler dropped. On a trace whose sampling check does not pass (GPU work
// missing) no stall is claimed: a gap there may have run what the trace lacks. The fix is
// replayed as those activities starting when their dependencies allow.
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "analyzers/diagnosis/rules.h"
#include "base/saturating.h"
#include "base/units.h"

namespace ampscope::diagnosis {
namespace {

// What an activity is, in the advice: a kernel's short name, else the kind of copy or a memset.
std::string ActivityName(const Trace& t, const GpuWork& w) {
  switch (w.table) {
    case GpuTable::kKernel: return ShortName(t.str(t.kernels[w.index].name), 70);
    case GpuTable::kMemcpy: return std::string("memcpy ") + MemcpyKindName(t.memcpys[w.index].kind);
    case GpuTable::kMemset: break;
  }
  return "memset";
}

// Where queued work stalled: the call that launched it, its first activity after the gap, its stream.
struct StallSite {
  std::string launch;
  std::string activity;
  int32_t stream = -1;
  bool graph = false;
  size_t stretches = 0;
  TimeNs ns = 0;
  TimeNs queued_ns = 0;  // the longest time from the launch call's return to the gap's start
};

}  // namespace

void RuleQueuedStalls(const Facts& in, FindingSink& out) {
  if (in.window_ns <= 0) return;
  // A sampled or thinned trace lacks GPU work that ran: its "queued" gaps may not be idle at all.
  const IntegrityCheck* sampling = in.ra.integrity.Find("sampling");
  if (sampling == nullptr || sampling->status != IntegrityStatus::kOk) return;
  TimeNs stalled = 0, longest = 0;
  std::vector<const IdleGap*> gaps;
  for (const IdleGap& g : in.ctx.idle_gaps()) {
    if (g.device != in.gpu.device || !g.queued || g.kind != IdleKind::kOther) continue;
    gaps.push_back(&g);
    SatAccumulate(stalled, g.end_ns - g.start_ns);
    longest = std::max(longest, g.end_ns - g.start_ns);
  }
  const double pct = in.PctOfWindow(static_cast<double>(stalled));
  if (pct < kQueuedStallPct) return;
  std::vector<GpuWork> acts = CollectGpuWork(in.t, /*kernels_only=*/false);
  const int32_t device = in.gpu.device;
  acts.erase(std::remove_if(acts.begin(), acts.end(), [device](const GpuWork& w) { return w.device != device; }), acts.end());
  std::vector<StallSite> sites;
  std::vector<uint32_t> launches;
  for (const IdleGap* g : gaps) {
    auto it = std::lower_bound(acts.begin(), acts.end(), g->end_ns, [](const GpuWork& w, TimeNs t) { return w.start_ns < t; });
    if (it == acts.end()) continue;
    const int64_t call = in.ctx.launches().Find(it->correlation);
    if (call < 0) continue;
    const ApiCall& a = in.t.api_calls[static_cast<size_t>(call)];
    launches.push_back(static_cast<uint32_t>(call));
    StallSite site;
    site.launch = std::string(in.t.str(a.name));
    site.activity = ActivityName(in.t, *it);
    site.stream = it->stream;
    site.graph = (it->table == GpuTable::kKernel && in.t.kernels[it->index].graph_id != 0) ||
                 site.launch.find("GraphLaunch") != std::string::npos;
    auto at = std::find_if(sites.begin(), sites.end(), [&](const StallSite& s) {
      return s.launch == site.launch && s.activity == site.activity && s.stream == site.stream;
    });
    if (at == sites.end()) at = sites.insert(sites.end(), site);
    ++at->stretches;
    SatAccumulate(at->ns, g->end_ns - g->start_ns);
    at->queued_ns = std::max(at->queued_ns, g->start_ns - a.end_ns);
  }
  if (sites.empty()) return;
  std::stable_sort(sites.begin(), sites.end(), [](const StallSite& a, const StallSite& b) { return a.ns > b.ns; });
  const StallSite& top = sites.front();
  TimeNs graph_ns = 0;
  for (const StallSite& s : sites)
    if (s.graph) SatAccumulate(graph_ns, s.ns);
  const bool graph_first = graph_ns * 2 > stalled;
  const std::string held =
      graph_first
          ? "Most of it waits inside CUDA graph launches: a node of the graph that CUPTI does not trace (a host node "
            "from cudaLaunchHostFunc, an event wait on another stream or process, a node on a device or stream the "
            "profile left out) holds the nodes after it. Record the graph's nodes (nsys profile "
            "--cuda-graph-trace=node) and look at what precedes the first traced node; where it is a host callback or a "
            "wait on other ranks, move it out of the graph or overlap it with work that does not depend on it."
          : "Something outside this trace holds the stream: an event recorded by another process or device "
            "(cudaStreamWaitEvent on an IPC event), another process on the same GPU (nvidia-smi; MPS or time-slicing "
            "share the GPU), or activities the profiler dropped. Record every process on the GPU (nsys profile "
            "without a process filter) to see what runs in those stretches.";
  Finding& x = out.Add(
      "queued_work_stalled", 0.0,
      fmt::format("The GPU idles {:.1f}% of the step with its next work already queued", pct),
      fmt::format("In {} stretches ({:.2f} ms per step, the longest {:.2f} ms) the GPU ran dry although the work that "
                  "followed had been launched: the host did not hold it back, so no host-side fix (fewer syncs, faster "
                  "launches, a faster input pipeline) shortens them. The largest: {} on stream {}, from {} ({:.2f} ms in "
                  "{}; its launch had returned up to {:.2f} ms before the GPU ran dry). {}",
                  gaps.size(), Ms(stalled) / static_cast<double>(in.nsteps), Ms(longest), top.activity, top.stream,
                  top.launch, Ms(top.ns), top.stretches, Ms(top.queued_ns), held));
  std::vector<FieldList> where;
  for (size_t i = 0; i < sites.size() && i < 5; ++i) {
    const StallSite& s = sites[i];
    where.push_back({{"launch", s.launch}, {"first_activity", s.activity}, {"stream", static_cast<int64_t>(s.stream), Unit::kCount},
                     {"cuda_graph", s.graph}, {"stretches", static_cast<uint64_t>(s.stretches), Unit::kCount},
                     {"gpu_idle_us", NsToUsRounded3(s.ns), Unit::kUs}, {"queued_for_us", NsToUsRounded3(s.queued_ns), Unit::kUs}});
  }
  x.evidence = {{"stalled_pct", Round(pct), Unit::kPct},
                {"stalled_us_per_step", NsToUsRounded3(stalled / static_cast<TimeNs>(in.nsteps)), Unit::kUsPerStep},
                {"stretches", static_cast<uint64_t>(gaps.size()), Unit::kCount},
                {"longest_us", NsToUsRounded3(longest), Unit::kUs},
                {"in_cuda_graphs_pct", Round(stalled > 0 ? 100.0 * static_cast<double>(graph_ns) / static_cast<double>(stalled) : 0.0), Unit::kPct},
                {"sites", where}};
  std::vector<std::pair<TimeNs, TimeNs>> ranges;
  for (const IdleGap* g : gaps) ranges.emplace_back(g->start_ns, g->end_ns);
  std::sort(ranges.begin(), ranges.end(), [](const auto& a, const auto& b) { return a.second - a.first > b.second - b.first; });
  if (ranges.size() > 8) ranges.resize(8);
  std::sort(ranges.begin(), ranges.end());
  x.time_ranges = ranges;
  out.Fix(x, graph::NoQueuedStall(std::move(launches), "the launches whose queued work the GPU did not start: it starts when its dependencies allow"),
        SavingGate::kMinSaving);
}

}  // namespace ampscope::diagnosis
