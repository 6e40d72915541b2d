// The contract's view of the report's `kernels` section (reports/contract/kernels_view.h), from
// report JSON written here by hand: every field read with its type, and a missing or mistyped
// field read as absent, never as an exception.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reports/contract/kernels_view.h"

namespace ampscope::reports {
namespace kernels_view_test {
namespace {

using json = nlohmann::json;

TEST(KernelsView, ReadsEveryFieldOfAFullSection) {
  const json report = json::parse(R"({"kernels": {"all_count": 37, "top": [
    {"name": "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_nn", "count": 480, "total_us": 91234.5, "mean_us": 190.07,
     "pct": 41.25, "category": "gemm", "precision": "fp16", "tensor_core": true}]}})");
  const KernelsView v = ReadKernelsView(report);
  EXPECT_EQ(v.all_count, 37);
  EXPECT_TRUE(v.top_listed);
  ASSERT_EQ(v.top.size(), 1u);
  const TopKernel& k = v.top[0];
  EXPECT_EQ(k.name, "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_nn");
  EXPECT_EQ(k.count, 480);
  EXPECT_EQ(k.total_us, 91234.5);
  EXPECT_EQ(k.mean_us, 190.07);
  EXPECT_EQ(k.pct, 41.25);
  EXPECT_EQ(k.category, "gemm");
  EXPECT_EQ(k.precision, "fp16");
  EXPECT_TRUE(k.tensor_core);
}

TEST(KernelsView, AMissingOrMistypedFieldIsAbsent) {
  const json report = json::parse(R"({"kernels": {"all_count": "37", "top": [
    {"name": 5, "count": "480", "pct": null, "category": ["gemm"], "tensor_core": "yes"}, 7, []]}})");
  const KernelsView v = ReadKernelsView(report);
  EXPECT_FALSE(v.all_count);
  ASSERT_EQ(v.top.size(), 3u);  // one per element; the non-objects read as all absent
  for (const TopKernel& k : v.top) {
    EXPECT_EQ(k.name, "");
    EXPECT_FALSE(k.count);
    EXPECT_FALSE(k.total_us);
    EXPECT_FALSE(k.pct);
    EXPECT_EQ(k.category, "");
    EXPECT_EQ(k.precision, "");
    EXPECT_FALSE(k.tensor_core);
  }
  EXPECT_TRUE(v.top_listed);
  EXPECT_TRUE(ReadKernelsView(json{{"kernels", {{"top", {{"name", "k"}}}}}}).top.empty());  // an object, not a list
  EXPECT_FALSE(ReadKernelsView(json{{"kernels", {{"top", {{"name", "k"}}}}}}).top_listed);
  EXPECT_TRUE(ReadKernelsView(json{{"kernels", {{"top", json::array()}}}}).top_listed);  // an empty list is a list
  EXPECT_TRUE(ReadKernelsView(json{{"kernels", nullptr}}).top.empty());
  EXPECT_TRUE(ReadKernelsView(json::array()).top.empty());
}

}  // namespace
}  // namespace kernels_view_test
}  // namespace ampscope::reports
