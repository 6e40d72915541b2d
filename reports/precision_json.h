// The report's `precision` and the kernel top lists of `tensor_cores`, from the typed results
// (analyzers/results/precision_result.h). Field names: docs/classifier.md.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "analyzers/results/precision_result.h"

namespace ampscope {

// [{name, count, time_us, pct_of_kernel_time, category, precision}]
nlohmann::json KernelSharesJson(const std::vector<KernelShare>& v);
// {} when the precision analysis did not run.
nlohmann::json PrecisionJson(const PrecisionResult& p);

}  // namespace ampscope
