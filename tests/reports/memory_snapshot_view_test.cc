// The contract's view of the report's `memory_snapshot` section
// (reports/contract/memory_snapshot_view.h), from report JSON written here by hand: every field
// read with its type, and a missing or mistyped field read as absent, never as an exception.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reports/contract/memory_snapshot_view.h"

namespace ampscope::reports {
namespace memory_snapshot_view_test {
namespace {

using json = nlohmann::json;

json Snapshot() {
  return json::parse(R"({
    "path": "/runs/a/snap.pickle", "segment_count": 2,
    "segments": [{"total_size": 41943040, "free_internal_bytes": 1048576, "free_external_bytes": 20971520,
                  "stream": 7, "page_map": "a "},
                 {"total_size": 2097152, "free_internal_bytes": 0, "free_external_bytes": 2097152, "stream": 0,
                  "page_map": null}],
    "reserved_bytes": 44040192, "allocated_bytes": 19922944, "free_internal_bytes": 1048576,
    "free_external_bytes": 23068672, "largest_free_block_bytes": 20971520, "empty_segments": 1,
    "free_external_in_empty_segments_bytes": 2097152, "free_external_in_used_segments_bytes": 20971520,
    "allocator_settings": {"expandable_segments": true, "max_split_size_bytes": null, "alloc_conf": "expandable_segments:True"},
    "has_trace": true, "device": 0, "events": 3,
    "actions": {"alloc": 1, "segment_alloc": 2, "segment_free": 3, "oom": 4},
    "peak_live_bytes": 19922944, "peak_time_us": 1700000000002000, "peak_reserved_bytes": 44040192,
    "first_time_us": 1700000000000000, "last_time_us": 1700000000004000,
    "top_sites": [{"site": "train.py:42:forward", "bytes": 19922944, "allocs": 1, "pct_of_peak": 100.0}],
    "stacks_recorded": true, "autocast_cast_bytes": 4096, "autocast_cast_allocs": 2, "autocast_cast_live_at_peak_bytes": 2048,
    "step_source": "profiler_step", "steps": [{"start_us": 1}, {"start_us": 2}, {"start_us": 3}],
    "steady_segment_allocs": 0, "steady_segment_frees": 1, "segment_free_realloc_cycles": 5,
    "oom_events": [{"time_us": 1700000000003000, "requested_bytes": 1073741824, "device_free_bytes": 1048576,
                    "live_bytes": 19922944, "reserved_bytes": 44040192}],
    "timeline": {"columns": ["time_us", "live_bytes", "reserved_bytes"],
                 "points": [[1700000000000000, 0, 41943040], [1700000000002000, 19922944, 44040192]]}
  })");
}

MemorySnapshotView Read(json snapshot) {
  return ReadMemorySnapshotView(json{{"memory_snapshot", std::move(snapshot)}}).value();
}

TEST(MemorySnapshotView, ReadsEveryFieldOfAFullSection) {
  const MemorySnapshotView v = Read(Snapshot());
  EXPECT_EQ(v.path, "/runs/a/snap.pickle");
  EXPECT_EQ(v.segment_count, 2);
  ASSERT_TRUE(v.segments);
  ASSERT_EQ(v.segments->size(), 2u);
  EXPECT_EQ((*v.segments)[0].page_map, "a ");
  EXPECT_EQ((*v.segments)[0].total_size, 41943040);
  EXPECT_EQ((*v.segments)[0].free_internal_bytes, 1048576);
  EXPECT_EQ((*v.segments)[0].free_external_bytes, 20971520);
  EXPECT_EQ((*v.segments)[0].stream, 7);
  EXPECT_FALSE((*v.segments)[1].page_map);  // null: a segment under 20 MiB
  EXPECT_EQ(v.reserved_bytes, 44040192);
  EXPECT_EQ(v.allocated_bytes, 19922944);
  EXPECT_EQ(v.free_internal_bytes, 1048576);
  EXPECT_EQ(v.free_external_bytes, 23068672);
  EXPECT_EQ(v.largest_free_block_bytes, 20971520);
  EXPECT_EQ(v.empty_segments, 1);
  EXPECT_EQ(v.free_external_in_empty_segments_bytes, 2097152);
  EXPECT_EQ(v.free_external_in_used_segments_bytes, 20971520);
  ASSERT_TRUE(v.allocator_settings);
  EXPECT_EQ(v.allocator_settings->expandable_segments, true);
  EXPECT_FALSE(v.allocator_settings->max_split_size_bytes);
  EXPECT_EQ(v.allocator_settings->alloc_conf, "expandable_segments:True");
  EXPECT_TRUE(v.has_trace);
  EXPECT_EQ(v.device, 0);
  EXPECT_EQ(v.events, 3);
  EXPECT_EQ(v.actions.alloc, 1);
  EXPECT_EQ(v.actions.segment_alloc, 2);
  EXPECT_EQ(v.actions.segment_free, 3);
  EXPECT_EQ(v.actions.oom, 4);
  EXPECT_EQ(v.peak_live_bytes, 19922944);
  EXPECT_EQ(v.peak_time_us, 1700000000002000);
  EXPECT_EQ(v.peak_reserved_bytes, 44040192);
  EXPECT_EQ(v.first_time_us, 1700000000000000);
  EXPECT_EQ(v.last_time_us, 1700000000004000);
  ASSERT_EQ(v.top_sites.size(), 1u);
  EXPECT_EQ(v.top_sites[0].site, "train.py:42:forward");
  EXPECT_EQ(v.top_sites[0].bytes, 19922944);
  EXPECT_EQ(v.top_sites[0].allocs, 1);
  EXPECT_EQ(v.top_sites[0].pct_of_peak, 100.0);
  EXPECT_TRUE(v.stacks_recorded);
  EXPECT_EQ(v.autocast_cast_bytes, 4096);
  EXPECT_EQ(v.autocast_cast_allocs, 2);
  EXPECT_EQ(v.autocast_cast_live_at_peak_bytes, 2048);
  EXPECT_EQ(v.step_source, "profiler_step");
  EXPECT_EQ(v.steps, 3u);
  EXPECT_EQ(v.steady_segment_allocs, 0);
  EXPECT_EQ(v.steady_segment_frees, 1);
  EXPECT_EQ(v.segment_free_realloc_cycles, 5);
  ASSERT_EQ(v.oom_events.size(), 1u);
  EXPECT_EQ(v.oom_events[0].time_us, 1700000000003000);
  EXPECT_EQ(v.oom_events[0].requested_bytes, 1073741824);
  EXPECT_EQ(v.oom_events[0].device_free_bytes, 1048576);
  EXPECT_EQ(v.oom_events[0].live_bytes, 19922944);
  EXPECT_EQ(v.oom_events[0].reserved_bytes, 44040192);
  ASSERT_EQ(v.timeline.size(), 2u);
  EXPECT_EQ(v.timeline[1].time_us, 1700000000002000);
  EXPECT_EQ(v.timeline[1].live_bytes, 19922944);
  EXPECT_EQ(v.timeline[1].reserved_bytes, 44040192);
}

TEST(MemorySnapshotView, AMissingOrMistypedFieldIsAbsent) {
  json s = Snapshot();
  s.erase("path");
  s["segments"] = {{"page_map", "a"}};               // an object, not a list
  s["allocator_settings"] = nullptr;                 // a snapshot of an older PyTorch
  s["has_trace"] = 1;                                // not a boolean
  s["actions"] = json::array();                      // not an object
  s["reserved_bytes"] = "44040192";                  // a string, not a number
  s["top_sites"] = {{{"site", 42}, {"bytes", "x"}}, "not an object"};
  s["steps"] = {{"start_us", 1}};                    // an object: no steps listed
  s["oom_events"] = 7;
  s["timeline"]["points"] = {{1, 2, 3}, {1, "x", 3}, {1, 2}, "p"};  // only whole points are read
  const MemorySnapshotView v = Read(s);
  EXPECT_EQ(v.path, "");
  EXPECT_FALSE(v.segments);
  EXPECT_FALSE(v.allocator_settings);
  EXPECT_FALSE(v.has_trace);
  EXPECT_FALSE(v.actions.alloc);
  EXPECT_FALSE(v.reserved_bytes);
  ASSERT_EQ(v.top_sites.size(), 2u);
  EXPECT_EQ(v.top_sites[0].site, "");
  EXPECT_FALSE(v.top_sites[0].bytes);
  EXPECT_FALSE(v.top_sites[1].pct_of_peak);
  EXPECT_EQ(v.steps, 0u);
  EXPECT_TRUE(v.oom_events.empty());
  ASSERT_EQ(v.timeline.size(), 1u);
  EXPECT_EQ(v.timeline[0].reserved_bytes, 3);

  json settings = Snapshot();
  settings["allocator_settings"] = {{"expandable_segments", "yes"}, {"max_split_size_bytes", 1024}};
  const MemorySnapshotView w = Read(settings);
  ASSERT_TRUE(w.allocator_settings);
  EXPECT_FALSE(w.allocator_settings->expandable_segments);
  EXPECT_EQ(w.allocator_settings->max_split_size_bytes, 1024);
  EXPECT_EQ(w.allocator_settings->alloc_conf, "");

  EXPECT_FALSE(ReadMemorySnapshotView(json{{"schema", "ampscope.report/1"}}));
  EXPECT_FALSE(ReadMemorySnapshotView(json{{"memory_snapshot", nullptr}}));
  EXPECT_FALSE(ReadMemorySnapshotView(json::array()));
}

}  // namespace
}  // namespace memory_snapshot_view_test
}  // namespace ampscope::reports
