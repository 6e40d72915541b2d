#include "reports/json_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "base/atomic_write.h"
#include "base/parallel.h"
#include "base/units.h"
#include "reports/collectives_json.h"
#include "reports/contract/checklist_view.h"
#include "reports/contract/critical_path_view.h"
#include "reports/contract/diagnostics_view.h"
#include "reports/contract/findings_view.h"
#include "reports/contract/inputs_view.h"
#include "reports/contract/integrity_view.h"
#include "reports/contract/kernels_view.h"
#include "reports/contract/matrix_view.h"
#include "reports/contract/memory_snapshot_view.h"
#include "reports/contract/ncu_view.h"
#include "reports/contract/ranks_view.h"
#include "reports/contract/roofline_view.h"
#include "reports/contract/steps_view.h"
#include "reports/fields_json.h"
#include "reports/ncu_json.h"
#include "reports/precision_json.h"
#include "reports/memory_snapshot_json.h"
#include "reports/critical_path_json.h"
#include "reports/roofline_json.h"
#include "reports/step_list.h"

#ifndef AMPSCOPE_VERSION
#define AMPSCOPE_VERSION "0.1.0"
#endif

namespace ampscope {

namespace {

using nlohmann::json;

constexpr const char* kDimensionIds[] = {"compute_intensity", "memory_bandwidth", "instruction_efficiency",
                                         "data_locality", "task_parallelism"};
constexpr const char* kChecklistIds[] = {"tensor_core_utilization", "autocast_coverage", "grad_scaler",
                                         "kernel_fusion", "data_pipeline", "distributed_sync",
                                         "memory_fragmentation"};

json Pct(TimeNs part, TimeNs whole) {
  if (whole <= 0) return nullptr;
  return 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

json OptionalNumber(const std::optional<double>& v);

// Unit names of a rank without steps: its one unit is the analysed window, so "/step" would mean
// "per trace" ("us/step" -> "us/window", "% of step" -> "% of window").
std::string UnitOf(std::string unit, bool no_steps) {
  if (!no_steps) return unit;
  if (unit == "% of step") return "% of window";
  const size_t at = unit.rfind("/step");
  if (at != std::string::npos && at + 5 == unit.size()) unit.replace(at, 5, "/window");
  return unit;
}
json UnitsOf(json units, bool no_steps) {
  if (!no_steps || !units.is_object()) return units;
  for (auto& [key, v] : units.items())
    if (v.is_string()) v = UnitOf(v.get<std::string>(), true);
  return units;
}

json StepMetricsJson(const StepMetrics& s) {
  namespace key = reports::steps_key;
  json j = {{key::kNumber, s.number},
            {key::kName, s.name},
            {key::kStartUs, NsToUs(s.start_ns)},
            {key::kEndUs, NsToUs(s.end_ns)},
            {key::kDurationUs, NsToUs(s.duration_ns())},
            {key::kBusyPct, s.busy_pct},
            {key::kKernelBusyPct, s.kernel_busy_pct},
            {key::kTensorCoreKernelPct, s.tensor_core_kernel_pct},
            {key::kKernels, s.kernels},
            {key::kSyncs, s.syncs}};
  if (s.slowest_rank >= 0) j[key::kSlowestRank] = s.slowest_rank;
  return j;
}

}  // namespace

json PerStepJson(const std::vector<StepMetrics>& steps) {
  json out = json::array();
  for (const StepMetrics& s : steps) out.push_back(StepMetricsJson(s));
  return out;
}

namespace {

json NullIfEmpty(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

json OptionalNumber(const std::optional<double>& v) {
  if (!v || !std::isfinite(*v)) return nullptr;
  return *v;
}

}  // namespace

json TensorCoresJson(const TensorCoreResult& t) {
  json tc = {{"kernel_time_pct", OptionalNumber(t.kernel_time_pct)}, {"active_pct", OptionalNumber(t.active_pct)},
             {"source", t.source()}};
  if (!t.computed) return tc;
  tc["kernel_time_source"] = "estimated";
  tc["tc_kernel_time_us"] = t.tc_kernel_time_us;
  tc["kernel_time_us"] = t.kernel_time_us;
  tc["unknown_tc_kernel_time_pct"] = OptionalNumber(t.unknown_tc_kernel_time_pct);
  tc["top_kernels"] = KernelSharesJson(t.top_kernels);
  tc["unknown_top_kernels"] = KernelSharesJson(t.unknown_top_kernels);
  if (t.rocm_kernel_time_pct) {
    tc["rocm_kernel_time_pct"] = *t.rocm_kernel_time_pct;
    tc["note"] = t.rocm_note;
  }
  if (t.active_samples) tc["active_samples"] = *t.active_samples;
  return tc;
}

namespace {

json StepsSection(const RankAnalysis& ra) {
  namespace key = reports::steps_key;
  json steps;
  // Each step one by one only for the steps that matter (reports/step_list.h): the first, the
  // last and the longest. durations_us below keeps them all.
  std::vector<double> window_us;
  window_us.reserve(ra.steps.steps.size());
  for (const StepWindow& s : ra.steps.steps) window_us.push_back(static_cast<double>(SpanOrZero(s.start_ns, s.end_ns)));
  const std::vector<size_t> listed = ListedStepPositions(window_us);
  json windows = json::array();
  for (size_t i : listed) {
    const StepWindow& s = ra.steps.steps[i];
    windows.push_back({{key::kNumber, s.number},
                       {key::kName, s.name},
                       {key::kStartUs, NsToUs(s.start_ns)},
                       {key::kEndUs, NsToUs(s.end_ns)},
                       {key::kCpuEndUs, NsToUs(s.cpu_end_ns)}});
  }
  std::vector<size_t> per_step_listed = listed;
  if (ra.per_step.size() != ra.steps.steps.size()) {
    std::vector<double> per_step_us;
    for (const StepMetrics& s : ra.per_step) per_step_us.push_back(static_cast<double>(s.duration_ns()));
    per_step_listed = ListedStepPositions(per_step_us);
  }
  json per_step = json::array();
  for (size_t i : per_step_listed) per_step.push_back(StepMetricsJson(ra.per_step[i]));
  steps[key::kCount] = ra.steps.steps.size();
  steps[key::kListed] = ListedStepsJson(ra.steps.steps.size(), listed.size());
  steps[key::kSource] = StepSourceName(ra.steps.source);
  const StepStats& st = ra.step_stats;
  if (!st.known()) {
    steps[key::kTimeUs] = {{key::kMean, nullptr}, {key::kMedian, nullptr}, {key::kP90, nullptr}};
  } else {
    steps[key::kTimeUs] = {{key::kMean, st.mean_us}, {key::kMedian, st.median_us}, {key::kP90, st.p90_us}, {key::kMin, st.min_us},
                           {key::kMax, st.max_us}};
  }
  steps[key::kDurationsUs] = st.durations_us;
  steps[key::kWindows] = std::move(windows);
  steps[key::kDetected] = ra.steps.detected;
  steps[key::kAnchor] = NullIfEmpty(ra.steps.anchor);
  json flagged = json::array();
  for (const FlaggedStep& f : ra.steps.flagged)
    flagged.push_back({{key::kNumber, f.window.number},
                       {key::kName, f.window.name},
                       {key::kKind, StepFlagKindName(f.kind)},
                       {key::kExcluded, f.excluded},
                       {key::kDurationUs, NsToUs(f.window.duration_ns())},
                       {key::kReason, f.reason}});
  steps[key::kFlagged] = std::move(flagged);
  steps[key::kKernelsPerStep] = ra.steps.steps.empty() ? json(nullptr) : json(ra.launches.kernels_per_step);
  const StepSampling& sampled = ra.steps.sampling;
  steps[key::kSampled] = sampled.steps_in_trace == 0
                             ? json(nullptr)
                             : json{{key::kInTrace, sampled.steps_in_trace},
                                    {key::kAnalysed, sampled.steps_kept},
                                    {key::kRule, sampled.rule},
                                    {key::kEventsLeftOut, sampled.events_left_out}};
  steps[key::kPerStep] = std::move(per_step);
  return steps;
}

json GpuSection(const RankAnalysis& ra) {
  const GpuTimeAnalysis& g = ra.gpu;
  json gpu;
  gpu["activity_recorded"] = ra.gpu_activity_recorded;
  gpu["window_us"] = NsToUs(g.window_ns);
  gpu["busy_us"] = NsToUs(g.busy_ns);
  gpu["kernel_busy_us"] = NsToUs(g.kernel_busy_ns);
  gpu["memcpy_busy_us"] = NsToUs(g.memcpy_busy_ns);
  gpu["memset_busy_us"] = NsToUs(g.memset_busy_ns);
  gpu["busy_pct"] = Pct(g.busy_ns, g.window_ns);
  gpu["idle_pct"] = Pct(g.window_ns - g.busy_ns, g.window_ns);
  gpu["kernel_busy_pct"] = Pct(g.kernel_busy_ns, g.window_ns);
  gpu["idle_breakdown_pct"] = {{"host_wait", Pct(g.idle.host_wait_ns, g.window_ns)},
                               {"kernel_wait", Pct(g.idle.kernel_wait_ns, g.window_ns)},
                               {"other", Pct(g.idle.other_ns, g.window_ns)}};
  gpu["idle_breakdown_us"] = {{"host_wait", NsToUs(g.idle.host_wait_ns)},
                              {"kernel_wait", NsToUs(g.idle.kernel_wait_ns)},
                              {"other", NsToUs(g.idle.other_ns)},
                              {"gaps",
                               {{"host_wait", g.idle.host_wait_gaps},
                                {"kernel_wait", g.idle.kernel_wait_gaps},
                                {"other", g.idle.other_gaps}}}};
  json cat_pct = json::object(), cat_us = json::object(), prec_pct = json::object(), prec_us = json::object();
  // Kernel time by category and by precision: the non-zero entries, as % of all and in µs.
  auto shares = [&](const auto& by, auto name_of, json& pct, json& us) {
    for (size_t i = 0; i < by.size(); ++i) {
      if (by[i] == 0) continue;
      const char* name = name_of(i);
      pct[name] = Pct(by[i], g.kernel_time_total_ns);
      us[name] = NsToUs(by[i]);
    }
  };
  shares(g.kernel_time_by_category_ns, [](size_t c) { return KernelCategoryName(static_cast<KernelCategory>(c)); },
         cat_pct, cat_us);
  shares(g.kernel_time_by_precision_ns, [](size_t p) { return PrecisionName(static_cast<Precision>(p)); }, prec_pct,
         prec_us);
  gpu["kernel_time_by_category_pct"] = std::move(cat_pct);
  gpu["kernel_time_by_category_us"] = std::move(cat_us);
  gpu["kernel_time_by_precision_pct"] = std::move(prec_pct);
  gpu["kernel_time_by_precision_us"] = std::move(prec_us);
  gpu["kernel_time_total_us"] = NsToUs(g.kernel_time_total_ns);
  gpu["kernel_count"] = g.kernel_count;
  json by_dev = json::object();
  for (const auto& [dev, busy] : g.busy_by_device_ns) by_dev[std::to_string(dev)] = Pct(busy, g.window_ns);
  gpu["busy_pct_by_device"] = std::move(by_dev);
  return gpu;
}

json TensorCoresSection(const RankAnalysis& ra) { return TensorCoresJson(ra.tensor_cores); }

json MemoryTrafficSection(const RankAnalysis& ra) {
  json memcpy = json::object();
  for (const auto& [kind, s] : ra.memory.memcpy_by_kind) {
    memcpy[kind] = {{"count", s.count},
                    {"bytes", s.bytes},
                    {"time_us", NsToUs(s.time_ns)},
                    {"achieved_gbs", s.achieved_gbs()},
                    {"pageable_count", s.pageable_count},
                    {"pageable_bytes", s.pageable_bytes}};
  }
  json out = {{"memcpy", memcpy},
              {"memset",
               {{"count", ra.memory.memset_count},
                {"bytes", ra.memory.memset_bytes},
                {"time_us", NsToUs(ra.memory.memset_time_ns)}}}};
  size_t steps = ra.steps.steps.size();
  auto it = ra.memory.memcpy_by_kind.find("HtoD");
  uint64_t h2d = it == ra.memory.memcpy_by_kind.end() ? 0 : it->second.bytes;
  out["h2d_bytes_per_step"] = steps > 0 ? json(static_cast<double>(h2d) / steps) : json(nullptr);
  return out;
}

json SyncsSection(const RankAnalysis& ra) {
  json by_api = json::object();
  for (const auto& [api, n] : ra.syncs.by_api) by_api[api] = n;
  return {{"api_sync_count", ra.syncs.api_sync_count},
          {"cuda_sync_events", ra.syncs.cuda_sync_event_count},
          {"per_step", ra.steps.steps.empty() ? json(nullptr) : json(ra.syncs.syncs_per_step)},
          {"by_api", by_api},
          {"input_copies", ra.syncs.input_copy_count},
          {"host_blocked_us", NsToUs(ra.syncs.api_sync_time_ns)}};
}

json LaunchesSection(const RankAnalysis& ra) {
  const LaunchAnalysis& l = ra.launches;
  return {{"kernels", l.kernels},
          {"kernels_per_step", ra.steps.steps.empty() ? json(nullptr) : json(l.kernels_per_step)},
          {"launch_api_calls", l.launch_api_calls},
          {"launch_api_us", NsToUs(l.launch_api_time_ns)},
          {"median_kernel_us", NsToUs(l.median_kernel_ns)},
          {"pct_kernels_under_10us", l.pct_kernels_under_10us},
          {"graph_launched_kernels", l.graph_launched_kernels}};
}

json KernelsSection(const RankAnalysis& ra) {
  json top = json::array();
  TimeNs total = ra.gpu.kernel_time_total_ns;
  size_t n = 0;
  for (const KernelSummary& k : ra.top_kernels) {
    if (n++ >= 50) break;
    namespace key = reports::kernels_key;
    top.push_back({{key::kName, k.name_str},
                   {key::kCount, k.count},
                   {key::kTotalUs, NsToUs(k.total_ns)},
                   {key::kMeanUs, k.count ? NsToUs(k.total_ns) / k.count : 0.0},
                   {key::kPct, Pct(k.total_ns, total)},
                   {key::kCategory, KernelCategoryName(k.cls.category)},
                   {key::kPrecision, PrecisionName(k.cls.precision)},
                   {key::kTensorCore, k.cls.tensor_core == TensorCoreUse::kYes}});
  }
  return {{reports::kernels_key::kTop, top}, {reports::kernels_key::kAllCount, ra.top_kernels.size()}};
}

json GateMetrics(const RankAnalysis& ra) {
  size_t steps = ra.steps.steps.size();
  json m;
  m["kernels_per_step"] = steps ? json(ra.launches.kernels_per_step) : json(nullptr);
  m["syncs_per_step"] = steps ? json(ra.syncs.syncs_per_step) : json(nullptr);
  auto it = ra.memory.memcpy_by_kind.find("HtoD");
  uint64_t h2d = it == ra.memory.memcpy_by_kind.end() ? 0 : it->second.bytes;
  m["h2d_bytes_per_step"] = steps ? json(static_cast<double>(h2d) / steps) : json(nullptr);
  m["fp32_gemm_share_pct"] = OptionalNumber(ra.precision.fp32_simt_gemm_pct_of_gemm);
  m["tensor_core_kernel_pct"] = OptionalNumber(ra.tensor_cores.kernel_time_pct);
  m["cast_kernels_per_step"] = OptionalNumber(ra.precision.casts.count_per_step);
  return m;
}

json MatrixSection(const RankAnalysis& ra) {
  namespace key = reports::matrix_key;
  json m = json::object();
  for (const char* id : kDimensionIds) {
    m[id] = {{key::kStatus, "unknown"},
             {key::kHeadline, {{key::kName, nullptr}, {key::kValue, nullptr}, {key::kUnit, nullptr}, {key::kSource, "unavailable"}}},
             {key::kMetrics, json::object()},
             {key::kFindings, json::array()}};
  }
  for (const DimensionResult& d : ra.matrix) {
    m[d.id] = {{key::kStatus, DimensionStatusName(d.status)},
               {key::kHeadline,
                {{key::kName, d.headline.name},
                 {key::kValue, OptionalNumber(d.headline.value)},
                 {key::kUnit, d.headline.unit},
                 {key::kSource, d.headline.source}}},
               {key::kMetrics, FieldsJson(d.metrics)},
               {key::kMetricsUnits, UnitsOf(FieldUnitsJson(d.metrics), ra.steps.steps.empty())},
               {key::kFindings, d.findings}};
  }
  return m;
}

json ChecklistSection(const RankAnalysis& ra) {
  namespace key = reports::checklist_key;
  json items = json::array();
  for (const char* id : kChecklistIds) {
    const ChecklistItem* found = nullptr;
    for (const ChecklistItem& c : ra.checklist)
      if (c.id == id) found = &c;
    if (found == nullptr) {
      items.push_back({{key::kId, id},
                       {key::kStatus, "unknown"},
                       {key::kValue, nullptr},
                       {key::kUnit, nullptr},
                       {key::kThreshold, nullptr},
                       {key::kSource, "unavailable"},
                       {key::kEvidence, "not analysed"},
                       {key::kFindings, json::array()}});
      continue;
    }
    json item = {{key::kId, found->id},
                 {key::kStatus, CheckStatusName(found->status)},
                 {key::kValue, OptionalNumber(found->value)},
                 {key::kUnit, NullIfEmpty(UnitOf(UnitName(found->unit), ra.steps.steps.empty()))},
                 {key::kThreshold, found->threshold},
                 {key::kSource, found->source},
                 {key::kEvidence, found->evidence},
                 {key::kFindings, found->findings}};
    if (!found->how_to_know.empty()) item[key::kHowToKnow] = found->how_to_know;
    if (found->numbers_of_rank) item[key::kNumbersOfRank] = *found->numbers_of_rank;
    items.push_back(item);
  }
  return items;
}

json FindingsSection(const RankAnalysis& ra) {
  json out = json::array();
  for (const Finding& f : ra.findings) {
    json ranges = json::array();
    for (const auto& [s, e] : f.time_ranges) ranges.push_back({NsToUs(s), NsToUs(e)});
    namespace key = reports::findings_key;
    out.push_back({{key::kId, f.id},
                   {key::kSeverity, FindingSeverityName(f.severity)},
                   {key::kDimension, f.dimension.empty() ? json(nullptr) : json(f.dimension)},
                   {key::kChecklist, f.checklist.empty() ? json(nullptr) : json(f.checklist)},
                   {key::kTitle, f.title},
                   {key::kEvidence, FieldsJson(f.evidence)},
                   {key::kEvidenceUnits, UnitsOf(FieldUnitsJson(f.evidence), ra.steps.steps.empty())},
                   {key::kRecommendation, f.recommendation},
                   {key::kEstSavingPct, f.est_saving_pct},
                   {key::kConfidence, ConfidenceName(f.confidence)},
                   {key::kConfidenceReason, NullIfEmpty(f.confidence_reason)},
                   {key::kTimeRangesUs, ranges}});
  }
  return out;
}

json IntegrityJson(const TraceIntegrity& integrity) {
  json checks = json::array();
  for (const IntegrityCheck& c : integrity.checks) {
    namespace key = reports::integrity_key;
    json j = {{key::kId, c.id},
              {key::kStatus, IntegrityStatusName(c.status)},
              {key::kEvidence, c.evidence},
              {key::kAffects, c.affects},
              {"values", FieldsJson(c.values)},
              {"values_units", FieldUnitsJson(c.values)}};
    if (!c.ranks.empty()) j["ranks"] = c.ranks;
    checks.push_back(std::move(j));
  }
  return checks;
}

json DeviceJson(const DeviceInfo& info) {
  namespace ikey = reports::inputs_key;
  const Device& d = info.device;
  json dev = {{"id", d.id},
              {ikey::kName, d.name},
              {ikey::kVendor, GpuVendorName(d.vendor)},
              {ikey::kComputeCapability,
               // AMD traces carry the gfx generation there, not an NVIDIA compute capability.
               d.cc_major >= 0 && d.vendor != GpuVendor::kAmd ? json(std::to_string(d.cc_major) + "." + std::to_string(std::max(0, d.cc_minor)))
                               : json(nullptr)},
              {ikey::kComputeCapabilityBasis, d.cc_major < 0 || d.vendor == GpuVendor::kAmd ? json(nullptr)
                                              : d.arch_basis.empty()                        ? json("device_properties")
                                                                                            : json(d.arch_basis)},
              {"sm_count", d.sm_count >= 0 ? json(d.sm_count) : json(nullptr)},
              {"memory_bytes", d.total_memory_bytes >= 0 ? json(d.total_memory_bytes) : json(nullptr)}};
  json peak = {{"fp16_tflops", nullptr}, {"hbm_gbs", nullptr}};
  // The row the analysis found (analyzers/input_info.cc: --gpu-peaks or the built-in table).
  if (const std::optional<GpuPeak>& p = info.peak) {
    peak = {{"fp16_tflops", p->fp16_tflops},
            {"tf32_tflops", p->tf32_tflops > 0 ? json(p->tf32_tflops) : json(nullptr)},
            {"fp32_tflops", p->fp32_tflops},
            {"hbm_gbs", p->hbm_gbs},
            {ikey::kMatched, p->id}};
  }
  peak["match"] = info.peak_match.empty() ? json(nullptr) : json(info.peak_match);
  dev[ikey::kPeak] = std::move(peak);
  return dev;
}

json Optional(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

// What each top-level number of a job is (one rank: that rank), the per-rank balance and the
// warnings that the inputs may not be one job.
json JobSection(const JobAnalysis& analysis) {
  const bool several = analysis.ranks.size() > 1;
  json job = {{"ranks", analysis.ranks.size()},
             {"missing_ranks", analysis.missing_ranks},
             {"world_size", analysis.world_size > 0 ? json(analysis.world_size) : json(nullptr)}};
  job["definitions"] = several ? json{{"steps", "slowest rank: each job step lasts as long as its slowest rank's step"},
                                      {"gpu", "window-weighted mean over ranks"},
                                      {"tensor_cores", "mean over ranks of each rank's share"},
                                      {reports::kernels_key::kKernels, "sum over ranks (shares of the job's summed kernel time)"},
                                      {"memory_traffic", "sum over ranks"},
                                      {"syncs", "sum over ranks; per_step: mean over ranks"},
                                      {"launches", "sum over ranks; per-step and median values: mean over ranks"},
                                      {"matrix", "worst rank per dimension"},
                                      {"checklist", "worst rank per item"},
                                      {"findings", "each finding once, from the rank with the largest saving; evidence.ranks lists where it was seen; joint_saving_pct is the slowest rank's (the job finishes when it does)"},
                                      {"precision", "rank 0 (the first input)"},
                                      {reports::roofline_key::kRoofline, "per rank: see ranks[].roofline"},
                                      {reports::critical_path_key::kCriticalPath,
                                       "the rank with the longest analysed window (the job runs at its pace); "
                                       "replay_error_pct: the worst over ranks"}}
                               : json{{"all", "the one rank"}};
  json per_rank = json::array();
  for (const RankBalance& b : analysis.balance.ranks)
    per_rank.push_back({{reports::ranks_key::kRank, b.rank},
                        {reports::ranks_key::kInput, b.path},
                        {reports::ranks_key::kDevice, NullIfEmpty(b.device)},
                        {"steps", b.steps},
                        {"step_time_us", Optional(b.step_time_us)},
                        {"compute_per_step_us", NsToUs(b.compute_per_step_ns)},
                        {"communication_per_step_us", NsToUs(b.communication_per_step_ns)}});
  job["per_rank"] = std::move(per_rank);
  job[reports::job_key::kImbalance] = {{"definition", "max / mean over ranks (1 = balanced)"},
                                       {reports::job_key::kStepTime, Optional(analysis.balance.step_time_imbalance)},
                                       {reports::job_key::kCompute, Optional(analysis.balance.compute_imbalance)},
                                       {reports::job_key::kCommunication, Optional(analysis.balance.communication_imbalance)}};
  job[reports::job_key::kWarnings] = analysis.warnings;
  return job;
}

}  // namespace

json RankSection(const RankAnalysis& ra) {
  json r;
  r[reports::ranks_key::kRank] = ra.rank;
  r[reports::ranks_key::kInput] = ra.input_path;
  r[reports::ranks_key::kDevice] = ra.input.devices.empty() ? json(nullptr) : json(ra.input.devices.front().device.name);
  r[reports::steps_key::kSteps] = StepsSection(ra);
  r["gpu"] = GpuSection(ra);
  r["tensor_cores"] = TensorCoresSection(ra);
  r["gate_metrics"] = GateMetrics(ra);
  r["syncs"] = SyncsSection(ra);
  r["memory_traffic"] = MemoryTrafficSection(ra);
  r["launches"] = LaunchesSection(ra);
  r[reports::roofline_key::kRoofline] = RooflineSection(ra);
  if (ra.memory_snapshot != nullptr) r[reports::memory_snapshot_key::kMemorySnapshot] = MemorySnapshotJson(*ra.memory_snapshot);
  r[reports::integrity_key::kTraceIntegrity] = IntegrityJson(ra.integrity);
  r[reports::critical_path_key::kCriticalPath] = CriticalPathSection(ra);
  json statuses = json::object();
  for (const ChecklistItem& c : ra.checklist) statuses[c.id] = CheckStatusName(c.status);
  r["checklist_status"] = std::move(statuses);
  json finding_ids = json::array();
  for (const Finding& f : ra.findings) finding_ids.push_back(f.id);
  r["finding_ids"] = std::move(finding_ids);
  return r;
}

json BuildJsonReport(const JobAnalysis& analysis, const AnalysisOptions& options, size_t threads, bool with_ranks) {
  const RankAnalysis& job = analysis.job;
  json report;
  report["schema"] = kReportSchema;
  report["tool"] = {{"name", "ampscope"}, {"version", AMPSCOPE_VERSION}};

  json inputs = json::array();
  for (const RankAnalysis& ra : analysis.ranks) {
    const InputInfo& in = ra.input;
    inputs.push_back({{reports::inputs_key::kPath, in.path},
                      {reports::inputs_key::kFormat, SourceFormatName(in.format)},
                      {"rank", ra.rank},
                      {"events", in.events},
                      {"bytes", in.bytes},
                      {"world_size", in.world_size >= 0 ? json(in.world_size) : json(nullptr)}});
  }
  report[reports::inputs_key::kInputs] = std::move(inputs);
  if (!analysis.missing.empty()) {
    json missing = json::array();
    for (const MissingInput& m : analysis.missing) missing.push_back({{"path", m.path}, {"error", m.error}});
    report["missing_inputs"] = std::move(missing);
  }

  json devices = json::array();
  for (const DeviceInfo& d : analysis.devices) devices.push_back(DeviceJson(d));
  report[reports::inputs_key::kDevices] = std::move(devices);

  // Environment fingerprint for `ampscope gate`.
  json env = {{"gpu", nullptr}, {"driver", nullptr}, {"cuda", nullptr}, {"cupti", nullptr},
              {"framework", nullptr}, {"host", nullptr}};
  if (!analysis.devices.empty()) env["gpu"] = analysis.devices.front().device.name;
  if (!analysis.ranks.empty()) {
    const InputInfo& m = analysis.ranks.front().input;
    env["driver"] = NullIfEmpty(m.driver_version);
    env["cuda"] = NullIfEmpty(m.cuda_runtime_version);
    env["cupti"] = NullIfEmpty(m.cupti_version);
    env["framework"] = NullIfEmpty(m.framework_version);
    env["host"] = NullIfEmpty(m.host);
  }
  report["environment"] = std::move(env);

  report[reports::integrity_key::kTraceIntegrity] = IntegrityJson(analysis.integrity);
  report[reports::steps_key::kSteps] = StepsSection(job);
  report["gpu"] = GpuSection(job);
  report["tensor_cores"] = TensorCoresSection(job);
  report[reports::matrix_key::kMatrix] = MatrixSection(job);
  report[reports::checklist_key::kChecklist] = ChecklistSection(job);
  report[reports::findings_key::kFindings] = FindingsSection(job);
  report["joint_saving_pct"] = job.joint_saving_pct;
  report["gate_metrics"] = GateMetrics(job);
  report["memory_traffic"] = MemoryTrafficSection(job);
  report["syncs"] = SyncsSection(job);
  report["launches"] = LaunchesSection(job);
  report[reports::kernels_key::kKernels] = KernelsSection(job);
  report["precision"] = PrecisionJson(job.precision);
  report[reports::roofline_key::kRoofline] = RooflineSection(job);
  report[reports::critical_path_key::kCriticalPath] = CriticalPathSection(job);
  report["collectives"] = CollectivesJson(analysis.collectives, analysis.ranks);
  if (json snapshot = MemorySnapshotSection(analysis); !snapshot.is_null()) report[reports::memory_snapshot_key::kMemorySnapshot] = std::move(snapshot);
  // Measured kernel metrics (an Nsight Compute CSV, the trace's counter tracks): only when there are.
  if (json ncu = NcuSection(analysis); !ncu.is_null()) report[reports::ncu_key::kNcu] = std::move(ncu);

  // A thousand ranks' sections (each with its roofline table) are most of a merge's report.
  if (with_ranks) {
    std::vector<json> sections(analysis.ranks.size());
    ParallelFor(sections.size(), threads, [&](size_t i) { sections[i] = RankSection(analysis.ranks[i]); });
    report["ranks"] = json(std::move(sections));
  }
  report[reports::job_key::kJob] = JobSection(analysis);

  // Diagnostics: counters by code, and one message per code with where it was first seen and
  // what the code means (base/diagnostic_codes_table.h; null for a code the table does not
  // know, such as one a newer collector wrote into its file). Renderers show the description
  // and never look codes up themselves: they read only this JSON.
  auto description = [](const std::string& code) {
    const char* d = DescribeDiagnostic(code);
    return *d != '\0' ? json(d) : json(nullptr);
  };
  namespace dkey = reports::diagnostics_key;
  json counters = json::object(), messages = json::array();
  for (const RankAnalysis& ra : analysis.ranks) {
    for (const auto& [code, e] : ra.input.diagnostics.entries()) {
      counters[code] = counters.value(code, uint64_t{0}) + e.count;
      messages.push_back({{dkey::kCode, code},
                          {dkey::kSeverity, SeverityName(e.severity)},
                          {dkey::kDescription, description(code)},
                          {dkey::kCount, e.count},
                          {dkey::kFile, ra.input.path},
                          {dkey::kFirstOffset, e.first_offset},
                          {dkey::kMessage, e.first_message}});
    }
  }
  for (const auto& [code, e] : analysis.diagnostics.entries()) {
    counters[code] = counters.value(code, uint64_t{0}) + e.count;
    messages.push_back({{dkey::kCode, code},
                        {dkey::kSeverity, SeverityName(e.severity)},
                        {dkey::kDescription, description(code)},
                        {dkey::kCount, e.count},
                        {dkey::kFile, nullptr},
                        {dkey::kFirstOffset, e.first_offset},
                        {dkey::kMessage, e.first_message}});
  }
  // A rank read from a memory snapshot alone has no trace to record GPU activity in.
  if (!job.gpu_activity_recorded && job.format != SourceFormat::kMemorySnapshot) {
    const DiagnosticInfo& no_gpu = DiagnosticInfoOf(DiagCode::kNoGpuActivity);
    counters[no_gpu.id] = 1;
    messages.push_back({{dkey::kCode, no_gpu.id},
                        {dkey::kSeverity, SeverityName(no_gpu.severity)},
                        {dkey::kDescription, no_gpu.description},
                        {dkey::kCount, 1},
                        {dkey::kFile, nullptr},
                        {dkey::kFirstOffset, nullptr},
                        {dkey::kMessage,
                         "no GPU activity was recorded (no kernels, copies or memsets): the program ran without a "
                         "CUDA device or did no GPU work; host-side ranges and steps are still analysed"}});
  }
  report[dkey::kDiagnostics] = {{dkey::kCounters, counters}, {dkey::kMessages, messages}};

  json opts = {{"step_range_pattern", options.step_range_pattern},
               {"first_step", options.first_step ? json(*options.first_step) : json(nullptr)},
               {"last_step", options.last_step ? json(*options.last_step) : json(nullptr)},
               {"include_warmup", options.include_warmup},
               {"gpu_override", NullIfEmpty(options.gpu_override)}};
  report["analysis_options"] = std::move(opts);
  return report;
}

namespace {

// nlohmann's dump(2) of `j` as a member `indent` spaces in: its first line as a top-level
// dump's, the following ones `indent` spaces further in.
void DumpIndented(const json& j, unsigned indent, std::string* out) {
  nlohmann::detail::serializer<json> s(nlohmann::detail::output_adapter<char>(*out), ' ',
                                       json::error_handler_t::replace);
  s.dump(j, /*pretty_print=*/true, /*ensure_ascii=*/false, /*indent_step=*/2, indent);
}

// `rest`: the report with "ranks" as an empty array. Writes it with `n` entries spliced into
// that array, entry i dumped by `dump(i, text)` 4 spaces in, a batch of entries at a time on
// `threads` threads: the bytes of the whole report's dump(2).
void WriteSpliced(const json& rest, size_t n, const std::function<void(size_t, std::string*)>& dump,
                  std::ostream& out, size_t threads) {
  std::string top;
  DumpIndented(rest, 0, &top);
  const std::string empty = "\n  \"ranks\": []";  // a top-level member: 2 spaces after a raw newline
  const size_t at = top.find(empty);
  out.write(top.data(), static_cast<std::streamsize>(at + empty.size() - 1));
  out << "\n";
  const size_t batch = std::max<size_t>(64, 8 * std::max<size_t>(1, threads));
  std::vector<std::string> entries(std::min(n, batch));
  for (size_t first = 0; first < n; first += batch) {
    const size_t count = std::min(batch, n - first);
    ParallelFor(count, threads, [&](size_t i) {
      std::string& e = entries[i];
      e.assign("    ");
      dump(first + i, &e);
      e += first + i + 1 < n ? ",\n" : "\n";
    });
    for (size_t i = 0; i < count; ++i) out.write(entries[i].data(), static_cast<std::streamsize>(entries[i].size()));
  }
  out << "  ]";
  out.write(top.data() + at + empty.size(), static_cast<std::streamsize>(top.size() - at - empty.size()));
  out << "\n";
}

// The report without "ranks", and "ranks": [] in its place.
json WithEmptyRanks(const json& report) {
  json rest = json::object();
  for (auto it = report.begin(); it != report.end(); ++it)
    if (it.key() != "ranks") rest[it.key()] = it.value();  // the rest of a report is small
  rest["ranks"] = json::array();
  return rest;
}

}  // namespace

Status WriteReportText(const json& report, std::ostream& out, size_t threads) {
  const auto ranks = report.find("ranks");
  if (ranks == report.end() || !ranks->is_array() || ranks->size() < 2) {
    std::string text;
    DumpIndented(report, 0, &text);
    out << text << "\n";
    return Status::Ok();
  }
  WriteSpliced(WithEmptyRanks(report), ranks->size(),
               [&](size_t i, std::string* text) { DumpIndented((*ranks)[i], 4, text); }, out, threads);
  return Status::Ok();
}

Status WriteReportText(const json& report_without_ranks, const std::vector<RankAnalysis>& ranks, std::ostream& out,
                       size_t threads) {
  if (ranks.size() < 2) {  // small: the whole report at once
    json full = report_without_ranks;
    full["ranks"] = json::array();
    for (const RankAnalysis& ra : ranks) full["ranks"].push_back(RankSection(ra));
    return WriteReportText(full, out, threads);
  }
  WriteSpliced(WithEmptyRanks(report_without_ranks), ranks.size(),
               [&](size_t i, std::string* text) { DumpIndented(RankSection(ranks[i]), 4, text); }, out, threads);
  return Status::Ok();
}

std::string ReportText(const json& report, size_t threads) {
  std::ostringstream text;
  WriteReportText(report, text, threads);
  return std::move(text).str();
}

Status WriteTextFile(const std::string& text, const std::string& path) { return WriteFileAtomically(path, text); }

Status WriteJsonFile(const json& report, const std::string& path, int indent) {
  return WriteTextFile(report.dump(indent, ' ', false, json::error_handler_t::replace) + "\n", path);
}

}  // namespace ampscope
