#include "analyzers/graph/whatif.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "analyzers/graph/critical_path.h"
#include "analyzers/graph/replay.h"
#include "base/saturating.h"

namespace ampscope::graph {

const char* BreakdownName(size_t category) { return PathCategoryName(static_cast<PathCategory>(category)); }

HtaBoundBy HtaBoundByOf(const PathBreakdown& b) {
  HtaBoundBy h;
  if (b.length_ns <= 0) return h;
  auto pct = [&](TimeNs ns) { return 100.0 * static_cast<double>(ns) / static_cast<double>(b.length_ns); };
  auto at = [&](PathCategory c) { return b.ns[static_cast<size_t>(c)]; };
  h.cpu_bound = pct(at(PathCategory::kHostBound) + at(PathCategory::kUnrecordedHost) + at(PathCategory::kSyncWait));
  h.gpu_compute_bound = pct(std::max<TimeNs>(0, at(PathCategory::kGpuCompute) + at(PathCategory::kGpuMemory) - b.gpu_gap_ns));
  h.gpu_communication_bound = pct(at(PathCategory::kCommunication));
  h.gpu_kernel_kernel_overhead = pct(b.gpu_gap_ns);
  h.gpu_kernel_launch_overhead = pct(at(PathCategory::kLaunchDelay));
  return h;
}

double WhatIfResult::SavingPct(size_t i) const {
  if (path == nullptr || path->measured_window_ns <= 0 || i >= outcomes.size()) return 0;
  const double d = static_cast<double>(path->replayed_window_ns - outcomes[i].replayed_window_ns);
  return std::max(0.0, 100.0 * d / static_cast<double>(path->measured_window_ns));
}

namespace {

uint8_t WhatOf(const DepGraph& g, const PathSegment& s) {
  if (g.kind[s.node] == NodeKind::kBoundary) return 6;
  if (s.edge) return 5;
  switch (g.kind[s.node]) {
    case NodeKind::kHostGap: return 0;
    case NodeKind::kHostCall:
    case NodeKind::kHostWait: return 1;
    case NodeKind::kKernel: return 2;
    case NodeKind::kMemcpy: return 3;
    case NodeKind::kMemset: return 4;
    case NodeKind::kBoundary: break;
  }
  return 6;
}

// The step's critical path from the node that ends it, with its segments in time order.
PathTotals StepPath(const DepGraph& g, const ChunkIo& io, const ReplayTimes& r, const StepSpan& span,
                    std::vector<PathSegment>& segs) {
  segs.clear();
  uint32_t sink = kNoNode;
  TimeNs t = span.end_ns;
  if (span.gpu_end_node != kNoNode && span.gpu_end_ns >= span.cpu_end_ns) {
    sink = span.gpu_end_node;
  } else if (io.cpu_end_anchor != kNoNode) {
    sink = io.cpu_end_anchor;
    t = std::min(span.end_ns, r.end_ns[sink]);
  }
  PathTotals p;
  if (sink != kNoNode) p = WalkCriticalPath(g, r, sink, t, span.start_ns, &segs);
  // What no node explains (a step without host or GPU nodes at its end): unrecorded host time.
  const TimeNs rest = (span.end_ns - span.start_ns) - p.length_ns;
  if (rest > 0) {
    p.ns[static_cast<size_t>(PathCategory::kUnrecordedHost)] += rest;
    p.length_ns += rest;
  }
  std::reverse(segs.begin(), segs.end());
  return p;
}

void AppendSegments(const DepGraph& g, const std::vector<PathSegment>& segs, CriticalPathResult& out) {
  for (const PathSegment& s : segs) {
    if (out.segments.size() >= CriticalPathResult::kMaxSegments) {
      out.segments_truncated = true;
      return;
    }
    CriticalPathSegment c;
    c.start_ns = s.start_ns;
    c.end_ns = s.end_ns;
    c.category = static_cast<uint8_t>(s.category);
    c.what = WhatOf(g, s);
    c.ref = (c.what >= 1 && c.what <= 4) ? g.ref[s.node] : 0xFFFFFFFFu;
    if (!out.segments.empty()) {
      CriticalPathSegment& b = out.segments.back();
      if (b.end_ns == c.start_ns && b.category == c.category && b.what == c.what && b.ref == c.ref) {
        b.end_ns = c.end_ns;
        continue;
      }
    }
    out.segments.push_back(c);
  }
}

bool SameState(const std::vector<SlotValue>& a, const std::vector<SlotValue>& b) {
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].valid != b[i].valid || (a[i].valid && (a[i].start_ns != b[i].start_ns || a[i].end_ns != b[i].end_ns))) return false;
  return true;
}

PathBreakdown ToBreakdown(const PathTotals& p) {
  PathBreakdown b;
  for (size_t c = 0; c < kBreakdownCategories; ++c) b.ns[c] = p.ns[c];
  b.gpu_gap_ns = p.gpu_gap_ns;
  b.length_ns = p.length_ns;
  return b;
}

}  // namespace

WhatIfResult RunWhatIf(const RankContext& ctx, const std::vector<const Transform*>& transforms) {
  WhatIfResult out;
  out.path = std::make_shared<CriticalPathResult>();
  CriticalPathResult& path = *out.path;
  out.outcomes.resize(transforms.size());
  GraphBuilder builder(ctx);
  path.launch_latency_ns = builder.launch_latency_ns();
  if (builder.chunks().empty()) {
    path.reason = "no analysed window (no steps and no GPU or host activity)";
    return out;
  }
  path.available = true;
  path.steps.reserve(builder.chunks().size());  // one a chunk: no growth slack on 200k steps
  std::vector<SlotValue> base_state = builder.InitialState();
  std::vector<std::vector<SlotValue>> states(transforms.size(), base_state);
  std::vector<uint8_t> diverged(transforms.size(), 0);
  std::vector<TimeNs> prev_end(transforms.size(), std::numeric_limits<TimeNs>::min());
  TimeNs base_prev_end = std::numeric_limits<TimeNs>::min();
  DepGraph g;
  std::vector<TimeNs> saved_dur, saved_slack, saved_delay;
  ChunkIo io;
  ReplayTimes r, rt;
  std::vector<PathSegment> segs;
  std::map<uint32_t, TimeNs> comm;
  PathTotals window;
  double worst = -1;
  const std::vector<StepWindow>& steps = ctx.steps().steps;
  std::vector<SlotValue> base_in;
  for (size_t k = 0; k < builder.chunks().size(); ++k) {
    const ChunkInfo& chunk = builder.chunks()[k];
    builder.Build(k, g, io);
    base_in = base_state;
    path.nodes += g.size();
    path.edges += g.edges();
    Replay(g, io, base_state, r);
    const StepSpan span = SpanOf(chunk, g, io, r, base_prev_end);
    base_prev_end = span.end_ns;
    CriticalPathStep step;
    step.number = chunk.step >= 0 ? steps[static_cast<size_t>(chunk.step)].number : -1;
    step.measured_ns = chunk.step >= 0 ? steps[static_cast<size_t>(chunk.step)].duration_ns() : ctx.window_ns();
    step.replayed_ns = span.end_ns - span.start_ns;
    SatAccumulate(path.measured_window_ns, step.measured_ns);
    SatAccumulate(path.replayed_window_ns, step.replayed_ns);
    const PathTotals p = StepPath(g, io, r, span, segs);
    step.path = ToBreakdown(p);
    window.Add(p);
    AppendSegments(g, segs, path);
    for (const PathSegment& s : segs)
      if (!s.edge && g.kind[s.node] == NodeKind::kKernel && (g.flags[s.node] & kCommunication)) comm[g.ref[s.node]] += s.end_ns - s.start_ns;
    if (step.measured_ns > 0) {
      const double err = 100.0 * std::fabs(static_cast<double>(step.replayed_ns - step.measured_ns)) / static_cast<double>(step.measured_ns);
      if (err > worst) {
        worst = err;
        path.worst_step = step.number;
      }
    }
    path.steps.push_back(step);
    // Each transform: the step's graph with the fix (a transform changes only durations, slack
    // and edge delays: those are restored after each), replayed from the transform's own state.
    if (!transforms.empty()) {
      saved_dur = g.dur_ns;
      saved_slack = g.slack_ns;
      saved_delay = g.edge_delay_ns;
    }
    for (size_t i = 0; i < transforms.size(); ++i) {
      bool modified = false;
      const TimeNs changed = Apply(*transforms[i], chunk, g, &modified);
      SatAccumulate(out.outcomes[i].changed_ns, changed);
      StepSpan si;
      // A transform that changed nothing here, entering the step in the unchanged replay's
      // state, leaves it as the unchanged replay does.
      if (!modified && (!diverged[i] || SameState(states[i], base_in))) {
        diverged[i] = 0;
        states[i] = base_state;
        si = span;
      } else {
        diverged[i] = 1;
        Replay(g, io, states[i], rt);
        si = SpanOf(chunk, g, io, rt, prev_end[i]);
      }
      prev_end[i] = si.end_ns;
      SatAccumulate(out.outcomes[i].replayed_window_ns, si.end_ns - si.start_ns);
      if (modified) {
        std::copy(saved_dur.begin(), saved_dur.end(), g.dur_ns.begin());
        std::copy(saved_slack.begin(), saved_slack.end(), g.slack_ns.begin());
        std::copy(saved_delay.begin(), saved_delay.end(), g.edge_delay_ns.begin());
      }
    }
  }
  path.window = ToBreakdown(window);
  path.replay_error_pct = std::max(0.0, worst);
  out.comm_on_path.assign(comm.begin(), comm.end());
  return out;
}

}  // namespace ampscope::graph
