#include "render/memory_snapshot_render.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "render/format.h"
#include "render/markdown_report.h"

namespace ampscope::render {

namespace {

using json = nlohmann::json;
using reports::MemorySnapshotView;

// Binary units, as PyTorch's memory tools print them ("300.0MiB" in segsum).
std::string Bin(std::optional<double> bytes) {
  if (!bytes) return "unknown";
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = *bytes;
  size_t u = 0;
  while (std::fabs(v) >= 1024.0 && u + 1 < std::size(kUnits)) v /= 1024.0, ++u;
  return u == 0 ? fmt::format("{:.0f} B", v) : fmt::format("{:.1f} {}", v, kUnits[u]);
}
std::string SegsumBytes(double v) {  // segsum's _format_size: "{num:3.1f}{unit}B"
  static constexpr const char* kUnits[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi"};
  size_t u = 0;
  while (std::fabs(v) >= 1024.0 && u + 1 < std::size(kUnits)) v /= 1024.0, ++u;
  return fmt::format("{:.1f}{}B", v, kUnits[u]);
}
double Num(std::optional<double> v) { return v.value_or(0); }
std::string Esc(const std::string& s) { return MarkdownEscape(s); }
std::string H(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}
// A time of the snapshot's clock as milliseconds after its first event.
std::string AfterStart(const MemorySnapshotView& s, std::optional<double> t_us) {
  const auto first = s.first_time_us;
  if (!t_us || !first) return "unknown time";
  return fmt::format("+{:.1f} ms", (*t_us - *first) / 1000.0);
}

}  // namespace

std::vector<std::string> MemorySnapshotLines(const MemorySnapshotView& s) {
  std::vector<std::string> lines;
  const double reserved = Num(s.reserved_bytes);
  auto pct = [&](double v) { return reserved > 0 ? fmt::format("{:.0f}%", 100.0 * v / reserved) : std::string("n/a"); };
  lines.push_back(fmt::format(
      "{}: {} segments, {} reserved, {} allocated; free {} internal (rounding) and {} external ({} of reserved: {} in {} "
      "wholly free segments, {} between live blocks); largest free block {}",
      s.path, Count(s.segment_count), Bin(reserved), Bin(s.allocated_bytes), Bin(s.free_internal_bytes),
      Bin(s.free_external_bytes), pct(Num(s.free_external_bytes)), Bin(s.free_external_in_empty_segments_bytes),
      Count(s.empty_segments), Bin(s.free_external_in_used_segments_bytes), Bin(s.largest_free_block_bytes)));
  if (const auto& set = s.allocator_settings) {
    const auto ex = set->expandable_segments;
    const std::string& conf = set->alloc_conf;
    lines.push_back(fmt::format("Allocator settings: expandable_segments {}, max_split_size {}, PYTORCH_CUDA_ALLOC_CONF {}",
                                ex ? (*ex ? "on" : "off") : "unknown",
                                set->max_split_size_bytes ? Bin(set->max_split_size_bytes) : "none (no limit)",
                                conf.empty() ? "unset" : "'" + conf + "'"));
  } else {
    lines.push_back("Allocator settings: not in this snapshot (older PyTorch)");
  }
  if (!s.has_trace) {
    lines.push_back("No allocation history (device_traces): record it with torch.cuda.memory._record_memory_history() "
                    "before the steps to see the peak, its sites and segment churn");
    return lines;
  }
  const reports::MemoryActions& a = s.actions;
  lines.push_back(fmt::format("History of device {}: {} events ({} alloc, {} segment_alloc, {} segment_free, {} oom); peak "
                              "{} live at {}, {} reserved at most",
                              Count(s.device), Count(s.events), Count(a.alloc), Count(a.segment_alloc),
                              Count(a.segment_free), Count(a.oom), Bin(s.peak_live_bytes), AfterStart(s, s.peak_time_us),
                              Bin(s.peak_reserved_bytes)));
  const std::string source = s.step_source.value_or("none");
  if (const auto frees = s.steady_segment_frees) {
    lines.push_back(fmt::format("Steps ({} in the snapshot's annotations): {}; after the first: {} segment_alloc, {} segment_free",
                                source == "profiler_step" ? "ProfilerStep ranges" : "Optimizer.step ends",
                                Count(static_cast<double>(s.steps)), Count(s.steady_segment_allocs), Count(frees)));
  } else {
    lines.push_back(fmt::format("Steps: {} (churn is judged on segments freed and allocated again: {})",
                                source == "none" ? "none in the snapshot's annotations" : "only one",
                                Count(s.segment_free_realloc_cycles)));
  }
  const std::vector<reports::MemorySite>& sites = s.top_sites;
  if (!sites.empty()) {
    std::string t = "Live at the peak, by site:";
    for (size_t i = 0; i < sites.size() && i < 5; ++i)
      t += fmt::format("{} {} {} ({:.0f}%)", i ? ";" : "", sites[i].site, Bin(sites[i].bytes), Num(sites[i].pct_of_peak));
    lines.push_back(t);
  }
  if (s.autocast_cast_bytes) {
    lines.push_back(fmt::format("Autocast cast copies: {} in {} allocations, {} of them live at the peak",
                                Bin(s.autocast_cast_bytes), Count(s.autocast_cast_allocs), Bin(s.autocast_cast_live_at_peak_bytes)));
  } else if (!s.stacks_recorded) {
    lines.push_back("Autocast cast copies: unknown (no stack frames recorded)");
  }
  for (const reports::MemoryOom& o : s.oom_events) {
    lines.push_back(fmt::format("OOM at {}: {} requested with {} free on the device; {} reserved, {} live",
                                AfterStart(s, o.time_us), Bin(o.requested_bytes), Bin(o.device_free_bytes), Bin(o.reserved_bytes),
                                Bin(o.live_bytes)));
  }
  return lines;
}

std::vector<std::string> SegmentMapLines(const MemorySnapshotView& s, size_t max_segments) {
  std::vector<std::string> out;
  if (!s.segments) return out;
  const std::vector<reports::MemorySegment>& segs = *s.segments;
  size_t shown = 0, big = 0;
  for (const reports::MemorySegment& g : segs) {
    if (!g.page_map) continue;
    ++big;
    if (shown >= max_segments) continue;
    ++shown;
    const double ext = Num(g.free_external_bytes), in = Num(g.free_internal_bytes);
    const double total = ext + in;
    std::string line = fmt::format("[{}] {} allocated, {}", *g.page_map, SegsumBytes(Num(g.total_size)), SegsumBytes(total));
    if (total != 0) line += fmt::format(" ({:.1f}% internal)", in / total * 100);
    line += " free";
    if (Num(g.stream) != 0) line += fmt::format(" stream_{}", Num(g.stream));
    out.push_back(line);
  }
  if (big > shown) out.push_back(fmt::format("... {} more segments of 20 MiB or more (all in the JSON report)", big - shown));
  out.push_back(fmt::format("segments: {}", segs.size()));
  out.push_back("total_reserved: " + SegsumBytes(Num(s.reserved_bytes)));
  out.push_back("total_allocated: " + SegsumBytes(Num(s.allocated_bytes)));
  const double ext = Num(s.free_external_bytes), in = Num(s.free_internal_bytes);
  out.push_back("total_free: " + SegsumBytes(ext + in) + (ext + in != 0 ? fmt::format(" ({:.1f}% internal)", in / (ext + in) * 100) : ""));
  return out;
}

std::string MemorySnapshotMarkdown(const json& report) {
  const std::optional<MemorySnapshotView> snapshot = reports::ReadMemorySnapshotView(report);
  if (!snapshot) return "";
  const MemorySnapshotView& s = *snapshot;
  std::string md = "### Memory snapshot (PyTorch caching allocator)\n\n";
  for (const std::string& l : MemorySnapshotLines(s)) md += "- " + Esc(l) + "\n";
  md += "\n";
  if (!s.top_sites.empty()) {
    md += "| Live at the peak | Share | Allocations | Site |\n|---:|---:|---:|---|\n";
    for (const reports::MemorySite& x : s.top_sites)
      md += fmt::format("| {} | {:.1f}% | {} | {} |\n", Bin(x.bytes), Num(x.pct_of_peak), Count(x.allocs), MarkdownCode(x.site, true));
    md += "\n";
  }
  md += "Segments of 20 MiB or more, as PyTorch's `segsum` draws them (a letter: one block's pages; a digit: a page "
        "partly filled by several blocks, 9 = 90%; `*` full; blank: free):\n\n```\n";
  for (const std::string& l : SegmentMapLines(s, 40)) md += l + "\n";
  md += "```\n\n";
  return md;
}

void AppendMemorySnapshotHtml(std::string& h, const json& report) {
  const std::optional<MemorySnapshotView> snapshot = reports::ReadMemorySnapshotView(report);
  if (!snapshot) return;
  const MemorySnapshotView& s = *snapshot;
  h += "<section id=\"memory-snapshot\">\n<h2>Memory snapshot</h2>\n<ul>\n";
  for (const std::string& l : MemorySnapshotLines(s)) h += "<li>" + H(l) + "</li>\n";
  h += "</ul>\n";
  // The memory timeline: live (tensors) and reserved (the allocator's segments) bytes over the
  // snapshot's history, each point the peak of its stretch of events.
  const std::vector<reports::MemoryTimelinePoint>& points = s.timeline;
  if (!points.empty()) {
    constexpr double W = 900, H0 = 220, L = 70, R = 10, T = 10, B = 30;
    // The axis runs from the first event to the last (a point is its stretch's peak, not its start).
    const double t0 = s.first_time_us.value_or(points.front().time_us);
    const double t1 = std::max(t0, s.last_time_us.value_or(points.back().time_us));
    double ymax = 1;
    for (const reports::MemoryTimelinePoint& p : points) ymax = std::max({ymax, p.live_bytes, p.reserved_bytes});
    const double span = std::max(1.0, t1 - t0);
    auto x = [&](double t) { return L + (W - L - R) * (t - t0) / span; };
    auto y = [&](double v) { return T + (H0 - T - B) * (1.0 - v / ymax); };
    std::string live, reserved;
    for (const reports::MemoryTimelinePoint& p : points) {
      live += fmt::format("{:.1f},{:.1f} ", x(p.time_us), y(p.live_bytes));
      reserved += fmt::format("{:.1f},{:.1f} ", x(p.time_us), y(p.reserved_bytes));
    }
    h += fmt::format("<figure id=\"memory-timeline\"><figcaption>Memory over the snapshot's history: live (allocated "
                     "to tensors) and reserved (held by the allocator); {} points, each the peak of its stretch</figcaption>\n",
                     points.size());
    h += fmt::format("<svg width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" role=\"img\" aria-label=\"memory timeline\">\n",
                     W, H0);
    h += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#9aa0a6\"/>", L, H0 - B, W - R);
    h += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#9aa0a6\"/>\n", L, T, H0 - B);
    h += fmt::format("<polyline class=\"reserved\" fill=\"none\" stroke=\"#fbbc04\" stroke-width=\"1.5\" points=\"{}\"/>\n", reserved);
    h += fmt::format("<polyline class=\"live\" fill=\"none\" stroke=\"#1a73e8\" stroke-width=\"1.5\" points=\"{}\"/>\n", live);
    h += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"end\">{}</text>", L - 4, T + 10, H(Bin(ymax)));
    h += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"end\">0</text>", L - 4, H0 - B);
    h += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\">0 ms</text>", L, H0 - 10);
    h += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"end\">{:.1f} ms</text>\n", W - R, H0 - 10,
                     span / 1000.0);
    h += "</svg>\n<div class=\"legend\"><span><i style=\"background:#1a73e8\"></i>live</span> "
         "<span><i style=\"background:#fbbc04\"></i>reserved</span></div></figure>\n";
  }
  if (!s.top_sites.empty()) {
    h += "<details open><summary>Live at the peak, by site (innermost Python frame)</summary>\n<table>\n<thead><tr>"
         "<th class=\"num\">Bytes</th><th class=\"num\">Share</th><th class=\"num\">Allocations</th><th>Site</th></tr>"
         "</thead>\n<tbody>\n";
    for (const reports::MemorySite& x : s.top_sites)
      h += fmt::format("<tr><td class=\"num\">{}</td><td class=\"num\">{:.1f}%</td><td class=\"num\">{}</td><td><code>{}</code></td></tr>\n",
                       H(Bin(x.bytes)), Num(x.pct_of_peak), H(Count(x.allocs)), H(x.site));
    h += "</tbody>\n</table>\n</details>\n";
  }
  h += "<details open><summary>Segment map, as PyTorch's segsum draws it (a letter: one block's 20 MiB pages; a digit: "
       "a page partly filled by several blocks, 9 = 90%; * full; blank: free)</summary>\n<pre id=\"segment-map\">";
  for (const std::string& l : SegmentMapLines(s)) h += H(l) + "\n";
  h += "</pre>\n</details>\n</section>\n";
}

}  // namespace ampscope::render
