#include "reports/contract/kernels_view.h"

#include "reports/contract/view_members.h"

namespace ampscope::reports {

using nlohmann::json;
using namespace view;
namespace key = kernels_key;

namespace {

TopKernel ReadTopKernel(const json& k) {
  TopKernel out;
  out.name = TextMember(k, key::kName);
  out.count = NumberMember(k, key::kCount);
  out.total_us = NumberMember(k, key::kTotalUs);
  out.mean_us = NumberMember(k, key::kMeanUs);
  out.pct = NumberMember(k, key::kPct);
  out.category = TextMember(k, key::kCategory);
  out.precision = TextMember(k, key::kPrecision);
  out.tensor_core = TrueMember(k, key::kTensorCore);
  return out;
}

}  // namespace

KernelsView ReadKernelsView(const json& report) {
  KernelsView v;
  const json& kernels = Member(report, key::kKernels);
  v.top = ListMember<TopKernel>(kernels, key::kTop, ReadTopKernel);
  v.top_listed = Member(kernels, key::kTop).is_array();
  v.all_count = NumberMember(kernels, key::kAllCount);
  return v;
}

}  // namespace ampscope::reports
