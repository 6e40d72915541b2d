// What-if transforms: each is a function from a step's dependency graph to the graph the run
// would have with one fix applied (docs/whatif.md). A Transform says what changes in terms of
// the trace (kernels, copies, runtime calls, host time, steps), so one Transform applies to
// every step's graph; Apply() is the graph -> graph function.
//
// The transforms the findings use (one constructor each, below): scale kernels (by class, op or
// name) and remove nodes (a sync, a fill); fuse a chain of memory-bound kernels into one; AMP
// (amp_transform.cc); no DataLoader wait; CUDA-graph launch; no unrecorded host time; remove
// whole steps; no straggler delay. A finding attaches one (diagnosis' FindingSink::Fix) and its
// est_saving_pct is the replay's answer (whatif.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "analyzers/context/context.h"
#include "analyzers/graph/dep_graph.h"
#include "analyzers/graph/graph_builder.h"

namespace ampscope::graph {

// The names of the transforms (the evidence's `whatif_transform`).
inline constexpr const char* kScaleKernels = "scale_kernels";
inline constexpr const char* kRemoveNodes = "remove_nodes";
inline constexpr const char* kOverlapKernels = "overlap_kernels";
inline constexpr const char* kFuseChains = "fuse_memory_bound_chain";
inline constexpr const char* kAmp = "amp";
inline constexpr const char* kNoDataLoaderWait = "no_dataloader_wait";
inline constexpr const char* kCudaGraphLaunch = "cuda_graph_launch";
inline constexpr const char* kNoUnrecordedHost = "no_unrecorded_host_time";
inline constexpr const char* kRemoveHostTime = "remove_host_time";
inline constexpr const char* kRemoveSteps = "remove_steps";
inline constexpr const char* kNoStraggler = "no_straggler_delay";
inline constexpr const char* kCoalesceCalls = "coalesce_calls";
inline constexpr const char* kNoQueuedStall = "no_queued_stall";
inline constexpr const char* kFusedOptimizer = "fused_optimizer";  // scale_kernels + cuda_graph_launch on one step's optimizer
inline constexpr const char* kCombined = "all_fixes";

// A CUDA graph replays its kernels back to back: the delay kept between a collapsed launch and
// its kernel ([heur]: a graph's kernels start ~1 µs apart on current GPUs).
inline constexpr TimeNs kGraphLaunchLatencyNs = 1'000;

// Host time removed on one thread only: the per-call host cost of calls a fix eliminates.
struct ThreadHostTime {
  int64_t tid = 0;
  std::vector<uint32_t> calls;    // the thread's runtime calls (api_calls indices, sorted): a host
                                  // gap that follows one of them is this thread's
  std::vector<Interval> removed;  // sorted, merged
};

struct Transform {
  std::string name;       // one of the names above
  std::string selection;  // what it selected, in words (the evidence's `whatif_selection`)
  // New own durations (ns) of GPU activities, sorted by index into the trace's table.
  std::vector<std::pair<uint32_t, TimeNs>> kernels, memcpys, memsets;
  std::vector<uint32_t> calls_removed;    // api_calls: duration 0 and no wait (sorted)
  std::vector<uint32_t> calls_no_wait;    // api_calls that no longer wait for the GPU (sorted)
  std::vector<uint32_t> calls_tail;       // removed calls whose trailing unrecorded host time goes too
                                          // (the Python that read a synced value, up to the first op or
                                          // range that starts after the call), sorted
  std::vector<uint32_t> calls_keep_wait;  // removed calls whose wait stays: what the host does next
                                          // still starts when the GPU work waited for ends (sorted)
  std::vector<uint32_t> calls_collapsed;  // launch calls a CUDA graph replaces (sorted): duration 0,
                                          // their activities' launch delay -> kGraphLaunchLatencyNs,
                                          // host time between two of them on a thread -> 0
  std::vector<uint32_t> calls_unstalled;  // launch calls (sorted) whose GPU activities start as soon
                                          // as their dependencies allow: the slack no dependency
                                          // explains (queued work the GPU did not start) is gone
  // Host time removed from host gaps (sorted, merged; null: none), set by SetHostRemoved and never
  // changed after: shared, not copied, by copies of the transform and by a Combine in which it is
  // the one part that removes host time (an interval or two a step on a many-step trace, alive
  // through every replay of the diagnosis).
  std::shared_ptr<const std::vector<Interval>> host_removed;
  std::vector<ThreadHostTime> thread_host_removed;  // host time removed from one thread's gaps (one per tid)
  bool no_dataloader = false;             // host gaps lose their DataLoader time
  bool no_unrecorded = false;             // host gaps lose the time no event covers
  std::vector<int64_t> steps_removed;     // whole steps (indices into the context's steps, sorted)
  // Kernels (trace indices, sorted) a fix takes off the path but that still run, beside the rest
  // (communication fully overlapped): nothing waits for them, and a step lasts at least their
  // measured time on their busiest stream. They are in `kernels` too, at 0.
  std::vector<uint32_t> overlapped;

  bool empty() const;
  // host_removed's intervals (empty when none).
  const std::vector<Interval>& HostRemoved() const;
  // Merges `intervals` (MergeIntervals) into a new host_removed list.
  void SetHostRemoved(std::vector<Interval> intervals);
  // Sorts and dedups the lists (constructors call it).
  void Normalize();
};

// The union of several transforms (the joint saving): the shortest new duration wins.
Transform Combine(const std::vector<const Transform*>& parts);

// Applies t to g (in place; g is a step's graph, `chunk` its step). Returns the measured time
// of the nodes and delays it changed (ns): a saving can never exceed it. Only the durations,
// slacks and edge delays change; `modified` (when given) says whether any did.
TimeNs Apply(const Transform& t, const ChunkInfo& chunk, DepGraph& g, bool* modified = nullptr);
// The same as a function graph -> graph.
DepGraph Applied(const Transform& t, const ChunkInfo& chunk, const DepGraph& g);

// ---- constructors

// Kernels `kernels` (trace indices) run `factor` times as long (0: removed).
Transform ScaleKernels(const Trace& trace, std::vector<uint32_t> kernels, double factor, std::string selection);
// Copies `memcpys` (trace indices) run `factor` times as long (0: removed; a device-to-device
// copy an in-place op would avoid).
Transform ScaleCopies(const Trace& trace, std::vector<uint32_t> memcpys, double factor, std::string selection);
// Kernels `kernels` fully overlapped (communication): they take no time on the path, and each
// step lasts at least their measured time on their busiest stream (they still run).
Transform OverlapKernels(const Trace& trace, std::vector<uint32_t> kernels, std::string selection);
// Removes kernels (a fill, a transpose), copies, memsets and runtime calls (a sync: the host no
// longer waits, and the call itself is gone).
Transform RemoveNodes(const Trace& trace, std::vector<uint32_t> kernels, std::vector<uint32_t> calls, std::string selection);
// Removes host syncs as the advice means it: the calls, and the unrecorded host time right after
// each (the Python that read the synced value: up to the thread's next runtime call or the first
// CPU op or range that starts after the call). Removing a sync removes no host work: a sync that
// the host follows with a DataLoader range before it gives the GPU anything more keeps its wait,
// so the loading does not move under the GPU work the sync waited for (that overlap is the input
// pipeline's fix, dataloader_bottleneck's, not the sync's).
Transform RemoveSyncs(const RankContext& ctx, std::vector<uint32_t> calls, std::string selection);
// Each chain (trace kernel indices, one stream, in order) becomes one kernel that moves the
// chain's unique bytes once: `fused_ns` per chain (never more than the chain took).
Transform FuseChains(const Trace& trace, const std::vector<std::vector<uint32_t>>& chains,
                     const std::vector<TimeNs>& fused_ns, std::string selection);
Transform NoDataLoaderWait(std::string selection);
Transform NoUnrecordedHost(std::string selection);
// Host time inside `intervals` (host gaps only: runtime calls stay) takes no time.
Transform RemoveHostTime(std::vector<Interval> intervals, std::string selection);
// The launch calls of `kernels` collapse as in a CUDA graph replay.
Transform CudaGraphLaunch(const RankContext& ctx, const std::vector<uint32_t>& kernels, std::string selection);
Transform RemoveSteps(std::vector<int64_t> steps, std::string selection);
// Pageable copies made pinned and asynchronous: each copy takes `new_ns`, its call no longer waits.
Transform PinnedCopies(const RankContext& ctx, std::vector<std::pair<uint32_t, TimeNs>> memcpys, std::string selection);
// One group of N calls that a fix coalesces into one (a DDP bucket of per-parameter all-reduces,
// the per-tensor launches of one foreach op, a loop of small launches): each site is the host time
// one call costs on `tid` (its CPU op's span: the runtime calls and the CPU op overhead around
// them). The coalesced call still costs `kept_ns` of host time, taken at the start of the group's
// last site (where a bucket's all-reduce is issued: when its last gradient is ready).
struct CallSites {
  int64_t tid = 0;
  std::vector<Interval> sites;  // by start, disjoint
  TimeNs kept_ns = 0;
};
// The per-call host cost of the calls the groups eliminate (docs/whatif.md, `coalesce_calls`):
// their runtime calls take no time, and the host gaps of their thread lose the time inside the
// sites. GPU work is unchanged (its launches still happen, as few calls); combine with a GPU
// transform where the fix changes that too.
Transform CoalesceCalls(const RankContext& ctx, const std::vector<CallSites>& groups, std::string selection);
// The GPU activities of `launch_calls` (api_calls indices) start as soon as their dependencies
// allow: what held queued work back, outside the trace, is gone.
Transform NoQueuedStall(std::vector<uint32_t> launch_calls, std::string selection);
// Collective kernels end earlier by the delay a late rank caused: (kernel, delay ns).
Transform NoStragglerDelay(const Trace& trace, const std::vector<std::pair<uint32_t, TimeNs>>& delays,
                           std::string selection);

}  // namespace ampscope::graph
