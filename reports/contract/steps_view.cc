#include "reports/contract/steps_view.h"

#include "reports/contract/view_members.h"

namespace ampscope::reports {

using nlohmann::json;
using namespace view;
namespace key = steps_key;

namespace {

StepView ReadStep(const json& s) {
  StepView out;
  out.number = NumberMember(s, key::kNumber);
  out.number_is_integer = Member(s, key::kNumber).is_number_integer();
  out.start_us = NumberMember(s, key::kStartUs);
  out.end_us = NumberMember(s, key::kEndUs);
  out.duration_us = NumberMember(s, key::kDurationUs);
  out.busy_pct = NumberMember(s, key::kBusyPct);
  out.kernel_busy_pct = NumberMember(s, key::kKernelBusyPct);
  out.tensor_core_kernel_pct = NumberMember(s, key::kTensorCoreKernelPct);
  return out;
}

std::optional<double> ReadNumber(const json& v) {
  if (!v.is_number()) return std::nullopt;
  return v.get<double>();
}

}  // namespace

StepsView ReadStepsView(const json& report) {
  StepsView v;
  const json& steps = Member(report, key::kSteps);
  v.count = NumberMember(steps, key::kCount);
  v.listed_truncated = TrueMember(Member(steps, key::kListed), key::kTruncated);
  v.source = StringMember(steps, key::kSource);
  const json& time = Member(steps, key::kTimeUs);
  v.mean_us = NumberMember(time, key::kMean);
  v.median_us = NumberMember(time, key::kMedian);
  v.p90_us = NumberMember(time, key::kP90);
  v.durations_us = ListMember<std::optional<double>>(steps, key::kDurationsUs, ReadNumber);
  v.windows = ListMember<StepView>(steps, key::kWindows, ReadStep);
  v.per_step = ListMember<StepView>(steps, key::kPerStep, ReadStep);
  if (const json& flagged = Member(steps, key::kFlagged); flagged.is_array())
    for (const json& f : flagged)
      if (f.is_object()) v.flagged.push_back({TextMember(f, key::kKind), TrueMember(f, key::kExcluded)});
  v.anchor = TextMember(steps, key::kAnchor);
  v.sampled_in_trace = NumberMember(Member(steps, key::kSampled), key::kInTrace);
  v.sampled_rule = TextMember(Member(steps, key::kSampled), key::kRule);
  return v;
}

}  // namespace ampscope::reports
