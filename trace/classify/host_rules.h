// The host-side name tables of host_rules_table.cc. Internal to trace/classify/.
#pragma once

#include <cstddef>
#include <string_view>

namespace ampscope::host_rules {

extern const std::string_view kEligibleOps[];            // exact aten op names
extern const size_t kEligibleOpCount;
extern const std::string_view kEligibleBackwardNodes[];  // autograd nodes, without version digits
extern const size_t kEligibleBackwardNodeCount;
extern const std::string_view kAutocastFp32Ops[];
extern const size_t kAutocastFp32OpCount;

// Optimizer classes and the implementations they offer.
struct OptimizerRow {
  std::string_view name;
  bool foreach;
  bool fused;
  bool already_fused;
  bool preconditioner = false;  // builds and inverts matrix preconditioners (Shampoo, SOAP): a heavy step by design
};
extern const OptimizerRow kOptimizers[];
extern const size_t kOptimizerCount;

}  // namespace ampscope::host_rules
