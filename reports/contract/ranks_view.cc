#include "reports/contract/ranks_view.h"

#include "reports/contract/report_fields.h"
#include "reports/contract/report_reader.h"
#include "reports/contract/view_members.h"

namespace ampscope::reports {

using nlohmann::json;
using namespace view;

namespace {

RankRow ReadRank(const json& r) {
  RankRow row;
  row.rank = NumberMember(r, ranks_key::kRank);
  row.input = TextMember(r, ranks_key::kInput);
  row.device = TextMember(r, ranks_key::kDevice);
  row.steps = NumberAt(r, report_field::kStepCount);
  row.step_time_mean_us = NumberAt(r, report_field::kStepTimeMeanUs);
  row.step_time_p90_us = NumberAt(r, report_field::kStepTimeP90Us);
  row.gpu_busy_pct = NumberAt(r, report_field::kGpuBusyPct);
  row.gpu_kernel_busy_pct = NumberAt(r, report_field::kGpuKernelBusyPct);
  row.gpu_idle_host_wait_pct = NumberAt(r, report_field::kGpuIdleHostWaitPct);
  row.tensor_core_kernel_time_pct = NumberAt(r, report_field::kTensorCoreKernelTimePct);
  return row;
}

}  // namespace

RanksView ReadRanksView(const json& report) {
  RanksView v;
  if (const json* ranks = FindPath(report, report_field::kRanks); ranks != nullptr && ranks->is_array()) {
    v.ranks.reserve(ranks->size());
    for (const json& r : *ranks) v.ranks.push_back(ReadRank(r));
  }
  const json& job = Member(report, job_key::kJob);
  if (const json& imb = Member(job, job_key::kImbalance); imb.is_object())
    v.imbalance = JobImbalance{NumberMember(imb, job_key::kStepTime), NumberMember(imb, job_key::kCompute),
                               NumberMember(imb, job_key::kCommunication)};
  if (const json& warnings = Member(job, job_key::kWarnings); warnings.is_array())
    for (const json& w : warnings)
      if (w.is_string()) v.warnings.push_back(w.get<std::string>());
  return v;
}

}  // namespace ampscope::reports
