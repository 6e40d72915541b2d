#include "reports/memory_snapshot_json.h"

#include "reports/contract/memory_snapshot_view.h"

namespace ampscope {

namespace {

using json = nlohmann::json;
namespace key = reports::memory_snapshot_key;

template <typename T>
json Opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

json SegmentJson(const SnapshotSegmentSummary& s) {
  return {{"device", s.device},
          {"address", s.address},
          {key::kTotalSize, s.total_size},
          {"allocated_bytes", s.allocated_bytes},
          {key::kFreeInternalBytes, s.free_internal_bytes},
          {key::kFreeExternalBytes, s.free_external_bytes},
          {"largest_free_block_bytes", s.largest_free_block_bytes},
          {"blocks", s.blocks},
          {"active_blocks", s.active_blocks},
          {key::kStream, s.stream},
          {"segment_type", s.segment_type},
          {"pool_id", {s.pool_id[0], s.pool_id[1]}},
          {"is_expandable", s.is_expandable},
          {key::kPageMap, s.page_map.empty() ? json(nullptr) : json(s.page_map)}};
}

}  // namespace

json MemorySnapshotJson(const MemorySnapshotResult& r) {
  json j;
  j[key::kPath] = r.path;
  j["bytes"] = r.file_bytes;
  j["pickle_protocol"] = r.protocol;
  json segs = json::array();
  for (const SnapshotSegmentSummary& s : r.segments) segs.push_back(SegmentJson(s));
  j[key::kSegments] = std::move(segs);
  j[key::kSegmentCount] = r.segments.size();
  json groups = json::array();
  for (const SnapshotSegmentGroup& g : r.segment_groups)
    groups.push_back({{"segment_type", g.segment_type}, {"total_size", g.total_size}, {"pool_id", {g.pool_id[0], g.pool_id[1]}}, {"count", g.count}});
  j["segment_groups"] = std::move(groups);
  j[key::kReservedBytes] = r.reserved_bytes;
  j[key::kAllocatedBytes] = r.allocated_bytes;
  j[key::kFreeInternalBytes] = r.free_internal_bytes;
  j[key::kFreeExternalBytes] = r.free_external_bytes;
  j[key::kLargestFreeBlockBytes] = r.largest_free_block_bytes;
  j[key::kEmptySegments] = r.empty_segments;
  j[key::kFreeExternalInEmptySegmentsBytes] = r.free_in_empty_segments_bytes;
  j[key::kFreeExternalInUsedSegmentsBytes] = r.free_in_used_segments_bytes;
  j["blocks"] = r.blocks;
  j["active_blocks"] = r.active_blocks;
  j[key::kAllocatorSettings] = r.settings_present
                                   ? json{{key::kExpandableSegments, Opt(r.expandable_segments)},
                                          {key::kMaxSplitSizeBytes, Opt(r.max_split_size_bytes)},
                                          {key::kAllocConf, r.alloc_conf}}
                                   : json(nullptr);
  // device_traces: null where the snapshot recorded no history (unknown, not 0).
  j[key::kHasTrace] = r.has_trace;
  const auto traced = [&](auto v) { return r.has_trace ? json(v) : json(nullptr); };
  j[key::kDevice] = traced(r.main_device);
  j[key::kEvents] = traced(r.events);
  j[key::kActions] = r.has_trace ? json{{key::kAlloc, r.allocs},
                                         {"free_requested", r.frees_requested},
                                         {"free_completed", r.frees_completed},
                                         {key::kSegmentAlloc, r.segment_allocs},
                                         {key::kSegmentFree, r.segment_frees},
                                         {"segment_map", r.segment_maps},
                                         {"segment_unmap", r.segment_unmaps},
                                         {key::kOom, r.ooms}}
                                  : json(nullptr);
  j["segment_allocs"] = traced(r.segment_allocs);
  j["segment_frees"] = traced(r.segment_frees);
  j[key::kPeakLiveBytes] = Opt(r.peak_live_bytes);
  j[key::kPeakTimeUs] = Opt(r.peak_time_us);
  j[key::kPeakReservedBytes] = traced(r.peak_reserved_bytes);
  j["baseline_live_bytes"] = traced(r.baseline_live_bytes);
  j[key::kFirstTimeUs] = Opt(r.first_time_us);
  j[key::kLastTimeUs] = Opt(r.last_time_us);
  json sites = json::array();
  for (const SnapshotSite& s : r.top_sites)
    sites.push_back({{key::kSite, s.label()},
                     {"file", s.file.empty() ? json(nullptr) : json(s.file)},
                     {"line", s.file.empty() ? json(nullptr) : json(s.line)},
                     {"function", s.function},
                     {key::kBytes, s.bytes},
                     {key::kAllocs, s.allocs},
                     {key::kPctOfPeak, s.pct_of_peak}});
  j[key::kTopSites] = r.has_trace ? std::move(sites) : json(nullptr);
  j["peak_allocs"] = traced(r.peak_allocs);
  j[key::kStacksRecorded] = r.stacks_recorded;
  // Cast copies need stacks: without them they are unknown.
  const bool casts_known = r.has_trace && r.stacks_recorded;
  j[key::kAutocastCastBytes] = casts_known ? json(r.autocast_cast_bytes) : json(nullptr);
  j[key::kAutocastCastAllocs] = casts_known ? json(r.autocast_cast_allocs) : json(nullptr);
  j[key::kAutocastCastLiveAtPeakBytes] = casts_known ? json(r.autocast_cast_live_at_peak_bytes) : json(nullptr);
  j["under_autocast_bytes"] = casts_known ? json(r.under_autocast_bytes) : json(nullptr);
  j[key::kStepSource] = r.step_source;
  json steps = json::array();
  for (const SnapshotStep& s : r.steps)
    steps.push_back({{"start_us", s.start_us}, {"end_us", s.end_us}, {"segment_allocs", s.segment_allocs},
                     {"segment_frees", s.segment_frees}, {"allocs", s.allocs}});
  j[key::kSteps] = std::move(steps);
  j["steady_steps"] = r.steady_steps;
  j[key::kSteadySegmentAllocs] = Opt(r.steady_segment_allocs);
  j[key::kSteadySegmentFrees] = Opt(r.steady_segment_frees);
  j[key::kSegmentFreeReallocCycles] = traced(r.segment_free_realloc_cycles);
  json ooms = json::array();
  for (const SnapshotOom& o : r.oom_events)
    ooms.push_back({{"device", o.device}, {key::kTimeUs, Opt(o.time_us)}, {key::kRequestedBytes, o.requested_bytes},
                    {key::kDeviceFreeBytes, o.device_free_bytes}, {key::kLiveBytes, o.live_bytes}, {key::kReservedBytes, o.reserved_bytes}});
  j[key::kOomEvents] = std::move(ooms);
  json timeline = json::array();
  for (const SnapshotTimelinePoint& p : r.timeline) timeline.push_back({p.time_us, p.live_bytes, p.reserved_bytes});
  j[key::kTimeline] = {{"columns", {"time_us", "live_bytes", "reserved_bytes"}}, {key::kPoints, std::move(timeline)}};
  return j;
}

json MemorySnapshotSection(const JobAnalysis& analysis) {
  if (analysis.job.memory_snapshot != nullptr) return MemorySnapshotJson(*analysis.job.memory_snapshot);
  for (const RankAnalysis& ra : analysis.ranks) {
    if (ra.memory_snapshot == nullptr) continue;
    json j = MemorySnapshotJson(*ra.memory_snapshot);
    j["rank"] = ra.rank;
    return j;
  }
  return nullptr;
}

}  // namespace ampscope
