// The Device line of the reports (render/report_view.h), from report JSON alone: an AMD
// device has no NVIDIA compute capability, a trace without deviceProperties says so, and
// Kineto's cuda_driver_version is the CUDA driver API version (cudaDriverGetVersion encodes
// 1000 * major + 10 * minor: 12040 is 12.4).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "render/report_view.h"

namespace ampscope {
namespace device_label_test {
namespace {

using nlohmann::json;
using render::DevicesSummary;
using render::DriverLabel;

TEST(DeviceLabel, AmdDevicesShowNoComputeCapability) {
  json r = {{"devices", json::array({{{"name", "AMD Instinct MI250X"}, {"vendor", "amd"}, {"compute_capability", "9.0"}}})}};
  EXPECT_EQ(DevicesSummary(r), "AMD Instinct MI250X [AMD]");
  json n = {{"devices", json::array({{{"name", "Tesla V100-DGXS-32GB"}, {"vendor", "nvidia"}, {"compute_capability", "7.0"}}})}};
  EXPECT_EQ(DevicesSummary(n), "Tesla V100-DGXS-32GB (cc 7.0)");
}

TEST(DeviceLabel, NoDevicePropertiesIsSaid) {
  EXPECT_EQ(DevicesSummary(json{{"devices", json::array()}}), "unknown device (no deviceProperties in the trace)");
  json r = {{"devices", json::array({{{"name", ""}, {"vendor", "unknown"}, {"compute_capability", nullptr}}})}};
  EXPECT_EQ(DevicesSummary(r), "unknown GPU (no deviceProperties in the trace)");
}

// No deviceProperties, but kernel names that prove an architecture (the sampled A100 trace's
// cutlass_80_ kernels): the label says the compute capability is a lower bound inferred from
// kernel names, and which GPU's peaks were assumed; without an assumed GPU (sm86), none is named.
TEST(DeviceLabel, InferredArchitectureIsSaid) {
  json a100 = {{"devices", json::array({{{"name", ""}, {"vendor", "nvidia"}, {"compute_capability", "8.0"},
                                         {"compute_capability_basis", "inferred from kernel names: compute capability >= 8.0 (...)"},
                                         {"peak", {{"matched", "A100-80GB-SXM4"}, {"match", "assumed: ..."}}}}})}};
  EXPECT_EQ(DevicesSummary(a100), "NVIDIA GPU of compute capability >= 8.0 (inferred from kernel names; A100-80GB-SXM4 peaks assumed)");
  json sm86 = {{"devices", json::array({{{"name", ""}, {"vendor", "nvidia"}, {"compute_capability", "8.6"},
                                         {"compute_capability_basis", "inferred from kernel names: compute capability >= 8.6 (...)"},
                                         {"peak", {{"fp16_tflops", nullptr}, {"match", "... many GPUs share; pass --gpu"}}}}})}};
  EXPECT_EQ(DevicesSummary(sm86), "NVIDIA GPU of compute capability >= 8.6 (inferred from kernel names)");
  // Known from deviceProperties: unchanged.
  json v100 = {{"devices", json::array({{{"name", "Tesla V100-SXM2-32GB"}, {"vendor", "nvidia"}, {"compute_capability", "7.0"},
                                         {"compute_capability_basis", "device_properties"}}})}};
  EXPECT_EQ(DevicesSummary(v100), "Tesla V100-SXM2-32GB (cc 7.0)");
}

TEST(DeviceLabel, DriverIsTheCudaDriverApiVersion) {
  EXPECT_EQ(DriverLabel("12040"), "CUDA driver API 12.4 (12040)");
  EXPECT_EQ(DriverLabel("11080"), "CUDA driver API 11.8 (11080)");
  EXPECT_EQ(DriverLabel(""), "");
  EXPECT_EQ(DriverLabel("535.104.05"), "driver 535.104.05");
}

}  // namespace
}  // namespace device_label_test
}  // namespace ampscope
