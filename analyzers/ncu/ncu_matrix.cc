// The matrix from measured values: each dimension's headline becomes the seed's measure where the
// Nsight Compute file (or the trace's counter tracks) has it, and says how much kernel time it
// covers; the dimensions it cannot fill keep their estimate and say so.
#include <algorithm>

#include <fmt/format.h>

#include "analyzers/diagnosis/catalog.h"
#include "analyzers/diagnosis/facts.h"
#include "analyzers/ncu/ncu_internal.h"

namespace ampscope::ncu {

namespace {

using diagnosis::Round;

struct Pick {
  const MeasuredValue* value = nullptr;
  std::string source;  // "measured (Nsight Compute, 87% of kernel time covered)"
};

std::string SourceOf(const NcuResult& r, const MeasuredValue& m) {
  if (r.source == "PM sampling")
    return fmt::format("measured (PM sampling, mean over the analysed steps, {:.0f}% of kernel time covered)",
                       m.coverage_pct);
  return fmt::format("measured (Nsight Compute, {:.0f}% of kernel time covered)", m.coverage_pct);
}

// The field from the CSV, else from the counter tracks.
Pick PickField(const NcuResult* ncu, const NcuResult* counters, NcuField f) {
  for (const NcuResult* r : {ncu, counters}) {
    if (r == nullptr) continue;
    const MeasuredValue& m = r->get(f);
    if (m.value) return {&m, SourceOf(*r, m)};
  }
  return {};
}

DimensionStatus Worse(DimensionStatus a, DimensionStatus b) {
  auto rank = [](DimensionStatus s) {
    switch (s) {
      case DimensionStatus::kBad: return 3;
      case DimensionStatus::kWarn: return 2;
      case DimensionStatus::kGood: return 1;
      default: return 0;
    }
  };
  return rank(a) >= rank(b) ? a : b;
}

void AddMetric(FieldList& metrics, const char* key, const Pick& p) {
  if (p.value == nullptr) return;
  SetField(metrics, {key, Round(*p.value->value), Unit::kPct});
  SetField(metrics, {std::string(key) + "_coverage_pct", Round(p.value->coverage_pct), Unit::kPctOfKernelTime});
}

// Sets the headline from the first measured candidate; returns false when none is.
bool Headline(DimensionResult& d, const NcuResult* ncu, const NcuResult* counters,
              std::initializer_list<std::pair<NcuField, const char*>> candidates) {
  for (const auto& [field, unit] : candidates) {
    const Pick p = PickField(ncu, counters, field);
    if (p.value == nullptr) continue;
    if (!d.headline.name.empty() && d.headline.source.rfind("unavailable", 0) != 0)
      SetField(d.metrics, {"estimated_headline_" + d.headline.name, d.headline.value, Unit::kNone});
    d.headline = {NcuFieldName(field), Round(*p.value->value), unit, p.source};
    return true;
  }
  return false;
}

}  // namespace

void FillMatrixMeasured(const NcuResult* ncu, const NcuResult* counters, bool alone, RankAnalysis& ra) {
  const char* kAll[] = {"compute_intensity", "memory_bandwidth", "instruction_efficiency", "data_locality",
                        "task_parallelism"};
  if (ra.matrix.empty())
    for (const char* id : kAll) ra.matrix.push_back(DimensionResult{id, DimensionStatus::kUnknown, {}, {}, {}});
  const char* what = ncu != nullptr ? "the Nsight Compute file" : "the trace's counter tracks";
  for (DimensionResult& d : ra.matrix) {
    bool filled = false;
    if (d.id == "compute_intensity") {
      filled = Headline(d, ncu, counters, {{NcuField::kSmThroughputPct, "%"}});
      AddMetric(d.metrics, "sm_throughput_pct", PickField(ncu, counters, NcuField::kSmThroughputPct));
      // Sampled tensor-pipe activity is already the measured Tensor Core utilization (tensor_active_pct).
      const Pick tensor = PickField(ncu, counters, NcuField::kTensorPipeActivePct);
      const bool sampled = tensor.value != nullptr && (ncu == nullptr || !ncu->get(NcuField::kTensorPipeActivePct).value);
      if (!(sampled && FindField(d.metrics, "tensor_active_pct") != nullptr)) AddMetric(d.metrics, "tensor_pipe_active_pct", tensor);
      if (const Pick ipc = PickField(ncu, counters, NcuField::kIpc); ipc.value != nullptr)
        SetField(d.metrics, {"ipc", Round(*ipc.value->value, 3)});
      if (counters != nullptr && counters->sm_active_pct.value)
        SetField(d.metrics, {"sm_active_pct", Round(*counters->sm_active_pct.value), Unit::kPct});
    } else if (d.id == "memory_bandwidth") {
      filled = Headline(d, ncu, counters, {{NcuField::kDramThroughputPct, "%"}, {NcuField::kMemoryThroughputPct, "%"}});
      AddMetric(d.metrics, "dram_throughput_pct", PickField(ncu, counters, NcuField::kDramThroughputPct));
      AddMetric(d.metrics, "memory_throughput_pct", PickField(ncu, counters, NcuField::kMemoryThroughputPct));
    } else if (d.id == "instruction_efficiency") {
      filled = Headline(d, ncu, counters,
                        {{NcuField::kIssueActivePct, "%"}, {NcuField::kIpc, "inst/cycle"}, {NcuField::kAchievedOccupancyPct, "%"}});
      AddMetric(d.metrics, "issue_active_pct", PickField(ncu, counters, NcuField::kIssueActivePct));
      AddMetric(d.metrics, "achieved_occupancy_pct", PickField(ncu, counters, NcuField::kAchievedOccupancyPct));
      AddMetric(d.metrics, "theoretical_occupancy_pct", PickField(ncu, counters, NcuField::kTheoreticalOccupancyPct));
      if (ncu != nullptr && !ncu->stalls.empty()) {
        std::vector<FieldList> top;
        for (size_t i = 0; i < ncu->stalls.size() && i < 5; ++i)
          top.push_back({{"reason", ncu->stalls[i].reason}, {"share_pct", Round(ncu->stalls[i].share_pct), Unit::kPct}});
        SetField(d.metrics, {"warp_stall_reasons", top});
        SetField(d.metrics, {"warp_stall_coverage_pct", Round(ncu->stall_coverage_pct), Unit::kPctOfKernelTime});
      } else if (ncu != nullptr) {
        SetField(d.metrics, {"warp_stall_reasons_unavailable",
                             "not in the Nsight Compute file: collect --section WarpStateStats (or --set full)"});
      }
    } else if (d.id == "data_locality") {
      filled = Headline(d, ncu, counters, {{NcuField::kL2HitRatePct, "%"}, {NcuField::kL1HitRatePct, "%"}});
      AddMetric(d.metrics, "l2_hit_rate_pct", PickField(ncu, counters, NcuField::kL2HitRatePct));
      AddMetric(d.metrics, "l1_hit_rate_pct", PickField(ncu, counters, NcuField::kL1HitRatePct));
    } else if (alone) {  // task_parallelism
      d.headline = {"gpu_busy_pct", std::nullopt, "%",
                    "unavailable: Nsight Compute runs kernels one at a time (serialised), so overlap and idle time "
                    "need a timeline trace of the run"};
    }
    // Findings of the measured rules count against their dimension.
    DimensionStatus from_findings = DimensionStatus::kUnknown;
    for (const Finding& f : ra.findings) {
      if (f.dimension != d.id || f.id.rfind("ncu_", 0) != 0) continue;
      if (std::find(d.findings.begin(), d.findings.end(), f.id) == d.findings.end()) d.findings.push_back(f.id);
      from_findings = Worse(from_findings, f.severity == FindingSeverity::kCritical ? DimensionStatus::kBad
                                           : f.severity == FindingSeverity::kWarning ? DimensionStatus::kWarn
                                           : f.id == "ncu_l2_thrash" &&
                                                     FieldNumber(f.evidence, "kernel_time_pct").value_or(0) >= kL2WarnSharePct
                                               ? DimensionStatus::kWarn  // a risk without a time estimate
                                               : DimensionStatus::kGood);
    }
    if (alone) {
      DimensionStatus base = filled ? DimensionStatus::kGood : DimensionStatus::kUnknown;
      // [heur] half of ncu's 60% roof: the SMs do little of the work they could.
      if (d.id == "compute_intensity" && filled && d.headline.value)
        base = *d.headline.value >= kRoofPct ? DimensionStatus::kGood
               : *d.headline.value >= kRoofPct / 2 ? DimensionStatus::kWarn : DimensionStatus::kBad;
      d.status = filled ? Worse(base, from_findings) : DimensionStatus::kUnknown;
      if (!filled && d.id != "task_parallelism")
        d.headline = {d.id == "compute_intensity"    ? "sm_throughput_pct"
                      : d.id == "memory_bandwidth"   ? "dram_throughput_pct"
                      : d.id == "data_locality"      ? "l2_hit_rate_pct"
                                                     : "issue_active_pct",
                      std::nullopt, "%", std::string("unavailable: not in ") + what};
    } else {
      d.status = Worse(d.status, from_findings);
      // Beside a CSV, a dimension it cannot fill keeps the trace's proxy and says so (the compute
      // headline may be measured already: PM-sampled Tensor Core activity).
      if (!filled && ncu != nullptr && d.id != "task_parallelism" &&
          (d.id != "compute_intensity" || d.headline.source.rfind("estimated", 0) == 0))
        d.headline.source = std::string("estimated (a proxy from the trace; the Nsight Compute file has no ") +
                            (d.id == "compute_intensity"        ? "SM throughput"
                             : d.id == "memory_bandwidth"       ? "DRAM or memory throughput"
                             : d.id == "instruction_efficiency" ? "issue-slot, IPC or occupancy metric"
                                                                : "L1 or L2 hit rate") +
                            ")";
    }
  }
}

}  // namespace ampscope::ncu
