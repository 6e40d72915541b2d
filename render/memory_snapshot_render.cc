#include "render/memory_snapshot_render.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "render/format.h"
#include "render/markdown_report.h"

namespace ampscope::render {

namespace {

using json = nlohmann::json;

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
double Num(const json& j, const char* p) { return Number(j, p).value_or(0); }
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
std::string AfterStart(const json& s, std::optional<double> t_us) {
  auto first = Number(s, "/first_time_us");
  if (!t_us || !first) return "unknown time";
  return fmt::format("+{:.1f} ms", (*t_us - *first) / 1000.0);
}

}  // namespace

const json& MemorySnapshotOf(const json& report) {
  static const json kNull;
  auto it = report.find("memory_snapshot");
  return it != report.end() && it->is_object() ? *it : kNull;
}

std::vector<std::string> MemorySnapshotLines(const json& s) {
  std::vector<std::string> lines;
  const double reserved = Num(s, "/reserved_bytes");
  auto pct = [&](double v) { return reserved > 0 ? fmt::format("{:.0f}%", 100.0 * v / reserved) : std::string("n/a"); };
  lines.push_back(fmt::format(
      "{}: {} segments, {} reserved, {} allocated; free {} internal (rounding) and {} external ({} of reserved: {} in {} "
      "wholly free segments, {} between live blocks); largest free block {}",
      String(s, "/path"), Count(Number(s, "/segment_count")), Bin(reserved), Bin(Number(s, "/allocated_bytes")),
      Bin(Number(s, "/free_internal_bytes")), Bin(Number(s, "/free_external_bytes")), pct(Num(s, "/free_external_bytes")),
      Bin(Number(s, "/free_external_in_empty_segments_bytes")), Count(Number(s, "/empty_segments")),
      Bin(Number(s, "/free_external_in_used_segments_bytes")), Bin(Number(s, "/largest_free_block_bytes"))));
  const json& set = Section(s, "/allocator_settings");
  if (set.is_object()) {
    const json& ex = Section(set, "/expandable_segments");
    std::string conf = String(set, "/alloc_conf");
    lines.push_back(fmt::format("Allocator settings: expandable_segments {}, max_split_size {}, PYTORCH_CUDA_ALLOC_CONF {}",
                                ex.is_boolean() ? (ex.get<bool>() ? "on" : "off") : "unknown",
                                Number(set, "/max_split_size_bytes") ? Bin(Number(set, "/max_split_size_bytes")) : "none (no limit)",
                                conf.empty() ? "unset" : "'" + conf + "'"));
  } else {
    lines.push_back("Allocator settings: not in this snapshot (older PyTorch)");
  }
  if (!s.value("has_trace", false)) {
    lines.push_back("No allocation history (device_traces): record it with torch.cuda.memory._record_memory_history() "
                    "before the steps to see the peak, its sites and segment churn");
    return lines;
  }
  const json& a = Section(s, "/actions");
  lines.push_back(fmt::format("History of device {}: {} events ({} alloc, {} segment_alloc, {} segment_free, {} oom); peak "
                              "{} live at {}, {} reserved at most",
                              Count(Number(s, "/device")), Count(Number(s, "/events")), Count(Number(a, "/alloc")),
                              Count(Number(a, "/segment_alloc")), Count(Number(a, "/segment_free")), Count(Number(a, "/oom")),
                              Bin(Number(s, "/peak_live_bytes")), AfterStart(s, Number(s, "/peak_time_us")),
                              Bin(Number(s, "/peak_reserved_bytes"))));
  const std::string source = String(s, "/step_source", "none");
  if (auto frees = Number(s, "/steady_segment_frees")) {
    lines.push_back(fmt::format("Steps ({} in the snapshot's annotations): {}; after the first: {} segment_alloc, {} segment_free",
                                source == "profiler_step" ? "ProfilerStep ranges" : "Optimizer.step ends",
                                Count(static_cast<double>(Section(s, "/steps").size())),
                                Count(Number(s, "/steady_segment_allocs")), Count(frees)));
  } else {
    lines.push_back(fmt::format("Steps: {} (churn is judged on segments freed and allocated again: {})",
                                source == "none" ? "none in the snapshot's annotations" : "only one",
                                Count(Number(s, "/segment_free_realloc_cycles"))));
  }
  const json& sites = Section(s, "/top_sites");
  if (sites.is_array() && !sites.empty()) {
    std::string t = "Live at the peak, by site:";
    for (size_t i = 0; i < sites.size() && i < 5; ++i)
      t += fmt::format("{} {} {} ({:.0f}%)", i ? ";" : "", String(sites[i], "/site"), Bin(Number(sites[i], "/bytes")),
                       Num(sites[i], "/pct_of_peak"));
    lines.push_back(t);
  }
  if (Number(s, "/autocast_cast_bytes")) {
    lines.push_back(fmt::format("Autocast cast copies: {} in {} allocations, {} of them live at the peak",
                                Bin(Number(s, "/autocast_cast_bytes")), Count(Number(s, "/autocast_cast_allocs")),
                                Bin(Number(s, "/autocast_cast_live_at_peak_bytes"))));
  } else if (!s.value("stacks_recorded", false)) {
    lines.push_back("Autocast cast copies: unknown (no stack frames recorded)");
  }
  for (const json& o : Section(s, "/oom_events")) {
    lines.push_back(fmt::format("OOM at {}: {} requested with {} free on the device; {} reserved, {} live",
                                AfterStart(s, Number(o, "/time_us")), Bin(Number(o, "/requested_bytes")),
                                Bin(Number(o, "/device_free_bytes")), Bin(Number(o, "/reserved_bytes")), Bin(Number(o, "/live_bytes"))));
  }
  return lines;
}

std::vector<std::string> SegmentMapLines(const json& s, size_t max_segments) {
  std::vector<std::string> out;
  const json& segs = Section(s, "/segments");
  if (!segs.is_array()) return out;
  size_t shown = 0, big = 0;
  for (const json& g : segs) {
    if (!g.contains("page_map") || !g["page_map"].is_string()) continue;
    ++big;
    if (shown >= max_segments) continue;
    ++shown;
    const double ext = Num(g, "/free_external_bytes"), in = Num(g, "/free_internal_bytes");
    const double total = ext + in;
    std::string line = fmt::format("[{}] {} allocated, {}", g["page_map"].get<std::string>(), SegsumBytes(Num(g, "/total_size")),
                                   SegsumBytes(total));
    if (total != 0) line += fmt::format(" ({:.1f}% internal)", in / total * 100);
    line += " free";
    if (Num(g, "/stream") != 0) line += fmt::format(" stream_{}", Num(g, "/stream"));
    out.push_back(line);
  }
  if (big > shown) out.push_back(fmt::format("... {} more segments of 20 MiB or more (all in the JSON report)", big - shown));
  out.push_back(fmt::format("segments: {}", segs.size()));
  out.push_back("total_reserved: " + SegsumBytes(Num(s, "/reserved_bytes")));
  out.push_back("total_allocated: " + SegsumBytes(Num(s, "/allocated_bytes")));
  const double ext = Num(s, "/free_external_bytes"), in = Num(s, "/free_internal_bytes");
  out.push_back("total_free: " + SegsumBytes(ext + in) + (ext + in != 0 ? fmt::format(" ({:.1f}% internal)", in / (ext + in) * 100) : ""));
  return out;
}

std::string MemorySnapshotMarkdown(const json& report) {
  const json& s = MemorySnapshotOf(report);
  if (s.is_null()) return "";
  std::string md = "### Memory snapshot (PyTorch caching allocator)\n\n";
  for (const std::string& l : MemorySnapshotLines(s)) md += "- " + Esc(l) + "\n";
  md += "\n";
  const json& sites = Section(s, "/top_sites");
  if (sites.is_array() && !sites.empty()) {
    md += "| Live at the peak | Share | Allocations | Site |\n|---:|---:|---:|---|\n";
    for (const json& x : sites)
      md += fmt::format("| {} | {:.1f}% | {} | {} |\n", Bin(Number(x, "/bytes")), Num(x, "/pct_of_peak"), Count(Number(x, "/allocs")),
                        MarkdownCode(String(x, "/site"), true));
    md += "\n";
  }
  md += "Segments of 20 MiB or more, as PyTorch's `segsum` draws them (a letter: one block's pages; a digit: a page "
        "partly filled by several blocks, 9 = 90%; `*` full; blank: free):\n\n```\n";
  for (const std::string& l : SegmentMapLines(s, 40)) md += l + "\n";
  md += "```\n\n";
  return md;
}

void AppendMemorySnapshotHtml(std::string& h, const json& report) {
  const json& s = MemorySnapshotOf(report);
  if (s.is_null()) return;
  h += "<section id=\"memory-snapshot\">\n<h2>Memory snapshot</h2>\n<ul>\n";
  for (const std::string& l : MemorySnapshotLines(s)) h += "<li>" + H(l) + "</li>\n";
  h += "</ul>\n";
  // The memory timeline: live (tensors) and reserved (the allocator's segments) bytes over the
  // snapshot's history, each point the peak of its stretch of events.
  const json& points = Section(s, "/timeline/points");
  if (points.is_array() && points.size() >= 1) {
    constexpr double W = 900, H0 = 220, L = 70, R = 10, T = 10, B = 30;
    // The axis runs from the first event to the last (a point is its stretch's peak, not its start).
    const double t0 = Number(s, "/first_time_us").value_or(points.front()[0].get<double>());
    const double t1 = std::max(t0, Number(s, "/last_time_us").value_or(points.back()[0].get<double>()));
    double ymax = 1;
    for (const json& p : points) ymax = std::max({ymax, p[1].get<double>(), p[2].get<double>()});
    const double span = std::max(1.0, t1 - t0);
    auto x = [&](double t) { return L + (W - L - R) * (t - t0) / span; };
    auto y = [&](double v) { return T + (H0 - T - B) * (1.0 - v / ymax); };
    std::string live, reserved;
    for (const json& p : points) {
      live += fmt::format("{:.1f},{:.1f} ", x(p[0].get<double>()), y(p[1].get<double>()));
      reserved += fmt::format("{:.1f},{:.1f} ", x(p[0].get<double>()), y(p[2].get<double>()));
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
  const json& sites = Section(s, "/top_sites");
  if (sites.is_array() && !sites.empty()) {
    h += "<details open><summary>Live at the peak, by site (innermost Python frame)</summary>\n<table>\n<thead><tr>"
         "<th class=\"num\">Bytes</th><th class=\"num\">Share</th><th class=\"num\">Allocations</th><th>Site</th></tr>"
         "</thead>\n<tbody>\n";
    for (const json& x : sites)
      h += fmt::format("<tr><td class=\"num\">{}</td><td class=\"num\">{:.1f}%</td><td class=\"num\">{}</td><td><code>{}</code></td></tr>\n",
                       H(Bin(Number(x, "/bytes"))), Num(x, "/pct_of_peak"), H(Count(Number(x, "/allocs"))), H(String(x, "/site")));
    h += "</tbody>\n</table>\n</details>\n";
  }
  h += "<details open><summary>Segment map, as PyTorch's segsum draws it (a letter: one block's 20 MiB pages; a digit: "
       "a page partly filled by several blocks, 9 = 90%; * full; blank: free)</summary>\n<pre id=\"segment-map\">";
  for (const std::string& l : SegmentMapLines(s)) h += H(l) + "\n";
  h += "</pre>\n</details>\n</section>\n";
}

}  // namespace ampscope::render
