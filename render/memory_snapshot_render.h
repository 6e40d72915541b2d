// The report's `memory_snapshot` section (docs/report_schema.md) for people: the summary lines
// the terminal and Markdown show, segsum's segment map, and the HTML section with the memory
// timeline chart and the segment map. Reads only the report JSON, like every renderer, through
// the contract's typed view (reports/contract/memory_snapshot_view.h).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/contract/memory_snapshot_view.h"

namespace ampscope::render {

// Plain-text lines (no markup): totals, settings, timeline, sites, casts, OOMs.
std::vector<std::string> MemorySnapshotLines(const reports::MemorySnapshotView& snapshot);

// segsum's picture, one line per segment of at least 20 MiB ("[aaa   ] 300.0MiB allocated,
// 240.0MiB (0.4% internal) free"), then the totals (torch/cuda/_memory_viz.py's wording).
std::vector<std::string> SegmentMapLines(const reports::MemorySnapshotView& snapshot, size_t max_segments = 60);

// The Markdown section ("### Memory snapshot ..."); "" without a snapshot.
std::string MemorySnapshotMarkdown(const nlohmann::json& report);

// Appends <section id="memory-snapshot"> with the timeline chart (an SVG with the
// data-chart="memory-timeline" attribute) and the segment map; nothing without a snapshot.
void AppendMemorySnapshotHtml(std::string& html, const nlohmann::json& report);

}  // namespace ampscope::render
