// The HTML report (`ampscope analyze --html report.html`): one self-contained file with
// inline CSS and JavaScript, no network access (a Content-Security-Policy forbids any
// fetch), rendered from the JSON report (schema ampscope.report/1).
//
// Tables (summary, matrix, checklist, findings, top kernels, ranks, diagnostics) are
// written server-side with every string HTML-escaped. Charts (step time per step, GPU time
// by category, precision mix, busy/idle breakdown, busy/idle per step, top kernels, and
// step time by rank for several ranks) are inline SVG drawn by the inline script from a
// compact JSON blob. The blob and the tables are capped (kMax* below) so the page stays
// small and readable for 100 ranks, 10^5 steps and 10^6 kernels.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ampscope::render {

std::string RenderHtml(const nlohmann::json& report);

// Escapes &, <, >, " and ' for HTML text and attribute values.
std::string HtmlEscape(std::string_view s);

namespace html_report {
inline constexpr size_t kMaxChartSteps = 240;     // more steps are averaged into buckets
inline constexpr size_t kMaxChartKernels = 15;    // bars in the top-kernels chart
inline constexpr size_t kMaxKernelRows = 50;      // rows in the top-kernels table
inline constexpr size_t kMaxRankRows = 1024;      // rows in the per-rank table
inline constexpr size_t kMaxChartRanks = 512;     // bars in the per-rank chart (more are bucketed)
inline constexpr size_t kMaxFindings = 100;       // findings listed
inline constexpr size_t kMaxEvidenceChars = 400;  // one evidence value
inline constexpr size_t kOpenRankTableUpTo = 8;   // the per-rank table starts collapsed above this
}  // namespace html_report

}  // namespace ampscope::render
