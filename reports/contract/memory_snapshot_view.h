// The report's `memory_snapshot` section (docs/report_schema.md, docs/memory_snapshot.md) as its
// readers see it: typed, and lenient as render/ has always been (a missing field, or one of
// another type, is nullopt / "" / an empty list, never an exception). The section's field names
// are declared here once (memory_snapshot_key): the reader (memory_snapshot_view.cc) and the
// writer (reports/memory_snapshot_json.cc) both use them, so a rename is one edit.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ampscope::reports {

namespace memory_snapshot_key {
inline constexpr const char kMemorySnapshot[] = "memory_snapshot";  // the section: top level, and ranks[]
inline constexpr const char kPath[] = "path";
inline constexpr const char kSegments[] = "segments";
inline constexpr const char kSegmentCount[] = "segment_count";
inline constexpr const char kTotalSize[] = "total_size";
inline constexpr const char kStream[] = "stream";
inline constexpr const char kPageMap[] = "page_map";
inline constexpr const char kReservedBytes[] = "reserved_bytes";
inline constexpr const char kAllocatedBytes[] = "allocated_bytes";
inline constexpr const char kFreeInternalBytes[] = "free_internal_bytes";
inline constexpr const char kFreeExternalBytes[] = "free_external_bytes";
inline constexpr const char kLargestFreeBlockBytes[] = "largest_free_block_bytes";
inline constexpr const char kEmptySegments[] = "empty_segments";
inline constexpr const char kFreeExternalInEmptySegmentsBytes[] = "free_external_in_empty_segments_bytes";
inline constexpr const char kFreeExternalInUsedSegmentsBytes[] = "free_external_in_used_segments_bytes";
inline constexpr const char kAllocatorSettings[] = "allocator_settings";
inline constexpr const char kExpandableSegments[] = "expandable_segments";
inline constexpr const char kMaxSplitSizeBytes[] = "max_split_size_bytes";
inline constexpr const char kAllocConf[] = "alloc_conf";
inline constexpr const char kHasTrace[] = "has_trace";
inline constexpr const char kDevice[] = "device";
inline constexpr const char kEvents[] = "events";
inline constexpr const char kActions[] = "actions";
inline constexpr const char kAlloc[] = "alloc";
inline constexpr const char kSegmentAlloc[] = "segment_alloc";
inline constexpr const char kSegmentFree[] = "segment_free";
inline constexpr const char kOom[] = "oom";
inline constexpr const char kPeakLiveBytes[] = "peak_live_bytes";
inline constexpr const char kPeakTimeUs[] = "peak_time_us";
inline constexpr const char kPeakReservedBytes[] = "peak_reserved_bytes";
inline constexpr const char kFirstTimeUs[] = "first_time_us";
inline constexpr const char kLastTimeUs[] = "last_time_us";
inline constexpr const char kTopSites[] = "top_sites";
inline constexpr const char kSite[] = "site";
inline constexpr const char kBytes[] = "bytes";
inline constexpr const char kAllocs[] = "allocs";
inline constexpr const char kPctOfPeak[] = "pct_of_peak";
inline constexpr const char kStacksRecorded[] = "stacks_recorded";
inline constexpr const char kAutocastCastBytes[] = "autocast_cast_bytes";
inline constexpr const char kAutocastCastAllocs[] = "autocast_cast_allocs";
inline constexpr const char kAutocastCastLiveAtPeakBytes[] = "autocast_cast_live_at_peak_bytes";
inline constexpr const char kStepSource[] = "step_source";
inline constexpr const char kSteps[] = "steps";
inline constexpr const char kSteadySegmentAllocs[] = "steady_segment_allocs";
inline constexpr const char kSteadySegmentFrees[] = "steady_segment_frees";
inline constexpr const char kSegmentFreeReallocCycles[] = "segment_free_realloc_cycles";
inline constexpr const char kOomEvents[] = "oom_events";
inline constexpr const char kTimeUs[] = "time_us";
inline constexpr const char kRequestedBytes[] = "requested_bytes";
inline constexpr const char kDeviceFreeBytes[] = "device_free_bytes";
inline constexpr const char kLiveBytes[] = "live_bytes";
inline constexpr const char kTimeline[] = "timeline";
inline constexpr const char kPoints[] = "points";
}  // namespace memory_snapshot_key

// segments[]: one allocator segment.
struct MemorySegment {
  std::optional<std::string> page_map;  // segsum's picture; null for a segment under 20 MiB
  std::optional<double> total_size, free_internal_bytes, free_external_bytes;  // bytes
  std::optional<double> stream;
};

// allocator_settings: present only where the snapshot has them (PyTorch 2.1 and later).
struct MemoryAllocatorSettings {
  std::optional<bool> expandable_segments;
  std::optional<double> max_split_size_bytes;  // null: no limit
  std::string alloc_conf;                      // PYTORCH_CUDA_ALLOC_CONF; "" when unset
};

// actions: events of the history by action.
struct MemoryActions {
  std::optional<double> alloc, segment_alloc, segment_free, oom;
};

// top_sites[]: live bytes at the peak by allocation site.
struct MemorySite {
  std::string site;  // "train.py:42:forward"
  std::optional<double> bytes, allocs, pct_of_peak;
};

// oom_events[]
struct MemoryOom {
  std::optional<double> time_us, requested_bytes, device_free_bytes, reserved_bytes, live_bytes;
};

// timeline.points[]: [time_us, live_bytes, reserved_bytes], each the peak of its stretch.
struct MemoryTimelinePoint {
  double time_us = 0, live_bytes = 0, reserved_bytes = 0;
};

struct MemorySnapshotView {
  std::string path;
  std::optional<std::vector<MemorySegment>> segments;  // nullopt: segments is not a list
  std::optional<double> segment_count;
  std::optional<double> reserved_bytes, allocated_bytes, free_internal_bytes, free_external_bytes, largest_free_block_bytes;
  std::optional<double> empty_segments, free_external_in_empty_segments_bytes, free_external_in_used_segments_bytes;
  std::optional<MemoryAllocatorSettings> allocator_settings;  // nullopt: not an object (older PyTorch)
  bool has_trace = false;  // the snapshot has an allocation history (device_traces)
  std::optional<double> device, events;
  MemoryActions actions;
  std::optional<double> peak_live_bytes, peak_time_us, peak_reserved_bytes, first_time_us, last_time_us;
  std::vector<MemorySite> top_sites;
  bool stacks_recorded = false;
  std::optional<double> autocast_cast_bytes, autocast_cast_allocs, autocast_cast_live_at_peak_bytes;
  std::optional<std::string> step_source;  // "profiler_step" | "optimizer_step" | "none"
  size_t steps = 0;                        // elements of steps[]
  std::optional<double> steady_segment_allocs, steady_segment_frees;  // after the first step; null with under 2 steps
  std::optional<double> segment_free_realloc_cycles;
  std::vector<MemoryOom> oom_events;
  std::vector<MemoryTimelinePoint> timeline;  // points of three numbers, in report order
};

// The report's memory_snapshot object; nullopt when the report has none (or it is not an object).
std::optional<MemorySnapshotView> ReadMemorySnapshotView(const nlohmann::json& report);

}  // namespace ampscope::reports
