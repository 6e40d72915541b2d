#include "render/markdown_report.h"

#include <algorithm>

#include <fmt/format.h>

#include "render/critical_path_view.h"
#include "render/evidence.h"
#include "render/format.h"
#include "render/kernel_names.h"
#include "render/memory_snapshot_render.h"
#include "render/ncu_section.h"
#include "render/report_view.h"
#include "reports/contract/kernels_view.h"
#include "reports/contract/ranks_view.h"
#include "reports/contract/report_fields.h"

namespace ampscope::render {

namespace {

using nlohmann::json;

constexpr size_t kMaxFindings = 5;
constexpr size_t kMaxKernels = 10;
constexpr size_t kMaxRanks = 10;
constexpr size_t kEvidenceColumns = 300;

// Coloured circles read well in GitHub's light and dark themes.
const char* StatusIcon(const std::string& status) {
  switch (StatusClass(status)) {
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
std::string Code(std::string_view s) { return MarkdownCode(s, false); }
std::string CellCode(std::string_view s) { return MarkdownCode(s, true); }

// A status as "🔴 fail": the word is an id, shown as people say it ("not applicable").
std::string Status(const std::string& status) {
  std::string words = status;
  std::replace(words.begin(), words.end(), '_', ' ');
  return std::string(StatusIcon(status)) + " " + Esc(words);
}

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

std::string MarkdownCode(std::string_view text, bool in_table) {
  std::string content;
  size_t run = 0, longest = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
    if (c == '\n' || c == '\r' || (static_cast<unsigned char>(c) < 0x20 && c != '\t')) {
      content.push_back(' ');
    } else if (c == '|' && in_table) {
      content += "\\|";
    } else {
      content.push_back(c);
    }
  }
  if (content.empty()) return "";
  const std::string fence(longest + 1, '`');
  // A span that starts or ends with a backtick (or a space) needs a space of padding, which
  // CommonMark strips again.
  const bool pad = content.front() == '`' || content.back() == '`' || content.front() == ' ' || content.back() == ' ';
  return fence + (pad ? " " : "") + content + (pad ? " " : "") + fence;
}

// The trace-integrity table (analyzers/integrity/): empty when the report has no checks.
static std::string IntegrityMarkdown(const json& r) {
  std::string md;
  auto line = [&](const std::string& s = "") { md += s + "\n"; };
  const std::vector<IntegrityRow> integrity = IntegrityChecks(r);
  if (!integrity.empty()) {
    line("### Trace integrity");
    line();
    line("| Check | Status | Evidence | Unreliable |");
    line("|---|---|---|---|");
    for (const IntegrityRow& c : integrity) {
      std::string affects;
      for (const std::string& a : c.affects) affects += (affects.empty() ? "" : ", ") + a;
      line(fmt::format("| {} | {} | {} | {} |", Esc(IntegrityTitle(c.id)), Status(c.status),
                       Esc(Truncate(c.evidence, kEvidenceColumns)), affects.empty() ? "-" : Esc(affects)));
    }
    line();
  }

  return md;
}

// The critical path section (docs/whatif.md); empty when the report has none.
static std::string CriticalPathMarkdown(const json& r) {
  std::string md;
  auto line = [&](const std::string& s = "") { md += s + "\n"; };
  const CriticalPathView cp = ViewCriticalPath(r);
  if (cp.available) {
    line("### Critical path");
    line();
    line(Esc(cp.summary));
    line();
    line("| Share | Time | On the critical path |");
    line("|---:|---:|---|");
    for (const CriticalPathView::Row& row : cp.rows) line(fmt::format("| {} | {} | {} |", Pct(row.pct), DurationUs(row.us), Esc(row.name)));
    line();
    if (!cp.replay.empty()) {
      line("_" + Esc(cp.replay) + "_");
      line();
    }
  } else if (!cp.reason.empty() && cp.reason != "this report has no critical_path section") {
    line("### Critical path");
    line();
    line("No critical path: " + Esc(cp.reason));
    line();
  }

  return md;
}

// The per-rank table and the imbalance line of a job.
static std::string RanksMarkdown(const json& r) {
  std::string md;
  auto line = [&](const std::string& s = "") { md += s + "\n"; };
  const reports::RanksView view = reports::ReadRanksView(r);
  const std::vector<reports::RankRow>& ranks = view.ranks;
  if (ranks.size() > 1) {
    std::vector<const reports::RankRow*> order;
    for (const reports::RankRow& rk : ranks) order.push_back(&rk);
    std::stable_sort(order.begin(), order.end(), [](const reports::RankRow* a, const reports::RankRow* b) {
      return a->step_time_mean_us.value_or(0) > b->step_time_mean_us.value_or(0);
    });
    line(fmt::format("### Ranks ({}), slowest first", ranks.size()));
    line();
    line("| Rank | Step mean | GPU busy | host\\_wait | Tensor Core | Device | File |");
    line("|---:|---:|---:|---:|---:|---|---|");
    for (size_t i = 0; i < order.size() && i < kMaxRanks; ++i) {
      const reports::RankRow& rk = *order[i];
      line(fmt::format("| {} | {} | {} | {} | {} | {} | {} |", Count(rk.rank), DurationUs(rk.step_time_mean_us),
                       Pct(rk.gpu_busy_pct), Pct(rk.gpu_idle_host_wait_pct), Pct(rk.tensor_core_kernel_time_pct), Esc(rk.device),
                       CellCode(rk.input)));
    }
    auto factor = [](std::optional<double> v) { return v ? fmt::format("{:.2f}x", *v) : std::string("n/a"); };
    if (const auto& imb = view.imbalance)
      line(fmt::format("\nImbalance (max / mean over ranks): step time {}, compute {}, communication {}. The job's "
                       "step time is its slowest rank's; GPU numbers are means over ranks; kernel shares are of the "
                       "summed kernel time.",
                       factor(imb->step_time), factor(imb->compute), factor(imb->communication)));
    if (order.size() > kMaxRanks)
      line("\n_" + Plural(static_cast<double>(order.size() - kMaxRanks), "more rank") + " in the HTML report._");
    line();
  }

  return md;
}

// The GPU time table; one line when the trace recorded no GPU activity (its shares are unknown).
static std::string GpuTimeMarkdown(const json& r) {
  std::string md;
  auto line = [&](const std::string& s = "") { md += s + "\n"; };
  if (!GpuActivityRecorded(r)) {
    line("GPU time: unknown: " + Esc(kNoGpuActivity) + ".");
    line();
    return md;
  }
  line(Number(r, report_field::kStepCount).value_or(0) > 0 ? "| GPU time (share of the steps) | |"
                                                  : "| GPU time (share of the window: no steps) | |");
  line("|---|---:|");
  const std::string gpu_job = JobDefinition(r, "gpu");
  line("| GPU busy" + (gpu_job.empty() ? "" : " (" + Esc(gpu_job) + ")") + " | **" + Pct(Number(r, report_field::kGpuBusyPct)) + "** |");
  line("| &nbsp;&nbsp;kernels | " + Pct(Number(r, report_field::kGpuKernelBusyPct)) + " |");
  line("| idle: host\\_wait (waiting for the CPU) | " + Pct(Number(r, report_field::kGpuIdleHostWaitPct)) + " |");
  line("| idle: kernel\\_wait (gaps between kernels) | " + Pct(Number(r, report_field::kGpuIdleKernelWaitPct)) + " |");
  line("| idle: other | " + Pct(Number(r, report_field::kGpuIdleOtherPct)) + " |");
  line("| Tensor Core kernel time (" + Esc(String(r, report_field::kTensorCoreSource, "estimated")) + ") | " +
       Pct(Number(r, report_field::kTensorCoreKernelTimePct)) + " |");
  if (auto active = Number(r, report_field::kTensorCoreActivePct)) line("| Tensor Core active (sampled) | " + Pct(active) + " |");
  auto precs = SortedShares(Section(r, report_field::kKernelTimeByPrecisionPct));
  if (!precs.empty()) {
    std::string mix;
    for (const auto& [p, v] : precs) mix += (mix.empty() ? "" : ", ") + Esc(p) + " " + Pct(v);
    line("| precision mix (kernel time) | " + mix + " |");
  }
  line();
  return md;
}

std::string RenderMarkdown(const json& r) {
  std::string md;
  auto line = [&](const std::string& s = "") { md += s + "\n"; };
  const StepClock report_clock(r);

  line("## ampscope: " + Esc(InputsSummary(r)));
  line();
  std::string head = "**" + Esc(DevicesSummary(r)) + "** \xC2\xB7 " + Esc(StepsSummary(r));
  if (const reports::StepsView steps = reports::ReadStepsView(r); steps.mean_us)
    head += fmt::format(" \xC2\xB7 step time **{}** (median {}, p90 {})", DurationUs(steps.mean_us), DurationUs(steps.median_us),
                        DurationUs(steps.p90_us));
  line(head);
  line();

  md += IntegrityMarkdown(r);

  md += GpuTimeMarkdown(r);

  const std::vector<reports::DimensionView> m = reports::ReadMatrixView(r);
  if (!m.empty()) {
    line("### Five-dimension matrix");
    line();
  }
  if (const std::string why = SharedUnknownReason(m); !why.empty()) {
    line("Every dimension unknown: " + Esc(why) + ".");
    line();
  } else if (!m.empty()) {
    line("| Dimension | Status | Headline | Source |");
    line("|---|---|---|---|");
    for (const reports::DimensionView* d : DimensionOrder(m)) {
      const std::string& name = d->headline.name;
      line(fmt::format("| {} | {} | {}**{}** | {} |", Esc(DimensionTitle(d->id)), Status(d->status.value_or("unknown")),
                       name.empty() ? "" : Esc(StepWords(r, HumanKey(name))) + ": ", Esc(DimensionValueCell(*d)),
                       Esc(d->headline.source)));
    }
    line();
  }

  const std::vector<reports::ChecklistItemView> c = reports::ReadChecklistView(r);
  if (!c.empty()) {
    line("### Checklist");
    line();
  }
  if (const std::string why = SharedUnknownReason(c); !why.empty()) {
    line("Every item unknown: " + Esc(why) + ".");
    line();
  } else if (!c.empty()) {
    line("| Item | Status | Value | Threshold | Evidence |");
    line("|---|---|---:|---|---|");
    for (const reports::ChecklistItemView& item : c) {
      const std::string value = ChecklistValueCell(item);
      std::string evidence = item.evidence;
      if (const std::string see = ChecklistFindings(item); !see.empty()) evidence = see + (evidence.empty() ? "" : "; " + evidence);
      line(fmt::format("| {} | {} | {} | {} | {} |", Esc(ChecklistTitle(item.id)), Status(item.status.value_or("unknown")), Esc(value),
                       Esc(item.threshold.value_or("")), Esc(Truncate(evidence, kEvidenceColumns))));
    }
    line();
  }

  const std::vector<reports::FindingView> findings = reports::ReadFindingsView(r);
  line(fmt::format("### Top findings ({} total)", findings.size()));
  line();
  if (findings.empty()) line("No findings: nothing to fix was detected.");
  for (size_t i = 0; i < findings.size() && i < kMaxFindings; ++i) {
    const reports::FindingView& f = findings[i];
    const StepClock clock = FindingClock(r, f, report_clock);
    std::string severity = f.severity.value_or("info");
    std::string entry = fmt::format("{}. {} **{}** {} {}", i + 1, SeverityIcon(severity), Esc(severity),
                                    Code(f.id), Esc(RelativeTimes(f.title, clock)));
    if (auto saving = f.est_saving_pct; saving && *saving > 0)
      entry += fmt::format(" \xE2\x80\x94 est. saving **{:.1f}%** {}", *saving, SavingBasis(r));
    line(entry);
    std::string evidence = EvidenceLine(FindingEvidence(r, f, clock));
    if (!evidence.empty()) line("   - Evidence: " + Esc(Truncate(evidence, kEvidenceColumns)));
    if (f.confidence == "low")
      line("   - Confidence: **low**, " + Esc(Truncate(f.confidence_reason.value_or(""), kEvidenceColumns)));
    std::string when = TimeRangesText(f, clock, 2);
    if (!when.empty()) line("   - When: " + Esc(when));
    const std::string& rec = f.recommendation;
    if (!rec.empty()) line("   - Fix: " + Esc(RelativeTimes(rec, clock)));
  }
  if (findings.size() > kMaxFindings)
    line("\n_" + Plural(static_cast<double>(findings.size() - kMaxFindings), "more finding") +
         " in the JSON and HTML reports._");
  line();

  md += CriticalPathMarkdown(r);
  if (const std::string ncu = NcuMarkdownSection(r); !ncu.empty()) {
    md += ncu;
  }
  const std::vector<reports::TopKernel> top = reports::ReadKernelsView(r).top;
  if (!top.empty()) {
    line("### Top kernels by GPU time");
    line();
    line("| Time | Total | Count | Category | Precision | TC | Kernel |");
    line("|---:|---:|---:|---|---|---|---|");
    for (size_t i = 0; i < top.size() && i < kMaxKernels; ++i) {
      const reports::TopKernel& k = top[i];
      line(fmt::format("| {} | {} | {} | {} | {} | {} | {} |", Pct(k.pct), DurationUs(k.total_us), Count(k.count),
                       Esc(k.category), Esc(k.precision), k.tensor_core ? "yes" : "no", CellCode(ShortKernelName(k.name))));
    }
    line();
  }

  md += RanksMarkdown(r);

  md += MemorySnapshotMarkdown(r);

  std::vector<DiagnosticEntry> diagnostics = Diagnostics(r);
  if (!diagnostics.empty()) {
    line("### Input diagnostics");
    line();
    for (const DiagnosticEntry& e : diagnostics) {
      // The code goes in a code span; the description around it is plain text.
      std::string text = e.text, code = e.code;
      size_t at = text.find(code);
      line("- " + (at == std::string::npos ? Esc(text)
                                           : Esc(text.substr(0, at)) + Code(code) + Esc(text.substr(at + code.size()))));
    }
    line();
  }
  line("ampscope " + Esc(String(r, report_field::kToolVersion)) + " \xC2\xB7 report schema " + Code(String(r, report_field::kSchema)));
  return InVendorWords(r, std::move(md));
}

}  // namespace ampscope::render
