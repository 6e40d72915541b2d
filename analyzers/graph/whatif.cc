#include "analyzers/graph/whatif.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "analyzers/graph/critical_path.h"
#include "analyzers/graph/replay.h"
#include "base/saturating.h"
#include "base/status.h"

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

void CriticalPathSteps::Add(const CriticalPathStep& step) {
  AMPSCOPE_CHECK(piece_value_.size() <= UINT32_MAX - (kNumber + 1));
  if (replayed_ns_.empty()) first_number_ = step.number;
  const int64_t number = first_number_ + static_cast<int64_t>(replayed_ns_.size());
  replayed_ns_.push_back(step.replayed_ns);
  first_piece_.push_back(static_cast<uint32_t>(piece_value_.size()));
  auto piece = [&](uint8_t slot, int64_t value) {
    piece_slot_.push_back(slot);
    piece_value_.push_back(value);
  };
  for (size_t c = 0; c < kBreakdownCategories; ++c)
    if (step.path.ns[c] != 0) piece(static_cast<uint8_t>(c), step.path.ns[c]);
  if (step.path.gpu_gap_ns != 0) piece(kGpuGap, step.path.gpu_gap_ns);
  if (step.path.length_ns != step.replayed_ns) piece(kLength, step.path.length_ns);
  if (step.measured_ns != step.replayed_ns) piece(kMeasured, step.measured_ns);
  if (step.number != number) piece(kNumber, step.number);
}

void CriticalPathSteps::Reserve(size_t steps) {
  replayed_ns_.reserve(steps);
  first_piece_.reserve(steps);
  piece_slot_.reserve(2 * steps);
  piece_value_.reserve(2 * steps);
}

void CriticalPathSteps::TrimSlack() {
  if (piece_value_.capacity() - piece_value_.size() > piece_value_.size() / 4) {
    piece_slot_.shrink_to_fit();
    piece_value_.shrink_to_fit();
  }
}

CriticalPathStep CriticalPathSteps::operator[](size_t i) const {
  CriticalPathStep step;
  step.number = first_number_ + static_cast<int64_t>(i);
  step.replayed_ns = replayed_ns_[i];
  step.measured_ns = step.replayed_ns;
  step.path.length_ns = step.replayed_ns;
  const size_t end = i + 1 < first_piece_.size() ? first_piece_[i + 1] : piece_value_.size();
  for (size_t p = first_piece_[i]; p < end; ++p) {
    const int64_t v = piece_value_[p];
    switch (piece_slot_[p]) {
      case kGpuGap: step.path.gpu_gap_ns = v; break;
      case kLength: step.path.length_ns = v; break;
      case kMeasured: step.measured_ns = v; break;
      case kNumber: step.number = v; break;
      default: step.path.ns[piece_slot_[p]] = v; break;
    }
  }
  return step;
}

size_t CriticalPathSteps::allocated_bytes() const {
  return replayed_ns_.capacity() * sizeof(TimeNs) + first_piece_.capacity() * sizeof(uint32_t) +
         piece_slot_.capacity() * sizeof(uint8_t) + piece_value_.capacity() * sizeof(int64_t);
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
    // Growth by doubling would take the list past its cap (16,384 -> 32,768 slots): to the cap.
    if (out.segments.size() == out.segments.capacity() && 2 * out.segments.capacity() > CriticalPathResult::kMaxSegments)
      out.segments.reserve(CriticalPathResult::kMaxSegments);
    out.segments.push_back(c);
  }
}

bool SameState(const std::vector<SlotValue>& a, const std::vector<SlotValue>& b) {
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].valid != b[i].valid || (a[i].valid && (a[i].start_ns != b[i].start_ns || a[i].end_ns != b[i].end_ns))) return false;
  return true;
}

// A step's GPU chain: its longest run of GPU work along stream and event edges, each activity at
// its own duration plus its slack (the idle before it that no dependency explains, which every
// replay keeps: without it a GPU-bound step whose GPU idles for reasons the trace does not
// show was measured as if its work ran back to back, shorter than its host span).
TimeNs GpuChain(const DepGraph& g, std::vector<TimeNs>& chain) {
  chain.assign(g.size(), 0);
  TimeNs longest = 0;
  for (size_t x = 0; x < g.size(); ++x) {
    if (!IsGpu(g.kind[x])) continue;
    TimeNs before = 0;
    for (uint32_t e = g.edge_begin[x]; e < g.edge_begin[x + 1]; ++e)
      if ((g.edge_kind[e] == EdgeKind::kStream || g.edge_kind[e] == EdgeKind::kEvent) && IsGpu(g.kind[g.edge_from[e]]))
        before = std::max(before, chain[g.edge_from[e]]);
    chain[x] = before + g.slack_ns[x] + g.dur_ns[x];
    longest = std::max(longest, chain[x]);
  }
  return longest;
}

// The least a step lasts with `t`'s overlapped kernels beside the rest (Transform::overlapped):
// their own time on their busiest stream in the step's graph, before `t` is applied.
TimeNs OverlapFloor(const Transform& t, const DepGraph& g) {
  if (t.overlapped.empty()) return 0;
  std::vector<std::pair<uint32_t, TimeNs>> by_lane;  // few communication streams: a linear search
  TimeNs longest = 0;
  for (size_t n = 0; n < g.size(); ++n) {
    if (g.kind[n] != NodeKind::kKernel || !std::binary_search(t.overlapped.begin(), t.overlapped.end(), g.ref[n])) continue;
    auto it = std::find_if(by_lane.begin(), by_lane.end(), [&](const auto& l) { return l.first == g.lane[n]; });
    if (it == by_lane.end()) it = by_lane.insert(by_lane.end(), {g.lane[n], 0});
    SatAccumulate(it->second, g.dur_ns[n]);
    longest = std::max(longest, it->second);
  }
  return longest;
}

// The state a drained window starts from: GPU work queued before the window (the GPU slots,
// after the host lanes) ends by the first step's CPU start.
std::vector<SlotValue> Drained(std::vector<SlotValue> state, size_t host_lanes, TimeNs cpu_start_ns) {
  for (size_t slot = host_lanes; slot < state.size(); ++slot) {
    SlotValue& v = state[slot];
    if (!v.valid || v.end_ns <= cpu_start_ns) continue;
    v.end_ns = cpu_start_ns;
    v.start_ns = std::min(v.start_ns, v.end_ns);
  }
  return state;
}

PathBreakdown ToBreakdown(const PathTotals& p) {
  PathBreakdown b;
  for (size_t c = 0; c < kBreakdownCategories; ++c) b.ns[c] = p.ns[c];
  b.gpu_gap_ns = p.gpu_gap_ns;
  b.length_ns = p.length_ns;
  return b;
}

}  // namespace

WhatIfResult RunWhatIf(const RankContext& ctx, const std::vector<const Transform*>& transforms, bool per_step) {
  WhatIfResult out;
  out.path = std::make_shared<CriticalPathResult>();
  CriticalPathResult& path = *out.path;
  out.outcomes.resize(transforms.size());
  GraphBuilder builder(ctx);
  path.launch_latency_ns = builder.launch_latency_ns();
  if (builder.chunk_count() == 0) {
    path.reason = "no analysed window (no steps and no GPU or host activity)";
    return out;
  }
  path.available = true;
  path.steps.Reserve(builder.chunk_count());  // one a chunk: no growth slack on 200k steps
  std::vector<SlotValue> base_state = builder.InitialState();
  // The drained start (whatif.h): GPU work queued before the window ends by the first step's CPU
  // start, and the first step starts there, in the reference replay and in every fixed one.
  const ChunkInfo first = builder.chunk(0);
  const bool drained = !transforms.empty() && first.step >= 0 && first.floor_ns > first.cpu_start_ns;
  ChunkInfo first_drained = first;
  first_drained.floor_ns = std::numeric_limits<TimeNs>::min();
  std::vector<SlotValue> ref_state = drained ? Drained(base_state, builder.host_lanes(), first.cpu_start_ns) : base_state;
  std::vector<std::vector<SlotValue>> states(transforms.size(), ref_state);
  std::vector<uint8_t> diverged(transforms.size(), 0);
  std::vector<TimeNs> prev_end(transforms.size(), std::numeric_limits<TimeNs>::min());
  TimeNs base_prev_end = std::numeric_limits<TimeNs>::min();
  TimeNs ref_prev_end = std::numeric_limits<TimeNs>::min();
  // The steady-state measure of a drained window (whatif.h): the longer of the host's span (the
  // first step's CPU start to the last step's CPU end) and the GPU's chain (GpuChain), in the
  // reference and in each fixed replay; a window's chain is the sum over its steps.
  std::vector<TimeNs> chain;
  auto gpu_chain = [&](const DepGraph& gr) { return GpuChain(gr, chain); };
  auto steady = [&](TimeNs gpu_ns, const StepSpan& last) {
    return std::max<TimeNs>({0, last.cpu_end_ns - first.cpu_start_ns, gpu_ns});
  };
  TimeNs ref_gpu_ns = 0;
  StepSpan ref_last;
  std::vector<TimeNs> fixed_gpu_ns(transforms.size(), 0);
  std::vector<StepSpan> fixed_last(transforms.size());
  DepGraph g;
  std::vector<TimeNs> saved_dur, saved_slack, saved_delay;
  ChunkIo io;
  ReplayTimes r, rt, rr;
  std::vector<PathSegment> segs;
  std::map<uint32_t, TimeNs> comm;
  PathTotals window;
  double worst = -1;
  const std::vector<StepWindow>& steps = ctx.steps().steps;
  std::vector<SlotValue> base_in, ref_in;
  for (size_t k = 0; k < builder.chunk_count(); ++k) {
    const ChunkInfo chunk = builder.chunk(k);
    const ChunkInfo& fixed_chunk = drained && k == 0 ? first_drained : chunk;
    builder.Build(k, g, io);
    base_in = base_state;
    path.nodes += g.size();
    path.edges += g.edges();
    path.hidden_waits = builder.hidden_waits();
    Replay(g, io, base_state, r);
    const StepSpan span = SpanOf(chunk, g, io, r, base_prev_end);
    base_prev_end = span.end_ns;
    // The reference the fixes are measured against: the unchanged replay, from the drained start.
    StepSpan ref_span = span;
    if (drained) {
      ref_in = ref_state;
      Replay(g, io, ref_state, rr);
      ref_span = SpanOf(fixed_chunk, g, io, rr, ref_prev_end);
      ref_prev_end = ref_span.end_ns;
    }
    const TimeNs ref_chunk_gpu = drained ? gpu_chain(g) : 0;
    SatAccumulate(ref_gpu_ns, ref_chunk_gpu);
    ref_last = ref_span;
    const std::vector<SlotValue>& ref_before = drained ? ref_in : base_in;
    const std::vector<SlotValue>& ref_after = drained ? ref_state : base_state;
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
    path.steps.Add(step);
    // Each transform: the step's graph with the fix (a transform changes only durations, slack
    // and edge delays: those are restored after each), replayed from the transform's own state.
    if (!transforms.empty()) {
      saved_dur = g.dur_ns;
      saved_slack = g.slack_ns;
      saved_delay = g.edge_delay_ns;
    }
    for (size_t i = 0; i < transforms.size(); ++i) {
      bool modified = false;
      const TimeNs floor = OverlapFloor(*transforms[i], g);
      const TimeNs changed = Apply(*transforms[i], chunk, g, &modified);
      SatAccumulate(out.outcomes[i].changed_ns, changed);
      StepSpan si;
      // A transform that changed nothing here, entering the step in the unchanged replay's
      // state, leaves it as the unchanged replay does.
      if (!modified && (!diverged[i] || SameState(states[i], ref_before))) {
        diverged[i] = 0;
        states[i] = ref_after;
        si = ref_span;
        SatAccumulate(fixed_gpu_ns[i], ref_chunk_gpu);
      } else {
        diverged[i] = 1;
        Replay(g, io, states[i], rt);
        si = SpanOf(fixed_chunk, g, io, rt, prev_end[i]);
        if (drained) SatAccumulate(fixed_gpu_ns[i], std::max(gpu_chain(g), floor));
      }
      fixed_last[i] = si;
      prev_end[i] = si.end_ns;
      // Overlapped kernels still run: the step lasts at least their time on their stream.
      const TimeNs fixed_len = std::max(si.end_ns - si.start_ns, floor);
      SatAccumulate(out.outcomes[i].replayed_window_ns, fixed_len);
      if (per_step) out.outcomes[i].step_saved_ns.push_back((ref_span.end_ns - ref_span.start_ns) - fixed_len);
      if (modified) {
        std::copy(saved_dur.begin(), saved_dur.end(), g.dur_ns.begin());
        std::copy(saved_slack.begin(), saved_slack.end(), g.slack_ns.begin());
        std::copy(saved_delay.begin(), saved_delay.end(), g.edge_delay_ns.begin());
      }
    }
  }
  // From the drained start, a fix saves the reference's steady-state measure minus its own; the
  // window it leaves is the replayed window less that.
  if (drained) {
    const TimeNs reference = steady(ref_gpu_ns, ref_last);
    for (size_t i = 0; i < transforms.size(); ++i)
      out.outcomes[i].replayed_window_ns = path.replayed_window_ns - (reference - steady(fixed_gpu_ns[i], fixed_last[i]));
  }
  path.steps.TrimSlack();
  path.window = ToBreakdown(window);
  path.replay_error_pct = std::max(0.0, worst);
  out.comm_on_path.assign(comm.begin(), comm.end());
  return out;
}

}  // namespace ampscope::graph
