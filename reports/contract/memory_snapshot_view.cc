#include "reports/contract/memory_snapshot_view.h"

#include "reports/contract/view_members.h"

namespace ampscope::reports {

using nlohmann::json;
using namespace view;
namespace key = memory_snapshot_key;

namespace {

MemorySegment ReadSegment(const json& g) {
  return {StringMember(g, key::kPageMap), NumberMember(g, key::kTotalSize), NumberMember(g, key::kFreeInternalBytes),
          NumberMember(g, key::kFreeExternalBytes), NumberMember(g, key::kStream)};
}

MemorySite ReadSite(const json& x) {
  return {TextMember(x, key::kSite), NumberMember(x, key::kBytes), NumberMember(x, key::kAllocs),
          NumberMember(x, key::kPctOfPeak)};
}

MemoryOom ReadOom(const json& o) {
  return {NumberMember(o, key::kTimeUs), NumberMember(o, key::kRequestedBytes), NumberMember(o, key::kDeviceFreeBytes),
          NumberMember(o, key::kReservedBytes), NumberMember(o, key::kLiveBytes)};
}

std::optional<MemoryAllocatorSettings> ReadSettings(const json& set) {
  if (!set.is_object()) return std::nullopt;
  MemoryAllocatorSettings s;
  if (const json& ex = Member(set, key::kExpandableSegments); ex.is_boolean()) s.expandable_segments = ex.get<bool>();
  s.max_split_size_bytes = NumberMember(set, key::kMaxSplitSizeBytes);
  s.alloc_conf = TextMember(set, key::kAllocConf);
  return s;
}

std::vector<MemoryTimelinePoint> ReadTimeline(const json& timeline) {
  std::vector<MemoryTimelinePoint> out;
  const json& points = Member(timeline, key::kPoints);
  if (!points.is_array()) return out;
  for (const json& p : points) {
    if (!p.is_array() || p.size() < 3 || !p[0].is_number() || !p[1].is_number() || !p[2].is_number()) continue;
    out.push_back({p[0].get<double>(), p[1].get<double>(), p[2].get<double>()});
  }
  return out;
}

}  // namespace

std::optional<MemorySnapshotView> ReadMemorySnapshotView(const json& report) {
  const json& s = Member(report, key::kMemorySnapshot);
  if (!s.is_object()) return std::nullopt;
  MemorySnapshotView v;
  v.path = TextMember(s, key::kPath);
  if (Member(s, key::kSegments).is_array()) v.segments = ListMember<MemorySegment>(s, key::kSegments, ReadSegment);
  v.segment_count = NumberMember(s, key::kSegmentCount);
  v.reserved_bytes = NumberMember(s, key::kReservedBytes);
  v.allocated_bytes = NumberMember(s, key::kAllocatedBytes);
  v.free_internal_bytes = NumberMember(s, key::kFreeInternalBytes);
  v.free_external_bytes = NumberMember(s, key::kFreeExternalBytes);
  v.largest_free_block_bytes = NumberMember(s, key::kLargestFreeBlockBytes);
  v.empty_segments = NumberMember(s, key::kEmptySegments);
  v.free_external_in_empty_segments_bytes = NumberMember(s, key::kFreeExternalInEmptySegmentsBytes);
  v.free_external_in_used_segments_bytes = NumberMember(s, key::kFreeExternalInUsedSegmentsBytes);
  v.allocator_settings = ReadSettings(Member(s, key::kAllocatorSettings));
  v.has_trace = TrueMember(s, key::kHasTrace);
  v.device = NumberMember(s, key::kDevice);
  v.events = NumberMember(s, key::kEvents);
  const json& a = Member(s, key::kActions);
  v.actions = {NumberMember(a, key::kAlloc), NumberMember(a, key::kSegmentAlloc), NumberMember(a, key::kSegmentFree),
               NumberMember(a, key::kOom)};
  v.peak_live_bytes = NumberMember(s, key::kPeakLiveBytes);
  v.peak_time_us = NumberMember(s, key::kPeakTimeUs);
  v.peak_reserved_bytes = NumberMember(s, key::kPeakReservedBytes);
  v.first_time_us = NumberMember(s, key::kFirstTimeUs);
  v.last_time_us = NumberMember(s, key::kLastTimeUs);
  v.top_sites = ListMember<MemorySite>(s, key::kTopSites, ReadSite);
  v.stacks_recorded = TrueMember(s, key::kStacksRecorded);
  v.autocast_cast_bytes = NumberMember(s, key::kAutocastCastBytes);
  v.autocast_cast_allocs = NumberMember(s, key::kAutocastCastAllocs);
  v.autocast_cast_live_at_peak_bytes = NumberMember(s, key::kAutocastCastLiveAtPeakBytes);
  v.step_source = StringMember(s, key::kStepSource);
  if (const json& steps = Member(s, key::kSteps); steps.is_array()) v.steps = steps.size();
  v.steady_segment_allocs = NumberMember(s, key::kSteadySegmentAllocs);
  v.steady_segment_frees = NumberMember(s, key::kSteadySegmentFrees);
  v.segment_free_realloc_cycles = NumberMember(s, key::kSegmentFreeReallocCycles);
  v.oom_events = ListMember<MemoryOom>(s, key::kOomEvents, ReadOom);
  v.timeline = ReadTimeline(Member(s, key::kTimeline));
  return v;
}

}  // namespace ampscope::reports
