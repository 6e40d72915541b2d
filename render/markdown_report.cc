#include "render/markdown_report.h"

#include <algorithm>

#include <fmt/format.h>

#include "render/format.h"

namespace ampscope::render {

namespace {

using nlohmann::json;
namespace rf = render;

constexpr size_t kMaxFindings = 5;
constexpr size_t kMaxKernels = 10;
constexpr size_t kMaxRanks = 10;
constexpr size_t kNameColumns = 90;
constexpr size_t kEvidenceColumns = 140;

// Coloured circles read well in GitHub's light and dark themes.
const char* StatusIcon(const std::string& status) {
  switch (rf::StatusClass(status)) {
    case 0: return "\xF0\x9F\x9F\xA2";  // 🟢
    case 1: return "\xF0\x9F\x9F\xA1";  // 🟡
    case 2: return "\xF0\x9F\x94\xB4";  // 🔴
    case 4: return "\xE2\x9E\x96";      // ➖
    default: return "\xE2\x9A\xAA";     // ⚪
  }
}

const char* SeverityIcon(const std::string& severity) {
  if (severity == "critical") return "\xF0\x9F\x94\xB4";
  if (severity == "warning") return "\xF0\x9F\x9F\xA1";
  return "\xF0\x9F\x94\xB5";  // 🔵
}

std::string Esc(std::string_view s) { return MarkdownEscape(s); }

}  // namespace

std::string MarkdownEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 8);
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '\n':
      case '\r': out += ' '; break;
      case '\\': case '`': case '*': case '_': case '[': case ']': case '|': case '#': case '~':
        out.push_back('\\');
        out.push_back(c);
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out.push_back(' ');  // control characters have no business in a summary
        } else {
          out.push_back(c);
        }
    }
  }
  return out;
}

std::string RenderMarkdown(const json& r) {
  std::string md;
  auto line = [&](const std::string& s = "") { md += s + "\n"; };

  line("## ampscope: " + Esc(rf::InputsSummary(r)));
  line();
  std::string head = "**" + Esc(rf::DevicesSummary(r)) + "** \xC2\xB7 " + Esc(rf::StepsSummary(r));
  if (auto mean = rf::Number(r, "/steps/time_us/mean"))
    head += fmt::format(" \xC2\xB7 step time **{}** (median {}, p90 {})", rf::DurationUs(mean),
                        rf::DurationUs(rf::Number(r, "/steps/time_us/median")),
                        rf::DurationUs(rf::Number(r, "/steps/time_us/p90")));
  line(head);
  line();

  line("| GPU time (share of the steps) | |");
  line("|---|---:|");
  line("| GPU busy | **" + rf::Pct(rf::Number(r, "/gpu/busy_pct")) + "** |");
  line("| &nbsp;&nbsp;kernels | " + rf::Pct(rf::Number(r, "/gpu/kernel_busy_pct")) + " |");
  line("| idle: host\\_wait (waiting for the CPU) | " + rf::Pct(rf::Number(r, "/gpu/idle_breakdown_pct/host_wait")) + " |");
  line("| idle: kernel\\_wait (gaps between kernels) | " +
       rf::Pct(rf::Number(r, "/gpu/idle_breakdown_pct/kernel_wait")) + " |");
  line("| idle: other | " + rf::Pct(rf::Number(r, "/gpu/idle_breakdown_pct/other")) + " |");
  line("| Tensor Core kernel time (" + Esc(rf::String(r, "/tensor_cores/source", "estimated")) + ") | " +
       rf::Pct(rf::Number(r, "/tensor_cores/kernel_time_pct")) + " |");
  if (auto active = rf::Number(r, "/tensor_cores/active_pct"))
    line("| Tensor Core active (sampled) | " + rf::Pct(active) + " |");
  auto precs = rf::SortedShares(rf::Section(r, "/gpu/kernel_time_by_precision_pct"));
  if (!precs.empty()) {
    std::string mix;
    for (const auto& [p, v] : precs) mix += (mix.empty() ? "" : ", ") + Esc(p) + " " + rf::Pct(v);
    line("| precision mix (kernel time) | " + mix + " |");
  }
  line();

  const json& m = rf::Section(r, "/matrix");
  if (m.is_object() && !m.empty()) {
    line("### Five-dimension matrix");
    line();
    line("| Dimension | Status | Headline | Source |");
    line("|---|---|---|---|");
    for (const std::string& id : rf::DimensionOrder(r)) {
      if (!m.contains(id)) continue;
      const json& d = m[id];
      std::string status = rf::String(d, "/status", "unknown");
      const json& h = rf::Section(d, "/headline");
      std::string value = h.is_object() && h.contains("value") ? rf::Value(h["value"], rf::String(h, "/unit")) : "n/a";
      std::string name = rf::String(h, "/name");
      line(fmt::format("| {} | {} {} | {}{} | {} |", Esc(rf::DimensionTitle(id)), StatusIcon(status), Esc(status),
                       name.empty() ? "" : Esc(name) + ": ", "**" + Esc(value) + "**",
                       Esc(rf::String(h, "/source"))));
    }
    line();
  }

  const json& c = rf::Section(r, "/checklist");
  if (c.is_array() && !c.empty()) {
    line("### Checklist");
    line();
    line("| Item | Status | Value | Threshold | Evidence |");
    line("|---|---|---:|---|---|");
    for (const json& item : c) {
      std::string status = rf::String(item, "/status", "unknown");
      line(fmt::format("| {} | {} {} | {} | {} | {} |", Esc(rf::ChecklistTitle(rf::String(item, "/id"))),
                       StatusIcon(status), Esc(status), Esc(item.contains("value") ? rf::Value(item["value"]) : "n/a"),
                       Esc(rf::String(item, "/threshold")),
                       Esc(rf::Truncate(rf::String(item, "/evidence"), kEvidenceColumns))));
    }
    line();
  }

  std::vector<const json*> findings = rf::RankedFindings(r);
  line(fmt::format("### Top findings ({} total)", findings.size()));
  line();
  if (findings.empty()) line("No findings: nothing to fix was detected.");
  for (size_t i = 0; i < findings.size() && i < kMaxFindings; ++i) {
    const json& f = *findings[i];
    std::string severity = rf::String(f, "/severity", "info");
    std::string entry = fmt::format("{}. {} **{}** `{}` {}", i + 1, SeverityIcon(severity), Esc(severity),
                                    Esc(rf::String(f, "/id")), Esc(rf::String(f, "/title")));
    if (auto saving = rf::Number(f, "/est_saving_pct"); saving && *saving > 0)
      entry += fmt::format(" \xE2\x80\x94 est. saving **{:.1f}%** of step time", *saving);
    line(entry);
    std::string evidence = rf::EvidenceText(rf::Section(f, "/evidence"), kEvidenceColumns);
    if (!evidence.empty()) line("   - Evidence: " + Esc(evidence));
    std::string rec = rf::String(f, "/recommendation");
    if (!rec.empty()) line("   - Fix: " + Esc(rec));
  }
  if (findings.size() > kMaxFindings)
    line(fmt::format("\n_{} more findings in the JSON and HTML reports._", findings.size() - kMaxFindings));
  line();

  const json& top = rf::Section(r, "/kernels/top");
  if (top.is_array() && !top.empty()) {
    line("<details><summary>Top kernels by GPU time</summary>");
    line();
    line("| Time | Total | Count | Category | Precision | TC | Kernel |");
    line("|---:|---:|---:|---|---|---|---|");
    for (size_t i = 0; i < top.size() && i < kMaxKernels; ++i) {
      const json& k = top[i];
      line(fmt::format("| {} | {} | {} | {} | {} | {} | {} |", rf::Pct(rf::Number(k, "/pct")),
                       rf::DurationUs(rf::Number(k, "/total_us")), rf::Count(rf::Number(k, "/count")),
                       Esc(rf::String(k, "/category")), Esc(rf::String(k, "/precision")),
                       k.value("tensor_core", false) ? "yes" : "no",
                       Esc(rf::Truncate(rf::String(k, "/name"), kNameColumns))));
    }
    line();
    line("</details>");
    line();
  }

  const json& ranks = rf::Section(r, "/ranks");
  if (ranks.is_array() && ranks.size() > 1) {
    std::vector<const json*> order;
    for (const json& rk : ranks) order.push_back(&rk);
    std::stable_sort(order.begin(), order.end(), [](const json* a, const json* b) {
      return rf::Number(*a, "/steps/time_us/mean").value_or(0) > rf::Number(*b, "/steps/time_us/mean").value_or(0);
    });
    line(fmt::format("<details><summary>Ranks ({}), slowest first</summary>", ranks.size()));
    line();
    line("| Rank | Step mean | GPU busy | host_wait | Tensor Core |");
    line("|---:|---:|---:|---:|---:|");
    for (size_t i = 0; i < order.size() && i < kMaxRanks; ++i) {
      const json& rk = *order[i];
      line(fmt::format("| {} | {} | {} | {} | {} |", rf::Count(rf::Number(rk, "/rank")),
                       rf::DurationUs(rf::Number(rk, "/steps/time_us/mean")), rf::Pct(rf::Number(rk, "/gpu/busy_pct")),
                       rf::Pct(rf::Number(rk, "/gpu/idle_breakdown_pct/host_wait")),
                       rf::Pct(rf::Number(rk, "/tensor_cores/kernel_time_pct"))));
    }
    if (order.size() > kMaxRanks) line(fmt::format("\n_{} more ranks in the HTML report._", order.size() - kMaxRanks));
    line();
    line("</details>");
    line();
  }

  const json& counters = rf::Section(r, "/diagnostics/counters");
  if (counters.is_object() && !counters.empty()) {
    std::string d;
    for (const auto& [code, n] : counters.items()) d += (d.empty() ? "" : ", ") + Esc(code) + " " + rf::Value(n);
    line("_Input diagnostics: " + d + "_");
    line();
  }
  std::string version = rf::String(r, "/tool/version");
  line("<sub>ampscope " + Esc(version) + " \xC2\xB7 " + Esc(rf::String(r, "/schema")) + "</sub>");
  return md;
}

}  // namespace ampscope::render
