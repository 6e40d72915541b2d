// The report's `kernels` section (docs/report_schema.md: the kernels with the most GPU time) as
// its readers see it: typed, and lenient as render/ has always been (a missing field, or one of
// another type, is nullopt / "" / false, never an exception). The section's field names are
// declared here once (kernels_key): the reader (kernels_view.cc) and the writer
// (reports/json_report.cc, KernelsSection) both use them, so a rename is one edit. The gate's
// validator names kernels.top by report_field::kKernelsTop.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ampscope::reports {

namespace kernels_key {
inline constexpr const char kKernels[] = "kernels";  // the section: top level, and ranks[]
inline constexpr const char kTop[] = "top";
inline constexpr const char kAllCount[] = "all_count";
inline constexpr const char kName[] = "name";
inline constexpr const char kCount[] = "count";
inline constexpr const char kTotalUs[] = "total_us";
inline constexpr const char kMeanUs[] = "mean_us";
inline constexpr const char kPct[] = "pct";
inline constexpr const char kCategory[] = "category";
inline constexpr const char kPrecision[] = "precision";
inline constexpr const char kTensorCore[] = "tensor_core";
}  // namespace kernels_key

// top[]: one kernel (all launches of one name).
struct TopKernel {
  std::string name;
  std::optional<double> count;     // launches
  std::optional<double> total_us;  // their summed time
  std::optional<double> mean_us;
  std::optional<double> pct;       // of the kernel time
  std::string category;            // the classifier's: "gemm", "conv", ...
  std::string precision;           // "fp16", "fp32", ...
  bool tensor_core = false;        // true only for a boolean true
};

struct KernelsView {
  std::vector<TopKernel> top;       // one per element of top[], largest first
  bool top_listed = false;          // top is a list, maybe empty (gate and diff skip a report without one)
  std::optional<double> all_count;  // distinct kernels in all
};

KernelsView ReadKernelsView(const nlohmann::json& report);

}  // namespace ampscope::reports
