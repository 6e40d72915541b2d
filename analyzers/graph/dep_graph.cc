#include "analyzers/graph/dep_graph.h"

#include <algorithm>

namespace ampscope::graph {

const char* NodeKindName(NodeKind k) {
  switch (k) {
    case NodeKind::kBoundary: return "boundary";
    case NodeKind::kHostGap: return "host_gap";
    case NodeKind::kHostCall: return "host_call";
    case NodeKind::kHostWait: return "host_wait";
    case NodeKind::kKernel: return "kernel";
    case NodeKind::kMemcpy: return "memcpy";
    case NodeKind::kMemset: return "memset";
  }
  return "unknown";
}

const char* PathCategoryName(PathCategory c) {
  switch (c) {
    case PathCategory::kGpuCompute: return "gpu_compute";
    case PathCategory::kGpuMemory: return "gpu_memory";
    case PathCategory::kCommunication: return "communication";
    case PathCategory::kLaunchDelay: return "kernel_launch_delay";
    case PathCategory::kHostBound: return "host_bound";
    case PathCategory::kUnrecordedHost: return "unrecorded_host";
    case PathCategory::kSyncWait: return "sync_wait";
    case PathCategory::kCount: break;
  }
  return "unknown";
}

void DepGraph::Clear() {
  start_ns.clear();
  end_ns.clear();
  dur_ns.clear();
  slack_ns.clear();
  unrecorded_ns.clear();
  lead_unrecorded_ns.clear();
  dataloader_ns.clear();
  kind.clear();
  flags.clear();
  category.clear();
  lane.clear();
  ref.clear();
  launch_ref.clear();
  edge_begin.assign(1, 0);
  edge_from.clear();
  edge_delay_ns.clear();
  edge_kind.clear();
}

uint32_t DepGraph::AddNode(NodeKind k, TimeNs start, TimeNs end, PathCategory c, uint32_t lane_id, uint32_t ref_id) {
  const uint32_t n = static_cast<uint32_t>(kind.size());
  start_ns.push_back(start);
  end_ns.push_back(end);
  dur_ns.push_back(std::max<TimeNs>(0, end - start));
  slack_ns.push_back(0);
  unrecorded_ns.push_back(0);
  lead_unrecorded_ns.push_back(0);
  dataloader_ns.push_back(0);
  kind.push_back(k);
  flags.push_back(0);
  category.push_back(c);
  lane.push_back(lane_id);
  ref.push_back(ref_id);
  launch_ref.push_back(kNoNode);
  edge_begin.push_back(static_cast<uint32_t>(edge_from.size()));
  return n;
}

void DepGraph::AddEdge(uint32_t from, TimeNs delay_ns, EdgeKind k) {
  edge_from.push_back(from);
  edge_delay_ns.push_back(delay_ns);
  edge_kind.push_back(k);
  edge_begin.back() = static_cast<uint32_t>(edge_from.size());
}

void DepGraph::FinishNode() {
  const size_t n = kind.size() - 1;
  bool any = false;
  TimeNs bound = std::numeric_limits<TimeNs>::min();
  for (uint32_t e = edge_begin[n]; e < edge_begin[n + 1]; ++e) {
    if (IsEndEdge(edge_kind[e])) continue;
    any = true;
    bound = std::max(bound, end_ns[edge_from[e]] + edge_delay_ns[e]);
  }
  if (!any || kind[n] == NodeKind::kBoundary) {
    flags[n] |= kFixedStart;
    slack_ns[n] = 0;
  } else {
    slack_ns[n] = std::max<TimeNs>(0, start_ns[n] - bound);
  }
}

}  // namespace ampscope::graph
