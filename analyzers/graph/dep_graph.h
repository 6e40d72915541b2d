// The dependency graph of one rank, one step at a time (analyzers/graph/, docs/whatif.md).
//
// A step's graph ("chunk") holds every host interval and GPU activity of the step as a node, in
// an order where every edge points from an earlier node to a later one (a topological order, so
// a replay is one pass). Nodes are struct-of-arrays; in-edges are CSR. Times are int64 ns.
//
// Nodes:
//   - host gaps: the time between two runtime/driver calls on one thread (CPU ops, Python, and
//     time no event covers: `unrecorded_ns` says how much);
//   - host calls (a launch, an async copy, ...) and host waits (a sync, a blocking copy,
//     cudaFree: calls whose end waits for GPU work);
//   - GPU activities: kernels, memcpy, memset, one lane per (device, stream);
//   - boundary nodes: what a lane (thread, stream) or an event slot held when the step began,
//     whose replayed value comes from the replay of the previous steps.
// Edges (into a node; `delay_ns` is added to the predecessor's end):
//   - program order on a thread (host gaps and calls tile each thread's time: delay 0);
//   - launch -> GPU activity (correlation): from the host node that ends where the launch call
//     starts, delay = launch latency;
//   - stream order;
//   - cudaEventRecord -> cudaStreamWaitEvent: the recorded stream's work -> the next activity on
//     the waiting stream;
//   - wait edges, into a host wait's END: the GPU work it waited for; and into the END of a
//     launch call held back by a full launch queue (back-pressure): the earlier activity whose
//     completion made room for it;
//   - join edges, into a host gap's END: a long stretch of unrecorded host time that ended right
//     after another thread's activity (the main thread in backward() waiting for the autograd
//     thread, and the autograd thread waiting for the main thread to call backward()).
// What the replay keeps of the measured run (see replay.h): each node's own duration, each
// edge's delay (at most the measured gap), and the measured slack before a node's start that no
// dependency explains. So the unchanged replay reproduces the run, and a transform only moves
// what it changes.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <vector>

#include "base/units.h"

namespace ampscope::graph {

inline constexpr uint32_t kNoNode = std::numeric_limits<uint32_t>::max();

enum class NodeKind : uint8_t {
  kBoundary,  // a lane's or slot's value when the step began
  kHostGap,   // host time between runtime/driver calls on one thread
  kHostCall,  // a runtime/driver call that does not wait for the GPU
  kHostWait,  // a runtime/driver call whose end waits for GPU work
  kKernel,
  kMemcpy,
  kMemset,
};
const char* NodeKindName(NodeKind k);  // "boundary", "host_gap", "host_call", "host_wait", "kernel", "memcpy", "memset"
inline bool IsGpu(NodeKind k) { return k == NodeKind::kKernel || k == NodeKind::kMemcpy || k == NodeKind::kMemset; }
inline bool IsHost(NodeKind k) { return k == NodeKind::kHostGap || k == NodeKind::kHostCall || k == NodeKind::kHostWait; }

// What a moment on the critical path is spent on (the report's `critical_path.breakdown_pct`).
enum class PathCategory : uint8_t {
  kGpuCompute,      // kernels other than communication (and the gaps between them on a stream)
  kGpuMemory,       // memcpy, memset
  kCommunication,   // NCCL/RCCL kernels
  kLaunchDelay,     // from a launch call's start to its kernel's start, when the kernel waited for it
  kHostBound,       // host time in recorded ops and runtime calls
  kUnrecordedHost,  // host time that no event covers
  kSyncWait,        // host waits: the call's own time and the wake-up after the GPU work ended
  kCount
};
inline constexpr size_t kPathCategories = static_cast<size_t>(PathCategory::kCount);
// "gpu_compute", "gpu_memory", "communication", "kernel_launch_delay", "host_bound",
// "unrecorded_host", "sync_wait"
const char* PathCategoryName(PathCategory c);

enum class EdgeKind : uint8_t {
  kProgram,  // program order on a host thread
  kLaunch,   // launch call -> GPU activity
  kStream,   // stream order
  kEvent,    // event record -> stream wait
  kWait,     // GPU work -> the END of a host wait
  kJoin,     // another thread's activity -> the END of a host gap that waited for it
};
// Edges into a node's end (its start does not wait for them).
inline bool IsEndEdge(EdgeKind k) { return k == EdgeKind::kWait || k == EdgeKind::kJoin; }

// Node flags.
inline constexpr uint8_t kFixedStart = 1;     // no start dependency: starts at its measured time
inline constexpr uint8_t kExtendsStep = 2;    // GPU work launched inside the step's CPU range
inline constexpr uint8_t kCommunication = 4;  // a communication kernel
// A launch call held back by a full launch queue (graph_builder.cc): its own time is the typical
// cost of the call, and a wait edge from the GPU activity whose completion let it return.
inline constexpr uint8_t kBackPressure = 8;

struct DepGraph {
  // ---- nodes
  std::vector<TimeNs> start_ns, end_ns;  // measured
  std::vector<TimeNs> dur_ns;            // own duration (what a transform changes)
  std::vector<TimeNs> slack_ns;          // measured start minus the latest (predecessor end + delay)
  std::vector<TimeNs> unrecorded_ns;     // host gaps: the part no CPU op or range covers (<= duration)
  std::vector<TimeNs> lead_unrecorded_ns;  // host gaps: the unrecorded part before the first CPU op or
                                           // range that starts in the gap (<= unrecorded_ns)
  std::vector<TimeNs> dataloader_ns;     // host gaps: the part inside DataLoader ranges
  std::vector<NodeKind> kind;
  std::vector<uint8_t> flags;
  std::vector<PathCategory> category;    // what the node's own time is on the critical path
  std::vector<uint32_t> lane;            // host thread or GPU lane; boundary: the slot
  std::vector<uint32_t> ref;             // kernel / memcpy / memset / api_calls index; kNoNode for gaps, boundaries
  std::vector<uint32_t> launch_ref;      // GPU nodes: the api_calls index of the launch call, or kNoNode
  // ---- in-edges, CSR: the in-edges of node n are [edge_begin[n], edge_begin[n + 1])
  std::vector<uint32_t> edge_begin{0};
  std::vector<uint32_t> edge_from;
  std::vector<TimeNs> edge_delay_ns;
  std::vector<EdgeKind> edge_kind;

  size_t size() const { return kind.size(); }
  size_t edges() const { return edge_from.size(); }
  void Clear();
  // Appends a node (its in-edges are the ones added before the next AddNode). Returns its index.
  uint32_t AddNode(NodeKind k, TimeNs start, TimeNs end, PathCategory c, uint32_t lane, uint32_t ref);
  // Adds an in-edge to the last node added.
  void AddEdge(uint32_t from, TimeNs delay_ns, EdgeKind k);
  // Closes the last node: fixes its slack (and kFixedStart when it has no start edge).
  void FinishNode();
};

}  // namespace ampscope::graph
