// The memory snapshot section of the terminal, Markdown and HTML outputs, from a report JSON
// written here by hand (values chosen by hand, not computed by ampscope).
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "render/html_report.h"
#include "render/markdown_report.h"
#include "render/memory_snapshot_render.h"
#include "render/terminal_summary.h"

namespace ampscope::render {
namespace memory_snapshot_render_test {
namespace {

using json = nlohmann::json;

// One 40 MiB segment: block a (20 MiB asked 19 MiB) and 20 MiB free; one 2 MiB small segment, free.
json Snapshot() {
  return json{
      {"path", "/runs/a/snap.pickle"},
      {"segment_count", 2},
      {"segments",
       {{{"total_size", 41943040}, {"allocated_bytes", 19922944}, {"free_internal_bytes", 1048576},
         {"free_external_bytes", 20971520}, {"stream", 0}, {"page_map", "a "}},
        {{"total_size", 2097152}, {"allocated_bytes", 0}, {"free_internal_bytes", 0}, {"free_external_bytes", 2097152},
         {"stream", 0}, {"page_map", nullptr}}}},
      {"reserved_bytes", 44040192},
      {"allocated_bytes", 19922944},
      {"free_internal_bytes", 1048576},
      {"free_external_bytes", 23068672},
      {"largest_free_block_bytes", 20971520},
      {"empty_segments", 1},
      {"free_external_in_empty_segments_bytes", 2097152},
      {"free_external_in_used_segments_bytes", 20971520},
      {"allocator_settings", {{"expandable_segments", true}, {"max_split_size_bytes", nullptr}, {"alloc_conf", "expandable_segments:True"}}},
      {"has_trace", true},
      {"device", 0},
      {"events", 3},
      {"actions", {{"alloc", 1}, {"segment_alloc", 1}, {"segment_free", 0}, {"oom", 1}}},
      {"peak_live_bytes", 19922944},
      {"peak_time_us", 1700000000002000},
      {"first_time_us", 1700000000000000},
      {"last_time_us", 1700000000004000},
      {"peak_reserved_bytes", 44040192},
      {"step_source", "none"},
      {"steps", json::array()},
      {"segment_free_realloc_cycles", 0},
      {"top_sites", {{{"site", "train.py:42:forward"}, {"bytes", 19922944}, {"allocs", 1}, {"pct_of_peak", 100.0}}}},
      {"stacks_recorded", true},
      {"autocast_cast_bytes", 0},
      {"oom_events", {{{"time_us", 1700000000003000}, {"requested_bytes", 1073741824}, {"device_free_bytes", 1048576},
                       {"live_bytes", 19922944}, {"reserved_bytes", 44040192}}}},
      {"timeline",
       {{"columns", {"time_us", "live_bytes", "reserved_bytes"}},
        {"points", {{1700000000000000, 0, 41943040}, {1700000000002000, 19922944, 44040192}, {1700000000004000, 0, 44040192}}}}},
  };
}

// The snapshot as the renderers get it: through the contract's view of a report that has it.
reports::MemorySnapshotView View(json snapshot) {
  return reports::ReadMemorySnapshotView(json{{"memory_snapshot", std::move(snapshot)}}).value();
}

TEST(MemorySnapshotRender, SegmentMapIsSegsums) {
  // segsum prints a segment of a page or more as "[map] total allocated, free (x% internal) free";
  // here free = 1 MiB internal + 20 MiB external, 1/21 internal = 4.8%.
  const std::vector<std::string> lines = SegmentMapLines(View(Snapshot()));
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0], "[a ] 40.0MiB allocated, 21.0MiB (4.8% internal) free");
  EXPECT_EQ(lines[1], "segments: 2");
  EXPECT_EQ(lines[2], "total_reserved: 42.0MiB");
  EXPECT_EQ(lines[3], "total_allocated: 19.0MiB");
  EXPECT_EQ(lines[4], "total_free: 23.0MiB (4.3% internal)");
}

TEST(MemorySnapshotRender, TextLinesSayWhatWasMeasured) {
  const std::vector<std::string> lines = MemorySnapshotLines(View(Snapshot()));
  ASSERT_GE(lines.size(), 5u);
  EXPECT_NE(lines[0].find("2 segments, 42.0 MiB reserved, 19.0 MiB allocated"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("expandable_segments on"), std::string::npos) << lines[1];
  std::string all;
  for (const std::string& l : lines) all += l + "\n";
  EXPECT_NE(all.find("peak 19.0 MiB live at +2.0 ms"), std::string::npos) << all;
  EXPECT_NE(all.find("train.py:42:forward 19.0 MiB (100%)"), std::string::npos) << all;
  EXPECT_NE(all.find("OOM at +3.0 ms: 1.0 GiB requested with 1.0 MiB free"), std::string::npos) << all;
  // Without history: what to record, not zeros.
  json no_trace = Snapshot();
  no_trace["has_trace"] = false;
  const std::vector<std::string> short_lines = MemorySnapshotLines(View(no_trace));
  EXPECT_NE(short_lines.back().find("_record_memory_history"), std::string::npos);
}

TEST(MemorySnapshotRender, SectionsOnlyWithASnapshot) {
  json report = {{"schema", "ampscope.report/1"}};
  EXPECT_EQ(MemorySnapshotMarkdown(report), "");
  std::string html;
  AppendMemorySnapshotHtml(html, report);
  EXPECT_EQ(html, "");
  report["memory_snapshot"] = Snapshot();
  const std::string md = MemorySnapshotMarkdown(report);
  EXPECT_NE(md.find("### Memory snapshot"), std::string::npos);
  EXPECT_NE(md.find("| 19.0 MiB | 100.0% | 1 | `train.py:42:forward` |"), std::string::npos) << md;
  AppendMemorySnapshotHtml(html, report);
  // The timeline: one polyline point per timeline entry, the axis 0 .. 4.0 ms.
  for (const char* cls : {"class=\"live\"", "class=\"reserved\""}) {
    const size_t at = html.find(cls);
    ASSERT_NE(at, std::string::npos) << cls;
    const size_t from = html.find("points=\"", at) + 8;
    const std::string pts = html.substr(from, html.find('"', from) - from);
    EXPECT_EQ(std::count(pts.begin(), pts.end(), ','), 3) << pts;
  }
  EXPECT_NE(html.find(">4.0 ms<"), std::string::npos);
  EXPECT_NE(html.find("id=\"segment-map\""), std::string::npos);
}

}  // namespace
}  // namespace memory_snapshot_render_test
}  // namespace ampscope::render
