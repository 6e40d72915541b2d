#include "analyzers/graph/critical_path.h"

#include <algorithm>
#include <limits>

namespace ampscope::graph {

void PathTotals::Add(const PathTotals& o) {
  for (size_t c = 0; c < kPathCategories; ++c) ns[c] += o.ns[c];
  gpu_gap_ns += o.gpu_gap_ns;
  length_ns += o.length_ns;
}

namespace {

class Walker {
 public:
  Walker(const DepGraph& g, const ReplayTimes& r, TimeNs from, std::vector<PathSegment>* segments)
      : g_(g), r_(r), from_(from), segments_(segments) {}

  // Puts [a, t) of node n (clipped to from) in category c; returns the new t.
  TimeNs Put(TimeNs a, TimeNs t, PathCategory c, uint32_t n, bool edge, bool gpu_gap = false) {
    a = std::max(a, from_);
    if (a >= t) return t;
    const TimeNs d = t - a;
    totals_.ns[static_cast<size_t>(c)] += d;
    totals_.length_ns += d;
    if (gpu_gap) totals_.gpu_gap_ns += d;
    if (segments_ != nullptr) segments_->push_back({a, t, c, n, edge});
    return a;
  }

  // A node's own time [a, t): host gaps split into recorded and unrecorded time.
  TimeNs PutOwn(uint32_t n, TimeNs a, TimeNs t) {
    if (g_.kind[n] != NodeKind::kHostGap || g_.dur_ns[n] <= 0 || g_.unrecorded_ns[n] <= 0)
      return Put(a, t, g_.category[n], n, false);
    const TimeNs span = std::max<TimeNs>(0, t - std::max(a, from_));
    const double share = std::min(1.0, static_cast<double>(g_.unrecorded_ns[n]) / static_cast<double>(g_.dur_ns[n]));
    const TimeNs unrec = static_cast<TimeNs>(static_cast<double>(span) * share + 0.5);
    t = Put(t - unrec, t, PathCategory::kUnrecordedHost, n, false);
    return Put(a, t, PathCategory::kHostBound, n, false);
  }

  PathTotals Walk(uint32_t n, TimeNs t) {
    while (n != kNoNode && t > from_) {
      if (g_.kind[n] == NodeKind::kBoundary) {
        // Work of an earlier step still deciding this one (its stream, its thread).
        Put(from_, t, g_.category[n], n, false);
        break;
      }
      const TimeNs s = r_.start_ns[n];
      const uint32_t eb = g_.edge_begin[n], ee = g_.edge_begin[n + 1];
      // The end: a host wait ended by the GPU work it waited for.
      uint32_t wait = kNoNode;
      EdgeKind wait_kind = EdgeKind::kWait;
      TimeNs wait_at = std::numeric_limits<TimeNs>::min();
      for (uint32_t e = eb; e < ee; ++e) {
        if (!IsEndEdge(g_.edge_kind[e])) continue;
        const TimeNs v = r_.end_ns[g_.edge_from[e]] + g_.edge_delay_ns[e];
        if (v > wait_at) wait_at = v, wait = g_.edge_from[e], wait_kind = g_.edge_kind[e];
      }
      if (wait != kNoNode && wait_at > s + g_.dur_ns[n]) {
        // A host wait: the GPU work it waited for; a join: the other thread. The wake-up after
        // it is sync wait (a join's: unrecorded host time).
        const PathCategory latency = wait_kind == EdgeKind::kJoin ? PathCategory::kUnrecordedHost : PathCategory::kSyncWait;
        const TimeNs done = std::min(r_.end_ns[wait], t);
        if (done > s) {
          t = Put(done, t, latency, n, true);
          n = wait;
          continue;
        }
        t = Put(s, t, latency, n, true);
      } else {
        t = PutOwn(n, s, t);
      }
      if (t <= from_) break;
      if (g_.flags[n] & kFixedStart) {
        // Nothing recorded decided this start: the thread's (or stream's) own time before it.
        Put(from_, t, IsGpu(g_.kind[n]) ? g_.category[n] : PathCategory::kUnrecordedHost, n, true,
            IsGpu(g_.kind[n]) && g_.category[n] != PathCategory::kCommunication);
        break;
      }
      // The start: the dependency that decided it.
      uint32_t best = kNoNode;
      EdgeKind best_kind = EdgeKind::kProgram;
      TimeNs best_at = std::numeric_limits<TimeNs>::min();
      for (uint32_t e = eb; e < ee; ++e) {
        if (IsEndEdge(g_.edge_kind[e])) continue;
        const TimeNs v = r_.end_ns[g_.edge_from[e]] + g_.edge_delay_ns[e];
        if (v > best_at || (v == best_at && g_.edge_kind[e] == EdgeKind::kProgram)) {
          best_at = v;
          best = g_.edge_from[e];
          best_kind = g_.edge_kind[e];
        }
      }
      const TimeNs pred_end = std::min(r_.end_ns[best], t);
      switch (best_kind) {
        case EdgeKind::kLaunch: t = Put(pred_end, t, PathCategory::kLaunchDelay, n, true); break;
        case EdgeKind::kStream:
        case EdgeKind::kEvent:
          t = Put(pred_end, t, g_.category[n], n, true, IsGpu(g_.kind[n]) && g_.category[n] != PathCategory::kCommunication);
          break;
        case EdgeKind::kProgram:
        case EdgeKind::kWait:
        case EdgeKind::kJoin: t = Put(pred_end, t, g_.category[n], n, true); break;
      }
      n = best;
    }
    return totals_;
  }

 private:
  const DepGraph& g_;
  const ReplayTimes& r_;
  TimeNs from_;
  std::vector<PathSegment>* segments_;
  PathTotals totals_;
};

}  // namespace

PathTotals WalkCriticalPath(const DepGraph& g, const ReplayTimes& r, uint32_t sink, TimeNs t_end, TimeNs from,
                            std::vector<PathSegment>* segments) {
  Walker w(g, r, from, segments);
  return w.Walk(sink, t_end);
}

}  // namespace ampscope::graph
