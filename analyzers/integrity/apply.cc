// What the integrity checks do to the findings (analyzers/integrity/integrity.h).
#include <algorithm>

#include <fmt/format.h>

#include "analyzers/diagnosis/catalog.h"
#include "analyzers/diagnosis/rules.h"
#include "analyzers/integrity/integrity.h"

namespace ampscope {

namespace {

// Findings that read start-up as the steady state: on a cold-start window they would advise
// CUDA graphs or a larger batch for what is module loading and plan creation.
// allocation_churn too: the allocator calls of a cold window are its first cudaMallocs (which
// the warm-up check counts as one-time work) and the frees of a cache still finding its size,
// not the steady state's churn ("unset PYTORCH_NO_CUDA_MEMORY_CACHING" would be a guess).
constexpr const char* kGiveWayToColdStart[] = {"launch_bound", "low_gpu_utilization", "allocation_churn", "host_bound"};

// The memory item of a cold window whose allocation_churn gave way: when churn was what warned
// (no fragmentation or near-capacity finding stands), the allocator calls it counted are the
// process's first ones, so the steady state's churn is not known from this profile.
void ColdMemoryItem(RankAnalysis& ra) {
  auto item = std::find_if(ra.checklist.begin(), ra.checklist.end(), [](const ChecklistItem& c) { return c.id == "memory_fragmentation"; });
  if (item == ra.checklist.end() || (item->status != CheckStatus::kWarn && item->status != CheckStatus::kFail)) return;
  const bool other = std::any_of(ra.findings.begin(), ra.findings.end(), [](const Finding& f) {
    return f.id == "allocator_fragmentation" || f.id == "memory_peak_near_capacity";
  });
  if (other) return;
  item->status = CheckStatus::kUnknown;
  item->value.reset();
  item->evidence = "cold-start window: its allocator calls are the first ones, not the steady state's churn; " + item->evidence;
  item->how_to_know = "profile after warm-up (torch.profiler.schedule with wait and warmup steps) to see the steady state's allocator calls";
}

}  // namespace

void MarkLowConfidence(const TraceIntegrity& integrity, std::vector<Finding>& findings) {
  for (Finding& f : findings) {
    for (const IntegrityCheck& c : integrity.checks) {
      if (c.status == IntegrityStatus::kOk) continue;
      if (std::find(c.affects.begin(), c.affects.end(), f.id) == c.affects.end()) continue;
      f.confidence = Confidence::kLow;
      if (f.confidence_reason.find(c.id + ": ") != std::string::npos) continue;
      f.confidence_reason += (f.confidence_reason.empty() ? "" : " | ") + c.id + ": " + c.evidence;
    }
  }
}

void ApplyRankIntegrity(bool inference, RankAnalysis& ra) {
  std::vector<std::string> replaced;
  const IntegrityCheck* warm = ra.integrity.Find("warmup");
  const Field* cold = warm == nullptr ? nullptr : FindField(warm->values, "cold_start");
  if (cold != nullptr && std::holds_alternative<bool>(cold->value) && std::get<bool>(cold->value)) {
    for (const char* id : kGiveWayToColdStart) {
      auto it = std::find_if(ra.findings.begin(), ra.findings.end(), [&](const Finding& f) { return f.id == id; });
      if (it == ra.findings.end()) continue;
      replaced.push_back(id);
      ra.findings.erase(it);
      // The cold start explains what the finding it replaces explained (the consistency rule: a
      // bad dimension or a failing item names a finding).
      auto swap_in = [&](std::vector<std::string>& ids) {
        auto at = std::find(ids.begin(), ids.end(), id);
        if (at == ids.end()) return;
        ids.erase(at);
        if (std::find(ids.begin(), ids.end(), "cold_start_profiled") == ids.end()) ids.push_back("cold_start_profiled");
      };
      for (DimensionResult& d : ra.matrix) swap_in(d.findings);
      for (ChecklistItem& c : ra.checklist) swap_in(c.findings);
    }
    if (std::find(replaced.begin(), replaced.end(), "allocation_churn") != replaced.end()) ColdMemoryItem(ra);
    const double share = FieldNumber(warm->values, "one_time_work_pct_of_window").value_or(0);
    diagnosis::FindingSink out(ra.findings);
    Finding& x = out.Add(
        "cold_start_profiled", 0.0,
        fmt::format("The profile is a cold start: {:.0f}% of the analysed window is one-time CUDA work", share),
        std::string("Profile after warm-up: torch.profiler.schedule(wait=1, warmup=1, active=3) ") +
            (inference ? "around a loop of several calls (or call the model a few times before profiling)"
                               : "over several training steps") +
            ", so that module loading, cuDNN/cuBLAS plan creation and the first allocations happen before the "
            "profiled steps. Launch and idle figures of this profile show start-up, not the steady state.");
    x.evidence = {{"one_time_work_pct_of_window", share, Unit::kPct},
                  {"slow_first_launches", FieldNumber(warm->values, "slow_first_launches").value_or(0), Unit::kCount},
                  {"detail", warm->evidence},
                  {"replaces", replaced}};
    if (!replaced.empty())
      ra.joint_saving_pct = diagnosis::KeptJointSavingPct(ra.joint_saving_pct, ra.findings);
  }
  MarkLowConfidence(ra.integrity, ra.findings);
  // A check names the findings it makes unreliable among those this rank has (or that gave way to
  // it), and every metric.
  for (IntegrityCheck& c : ra.integrity.checks) {
    std::vector<std::string> kept;
    for (const std::string& a : c.affects) {
      const bool finding = diagnosis::CatalogOrder(a) < diagnosis::CatalogSize();
      const bool raised = std::any_of(ra.findings.begin(), ra.findings.end(), [&](const Finding& f) { return f.id == a; }) ||
                          std::find(replaced.begin(), replaced.end(), a) != replaced.end();
      if (!finding || raised) kept.push_back(a);
    }
    c.affects = std::move(kept);
  }
}

}  // namespace ampscope
