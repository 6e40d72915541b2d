// What the analysis of a PyTorch memory snapshot found (analyzers/memory/memory_snapshot.h computes
// it; reports/memory_snapshot_json.h writes it as the report's `memory_snapshot` section;
// export/ draws its timeline and tables). Bytes are bytes; times are the snapshot's own µs.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/diagnostics.h"

namespace ampscope {

struct MemorySnapshot;  // trace/formats/memory_snapshot/memory_snapshot.h

// One segment as PyTorch's segsum sums it (torch/cuda/_memory_viz.py): allocated = requested
// bytes of active_allocated blocks; free internal = their size - requested; free external = the
// size of every other block.
struct SnapshotSegmentSummary {
  int32_t device = 0;
  uint64_t address = 0;
  uint64_t total_size = 0;
  int64_t allocated_bytes = 0;
  int64_t free_internal_bytes = 0;
  int64_t free_external_bytes = 0;
  uint64_t largest_free_block_bytes = 0;
  uint32_t blocks = 0;
  uint32_t active_blocks = 0;
  int64_t stream = 0;
  std::string segment_type;
  int64_t pool_id[2] = {0, 0};
  bool is_expandable = false;
  // segsum's page map: one character per 20 MiB page ("a".."z" one block, '0'-'9' partly
  // filled by several, '*' full, ' ' free); only for segments of at least one page.
  std::string page_map;
};

// Segments of one kind: counts by size and pool.
struct SnapshotSegmentGroup {
  std::string segment_type;
  uint64_t total_size = 0;
  int64_t pool_id[2] = {0, 0};
  uint32_t count = 0;
};

// An allocation site: the innermost Python frame of the stack once PyTorch's memory viz filter
// has dropped its own frames ("<non-python>": a stack without one; "<no stack>": none recorded;
// "<before the trace>": blocks live before device_traces began).
struct SnapshotSite {
  std::string file;
  int64_t line = 0;
  std::string function;
  uint64_t bytes = 0;   // live at the peak
  uint64_t allocs = 0;  // live allocations at the peak
  double pct_of_peak = 0;
  std::string label() const;  // "file.py:12:fn" (file's last component) or the placeholder
};

struct SnapshotOom {
  int32_t device = 0;
  std::optional<int64_t> time_us;
  uint64_t requested_bytes = 0;
  uint64_t device_free_bytes = 0;   // what the driver said was free
  uint64_t live_bytes = 0;          // allocated by tensors then (timeline)
  uint64_t reserved_bytes = 0;      // held by the allocator then (timeline)
};

struct SnapshotTimelinePoint {
  int64_t time_us = 0;       // the event's time (its index when the snapshot has no times)
  uint64_t live_bytes = 0;   // allocated by tensors
  uint64_t reserved_bytes = 0;
};

struct SnapshotStep {  // a step found in the snapshot's external annotations
  int64_t start_us = 0;
  int64_t end_us = 0;
  uint64_t segment_allocs = 0;
  uint64_t segment_frees = 0;
  uint64_t allocs = 0;
};

struct MemorySnapshotResult {
  std::string path;
  uint64_t file_bytes = 0;
  int protocol = 0;
  // segments (segsum)
  std::vector<SnapshotSegmentSummary> segments;  // in segsum's order: by (total_size, active bytes)
  std::vector<SnapshotSegmentGroup> segment_groups;
  uint64_t reserved_bytes = 0;
  int64_t allocated_bytes = 0;
  int64_t free_internal_bytes = 0;
  int64_t free_external_bytes = 0;
  uint64_t largest_free_block_bytes = 0;
  uint32_t empty_segments = 0;                 // segments without an active block
  int64_t free_in_empty_segments_bytes = 0;    // their bytes: cached, reusable, releasable
  int64_t free_in_used_segments_bytes = 0;     // free external in segments that hold live blocks
  uint64_t blocks = 0;
  uint64_t active_blocks = 0;
  // allocator settings (absent in older snapshots)
  bool settings_present = false;
  std::optional<bool> expandable_segments;
  std::optional<int64_t> max_split_size_bytes;  // > 0 only: the default is no limit
  std::string alloc_conf;
  // device_traces
  bool has_trace = false;
  int32_t main_device = 0;          // the device whose trace the timeline, peak and sites are of
  uint64_t events = 0;
  uint64_t allocs = 0, frees_requested = 0, frees_completed = 0;
  uint64_t segment_allocs = 0, segment_frees = 0, segment_maps = 0, segment_unmaps = 0, ooms = 0;
  uint64_t baseline_live_bytes = 0;  // live before the first recorded event
  std::optional<uint64_t> peak_live_bytes;
  std::optional<int64_t> peak_time_us;
  std::optional<int64_t> first_time_us, last_time_us;
  uint64_t peak_reserved_bytes = 0;
  std::vector<SnapshotTimelinePoint> timeline;  // at most kTimelinePoints, each bucket's peak
  std::vector<SnapshotSite> top_sites;          // by bytes live at the peak
  uint64_t peak_allocs = 0;                     // allocations live at the peak
  // autocast: allocations under at::autocast::cached_cast (cast copies) and under any at::autocast frame
  uint64_t autocast_cast_bytes = 0;
  uint64_t autocast_cast_allocs = 0;
  uint64_t autocast_cast_live_at_peak_bytes = 0;
  uint64_t under_autocast_bytes = 0;
  bool stacks_recorded = false;  // any event or block carries frames
  // steps (external annotations) and churn
  std::string step_source;  // "profiler_step" | "optimizer_step" | "none"
  std::vector<SnapshotStep> steps;
  std::optional<uint64_t> steady_segment_allocs, steady_segment_frees;  // steps after the first
  size_t steady_steps = 0;
  uint64_t segment_free_realloc_cycles = 0;  // segment_free followed later by a segment_alloc
  std::vector<SnapshotOom> oom_events;
  Diagnostics diagnostics;  // the reader's and the analysis'
  // The snapshot's own rows, kept only when an exporter needs them (--sqlite: memory_blocks and
  // memory_events), with each distinct stack's site label and whether it is a cast copy.
  std::shared_ptr<const MemorySnapshot> rows;
  std::vector<std::string> stack_sites;   // per MemorySnapshot::frame_lists entry
  std::vector<uint8_t> stack_cast;        // per frame list: 1 under at::autocast::cached_cast
};

inline constexpr size_t kSnapshotTimelinePoints = 2048;
inline constexpr size_t kSnapshotTopSites = 10;

}  // namespace ampscope
