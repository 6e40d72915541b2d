#include "render/terminal_summary.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "render/evidence.h"
#include "render/critical_path_view.h"
#include "render/format.h"
#include "render/kernel_names.h"
#include "render/memory_snapshot_render.h"
#include "render/ncu_section.h"
#include "render/report_view.h"
#include "render/text_table.h"
#include "reports/contract/kernels_view.h"
#include "reports/contract/ranks_view.h"
#include "reports/contract/report_fields.h"

namespace ampscope::render {

namespace {

using nlohmann::json;
using Column = TextTable::Column;
using Align = TextTable::Align;
using Overflow = TextTable::Overflow;

constexpr size_t kMaxRankRows = 16;
constexpr size_t kMaxKernelRows = 10;
constexpr size_t kMaxFindings = 10;
constexpr size_t kMaxRooflineRows = 5;
constexpr const char* kIndent = "  ";
constexpr const char* kBody = "     ";  // under a finding's "  1. "

std::string StatusLabel(const std::string& status) {
  if (status == "not_applicable") return "N/A";
  std::string s = status.empty() ? "UNKNOWN" : status;
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

class Out {
 public:
  explicit Out(const TerminalOptions& o) : o_(o) {}
  const TerminalOptions& options() const { return o_; }
  std::string& str() { return s_; }
  std::string Paint(const std::string& text, Color c) const { return render::Paint(text, c, o_.color); }
  void Heading(const std::string& title) { s_ += "\n" + Paint(Truncate(title, o_.width), Color::kBold) + "\n"; }
  void Line(const std::string& line = "") { s_ += line + "\n"; }
  // A paragraph: `lead` (painted `lead_color`) then the text, wrapped with a hanging indent.
  void Paragraph(const std::string& indent, const std::string& lead, const std::string& text, Color lead_color = Color::kDim) {
    const std::string hang(indent.size() + DisplayWidth(lead), ' ');
    std::string wrapped = WrapParagraph(text, o_.width, indent + lead, hang);
    if (!lead.empty() && o_.color) {
      // Colour the lead of the first line only; the wrapping was done on plain text.
      size_t at = wrapped.find(lead);
      if (at != std::string::npos) wrapped.replace(at, lead.size(), Paint(lead, lead_color));
    }
    s_ += wrapped;
  }
  void Table(const TextTable& t, bool header = true) {
    TableStyle style;
    style.width = o_.width;
    style.indent = kIndent;
    style.header = header;
    style.color = o_.color;
    s_ += t.Render(style);
  }

 private:
  const TerminalOptions& o_;
  std::string s_;
};

// `priority`: when the width is short, prose (0) wraps before names and ids (1) do.
Column Col(std::string header, Align align = Align::kLeft, Overflow overflow = Overflow::kKeep, size_t min_width = 8,
           int priority = 0) {
  Column c;
  c.header = std::move(header);
  c.align = align;
  c.overflow = overflow;
  c.min_width = min_width;
  c.priority = priority;
  return c;
}

void Overview(Out& o, const json& r) {
  std::string version = String(r, report_field::kToolVersion);
  o.Paragraph("", "ampscope report ", version.empty() ? "" : "(ampscope " + version + ")", Color::kBold);
  auto row = [&](const std::string& label, const std::string& value) {
    o.Paragraph(kIndent, fmt::format("{:<11}", label), value);
  };
  row("Input", InputsSummary(r));
  row("Device", DevicesSummary(r));
  row("Steps", StepsSummary(r));
  if (const reports::StepsView steps = reports::ReadStepsView(r); steps.mean_us)
    row("Step time", fmt::format("mean {}, median {}, p90 {}", DurationUs(steps.mean_us), DurationUs(steps.median_us), DurationUs(steps.p90_us)));
}

// What the trace can be trusted for: each check that is not ok with its evidence, the rest by name
// (all of them with evidence in verbose mode).
void TraceIntegrity(Out& o, const json& r) {
  const std::vector<IntegrityRow> rows = IntegrityChecks(r);
  if (rows.empty()) return;
  o.Heading("Trace integrity");
  std::string ok;
  for (const IntegrityRow& c : rows) {
    if (c.status == "ok" && !o.options().verbose) {
      ok += (ok.empty() ? "" : ", ") + c.id;
      continue;
    }
    const std::string label = "[" + StatusLabel(c.status) + "] ";
    o.Paragraph(kIndent, label, IntegrityTitle(c.id) + ": " + c.evidence, StatusColor(c.status));
    if (!c.affects.empty() && c.status != "ok") {
      std::string affects;
      for (const std::string& a : c.affects) affects += (affects.empty() ? "" : ", ") + a;
      o.Paragraph(std::string(kIndent) + std::string(label.size(), ' '), "unreliable: ", affects);
    }
  }
  if (!ok.empty()) o.Paragraph(kIndent, "[OK] ", ok, Color::kGreen);
}

void GpuTime(Out& o, const json& r) {
  const bool steps = Number(r, report_field::kStepCount).value_or(0) > 0;
  const std::string job = JobDefinition(r, "gpu");
  o.Heading(std::string(steps ? "GPU time (share of the analysed steps" : "GPU time (share of the analysed window: no steps") +
            (job.empty() ? "" : "; " + job) + ")");
  if (!GpuActivityRecorded(r)) {
    o.Paragraph(kIndent, "unknown: ", kNoGpuActivity);
    return;
  }
  TextTable t({Col(""), Col("", Align::kRight), Col("", Align::kLeft, Overflow::kWrap, 12)});
  auto busy = Number(r, report_field::kGpuBusyPct);
  Color busy_color = !busy ? Color::kDim : *busy >= 80 ? Color::kGreen : *busy >= 60 ? Color::kYellow : Color::kRed;
  t.AddRow({{"GPU busy"}, {Pct(busy), busy_color}, {"any GPU work (kernels, copies, memsets)"}});
  t.AddRow({{"  kernels"}, {Pct(Number(r, report_field::kGpuKernelBusyPct))}, {"what TensorBoard calls GPU utilization"}});
  t.AddRow({{"GPU idle"}, {Pct(Number(r, report_field::kGpuIdlePct))}, {""}});
  t.AddRow({{"  host_wait"}, {Pct(Number(r, report_field::kGpuIdleHostWaitPct))}, {"waiting for the CPU to launch work"}});
  t.AddRow({{"  kernel_wait"}, {Pct(Number(r, report_field::kGpuIdleKernelWaitPct))}, {"short gaps between launched kernels"}});
  t.AddRow({{"  other"}, {Pct(Number(r, report_field::kGpuIdleOtherPct))}, {"syncs, events, anything else"}});
  std::string tc_source = String(r, report_field::kTensorCoreSource, "estimated");
  t.AddRow({{"Tensor Cores"}, {Pct(Number(r, report_field::kTensorCoreKernelTimePct))},
            {"of kernel time in Tensor Core kernels (" + tc_source + ")"}});
  if (auto active = Number(r, report_field::kTensorCoreActivePct))
    t.AddRow({{"  active"}, {Pct(active)}, {"sampled Tensor Core activity"}});
  o.Table(t, false);

  auto cats = SortedShares(Section(r, report_field::kKernelTimeByCategoryPct));
  auto precs = SortedShares(Section(r, report_field::kKernelTimeByPrecisionPct));
  if (cats.empty() && precs.empty()) return;
  o.Heading("Kernel time by category and precision");
  TextTable kt({Col("CATEGORY", Align::kLeft, Overflow::kTruncate), Col("TIME", Align::kRight), Col(""),
                Col("PRECISION", Align::kLeft, Overflow::kTruncate), Col("TIME", Align::kRight)});
  size_t n = std::min<size_t>(std::max(cats.size(), precs.size()), 8);
  for (size_t i = 0; i < n; ++i)
    kt.AddRow({{i < cats.size() ? cats[i].first : ""}, {i < cats.size() ? Pct(cats[i].second) : ""}, {""},
               {i < precs.size() ? precs[i].first : ""}, {i < precs.size() ? Pct(precs[i].second) : ""}});
  o.Table(kt);
}

std::string Headline(const json& r, const reports::DimensionHeadline& h) {
  std::string text = h.name.empty() ? "" : StepWords(r, HumanKey(h.name));
  if (!h.source.empty()) text += (text.empty() ? "" : ", ") + h.source;
  return text;
}

void Matrix(Out& o, const json& r) {
  const std::vector<reports::DimensionView> m = reports::ReadMatrixView(r);
  if (m.empty()) return;
  o.Heading("Five-dimension matrix");
  if (const std::string why = SharedUnknownReason(m); !why.empty()) {
    o.Paragraph(kIndent, "every dimension unknown: ", why);
    return;
  }
  TextTable t({Col("DIMENSION", Align::kLeft, Overflow::kWrap, 9, 1), Col("STATUS"), Col("VALUE", Align::kRight),
               Col("HEADLINE", Align::kLeft, Overflow::kWrap, 12), Col("FINDINGS", Align::kLeft, Overflow::kWrap, 12)});
  for (const reports::DimensionView* d : DimensionOrder(m)) {
    const std::string status = d->status.value_or("unknown");
    std::string findings;
    for (const std::string& id : d->findings) findings += (findings.empty() ? "" : ", ") + id;
    t.AddRow({{DimensionTitle(d->id)}, {StatusLabel(status), StatusColor(status)}, {DimensionValueCell(*d)}, {Headline(r, d->headline)},
              {findings}});
  }
  o.Table(t);
}


void Checklist(Out& o, const json& r) {
  const std::vector<reports::ChecklistItemView> c = reports::ReadChecklistView(r);
  if (c.empty()) return;
  o.Heading("Optimization checklist");
  if (const std::string why = SharedUnknownReason(c); !why.empty()) {
    o.Paragraph(kIndent, "every item unknown: ", why);
    return;
  }
  TextTable t({Col("ITEM", Align::kLeft, Overflow::kWrap, 10, 1), Col("STATUS"), Col("VALUE", Align::kRight, Overflow::kWrap, 10, 1),
               Col("EVIDENCE", Align::kLeft, Overflow::kWrap, 16)});
  for (const reports::ChecklistItemView& item : c) {
    const std::string status = item.status.value_or("unknown");
    std::string evidence = item.evidence;
    const std::string& how = item.how_to_know;
    if (const std::string see = ChecklistFindings(item); !see.empty()) evidence = see + (evidence.empty() ? "" : "; " + evidence);
    // An unknown (or unmeasured) item says how to find out.
    if (!how.empty() && (StatusClass(status) == 3 || std::holds_alternative<std::monostate>(item.value)))
      evidence += (evidence.empty() ? "" : "; ") + std::string("to know: ") + how;
    t.AddRow({{ChecklistTitle(item.id)}, {StatusLabel(status), StatusColor(status)},
              {ChecklistValueCell(item)}, {evidence}});
  }
  o.Table(t);
  if (!o.options().verbose) {
    o.Paragraph(kIndent, "", "Thresholds and sources: ampscope analyze --verbose, or checklist[].threshold in the JSON report.",
                Color::kDim);
    return;
  }
  o.Line();
  o.Line(kIndent + o.Paint("Thresholds", Color::kBold));
  for (const reports::ChecklistItemView& item : c) {
    o.Paragraph(std::string(kIndent) + "  ", "", ChecklistTitle(item.id) + ": " + item.threshold.value_or("n/a"));
    if (!item.source.empty()) o.Paragraph(std::string(kIndent) + "    ", "", "source: " + item.source);
  }
}

void Findings(Out& o, const json& r) {
  const std::vector<reports::FindingView> findings = reports::ReadFindingsView(r);
  const StepClock report_clock(r);
  o.Heading(fmt::format("Findings ({}, {})", findings.size(), RankingWords(r)));
  if (findings.empty()) {
    o.Paragraph(kIndent, "", "no findings: nothing to fix was detected");
    return;
  }
  const bool verbose = o.options().verbose;
  for (size_t i = 0; i < findings.size() && i < kMaxFindings; ++i) {
    const reports::FindingView& f = findings[i];
    const StepClock clock = FindingClock(r, f, report_clock);
    std::string severity = f.severity.value_or("info");
    auto saving = f.est_saving_pct;
    std::string head = fmt::format("[{}] {}", severity, f.id);
    if (saving && *saving > 0) head += fmt::format(" (est. saving {:.1f}% {})", *saving, SavingBasis(r));
    std::string wrapped = WrapParagraph(head, o.options().width, fmt::format("{}{}. ", kIndent, i + 1), kBody);
    if (o.options().color) {
      std::string tag = fmt::format("[{}]", severity);
      if (size_t at = wrapped.find(tag); at != std::string::npos) wrapped.replace(at, tag.size(), o.Paint(tag, SeverityColor(severity)));
    }
    o.str() += wrapped;
    o.Paragraph(kBody, "", RelativeTimes(f.title, clock));
    if (f.confidence == "low")
      o.Paragraph(kBody, "confidence: low, ", f.confidence_reason.value_or("it rests on a metric the trace integrity checks doubt"),
                  Color::kYellow);
    std::vector<EvidenceItem> items = FindingEvidence(r, f, clock);
    std::string evidence = EvidenceLine(items);
    if (!evidence.empty()) o.Paragraph(kBody, "evidence: ", evidence);
    std::string when = TimeRangesText(f, clock, verbose ? 6 : 2);
    if (!when.empty()) o.Paragraph(kBody, "when: ", when);
    const std::string& rec = f.recommendation;
    if (!rec.empty()) o.Paragraph(kBody, "fix: ", RelativeTimes(rec, clock));
    if (verbose)
      for (const EvidenceItem& item : items)
        if (item.note) o.Paragraph(kBody, item.label == "Estimate" ? "how estimated: " : item.label + ": ", item.text);
  }
  if (findings.size() > kMaxFindings)
    o.Paragraph(kIndent, "", Plural(static_cast<double>(findings.size() - kMaxFindings), "more finding") + " in the JSON/HTML report");
}

// "conv fp32", "gemm fp16 TC": the classifier's view of a kernel in one cell.
std::string KernelClass(const reports::TopKernel& k) {
  std::string s = k.category;
  const std::string& prec = k.precision;
  if (!prec.empty()) s += (s.empty() ? "" : " ") + prec;
  if (k.tensor_core) s += " TC";
  return s;
}

void TopKernels(Out& o, const json& r) {
  const std::vector<reports::TopKernel> top = reports::ReadKernelsView(r).top;
  if (top.empty()) return;
  const bool verbose = o.options().verbose;
  o.Heading("Top kernels by GPU time");
  TextTable t({Col("TIME", Align::kRight), Col("TOTAL", Align::kRight), Col("COUNT", Align::kRight), Col("MEAN", Align::kRight),
               Col("CLASS", Align::kLeft, Overflow::kWrap, 13),
               Col(verbose ? "KERNEL" : "KERNEL (short name)", Align::kLeft, verbose ? Overflow::kWrap : Overflow::kTruncate, 16, 1)});
  for (size_t i = 0; i < top.size() && i < kMaxKernelRows; ++i) {
    const reports::TopKernel& k = top[i];
    t.AddRow({{Pct(k.pct)}, {DurationUs(k.total_us)}, {Count(k.count)}, {DurationUs(k.mean_us)},
              {KernelClass(k), k.tensor_core ? Color::kGreen : Color::kNone}, {verbose ? k.name : ShortKernelName(k.name)}});
  }
  o.Table(t);
  if (!verbose) o.Paragraph(kIndent, "", "TC: Tensor Core kernel. Full names: --verbose, ampscope kernels, or the HTML report.");
}

// MFU and the ops with the most kernel time, with how close each is to what the GPU can do at
// its arithmetic intensity (docs/roofline.md).
void Roofline(Out& o, const json& r) {
  const reports::RooflineView view = reports::ReadRooflineView(r);
  std::string note;
  const reports::RooflineSection& roof = RooflineToShow(view, &note);
  if (!roof.present) return;
  o.Heading("Roofline and MFU");
  if (!roof.available) {
    o.Paragraph(kIndent, "", "No roofline: " + roof.reason.value_or("unknown"));
    return;
  }
  if (!note.empty()) o.Paragraph(kIndent, "", note);
  const auto mfu = roof.mfu_pct, peak = roof.peak_tflops, achieved = roof.achieved_tflops;
  std::string line = "MFU " + (mfu ? Pct(mfu) : "unknown (" + roof.mfu_reason.value_or("no peak") + ")");
  if (achieved) line += ": " + Significant(*achieved) + " TFLOP/s achieved";
  if (peak) line += fmt::format(" of {} TFLOP/s {} dense peak ({})", Significant(*peak, 4), roof.peak_precision,
                                roof.gpu.peak_id.value_or(""));
  if (roof.hfu_pct) line += "; HFU " + Pct(roof.hfu_pct);
  o.Paragraph(kIndent, "", line);
  if (roof.ops.empty()) return;
  TextTable t({Col("KERNEL TIME", Align::kRight), Col("CALLS", Align::kRight), Col("OP", Align::kLeft, Overflow::kTruncate, 12, 1),
               Col("PASS"), Col("DTYPE"), Col("ACHIEVED", Align::kRight), Col("BOUND"), Col("OF PEAK", Align::kRight)});
  std::vector<std::string> above;  // notes of the rows above 100%
  for (size_t i = 0; i < roof.ops.size() && i < kMaxRooflineRows; ++i) {
    const reports::RooflineOp& op = roof.ops[i];
    const auto g = op.gflop;
    std::string pct = op.pct_of_peak ? Pct(op.pct_of_peak) : "unknown";
    if (!op.pct_note.empty()) {
      above.push_back(op.op + ": " + op.pct_note);
      pct += " *" + std::to_string(above.size());
    }
    std::string ach = op.tflops && g && *g > 0 ? Significant(*op.tflops) + " TFLOP/s"
                      : op.tbps               ? Significant(*op.tbps) + " TB/s"
                                              : "unknown";
    t.AddRow({{DurationUs(op.kernel_time_us)}, {Count(op.count)}, {op.op}, {op.pass}, {op.dtype.value_or("")}, {ach},
              {op.bound.value_or("unknown")}, {pct}});
  }
  o.Table(t);
  o.Paragraph(kIndent, "", "OF PEAK: achieved / attainable at the op's FLOP per byte. Shapes and every op: the JSON or HTML report.");
  for (size_t i = 0; i < above.size(); ++i) o.Paragraph(kIndent, fmt::format("*{} ", i + 1), above[i]);
}

// The memory snapshot given with the trace (render/memory_snapshot_render.h).
void MemorySnapshot(Out& o, const json& r) {
  const std::optional<reports::MemorySnapshotView> m = reports::ReadMemorySnapshotView(r);
  if (!m) return;
  o.Heading("Memory snapshot (PyTorch caching allocator)");
  for (const std::string& line : MemorySnapshotLines(*m)) o.Paragraph(kIndent, "", line);
}

// Where each step's time goes along its critical path, and how well the replay reproduces the
// run (docs/whatif.md).
void CriticalPath(Out& o, const json& r) {
  const CriticalPathView v = ViewCriticalPath(r);
  if (!v.available && v.reason == "this report has no critical_path section") return;
  o.Heading("Critical path");
  if (!v.available) {
    o.Paragraph(kIndent, "", "No critical path: " + v.reason);
    return;
  }
  o.Paragraph(kIndent, "", v.summary);
  TextTable t({Col("SHARE", Align::kRight), Col("TIME", Align::kRight), Col("ON THE CRITICAL PATH", Align::kLeft, Overflow::kWrap, 16, 1)});
  for (const CriticalPathView::Row& row : v.rows) t.AddRow({{Pct(row.pct)}, {DurationUs(row.us)}, {row.name}});
  o.Table(t);
  if (!v.replay.empty()) o.Paragraph(kIndent, "", v.replay);
}

void Ranks(Out& o, const json& r) {
  const reports::RanksView view = reports::ReadRanksView(r);
  const std::vector<reports::RankRow>& ranks = view.ranks;
  if (ranks.size() < 2) return;
  o.Heading(fmt::format("Ranks ({})", ranks.size()));
  // The slowest ranks first: in a synchronous job they set the pace.
  std::vector<const reports::RankRow*> order;
  for (const reports::RankRow& rk : ranks) order.push_back(&rk);
  std::stable_sort(order.begin(), order.end(), [](const reports::RankRow* a, const reports::RankRow* b) {
    return a->step_time_mean_us.value_or(0) > b->step_time_mean_us.value_or(0);
  });
  TextTable t({Col("RANK", Align::kRight), Col("STEP MEAN", Align::kRight), Col("BUSY", Align::kRight),
               Col("KERNELS", Align::kRight), Col("HOST_WAIT", Align::kRight), Col("TC", Align::kRight),
               Col("DEVICE", Align::kLeft), Col("FILE", Align::kLeft)});
  for (size_t i = 0; i < order.size() && i < kMaxRankRows; ++i) {
    const reports::RankRow& rk = *order[i];
    t.AddRow({{Count(rk.rank)}, {DurationUs(rk.step_time_mean_us)}, {Pct(rk.gpu_busy_pct)}, {Pct(rk.gpu_kernel_busy_pct)},
              {Pct(rk.gpu_idle_host_wait_pct)}, {Pct(rk.tensor_core_kernel_time_pct)}, {rk.device},
              {std::filesystem::path(rk.input).filename().string()}});
  }
  o.Table(t);
  // Imbalance = max / mean over ranks; the job's step time is its slowest rank's.
  auto Factor = [](std::optional<double> v) { return v ? fmt::format("{:.2f}x", *v) : std::string("n/a"); };
  if (const auto& imb = view.imbalance)
    o.Paragraph(kIndent, "", fmt::format("Imbalance (max/mean over ranks): step time {}, compute {}, communication {}",
                                         Factor(imb->step_time), Factor(imb->compute), Factor(imb->communication)));
  if (order.size() > kMaxRankRows)
    o.Paragraph(kIndent, "", Plural(static_cast<double>(order.size() - kMaxRankRows), "more rank") + " (slowest shown first)");
}

void InputDiagnostics(Out& o, const json& r) {
  std::vector<DiagnosticEntry> entries = Diagnostics(r);
  if (entries.empty()) return;
  o.Heading("Input diagnostics");
  for (const DiagnosticEntry& e : entries) {
    // Data loss is worth a colour: numbers may be incomplete.
    bool loss = e.severity == "data_loss" || e.severity == "error";
    std::string text = e.text + (loss ? " [" + e.severity + "]" : "");
    std::string wrapped = WrapParagraph(text, o.options().width, kIndent, std::string(kIndent) + "  ");
    o.str() += o.options().color ? o.Paint(wrapped.substr(0, wrapped.size() - 1), loss ? Color::kYellow : Color::kDim) + "\n"
                                 : wrapped;
  }
}

}  // namespace

std::string RenderTerminalSummary(const json& report, const TerminalOptions& options) {
  TerminalOptions o = options;
  o.width = std::max(o.width, kMinWidth);
  Out out(o);
  Overview(out, report);
  TraceIntegrity(out, report);
  GpuTime(out, report);
  Matrix(out, report);
  Checklist(out, report);
  Findings(out, report);
  CriticalPath(out, report);
  TopKernels(out, report);
  Roofline(out, report);
  MemorySnapshot(out, report);
  out.str() += NcuTerminalSection(report, o.width, o.color);
  Ranks(out, report);
  InputDiagnostics(out, report);
  return InVendorWords(report, std::move(out.str()));
}

}  // namespace ampscope::render
