#include "reports/memory_snapshot_json.h"

namespace ampscope {

namespace {

using json = nlohmann::json;

template <typename T>
json Opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

json SegmentJson(const SnapshotSegmentSummary& s) {
  return {{"device", s.device},
          {"address", s.address},
          {"total_size", s.total_size},
          {"allocated_bytes", s.allocated_bytes},
          {"free_internal_bytes", s.free_internal_bytes},
          {"free_external_bytes", s.free_external_bytes},
          {"largest_free_block_bytes", s.largest_free_block_bytes},
          {"blocks", s.blocks},
          {"active_blocks", s.active_blocks},
          {"stream", s.stream},
          {"segment_type", s.segment_type},
          {"pool_id", {s.pool_id[0], s.pool_id[1]}},
          {"is_expandable", s.is_expandable},
          {"page_map", s.page_map.empty() ? json(nullptr) : json(s.page_map)}};
}

}  // namespace

json MemorySnapshotJson(const MemorySnapshotResult& r) {
  json j;
  j["path"] = r.path;
  j["bytes"] = r.file_bytes;
  j["pickle_protocol"] = r.protocol;
  json segs = json::array();
  for (const SnapshotSegmentSummary& s : r.segments) segs.push_back(SegmentJson(s));
  j["segments"] = std::move(segs);
  j["segment_count"] = r.segments.size();
  json groups = json::array();
  for (const SnapshotSegmentGroup& g : r.segment_groups)
    groups.push_back({{"segment_type", g.segment_type}, {"total_size", g.total_size}, {"pool_id", {g.pool_id[0], g.pool_id[1]}}, {"count", g.count}});
  j["segment_groups"] = std::move(groups);
  j["reserved_bytes"] = r.reserved_bytes;
  j["allocated_bytes"] = r.allocated_bytes;
  j["free_internal_bytes"] = r.free_internal_bytes;
  j["free_external_bytes"] = r.free_external_bytes;
  j["largest_free_block_bytes"] = r.largest_free_block_bytes;
  j["empty_segments"] = r.empty_segments;
  j["free_external_in_empty_segments_bytes"] = r.free_in_empty_segments_bytes;
  j["free_external_in_used_segments_bytes"] = r.free_in_used_segments_bytes;
  j["blocks"] = r.blocks;
  j["active_blocks"] = r.active_blocks;
  j["allocator_settings"] = r.settings_present
                                ? json{{"expandable_segments", Opt(r.expandable_segments)},
                                       {"max_split_size_bytes", Opt(r.max_split_size_bytes)},
                                       {"alloc_conf", r.alloc_conf}}
                                : json(nullptr);
  // device_traces: null where the snapshot recorded no history (unknown, not 0).
  j["has_trace"] = r.has_trace;
  const auto traced = [&](auto v) { return r.has_trace ? json(v) : json(nullptr); };
  j["device"] = traced(r.main_device);
  j["events"] = traced(r.events);
  j["actions"] = r.has_trace ? json{{"alloc", r.allocs},
                                    {"free_requested", r.frees_requested},
                                    {"free_completed", r.frees_completed},
                                    {"segment_alloc", r.segment_allocs},
                                    {"segment_free", r.segment_frees},
                                    {"segment_map", r.segment_maps},
                                    {"segment_unmap", r.segment_unmaps},
                                    {"oom", r.ooms}}
                             : json(nullptr);
  j["segment_allocs"] = traced(r.segment_allocs);
  j["segment_frees"] = traced(r.segment_frees);
  j["peak_live_bytes"] = Opt(r.peak_live_bytes);
  j["peak_time_us"] = Opt(r.peak_time_us);
  j["peak_reserved_bytes"] = traced(r.peak_reserved_bytes);
  j["baseline_live_bytes"] = traced(r.baseline_live_bytes);
  j["first_time_us"] = Opt(r.first_time_us);
  j["last_time_us"] = Opt(r.last_time_us);
  json sites = json::array();
  for (const SnapshotSite& s : r.top_sites)
    sites.push_back({{"site", s.label()},
                     {"file", s.file.empty() ? json(nullptr) : json(s.file)},
                     {"line", s.file.empty() ? json(nullptr) : json(s.line)},
                     {"function", s.function},
                     {"bytes", s.bytes},
                     {"allocs", s.allocs},
                     {"pct_of_peak", s.pct_of_peak}});
  j["top_sites"] = r.has_trace ? std::move(sites) : json(nullptr);
  j["peak_allocs"] = traced(r.peak_allocs);
  j["stacks_recorded"] = r.stacks_recorded;
  // Cast copies need stacks: without them they are unknown.
  const bool casts_known = r.has_trace && r.stacks_recorded;
  j["autocast_cast_bytes"] = casts_known ? json(r.autocast_cast_bytes) : json(nullptr);
  j["autocast_cast_allocs"] = casts_known ? json(r.autocast_cast_allocs) : json(nullptr);
  j["autocast_cast_live_at_peak_bytes"] = casts_known ? json(r.autocast_cast_live_at_peak_bytes) : json(nullptr);
  j["under_autocast_bytes"] = casts_known ? json(r.under_autocast_bytes) : json(nullptr);
  j["step_source"] = r.step_source;
  json steps = json::array();
  for (const SnapshotStep& s : r.steps)
    steps.push_back({{"start_us", s.start_us}, {"end_us", s.end_us}, {"segment_allocs", s.segment_allocs},
                     {"segment_frees", s.segment_frees}, {"allocs", s.allocs}});
  j["steps"] = std::move(steps);
  j["steady_steps"] = r.steady_steps;
  j["steady_segment_allocs"] = Opt(r.steady_segment_allocs);
  j["steady_segment_frees"] = Opt(r.steady_segment_frees);
  j["segment_free_realloc_cycles"] = traced(r.segment_free_realloc_cycles);
  json ooms = json::array();
  for (const SnapshotOom& o : r.oom_events)
    ooms.push_back({{"device", o.device}, {"time_us", Opt(o.time_us)}, {"requested_bytes", o.requested_bytes},
                    {"device_free_bytes", o.device_free_bytes}, {"live_bytes", o.live_bytes}, {"reserved_bytes", o.reserved_bytes}});
  j["oom_events"] = std::move(ooms);
  json timeline = json::array();
  for (const SnapshotTimelinePoint& p : r.timeline) timeline.push_back({p.time_us, p.live_bytes, p.reserved_bytes});
  j["timeline"] = {{"columns", {"time_us", "live_bytes", "reserved_bytes"}}, {"points", std::move(timeline)}};
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
