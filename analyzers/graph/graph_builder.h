// Builds the dependency graph of one rank (dep_graph.h) from the trace model and the rank's
// analysis context, one step ("chunk") at a time, so memory is one step's graph however long the
// trace is. What a step's graph needs from the steps before it (the last node of each thread and
// stream, the last event recorded on each thread, stream waits not yet consumed) enters it as
// boundary nodes; the replay carries their values from chunk to chunk (replay.h).
//
// Chunks follow the analysed steps: chunk k holds the host activity of step k's thread from its
// CPU start to the next step's CPU start (the last chunk: to its CPU end), the runtime calls of
// every thread that start in that range, and the GPU work they launch (GPU work without a launch
// call by its own start). Without steps, one chunk holds the whole analysed window.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "analyzers/context/context.h"
#include "analyzers/graph/dep_graph.h"

namespace ampscope::graph {

struct ChunkInfo {
  int64_t step = -1;               // index into the context's steps; -1: the window without steps
  TimeNs begin_ns = 0, end_ns = 0; // the host times (and GPU launch times) this chunk holds
  TimeNs cpu_start_ns = 0, cpu_end_ns = 0;  // the step's CPU range (the window without steps)
  // The earliest the step starts, whatever the replay: the window's first step starts where it
  // was measured to start, which is where the step before it ended when that is later than its
  // CPU start (steps.cc). That step lies before the window (left out by --steps or as warm-up)
  // and is not replayed, so its end does not move. min() for the other steps: the previous
  // chunk's replayed end decides (replay.h's SpanOf).
  TimeNs floor_ns = std::numeric_limits<TimeNs>::min();
};

// What a chunk's graph reads from and writes to the replay state (slots: see GraphBuilder).
struct ChunkIo {
  std::vector<std::pair<uint32_t, uint32_t>> imports;  // (slot, boundary node)
  std::vector<std::pair<uint32_t, uint32_t>> exports;  // (slot, node): the slot's value after the chunk
  // The step's CPU start and end as points in the main thread's nodes: replayed point =
  // replayed start (end) of the anchor + offset. kNoNode: the point does not move.
  uint32_t cpu_start_anchor = kNoNode;
  TimeNs cpu_start_offset_ns = 0;  // from the anchor's start
  uint32_t cpu_end_anchor = kNoNode;
  TimeNs cpu_end_offset_ns = 0;    // from the anchor's end (<= 0)
  void Clear() {
    imports.clear();
    exports.clear();
    cpu_start_anchor = cpu_end_anchor = kNoNode;
    cpu_start_offset_ns = cpu_end_offset_ns = 0;
  }
};

// A slot's value: a lane's last node, an event slot's recorded node, a stream's pending wait.
struct SlotValue {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  PathCategory category = PathCategory::kHostBound;
  bool valid = false;
};

class GraphBuilder {
 public:
  explicit GraphBuilder(const RankContext& ctx);
  GraphBuilder(const GraphBuilder&) = delete;
  GraphBuilder& operator=(const GraphBuilder&) = delete;

  // The chunks: one a step, made from the context's steps when asked (not kept: 48 B a step
  // alive through every replay), or the one chunk of the window without steps.
  size_t chunk_count() const { return chunk_count_; }
  ChunkInfo chunk(size_t k) const;
  // Slots: lanes [0, L) (host threads, then GPU streams), event slots [L, 2L) (one per host
  // thread: its last cudaEventRecord), pending stream waits [2L, 3L) (one per GPU lane), and a
  // ring [3L, 3L + R) of the GPU activities a later back-pressured launch waits for (an activity
  // of an earlier step: the launch queue holds about a step's work).
  size_t slots() const { return 3 * lanes_ + ring_; }
  // The measured slot values before the first chunk (every replay starts from them).
  std::vector<SlotValue> InitialState() const;
  // Builds chunk k into g and io. Chunks must be built in order, each once (0, 1, 2, ...).
  void Build(size_t k, DepGraph& g, ChunkIo& io);

  // The launch latency kept on launch edges where the measured gap is larger (docs/whatif.md).
  TimeNs launch_latency_ns() const { return launch_latency_ns_; }
  int64_t main_tid() const { return main_tid_; }
  // Slots [0, host_lanes()) hold host nodes; every other slot holds GPU work.
  size_t host_lanes() const { return host_.size(); }
  // Launch calls held back by a full launch queue: (api_calls index, the typical cost of the
  // call kept as its own time), sorted by call. docs/whatif.md, "Launch-queue back-pressure".
  const std::vector<std::pair<uint32_t, TimeNs>>& back_pressured() const { return bp_own_; }
  // Host gaps found to wait for GPU work without a recorded sync (AddGap), so far.
  uint64_t hidden_waits() const { return hidden_waits_; }
  // The GPU lane of (device, stream), or kNoNode.
  uint32_t GpuLane(int32_t device, int32_t stream) const;

 private:
  // One a GPU activity, alive through every replay: 16 B (its start is read from its table).
  struct GpuItem {
    TimeNs key;     // launch call start, else its own start
    uint32_t index; // into the table of `type`
    uint8_t type;   // 0 kernel, 1 memcpy, 2 memset
  };
  struct SyncRecord {
    int64_t correlation;
    int32_t device;
    int32_t stream;
    SyncType type;
  };
  struct HostLane {
    int64_t tid = 0;
    TimeNs cursor = 0;        // measured end of the thread's last node
    bool started = false;
    std::vector<Interval> covered;  // merged CPU ops and ranges (not the step ranges)
    std::vector<Interval> in_ops;   // merged CPU ops alone: what a range holds that is work
    std::vector<Interval> dataloader;  // merged DataLoader ranges on this thread
    std::vector<TimeNs> call_starts;   // the thread's runtime calls' starts, sorted (joins count them)
  };

  void BuildLanes(const std::vector<Interval>& step_ranges);
  void BuildGpuItems();
  void ChooseLaunchLatency();
  void FindBackPressure();
  uint32_t HostLaneOf(int64_t tid) const;
  TimeNs StartOf(const GpuItem& it) const;  // the activity's measured start
  const SyncRecord* SyncOf(int64_t correlation, SyncType type) const;
  // The activity a host gap [a, b] of thread h waited for without a recorded sync, or kNoNode.
  uint32_t HiddenWaitTarget(uint32_t h, TimeNs a, TimeNs b, const DepGraph& g) const;

  // Per-chunk helpers (Build).
  uint32_t LaneNode(uint32_t slot, DepGraph& g, ChunkIo& io);
  void AdvanceThread(uint32_t h, TimeNs t, DepGraph& g, ChunkIo& io);
  void AddGap(uint32_t h, TimeNs a, TimeNs b, DepGraph& g, ChunkIo& io);
  void NoteMain(uint32_t h, uint32_t node, DepGraph& g, ChunkIo& io);
  void AddGpu(size_t pos, DepGraph& g, ChunkIo& io);
  void AddCall(size_t call, DepGraph& g, ChunkIo& io);
  void SetSlot(uint32_t slot, uint32_t node, const DepGraph& g);

  const RankContext& ctx_;
  const Trace& t_;
  size_t chunk_count_ = 0;
  ChunkInfo window_chunk_;  // the chunk of the window without steps
  size_t lanes_ = 0;
  std::vector<HostLane> host_;                           // host lanes [0, host_.size())
  std::vector<std::pair<int64_t, uint32_t>> host_by_tid_;  // sorted
  std::vector<std::pair<int64_t, uint32_t>> gpu_by_key_;   // ((device << 32) | stream) -> lane, sorted
  std::vector<GpuItem> gpu_;                             // in replay order
  std::vector<SyncRecord> syncs_;                        // sorted by correlation
  std::vector<ApiWaitScope> scope_by_name_;              // per StringId, cached
  std::vector<uint8_t> scope_known_;
  TimeNs launch_latency_ns_ = 0;
  // Back-pressure: per back-pressured call its own time (bp_own_) and the gpu_ position of the
  // activity it waits for (bp_target_, same order); per gpu_ position its ring slot or kNoNode.
  std::vector<std::pair<uint32_t, TimeNs>> bp_own_;
  std::vector<uint32_t> bp_target_;
  std::vector<uint32_t> ring_slot_;
  size_t ring_ = 0;
  int64_t main_tid_ = -1;
  uint32_t main_lane_ = kNoNode;

  // State carried from chunk to chunk (measured).
  std::vector<SlotValue> measured_;  // per slot
  size_t next_call_ = 0;             // first api call not yet placed
  size_t next_gpu_ = 0;              // first GPU item not yet placed
  size_t built_ = 0;

  // Per-chunk state.
  ChunkInfo chunk_;  // the chunk being built
  std::vector<uint32_t> local_;            // per slot: its node in this chunk, or kNoNode
  std::vector<uint32_t> last_launch_lane_; // per host lane: GPU lane of its last launch (kNoNode)
  std::vector<int64_t> last_gpu_corr_;     // per host lane: correlation of its last launched GPU node
  std::vector<uint32_t> last_gpu_node_;    // per host lane: that node (this chunk)
  std::vector<uint32_t> thread_wait_;      // per host lane: a stream wait for its next launch (kNoNode)
  std::vector<std::vector<uint32_t>> pending_;  // per GPU lane: event nodes its next activity waits for
  uint64_t calls_seen_ = 0;                // calls placed so far
  uint64_t hidden_waits_ = 0;
  std::vector<uint64_t> calls_at_cursor_;  // per host lane: calls_seen_ when its last call was placed
};

}  // namespace ampscope::graph
