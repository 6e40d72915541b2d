// Rows of an Nsight Compute CSV on its own, each launch's place against the roofs, and the
// weighted means the matrix shows.
#include <algorithm>
#include <map>

#include "analyzers/ncu/ncu_internal.h"

namespace ampscope::ncu {

const char* BoundName(Bound b) {
  switch (b) {
    case Bound::kCompute: return "compute";
    case Bound::kMemory: return "memory";
    case Bound::kLatency: return "latency";
    case Bound::kUnknown: break;
  }
  return "unknown";
}

namespace {

std::optional<double> MemoryPct(const NcuLaunch& l) {
  const std::optional<double>& m = l.get(NcuField::kMemoryThroughputPct);
  return m ? m : l.get(NcuField::kDramThroughputPct);
}

// The fields the matrix and the report average over kernels.
constexpr NcuField kMeasuredFields[] = {
    NcuField::kSmThroughputPct,       NcuField::kIpc,                     NcuField::kDramThroughputPct,
    NcuField::kMemoryThroughputPct,   NcuField::kL1HitRatePct,            NcuField::kL2HitRatePct,
    NcuField::kAchievedOccupancyPct,  NcuField::kTheoreticalOccupancyPct, NcuField::kTensorPipeActivePct,
    NcuField::kIssueActivePct,        NcuField::kWavesPerSm};

}  // namespace

std::optional<double> BusiestPct(const NcuLaunch& l) {
  const std::optional<double>& sm = l.get(NcuField::kSmThroughputPct);
  const std::optional<double> mem = MemoryPct(l);
  if (sm && mem) return std::max(*sm, *mem);
  return sm ? sm : mem;
}

Bound BoundOf(const NcuLaunch& l) {
  const std::optional<double>& sm = l.get(NcuField::kSmThroughputPct);
  const std::optional<double> mem = MemoryPct(l);
  if (!sm || !mem) return Bound::kUnknown;
  if (std::max(*sm, *mem) < kRoofPct) return Bound::kLatency;
  return *sm >= *mem ? Bound::kCompute : Bound::kMemory;
}

void RowsAlone(NcuResult& r) {
  const NcuReport& rep = *r.report;
  bool any_duration = false;
  for (const NcuLaunch& l : rep.launches) any_duration = any_duration || l.get(NcuField::kDurationNs).has_value();
  r.weighting = any_duration ? "ncu duration" : "launch count (no duration in the file)";
  r.kernels.clear();
  for (size_t i = 0; i < rep.launches.size(); ++i) {
    const NcuLaunch& l = rep.launches[i];
    KernelRow row;
    row.launch = i;
    row.cls = ClassifyKernel(l.name);
    row.weight_ns = any_duration ? std::max(0.0, l.get(NcuField::kDurationNs).value_or(0)) : 1.0;
    row.match = "alone";
    row.bound = BoundOf(l);
    r.kernels.push_back(std::move(row));
  }
}

void Measure(NcuResult& r, double total_weight_ns) {
  r.total_weight_ns = total_weight_ns;
  if (r.report == nullptr) return;
  const NcuReport& rep = *r.report;
  for (NcuField f : kMeasuredFields) {
    double num = 0, den = 0;
    for (const KernelRow& row : r.kernels) {
      const std::optional<double>& v = rep.launches[row.launch].get(f);
      if (!v || row.weight_ns <= 0) continue;
      num += *v * row.weight_ns;
      den += row.weight_ns;
    }
    MeasuredValue& m = r.measured[static_cast<size_t>(f)];
    m.metric = rep.field_sources[static_cast<size_t>(f)];
    if (den <= 0) continue;
    m.value = num / den;
    m.coverage_pct = total_weight_ns > 0 ? std::min(100.0, 100.0 * den / total_weight_ns) : 0;
  }
  // Stall reasons: each reason's share, weighted over the launches that have stall metrics.
  std::map<std::string, double> share;
  double den = 0;
  for (const KernelRow& row : r.kernels) {
    const NcuLaunch& l = rep.launches[row.launch];
    if (l.stalls.empty() || row.weight_ns <= 0) continue;
    den += row.weight_ns;
    for (const NcuStall& s : l.stalls) share[s.reason] += s.share_pct * row.weight_ns;
  }
  r.stalls.clear();
  if (den > 0) {
    for (const auto& [reason, v] : share) r.stalls.push_back({reason, v / den, v / den});
    std::stable_sort(r.stalls.begin(), r.stalls.end(),
                     [](const NcuStall& a, const NcuStall& b) { return a.share_pct > b.share_pct; });
    r.stall_coverage_pct = total_weight_ns > 0 ? std::min(100.0, 100.0 * den / total_weight_ns) : 0;
  }
}

}  // namespace ampscope::ncu
