// Entry points of analyzers/ncu/ (ncu_analysis.h): the CSV alone, and measured metrics beside a
// trace.
#include "analyzers/ncu/ncu_analysis.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>

#include "analyzers/diagnosis/rules.h"
#include "analyzers/ncu/ncu_internal.h"
#include "analyzers/roofline/roofline_result.h"
#include "base/saturating.h"

namespace ampscope {

namespace {

// "12.0" -> (12, 0).
void ParseCc(const std::string& cc, Device& d) {
  const size_t dot = cc.find('.');
  if (cc.empty() || dot == std::string::npos) return;
  int major = -1, minor = -1;
  const auto a = std::from_chars(cc.data(), cc.data() + dot, major);
  const auto b = std::from_chars(cc.data() + dot + 1, cc.data() + cc.size(), minor);
  if (a.ec != std::errc() || b.ec != std::errc()) return;
  d.cc_major = major;
  d.cc_minor = minor;
}

// What the report needs of the CSV as an input: its path, size, diagnostics and devices.
InputInfo NcuInput(const NcuReport& rep, const AnalysisOptions& options) {
  Trace t;
  t.metadata.format = SourceFormat::kNcu;
  t.metadata.path = rep.path;
  t.metadata.event_count = rep.launches.size();
  t.metadata.input_bytes = rep.bytes;
  t.diagnostics = rep.diagnostics;
  std::set<int32_t> seen;
  for (const NcuLaunch& l : rep.launches) {
    if (!seen.insert(l.device).second) continue;
    Device d;
    d.id = l.device >= 0 ? l.device : 0;
    d.name = rep.device_name;
    d.vendor = GpuVendor::kNvidia;
    ParseCc(l.cc, d);
    if (const std::optional<double>& sms = l.get(NcuField::kSmCount)) d.sm_count = SaturatingCast<int32_t>(*sms);
    t.devices.push_back(std::move(d));
  }
  return DescribeInput(t, options);
}

TimeNs Ns(double ns) { return SaturatingCast<TimeNs>(std::round(std::max(0.0, ns))); }

// Kernel time by category and precision, launch statistics and the top kernels, from the
// launches' own durations.
void KernelTimes(const ncu::NcuResult& r, RankAnalysis& ra) {
  const NcuReport& rep = *r.report;
  const bool timed = r.weighting == "ncu duration";
  std::vector<TimeNs> durations;
  std::map<std::string, KernelSummary> by_name;
  TimeNs tc_ns = 0;
  for (const ncu::KernelRow& row : r.kernels) {
    const NcuLaunch& l = rep.launches[row.launch];
    const TimeNs d = timed ? Ns(row.weight_ns) : 0;
    ra.gpu.kernel_time_by_category_ns[static_cast<size_t>(row.cls.category)] += d;
    ra.gpu.kernel_time_by_precision_ns[static_cast<size_t>(row.cls.precision)] += d;
    ra.gpu.kernel_time_total_ns += d;
    ++ra.gpu.kernel_count;
    if (timed && d < 10'000) ++ra.gpu.kernels_under_10us;
    if (row.cls.tensor_core == TensorCoreUse::kYes) tc_ns += d;
    if (timed) durations.push_back(d);
    KernelSummary& k = by_name[l.name];
    if (k.count == 0) {
      k.name_str = l.name;
      k.cls = row.cls;
      k.min_ns = d;
    }
    ++k.count;
    k.total_ns += d;
    k.min_ns = std::min(k.min_ns, d);
    k.max_ns = std::max(k.max_ns, d);
  }
  ra.launches.kernels = ra.gpu.kernel_count;
  if (!durations.empty()) {
    std::sort(durations.begin(), durations.end());
    ra.launches.median_kernel_ns = durations[durations.size() / 2];
    ra.launches.pct_kernels_under_10us = 100.0 * static_cast<double>(ra.gpu.kernels_under_10us) / static_cast<double>(durations.size());
  }
  for (auto& [name, k] : by_name) ra.top_kernels.push_back(std::move(k));
  std::stable_sort(ra.top_kernels.begin(), ra.top_kernels.end(),
                   [](const KernelSummary& a, const KernelSummary& b) { return a.total_ns > b.total_ns; });
  TensorCoreResult& tc = ra.tensor_cores;
  tc.computed = true;
  tc.kernel_time_us = NsToUsRounded3(ra.gpu.kernel_time_total_ns);
  tc.tc_kernel_time_us = NsToUsRounded3(tc_ns);
  if (ra.gpu.kernel_time_total_ns > 0)
    tc.kernel_time_pct = diagnosis::Round(100.0 * static_cast<double>(tc_ns) / static_cast<double>(ra.gpu.kernel_time_total_ns), 3);
  const ncu::MeasuredValue& active = r.get(NcuField::kTensorPipeActivePct);
  if (active.value) {
    tc.active_pct = diagnosis::Round(*active.value, 3);
    uint64_t n = 0;
    for (const NcuLaunch& l : rep.launches) n += l.get(NcuField::kTensorPipeActivePct).has_value();
    tc.active_samples = n;
  }
}

void UnknownChecklist(RankAnalysis& ra) {
  const char* kItems[] = {"tensor_core_utilization", "autocast_coverage", "grad_scaler", "kernel_fusion",
                          "data_pipeline", "distributed_sync", "memory_fragmentation"};
  for (const char* id : kItems) {
    ChecklistItem c;
    c.id = id;
    c.status = CheckStatus::kUnknown;
    c.source = "unavailable";
    c.evidence = "an Nsight Compute CSV holds per-kernel metrics of the profiled launches, not a training step";
    c.how_to_know = "analyse a trace of the run, with this CSV beside it: ampscope analyze TRACE --ncu FILE";
    ra.checklist.push_back(std::move(c));
  }
}

}  // namespace

RankAnalysis AnalyzeNcuAlone(std::shared_ptr<const NcuReport> report, const AnalysisOptions& options) {
  auto r = std::make_shared<ncu::NcuResult>();
  r->report = report;
  r->source = "Nsight Compute";
  r->alone = true;
  ncu::RowsAlone(*r);
  double total = 0;
  for (const ncu::KernelRow& row : r->kernels) total += row.weight_ns;
  ncu::Measure(*r, total);
  RankAnalysis ra;
  ra.input_path = report->path;
  ra.format = SourceFormat::kNcu;
  ra.input_events = report->launches.size();
  ra.input = NcuInput(*report, options);
  ra.gpu_activity_recorded = true;
  KernelTimes(*r, ra);
  ncu::AddNcuFindings(*r, total, ra.findings);
  diagnosis::RankFindings(ra.findings);
  ncu::FillMatrixMeasured(r.get(), nullptr, /*alone=*/true, ra);
  UnknownChecklist(ra);
  // Alone, the profiled kernels' time is the whole (GPU-busy) time the savings are shares of.
  ra.joint_saving_pct = diagnosis::JointSavingPct(ra.findings, 100.0);
  auto roof = std::make_shared<roofline::RooflineResult>();
  roof->reason = "an Nsight Compute CSV has kernels but no ops and shapes to model (its FLOPs are in ncu.kernels[].flops)";
  ra.roofline = std::move(roof);
  ra.ncu = std::move(r);
  return ra;
}

std::shared_ptr<ncu::NcuResult> JoinNcu(const RankContext& ctx) {
  if (ctx.options().ncu == nullptr) return nullptr;
  auto joined = std::make_shared<ncu::NcuResult>();
  joined->report = ctx.options().ncu;
  joined->source = "Nsight Compute";
  ncu::JoinToTrace(ctx, *joined);
  return joined;
}

void AddJoinedNcuFindings(const RankContext& ctx, const ncu::NcuResult& joined, diagnosis::FindingSink& out) {
  ncu::AddNcuFindings(joined, static_cast<double>(ctx.window_ns()), &ctx.trace(), out);
}

void ApplyMeasuredMetrics(const RankContext& ctx, std::shared_ptr<ncu::NcuResult> joined, RankAnalysis& ra) {
  auto counters = std::make_shared<ncu::NcuResult>();
  if (!ncu::MeasureCounterTracks(ctx, *counters)) counters.reset();
  if (joined == nullptr && counters == nullptr) return;
  ncu::FillMatrixMeasured(joined.get(), counters.get(), /*alone=*/false, ra);
  if (joined != nullptr && counters != nullptr) {
    joined->counters = counters->counters;
    joined->counter_coverage_pct = counters->counter_coverage_pct;
    joined->sm_active_pct = counters->sm_active_pct;
  }
  ra.ncu = joined != nullptr ? std::shared_ptr<const ncu::NcuResult>(joined) : counters;
}

}  // namespace ampscope
