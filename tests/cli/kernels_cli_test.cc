// `ampscope kernels` as a user runs it. Expected values were computed with Python over the
// shared traces' JSON (per-name count and sum of "dur" over all "kernel" events), independently
// of ampscope; labels follow the kernel naming conventions (diagnosis_rules.md §C).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "support/test_support.h"

namespace kernels_cli_test {
namespace {

using ampscope::testing::BinaryPath;
using ampscope::testing::HaveShared;
using ampscope::testing::MakeTempDir;
using ampscope::testing::ReadFile;
using ampscope::testing::SharedPath;

struct Result {
  int exit_code;
  std::string out;  // stdout
  std::string err;  // stderr
};

Result RunKernels(const std::string& args) {
  std::string dir = MakeTempDir("ampscope_kernels_cli");
  std::string err_path = dir + "/stderr.txt";
  std::string cmd = BinaryPath("cli/ampscope") + " kernels " + args + " 2>" + err_path;
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  int status = pclose(p);
  Result r{WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), out, ReadFile(err_path)};
  std::remove(err_path.c_str());
  std::remove(dir.c_str());
  return r;
}

const nlohmann::json* FindByName(const nlohmann::json& arr, const std::string& name) {
  for (const auto& k : arr)
    if (k["name"] == name) return &k;
  return nullptr;
}

TEST(KernelsCli, JsonOnNcclDataA100) {
  AMPSCOPE_REQUIRE_INPUT(HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=... or put shared/ next to the checkout)");
  Result r = RunKernels(SharedPath("traces/kineto/hta/nccl_data.json.gz") + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json arr = nlohmann::json::parse(r.out);
  ASSERT_TRUE(arr.is_array());
  // Python: 70 distinct kernel names, 2700 kernels, 162532.340 us.
  ASSERT_EQ(arr.size(), 70u);
  uint64_t count = 0;
  double total = 0;
  for (const auto& k : arr) {
    for (const char* key : {"name", "count", "total_us", "category", "precision", "tensor_core"})
      ASSERT_TRUE(k.contains(key)) << key << " missing in " << k.dump();
    ASSERT_TRUE(k["tensor_core"].is_boolean());
    count += k["count"].get<uint64_t>();
    total += k["total_us"].get<double>();
  }
  EXPECT_EQ(count, 2700u);
  EXPECT_NEAR(total, 162532.340, 0.01);
  // Sorted by total time: the NCCL all-reduce first (15 kernels, 46762.159 us).
  EXPECT_EQ(arr[0]["name"], "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)");
  EXPECT_EQ(arr[0]["count"], 15);
  EXPECT_NEAR(arr[0]["total_us"].get<double>(), 46762.159, 0.001);
  EXPECT_EQ(arr[0]["category"], "communication");
  EXPECT_EQ(arr[0]["precision"], "fp32");
  EXPECT_EQ(arr[0]["tensor_core"], false);
  // A TF32 CUTLASS GEMM: 69 kernels, 5581.360 us.
  const nlohmann::json* g = FindByName(
      arr,
      "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4>("
      "cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4::Params)");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ((*g)["count"], 69);
  EXPECT_NEAR((*g)["total_us"].get<double>(), 5581.360, 0.001);
  EXPECT_EQ((*g)["category"], "gemm");
  EXPECT_EQ((*g)["precision"], "tf32");
  EXPECT_EQ((*g)["tensor_core"], true);
  EXPECT_EQ((*g)["tensor_core_known"], true);
}

TEST(KernelsCli, TritonKernelHasUnknownTensorCoreUse) {
  AMPSCOPE_REQUIRE_INPUT(HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=... or put shared/ next to the checkout)");
  Result r = RunKernels(SharedPath("traces/kineto/hta/triton_example.json.gz") + " --json --explain");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json arr = nlohmann::json::parse(r.out);
  ASSERT_EQ(arr.size(), 1u);
  EXPECT_EQ(arr[0]["name"], "triton_poi_fused_add_cos_sin_0");
  EXPECT_EQ(arr[0]["count"], 1);
  EXPECT_NEAR(arr[0]["total_us"].get<double>(), 1.76, 1e-9);
  EXPECT_EQ(arr[0]["category"], "triton_fused");
  EXPECT_EQ(arr[0]["tensor_core"], false);
  EXPECT_EQ(arr[0]["tensor_core_known"], false);
  EXPECT_NE(arr[0]["rule"].get<std::string>().find("triton_"), std::string::npos);
}

TEST(KernelsCli, TopAndTable) {
  AMPSCOPE_REQUIRE_INPUT(HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=... or put shared/ next to the checkout)");
  std::string trace = SharedPath("traces/kineto/hta/nccl_data.json.gz");
  Result j = RunKernels(trace + " --json --top 3");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  EXPECT_EQ(nlohmann::json::parse(j.out).size(), 3u);

  Result t = RunKernels(trace + " --top 5");
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find("2700 kernels, 70 distinct"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("CLASS"), std::string::npos);  // category and precision: "communication fp32"
  EXPECT_NE(t.out.find("communication"), std::string::npos);
  EXPECT_NE(t.out.find("... 65 more"), std::string::npos) << t.out;
}

// Issue 16: `kernels --json` aborted (nlohmann type_error 316, exit 134) on a kernel name with
// the bytes \xff\xfe. Each bad byte is now U+FFFD and the output is valid JSON.
TEST(KernelsCli, JsonWithInvalidUtf8KernelName) {
  std::string dir = MakeTempDir("ampscope_kernels_utf8");
  std::string trace = dir + "/t.json";
  ampscope::testing::WriteFile(trace,
                               "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"bad_\xff\xfe_kernel\", "
                               "\"pid\": 0, \"tid\": 7, \"ts\": 10, \"dur\": 2, \"args\": {\"correlation\": 1}}]}");
  Result r = RunKernels(trace + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json arr = nlohmann::json::parse(r.out);
  ASSERT_EQ(arr.size(), 1u);
  EXPECT_EQ(arr[0]["name"], "bad_\xEF\xBF\xBD\xEF\xBF\xBD_kernel");
  EXPECT_EQ(arr[0]["count"], 1);
  std::remove(trace.c_str());
  std::remove(dir.c_str());
}

TEST(KernelsCli, ErrorsAreOneLineAndExit2) {
  Result missing = RunKernels("/nonexistent/dir/trace.json");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_TRUE(missing.out.empty());
  EXPECT_NE(missing.err.find("/nonexistent/dir/trace.json"), std::string::npos) << missing.err;
  EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1) << missing.err;

  std::string dir = MakeTempDir("ampscope_kernels_bad");
  std::string bad = dir + "/bad.json";
  ampscope::testing::WriteFile(bad, "{\"traceEvents\": [ {\"ph\": \"X\", ");
  Result truncated = RunKernels(bad + " --json");
  EXPECT_EQ(truncated.exit_code, 2);
  EXPECT_TRUE(truncated.out.empty());
  EXPECT_NE(truncated.err.find("bad.json"), std::string::npos) << truncated.err;
  EXPECT_EQ(std::count(truncated.err.begin(), truncated.err.end(), '\n'), 1) << truncated.err;
  std::remove(bad.c_str());
  std::remove(dir.c_str());

  Result usage = RunKernels("");  // no trace given
  EXPECT_EQ(usage.exit_code, 2);
  EXPECT_EQ(std::count(usage.err.begin(), usage.err.end(), '\n'), 1) << usage.err;
  EXPECT_EQ(RunKernels("x.json --top 0").exit_code, 2);
  EXPECT_EQ(RunKernels("x.json --no-such-option").exit_code, 2);
  EXPECT_EQ(RunKernels("--help").exit_code, 0);
}

}  // namespace
}  // namespace kernels_cli_test
