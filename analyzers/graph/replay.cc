#include "analyzers/graph/replay.h"

#include <algorithm>
#include <limits>

namespace ampscope::graph {

void Replay(const DepGraph& g, const ChunkIo& io, std::vector<SlotValue>& state, ReplayTimes& out) {
  const size_t n = g.size();
  out.start_ns.resize(n);
  out.end_ns.resize(n);
  TimeNs* rs = out.start_ns.data();
  TimeNs* re = out.end_ns.data();
  for (size_t i = 0; i < n; ++i) {
    if (g.kind[i] == NodeKind::kBoundary) {
      const SlotValue& v = state[g.lane[i]];
      rs[i] = v.valid ? v.start_ns : g.start_ns[i];
      re[i] = v.valid ? v.end_ns : g.end_ns[i];
      continue;
    }
    const uint32_t eb = g.edge_begin[i], ee = g.edge_begin[i + 1];
    TimeNs s;
    if (g.flags[i] & kFixedStart) {
      s = g.start_ns[i];
    } else {
      s = std::numeric_limits<TimeNs>::min();
      for (uint32_t e = eb; e < ee; ++e)
        if (!IsEndEdge(g.edge_kind[e])) s = std::max(s, re[g.edge_from[e]] + g.edge_delay_ns[e]);
      s += g.slack_ns[i];
    }
    TimeNs end = s + g.dur_ns[i];
    for (uint32_t e = eb; e < ee; ++e)
      if (IsEndEdge(g.edge_kind[e])) end = std::max(end, re[g.edge_from[e]] + g.edge_delay_ns[e]);
    rs[i] = s;
    re[i] = end;
  }
  // Pending waits of one stream (several nodes into one slot) keep the latest.
  for (const auto& [slot, node] : io.exports) state[slot].valid = false;
  for (const auto& [slot, node] : io.exports) {
    SlotValue& v = state[slot];
    if (!v.valid || re[node] > v.end_ns) v = {rs[node], re[node], g.category[node], true};
  }
}

StepSpan SpanOf(const ChunkInfo& chunk, const DepGraph& g, const ChunkIo& io, const ReplayTimes& r, TimeNs prev_end_ns) {
  StepSpan s;
  const TimeNs cpu_start = io.cpu_start_anchor != kNoNode ? r.start_ns[io.cpu_start_anchor] + io.cpu_start_offset_ns : chunk.cpu_start_ns;
  s.cpu_end_ns = io.cpu_end_anchor != kNoNode ? r.end_ns[io.cpu_end_anchor] + io.cpu_end_offset_ns : chunk.cpu_end_ns;
  s.gpu_end_ns = std::numeric_limits<TimeNs>::min();
  const bool window = chunk.step < 0;
  for (size_t i = 0; i < g.size(); ++i) {
    if (!IsGpu(g.kind[i])) continue;
    if (!window && !(g.flags[i] & kExtendsStep)) continue;
    if (r.end_ns[i] > s.gpu_end_ns) {
      s.gpu_end_ns = r.end_ns[i];
      s.gpu_end_node = static_cast<uint32_t>(i);
    }
  }
  if (window) {
    // Without steps the window is the span of the GPU work (analyzers/context/steps.cc).
    s.start_ns = chunk.cpu_start_ns;
    s.end_ns = s.gpu_end_node != kNoNode ? s.gpu_end_ns : s.cpu_end_ns;
    if (s.gpu_end_node != kNoNode) s.cpu_end_ns = s.start_ns;
  } else {
    s.start_ns = std::max({prev_end_ns, cpu_start, chunk.floor_ns});
    s.end_ns = std::max(s.cpu_end_ns, s.gpu_end_ns);
  }
  s.end_ns = std::max(s.end_ns, s.start_ns);
  return s;
}

}  // namespace ampscope::graph
