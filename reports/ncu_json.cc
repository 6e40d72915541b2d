#include "reports/ncu_json.h"

#include <cmath>

#include "analyzers/ncu/ncu_result.h"
#include "reports/contract/ncu_view.h"

namespace ampscope {

namespace {

using nlohmann::json;
namespace key = reports::ncu_key;

json Opt(const std::optional<double>& v) { return v && std::isfinite(*v) ? json(*v) : json(nullptr); }

// The per-launch fields of the report's ncu.kernels[] (null where the file lacks the metric).
constexpr NcuField kKernelFields[] = {
    NcuField::kDurationNs,        NcuField::kSmThroughputPct,      NcuField::kIpc,
    NcuField::kDramThroughputPct, NcuField::kMemoryThroughputPct,  NcuField::kL1HitRatePct,
    NcuField::kL2HitRatePct,      NcuField::kAchievedOccupancyPct, NcuField::kTheoreticalOccupancyPct,
    NcuField::kTensorPipeActivePct, NcuField::kIssueActivePct,     NcuField::kWavesPerSm,
    NcuField::kRegistersPerThread, NcuField::kDramBytes,           NcuField::kGridSize,
    NcuField::kBlockSize};

json LaunchJson(const NcuReport& rep, const NcuLaunch& l, const ncu::KernelRow& row, bool alone) {
  json k = {{"id", l.id}, {key::kName, l.name}};
  if (rep.parts.size() > 1 && l.part < rep.parts.size()) k["file"] = rep.parts[l.part];
  k["grid"] = l.dims_known ? json::array({l.grid[0], l.grid[1], l.grid[2]}) : json(nullptr);
  k["block"] = l.dims_known ? json::array({l.block[0], l.block[1], l.block[2]}) : json(nullptr);
  for (NcuField f : kKernelFields) k[NcuFieldName(f)] = Opt(l.get(f));
  const std::optional<double>& dur = l.get(NcuField::kDurationNs);
  const std::optional<double>& bytes = l.get(NcuField::kDramBytes);
  k["dram_gbs"] = dur && bytes && *dur > 0 ? json(*bytes / *dur) : json(nullptr);  // bytes/ns = GB/s
  k["duration_source"] = l.duration_source.empty() ? json(nullptr) : json(l.duration_source);
  if (l.stalls.empty()) {
    k[key::kStallReasons] = nullptr;
  } else {
    json s = json::array();
    for (size_t i = 0; i < l.stalls.size() && i < 5; ++i) s.push_back({{key::kReason, l.stalls[i].reason}, {key::kSharePct, l.stalls[i].share_pct}});
    k[key::kStallReasons] = std::move(s);
    k["stall_metric"] = l.stall_metric;
  }
  if (l.flops.empty()) {
    k["flops"] = nullptr;
  } else {
    json f = json::array();
    for (const NcuFlops& x : l.flops) f.push_back({{"precision", x.precision}, {"path", x.path}, {"flop", x.flop}, {"metric", x.metric}});
    k["flops"] = std::move(f);
  }
  json rules = json::array();
  for (const NcuRule& r : l.rules)
    rules.push_back({{"section", r.section}, {"rule", r.name}, {"type", r.type}, {"description", r.description},
                     {"speedup_type", r.speedup_type.empty() ? json(nullptr) : json(r.speedup_type)},
                     {"est_speedup_pct", Opt(r.est_speedup_pct)}});
  k["rules"] = std::move(rules);
  k["category"] = KernelCategoryName(row.cls.category);
  k["precision"] = PrecisionName(row.cls.precision);
  k["tensor_core"] = TensorCoreUseName(row.cls.tensor_core);
  k[key::kBound] = ncu::BoundName(row.bound);
  k[key::kWeightUs] = row.weight_ns / 1e3;
  if (!alone) {
    k["trace_kernels"] = row.trace_kernels;
    k["match"] = row.match.empty() ? json(nullptr) : json(row.match);
  }
  return k;
}

json MeasuredJson(const ncu::MeasuredValue& m) {
  return {{"value", Opt(m.value)}, {"coverage_pct", m.coverage_pct}, {"metric", m.metric.empty() ? json(nullptr) : json(m.metric)}};
}

}  // namespace

json NcuJson(const RankAnalysis& ra) {
  if (ra.ncu == nullptr) return nullptr;
  const ncu::NcuResult& r = *ra.ncu;
  json out = {{key::kSource, r.source}, {key::kWeighting, r.weighting}};
  out[key::kMode] = r.alone ? "alone" : r.report != nullptr ? "joined" : "counters";
  json measured = json::object();
  for (NcuField f : kKernelFields) {
    const ncu::MeasuredValue& m = r.get(f);
    if (m.value) measured[NcuFieldName(f)] = MeasuredJson(m);
  }
  if (r.sm_active_pct.value) measured["sm_active_pct"] = MeasuredJson(r.sm_active_pct);
  out["measured"] = std::move(measured);
  json stalls = json::array();
  for (size_t i = 0; i < r.stalls.size() && i < 5; ++i) stalls.push_back({{key::kReason, r.stalls[i].reason}, {key::kSharePct, r.stalls[i].share_pct}});
  out[key::kStallReasons] = std::move(stalls);
  out["stall_coverage_pct"] = r.stall_coverage_pct;
  out["kernel_time_us"] = r.total_weight_ns / 1e3;
  if (r.report != nullptr) {
    const NcuReport& rep = *r.report;
    out[key::kFile] = rep.path;
    out[key::kFiles] = rep.parts;
    out[key::kShape] = NcuShapeName(rep.shape);
    out["device_name"] = rep.device_name.empty() ? json(nullptr) : json(rep.device_name);
    out["preamble_lines"] = rep.preamble_lines;
    json metric_set = json::array();
    for (const NcuMetric& m : rep.metrics)
      metric_set.push_back({{"name", m.name}, {"section", m.section.empty() ? json(nullptr) : json(m.section)},
                            {"unit", m.unit}});
    out["metric_set"] = std::move(metric_set);
    json sources = json::object();
    for (NcuField f : kKernelFields) {
      const std::string& s = rep.field_sources[static_cast<size_t>(f)];
      sources[NcuFieldName(f)] = s.empty() ? json(nullptr) : json(s);
    }
    out["field_sources"] = std::move(sources);
    json kernels = json::array();
    for (const ncu::KernelRow& row : r.kernels) kernels.push_back(LaunchJson(rep, rep.launches[row.launch], row, r.alone));
    out[key::kKernels] = std::move(kernels);
    if (!r.alone)
      out[key::kJoin] = {{"launches", rep.launches.size()},
                         {"launches_matched", r.launches_matched},
                         {key::kTraceKernels, r.trace_kernels},
                         {key::kTraceKernelsMatched, r.trace_kernels_matched},
                         {key::kKernelTimeCoveredPct, r.kernel_time_covered_pct},
                         {"rule", "kernel name (namespaces, casts and spaces evened out) + grid/block, then launch order"}};
  }
  json counters = json::array();
  for (const ncu::CounterTrack& c : r.counters)
    counters.push_back({{key::kName, c.name}, {key::kField, c.field}, {key::kSamples, c.samples}, {key::kMean, c.mean}});
  out[key::kCounters] = std::move(counters);
  if (!r.counters.empty()) out["counter_coverage_pct"] = r.counter_coverage_pct;
  return out;
}

json NcuSection(const JobAnalysis& job) {
  if (job.job.ncu != nullptr) return NcuJson(job.job);
  for (const RankAnalysis& ra : job.ranks)
    if (ra.ncu != nullptr) return NcuJson(ra);
  return nullptr;
}

}  // namespace ampscope
