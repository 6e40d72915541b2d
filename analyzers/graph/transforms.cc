#include "analyzers/graph/transforms.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "analyzers/context/context.h"
#include "base/saturating.h"
#include "trace/classify/api_roles.h"

namespace ampscope::graph {
namespace {

template <typename T>
void SortUnique(std::vector<T>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

// Sorted by index; for a repeated index the shortest duration wins.
void SortDurations(std::vector<std::pair<uint32_t, TimeNs>>& v) {
  std::sort(v.begin(), v.end());
  std::vector<std::pair<uint32_t, TimeNs>> out;
  for (const auto& p : v)
    if (out.empty() || out.back().first != p.first) out.push_back(p);
  v = std::move(out);
}

bool Has(const std::vector<uint32_t>& v, uint32_t x) { return std::binary_search(v.begin(), v.end(), x); }

// An edge delay that never decides anything (a removed wait).
constexpr TimeNs kNoDelay = std::numeric_limits<TimeNs>::min() / 4;

// Lookups in a sorted list by queries that mostly come in increasing order (a step's nodes in
// key order reference trace rows in about that order): gallops forward from the last answer.
template <typename T, typename Key>
class Cursor {
 public:
  Cursor(const std::vector<T>& v, Key key) : v_(v), key_(key) {}
  // The element with key x, or nullptr.
  const T* Find(uint32_t x) {
    if (v_.empty()) return nullptr;
    size_t lo = 0, hi = pos_;
    if (pos_ < v_.size() && key_(v_[pos_]) <= x) {
      size_t step = 1;
      lo = pos_;
      while (lo + step < v_.size() && key_(v_[lo + step]) <= x) step *= 2;
      hi = std::min(v_.size(), lo + step + 1);
    } else if (pos_ >= v_.size()) {
      lo = 0;
      hi = v_.size();
    }
    auto it = std::lower_bound(v_.begin() + static_cast<std::ptrdiff_t>(lo), v_.begin() + static_cast<std::ptrdiff_t>(hi), x,
                               [&](const T& e, uint32_t k) { return key_(e) < k; });
    pos_ = static_cast<size_t>(it - v_.begin());
    return it != v_.end() && key_(*it) == x ? &*it : nullptr;
  }

 private:
  const std::vector<T>& v_;
  Key key_;
  size_t pos_ = 0;
};
template <typename T, typename Key>
Cursor<T, Key> MakeCursor(const std::vector<T>& v, Key key) {
  return Cursor<T, Key>(v, key);
}

}  // namespace

bool Transform::empty() const {
  return kernels.empty() && memcpys.empty() && memsets.empty() && calls_removed.empty() && calls_no_wait.empty() &&
         calls_tail.empty() && calls_keep_wait.empty() &&
         calls_collapsed.empty() && calls_unstalled.empty() && HostRemoved().empty() && thread_host_removed.empty() && !no_dataloader && !no_unrecorded &&
         steps_removed.empty();
}

const std::vector<Interval>& Transform::HostRemoved() const {
  static const std::vector<Interval> kNone;
  return host_removed != nullptr ? *host_removed : kNone;
}

void Transform::SetHostRemoved(std::vector<Interval> intervals) {
  std::vector<Interval> merged = MergeIntervals(std::move(intervals));
  host_removed = merged.empty() ? nullptr : std::make_shared<const std::vector<Interval>>(std::move(merged));
}

void Transform::Normalize() {
  SortDurations(kernels);
  SortDurations(memcpys);
  SortDurations(memsets);
  SortUnique(calls_removed);
  SortUnique(calls_no_wait);
  SortUnique(calls_tail);
  SortUnique(calls_keep_wait);
  SortUnique(calls_collapsed);
  SortUnique(calls_unstalled);
  SortUnique(steps_removed);
  SortUnique(overlapped);
  // host_removed is merged when set (SetHostRemoved).
  // One entry per thread: the union of its calls and of its removed time.
  std::sort(thread_host_removed.begin(), thread_host_removed.end(),
            [](const ThreadHostTime& a, const ThreadHostTime& b) { return a.tid < b.tid; });
  std::vector<ThreadHostTime> merged;
  for (ThreadHostTime& th : thread_host_removed) {
    if (merged.empty() || merged.back().tid != th.tid) {
      merged.push_back(std::move(th));
    } else {
      ThreadHostTime& m = merged.back();
      m.calls.insert(m.calls.end(), th.calls.begin(), th.calls.end());
      m.removed.insert(m.removed.end(), th.removed.begin(), th.removed.end());
    }
  }
  for (ThreadHostTime& m : merged) {
    SortUnique(m.calls);
    m.removed = MergeIntervals(std::move(m.removed));
  }
  thread_host_removed = std::move(merged);
}

Transform Combine(const std::vector<const Transform*>& parts) {
  Transform t;
  t.name = kCombined;
  for (const Transform* p : parts) {
    if (p == nullptr) continue;
    t.kernels.insert(t.kernels.end(), p->kernels.begin(), p->kernels.end());
    t.memcpys.insert(t.memcpys.end(), p->memcpys.begin(), p->memcpys.end());
    t.memsets.insert(t.memsets.end(), p->memsets.begin(), p->memsets.end());
    t.calls_removed.insert(t.calls_removed.end(), p->calls_removed.begin(), p->calls_removed.end());
    t.calls_no_wait.insert(t.calls_no_wait.end(), p->calls_no_wait.begin(), p->calls_no_wait.end());
    t.calls_tail.insert(t.calls_tail.end(), p->calls_tail.begin(), p->calls_tail.end());
    t.calls_keep_wait.insert(t.calls_keep_wait.end(), p->calls_keep_wait.begin(), p->calls_keep_wait.end());
    t.calls_collapsed.insert(t.calls_collapsed.end(), p->calls_collapsed.begin(), p->calls_collapsed.end());
    t.calls_unstalled.insert(t.calls_unstalled.end(), p->calls_unstalled.begin(), p->calls_unstalled.end());
    t.steps_removed.insert(t.steps_removed.end(), p->steps_removed.begin(), p->steps_removed.end());
    t.overlapped.insert(t.overlapped.end(), p->overlapped.begin(), p->overlapped.end());
    t.thread_host_removed.insert(t.thread_host_removed.end(), p->thread_host_removed.begin(), p->thread_host_removed.end());
    t.no_dataloader = t.no_dataloader || p->no_dataloader;
    t.no_unrecorded = t.no_unrecorded || p->no_unrecorded;
    if (!p->name.empty()) t.selection += (t.selection.empty() ? "" : ", ") + p->name;
  }
  // The union of the parts' host time. Where one part removes host time, the union is its list
  // (merged when set, so merging it again would give it back): shared, not copied.
  const Transform* only_host = nullptr;
  size_t with_host = 0;
  for (const Transform* p : parts) {
    if (p == nullptr || p->HostRemoved().empty()) continue;
    only_host = p;
    ++with_host;
  }
  if (with_host == 1) {
    t.host_removed = only_host->host_removed;
  } else if (with_host > 1) {
    std::vector<Interval> host;
    for (const Transform* p : parts)
      if (p != nullptr) host.insert(host.end(), p->HostRemoved().begin(), p->HostRemoved().end());
    t.SetHostRemoved(std::move(host));
  }
  // Shortest duration first, so SortDurations keeps it for a kernel two fixes change.
  auto by_index_then_time = [](const auto& a, const auto& b) { return a.first != b.first ? a.first < b.first : a.second < b.second; };
  std::sort(t.kernels.begin(), t.kernels.end(), by_index_then_time);
  std::sort(t.memcpys.begin(), t.memcpys.end(), by_index_then_time);
  std::sort(t.memsets.begin(), t.memsets.end(), by_index_then_time);
  t.Normalize();
  return t;
}

namespace {

// A step removed whole: everything in it takes no time.
TimeNs RemoveWholeStep(DepGraph& g, bool* modified) {
  TimeNs changed = 0;
  bool touched = false;
  for (size_t i = 0; i < g.size(); ++i) {
    if (g.kind[i] == NodeKind::kBoundary) continue;
    SatAccumulate(changed, g.end_ns[i] - g.start_ns[i]);
    g.dur_ns[i] = 0;
    g.slack_ns[i] = 0;
    touched = true;
    for (uint32_t e = g.edge_begin[i]; e < g.edge_begin[i + 1]; ++e)
      g.edge_delay_ns[e] = IsEndEdge(g.edge_kind[e]) ? kNoDelay : std::min<TimeNs>(g.edge_delay_ns[e], 0);
  }
  if (modified != nullptr) *modified = touched;
  return changed;
}

// For each host gap, the next call on its lane (kNoNode for other nodes and a lane's last gap): the
// thread of a chunk's first gap on a lane, which follows a boundary, not a call.
std::vector<uint32_t> NextCallOfGaps(const DepGraph& g) {
  const size_t n = g.size();
  std::vector<uint32_t> next_call(n, kNoNode);
  std::vector<uint32_t> by_lane;
  for (size_t i = n; i-- > 0;) {
    if (!IsHost(g.kind[i])) continue;
    if (g.lane[i] >= by_lane.size()) by_lane.resize(g.lane[i] + 1, kNoNode);
    if (g.kind[i] == NodeKind::kHostGap) next_call[i] = by_lane[g.lane[i]];
    else by_lane[g.lane[i]] = g.ref[i];
  }
  return next_call;
}

}  // namespace

TimeNs Apply(const Transform& t, const ChunkInfo& chunk, DepGraph& g, bool* modified) {
  TimeNs changed = 0;
  bool touched = false;
  const size_t n = g.size();
  if (chunk.step >= 0 && std::binary_search(t.steps_removed.begin(), t.steps_removed.end(), chunk.step))
    return RemoveWholeStep(g, modified);
  // Host gaps between two collapsed launches on a thread: find each host node's successor.
  std::vector<uint8_t> collapsed;
  std::vector<uint32_t> next_host;
  if (!t.calls_collapsed.empty()) {
    collapsed.assign(n, 0);
    next_host.assign(n, kNoNode);
    std::vector<std::pair<uint32_t, uint32_t>> last;  // (lane, node)
    for (size_t i = 0; i < n; ++i) {
      if (!IsHost(g.kind[i])) continue;
      if (g.kind[i] == NodeKind::kHostCall && Has(t.calls_collapsed, g.ref[i])) collapsed[i] = 1;
      auto it = std::find_if(last.begin(), last.end(), [&](const auto& p) { return p.first == g.lane[i]; });
      if (it == last.end()) {
        last.push_back({g.lane[i], static_cast<uint32_t>(i)});
      } else {
        next_host[it->second] = static_cast<uint32_t>(i);
        it->second = static_cast<uint32_t>(i);
      }
    }
  }
  // The thread of each host gap for thread_host_removed: its previous call's, else its next call's.
  const std::vector<uint32_t> next_call = t.thread_host_removed.empty() ? std::vector<uint32_t>{} : NextCallOfGaps(g);
  // Which kinds of node the transform can change at all.
  const bool gpu_edits = !t.kernels.empty() || !t.memcpys.empty() || !t.memsets.empty() || !t.calls_collapsed.empty() ||
                         !t.calls_unstalled.empty();
  const bool call_edits = !t.calls_removed.empty() || !t.calls_no_wait.empty() || !t.calls_collapsed.empty();
  const bool gap_edits = !t.calls_collapsed.empty() || !t.calls_tail.empty() || t.host_removed != nullptr ||
                         !t.thread_host_removed.empty() || t.no_dataloader || t.no_unrecorded;
  auto first = [](const std::pair<uint32_t, TimeNs>& p) { return p.first; };
  auto self = [](uint32_t x) { return x; };
  auto kernels = MakeCursor(t.kernels, first);
  auto memcpys = MakeCursor(t.memcpys, first);
  auto memsets = MakeCursor(t.memsets, first);
  auto launches = MakeCursor(t.calls_collapsed, self);
  auto unstalled = MakeCursor(t.calls_unstalled, self);
  for (size_t i = 0; i < n; ++i) {
    const uint32_t eb = g.edge_begin[i], ee = g.edge_begin[i + 1];
    switch (g.kind[i]) {
      case NodeKind::kBoundary: break;
      case NodeKind::kKernel:
      case NodeKind::kMemcpy:
      case NodeKind::kMemset: {
        if (!gpu_edits) break;
        auto& list = g.kind[i] == NodeKind::kKernel ? kernels : g.kind[i] == NodeKind::kMemcpy ? memcpys : memsets;
        if (const auto* d = list.Find(g.ref[i]); d != nullptr) {
          SatAccumulate(changed, g.dur_ns[i]);
          g.dur_ns[i] = std::max<TimeNs>(0, d->second);
          touched = true;
        }
        if (g.launch_ref[i] != kNoNode && !t.calls_collapsed.empty() && launches.Find(g.launch_ref[i]) != nullptr) {
          // Where the launch decided the start (in the run), the slack beyond the latency was
          // launch latency too: a graph replay has neither. Elsewhere the slack stays (the
          // activity waited for something its launch does not explain).
          uint32_t binding = kNoNode;
          TimeNs at = std::numeric_limits<TimeNs>::min();
          for (uint32_t e = eb; e < ee; ++e) {
            if (IsEndEdge(g.edge_kind[e])) continue;
            const TimeNs v = g.end_ns[g.edge_from[e]] + g.edge_delay_ns[e];
            if (v > at || (v == at && g.edge_kind[e] == EdgeKind::kLaunch)) at = v, binding = e;
          }
          for (uint32_t e = eb; e < ee; ++e) {
            if (g.edge_kind[e] != EdgeKind::kLaunch) continue;
            SatAccumulate(changed, std::max<TimeNs>(0, g.edge_delay_ns[e] - kGraphLaunchLatencyNs));
            g.edge_delay_ns[e] = std::min(g.edge_delay_ns[e], kGraphLaunchLatencyNs);
            touched = true;
          }
          if (binding != kNoNode && g.edge_kind[binding] == EdgeKind::kLaunch) {
            SatAccumulate(changed, g.slack_ns[i]);
            g.slack_ns[i] = 0;
            touched = true;
          }
        }
        if (g.launch_ref[i] != kNoNode && g.slack_ns[i] > 0 && unstalled.Find(g.launch_ref[i]) != nullptr) {
          SatAccumulate(changed, g.slack_ns[i]);
          g.slack_ns[i] = 0;
          touched = true;
        }
        break;
      }
      case NodeKind::kHostCall:
      case NodeKind::kHostWait: {
        if (!call_edits) break;
        const bool removed = Has(t.calls_removed, g.ref[i]);
        if (removed || (!collapsed.empty() && collapsed[i])) {
          SatAccumulate(changed, g.end_ns[i] - g.start_ns[i]);
          g.dur_ns[i] = 0;
          touched = true;
        }
        if ((removed && !Has(t.calls_keep_wait, g.ref[i])) || Has(t.calls_no_wait, g.ref[i])) {
          if (!removed && g.kind[i] == NodeKind::kHostWait) SatAccumulate(changed, (g.end_ns[i] - g.start_ns[i]) - g.dur_ns[i]);
          for (uint32_t e = eb; e < ee; ++e)
            if (g.edge_kind[e] == EdgeKind::kWait) g.edge_delay_ns[e] = kNoDelay;
        }
        break;
      }
      case NodeKind::kHostGap: {
        if (!gap_edits) break;
        TimeNs d = g.dur_ns[i];
        uint32_t prev = kNoNode;
        for (uint32_t e = eb; e < ee; ++e)
          if (g.edge_kind[e] == EdgeKind::kProgram) prev = g.edge_from[e];
        if (!t.calls_collapsed.empty()) {
          const uint32_t next = next_host[i];
          if (prev != kNoNode && next != kNoNode && collapsed[prev] && collapsed[next]) d = g.dataloader_ns[i];
        }
        if (!t.calls_tail.empty() && prev != kNoNode && (g.kind[prev] == NodeKind::kHostCall || g.kind[prev] == NodeKind::kHostWait) &&
            Has(t.calls_tail, g.ref[prev]))
          d = std::max<TimeNs>(0, d - g.lead_unrecorded_ns[i]);
        if (t.no_dataloader) d = std::max<TimeNs>(0, d - g.dataloader_ns[i]);
        if (t.host_removed != nullptr) d = std::max<TimeNs>(0, d - OverlapNs(*t.host_removed, g.start_ns[i], g.end_ns[i]));
        if (t.no_unrecorded) d = std::max<TimeNs>(0, d - g.unrecorded_ns[i]);
        // The gap's thread is its previous call's (else its next call's).
        const uint32_t call = prev != kNoNode && (g.kind[prev] == NodeKind::kHostCall || g.kind[prev] == NodeKind::kHostWait)
                                  ? g.ref[prev]
                                  : next_call.empty() ? kNoNode : next_call[i];
        if (!t.thread_host_removed.empty() && call != kNoNode) {
          for (const ThreadHostTime& th : t.thread_host_removed) {
            if (!Has(th.calls, call)) continue;
            d = std::max<TimeNs>(0, d - OverlapNs(th.removed, g.start_ns[i], g.end_ns[i]));
            break;
          }
        }
        d = std::min(d, g.dur_ns[i]);
        SatAccumulate(changed, g.dur_ns[i] - d);
        touched = touched || d != g.dur_ns[i];
        g.dur_ns[i] = d;
        break;
      }
    }
  }
  if (modified != nullptr) *modified = touched;
  return changed;
}

DepGraph Applied(const Transform& t, const ChunkInfo& chunk, const DepGraph& g) {
  DepGraph out = g;
  Apply(t, chunk, out);
  return out;
}

// ---------------------------------------------------------------------------------------

Transform ScaleKernels(const Trace& trace, std::vector<uint32_t> kernels, double factor, std::string selection) {
  Transform t;
  t.name = factor <= 0 ? kRemoveNodes : kScaleKernels;
  t.selection = std::move(selection);
  SortUnique(kernels);
  const double f = std::max(0.0, factor);
  for (uint32_t k : kernels)
    t.kernels.push_back({k, static_cast<TimeNs>(std::llround(static_cast<double>(trace.kernels[k].duration_ns()) * f))});
  t.Normalize();
  return t;
}

Transform OverlapKernels(const Trace& trace, std::vector<uint32_t> kernels, std::string selection) {
  Transform t = ScaleKernels(trace, kernels, 0.0, std::move(selection));
  t.name = kOverlapKernels;
  t.overlapped = std::move(kernels);
  t.Normalize();
  return t;
}

Transform ScaleCopies(const Trace& trace, std::vector<uint32_t> memcpys, double factor, std::string selection) {
  Transform t;
  t.name = factor <= 0 ? kRemoveNodes : kScaleKernels;
  t.selection = std::move(selection);
  SortUnique(memcpys);
  const double f = std::max(0.0, factor);
  for (uint32_t m : memcpys)
    t.memcpys.push_back({m, static_cast<TimeNs>(std::llround(static_cast<double>(trace.memcpys[m].duration_ns()) * f))});
  t.Normalize();
  return t;
}

Transform RemoveNodes(const Trace& trace, std::vector<uint32_t> kernels, std::vector<uint32_t> calls, std::string selection) {
  Transform t = ScaleKernels(trace, std::move(kernels), 0.0, std::move(selection));
  t.name = kRemoveNodes;
  t.calls_removed = std::move(calls);
  t.Normalize();
  return t;
}

Transform FuseChains(const Trace& trace, const std::vector<std::vector<uint32_t>>& chains, const std::vector<TimeNs>& fused_ns,
                     std::string selection) {
  Transform t;
  t.name = kFuseChains;
  t.selection = std::move(selection);
  for (size_t c = 0; c < chains.size(); ++c) {
    const std::vector<uint32_t>& chain = chains[c];
    if (chain.empty()) continue;
    // The fused kernel stands where the chain's longest member ran; the others are gone.
    TimeNs total = 0;
    uint32_t longest = chain.front();
    for (uint32_t k : chain) {
      SatAccumulate(total, trace.kernels[k].duration_ns());
      if (trace.kernels[k].duration_ns() > trace.kernels[longest].duration_ns()) longest = k;
    }
    const TimeNs fused = std::clamp<TimeNs>(c < fused_ns.size() ? fused_ns[c] : trace.kernels[longest].duration_ns(), 0, total);
    for (uint32_t k : chain) t.kernels.push_back({k, k == longest ? fused : 0});
  }
  t.Normalize();
  return t;
}

Transform RemoveSyncs(const RankContext& ctx, std::vector<uint32_t> calls, std::string selection) {
  Transform t;
  t.name = kRemoveNodes;
  t.selection = std::move(selection);
  const Trace& trace = ctx.trace();
  const std::vector<Interval>& loader = ctx.host().dataloader;  // merged, by start
  for (uint32_t c : calls) {
    const ApiCall& a = trace.api_calls[c];
    // The first DataLoader range that starts after the call returns ...
    auto next_loader = std::lower_bound(loader.begin(), loader.end(), a.end_ns,
                                        [](const Interval& iv, TimeNs x) { return iv.start_ns < x; });
    if (next_loader == loader.end()) continue;
    // ... before the thread next gives the GPU work (a launch, a copy, a memset).
    bool submits_first = false;
    for (size_t j = c + 1; j < trace.api_calls.size() && trace.api_calls[j].start_ns < next_loader->start_ns && !submits_first;
         ++j) {
      const ApiRole role = ctx.api_role(j);
      submits_first = trace.api_calls[j].tid == a.tid && trace.api_calls[j].start_ns >= a.end_ns &&
                      (role == ApiRole::kLaunch || role == ApiRole::kMemcpyAsync || role == ApiRole::kMemcpySync ||
                       role == ApiRole::kMemset);
    }
    if (!submits_first) t.calls_keep_wait.push_back(c);
  }
  t.calls_tail = calls;
  t.calls_removed = std::move(calls);
  t.Normalize();
  return t;
}

Transform NoDataLoaderWait(std::string selection) {
  Transform t;
  t.name = kNoDataLoaderWait;
  t.selection = std::move(selection);
  t.no_dataloader = true;
  return t;
}

Transform NoUnrecordedHost(std::string selection) {
  Transform t;
  t.name = kNoUnrecordedHost;
  t.selection = std::move(selection);
  t.no_unrecorded = true;
  return t;
}

Transform RemoveHostTime(std::vector<Interval> intervals, std::string selection) {
  Transform t;
  t.name = kRemoveHostTime;
  t.selection = std::move(selection);
  t.SetHostRemoved(std::move(intervals));
  t.Normalize();
  return t;
}

Transform CudaGraphLaunch(const RankContext& ctx, const std::vector<uint32_t>& kernels, std::string selection) {
  Transform t;
  t.name = kCudaGraphLaunch;
  t.selection = std::move(selection);
  for (uint32_t k : kernels) {
    const int64_t call = ctx.kernels().launch_call[k];
    if (call >= 0) t.calls_collapsed.push_back(static_cast<uint32_t>(call));
  }
  t.Normalize();
  return t;
}

Transform RemoveSteps(std::vector<int64_t> steps, std::string selection) {
  Transform t;
  t.name = kRemoveSteps;
  t.selection = std::move(selection);
  t.steps_removed = std::move(steps);
  t.Normalize();
  return t;
}

Transform PinnedCopies(const RankContext& ctx, std::vector<std::pair<uint32_t, TimeNs>> memcpys, std::string selection) {
  Transform t;
  t.name = kScaleKernels;
  t.selection = std::move(selection);
  for (const auto& [m, ns] : memcpys) {
    const int64_t call = ctx.launches().Find(ctx.trace().memcpys[m].correlation);
    if (call >= 0) t.calls_removed.push_back(static_cast<uint32_t>(call));
  }
  t.memcpys = std::move(memcpys);
  t.Normalize();
  return t;
}

Transform CoalesceCalls(const RankContext& ctx, const std::vector<CallSites>& groups, std::string selection) {
  Transform t;
  t.name = kCoalesceCalls;
  t.selection = std::move(selection);
  const Trace& trace = ctx.trace();
  // The removed host time per thread.
  std::vector<ThreadHostTime> by_tid;
  auto entry = [&](int64_t tid) -> ThreadHostTime& {
    for (ThreadHostTime& th : by_tid)
      if (th.tid == tid) return th;
    by_tid.push_back(ThreadHostTime{tid, {}, {}});
    return by_tid.back();
  };
  for (const CallSites& g : groups) {
    if (g.sites.empty()) continue;
    ThreadHostTime& th = entry(g.tid);
    for (size_t s = 0; s < g.sites.size(); ++s) {
      Interval iv = g.sites[s];
      if (s + 1 == g.sites.size()) iv.start_ns = std::min(iv.end_ns, iv.start_ns + std::max<TimeNs>(0, g.kept_ns));
      if (iv.end_ns > iv.start_ns) th.removed.push_back(iv);
    }
  }
  if (by_tid.empty()) return t;
  for (ThreadHostTime& th : by_tid) th.removed = MergeIntervals(std::move(th.removed));
  for (size_t c = 0; c < trace.api_calls.size(); ++c) {
    const ApiCall& a = trace.api_calls[c];
    for (ThreadHostTime& th : by_tid) {
      if (th.tid != a.tid) continue;
      th.calls.push_back(static_cast<uint32_t>(c));
      // A call wholly inside removed host time is one the coalesced call replaces.
      if (OverlapNs(th.removed, a.start_ns, a.end_ns) >= a.end_ns - a.start_ns && a.end_ns > a.start_ns)
        t.calls_removed.push_back(static_cast<uint32_t>(c));
    }
  }
  t.thread_host_removed = std::move(by_tid);
  t.Normalize();
  return t;
}

Transform NoStragglerDelay(const Trace& trace, const std::vector<std::pair<uint32_t, TimeNs>>& delays, std::string selection) {
  Transform t;
  t.name = kNoStraggler;
  t.selection = std::move(selection);
  for (const auto& [k, delay] : delays)
    t.kernels.push_back({k, std::max<TimeNs>(0, trace.kernels[k].duration_ns() - std::max<TimeNs>(0, delay))});
  t.Normalize();
  return t;
}

}  // namespace ampscope::graph

namespace ampscope::graph {

Transform NoQueuedStall(std::vector<uint32_t> launch_calls, std::string selection) {
  Transform t;
  t.name = kNoQueuedStall;
  t.selection = std::move(selection);
  t.calls_unstalled = std::move(launch_calls);
  t.Normalize();
  return t;
}

}  // namespace ampscope::graph
