// `ampscope analyze` on Nsight Compute CSVs, through the built binary: the shared exports alone,
// a CSV beside a trace (--ncu), and bad input (one line naming the file, exit 2, no outputs).
//
// Expected values: the shared files' own text (line numbers as `grep -n` prints them) and hand
// calculation on the trace and CSV this test writes.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/nsys_export_builder.h"
#include "support/test_support.h"

namespace ncu_cli_test {
namespace {

using ampscope::testing::BinaryPath;
using ampscope::testing::MakeTempDir;
using ampscope::testing::ReadFile;
using ampscope::testing::SharedPath;
using ampscope::testing::WriteFile;
using nlohmann::json;

struct RunResult {
  int exit_code;
  std::string out;  // stdout + stderr
};

// `ampscope analyze ARGS`.
RunResult RunAmpscope(const std::string& args) {
  const std::string cmd = BinaryPath("cli/ampscope") + " analyze " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  const int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), out};
}

void ExpectOneLineError(const RunResult& r, const std::string& file, const std::string& what) {
  EXPECT_EQ(r.exit_code, 2) << r.out;
  std::string text = r.out;
  while (!text.empty() && text.back() == '\n') text.pop_back();
  EXPECT_EQ(text.find('\n'), std::string::npos) << r.out;
  EXPECT_NE(text.find(file), std::string::npos) << r.out;
  EXPECT_NE(text.find(what), std::string::npos) << r.out;
}

class NcuCli : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeTempDir("ampscope_ncu_cli"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }
  std::string dir_;
};

#define REQUIRE_SHARED() \
  AMPSCOPE_REQUIRE_INPUT(ampscope::testing::HaveShared(), "shared/traces/ncu not found (AMPSCOPE_SHARED_DIR)")

TEST_F(NcuCli, SharedExportsAloneGiveTheKernelTableAndTheMeasuredMatrix) {
  REQUIRE_SHARED();
  const std::string rtx = SharedPath("traces/ncu/rtx5090_deepseek_ocr");
  const RunResult r = RunAmpscope(rtx + "/*.csv -o " + Path("r.json") + " --markdown " + Path("s.md") + " --html " +
                                  Path("r.html") + " --no-color");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("Measured kernels (Nsight Compute)"), std::string::npos);
  EXPECT_NE(r.out.find("of profiled kernel time"), std::string::npos);  // no step: savings say what they are of
  const json report = json::parse(ReadFile(Path("r.json")));
  EXPECT_EQ(report["inputs"][0]["format"], "ncu");
  const json& ncu = report["ncu"];
  EXPECT_EQ(ncu["mode"], "alone");
  EXPECT_EQ(ncu["files"].size(), 20u);
  ASSERT_EQ(ncu["kernels"].size(), 20u);
  for (const char* key : {"id", "name", "grid", "block", "duration_ns", "sm_throughput_pct", "ipc", "dram_throughput_pct",
                          "l1_hit_rate_pct", "l2_hit_rate_pct", "achieved_occupancy_pct", "tensor_pipe_active_pct",
                          "stall_reasons", "flops", "rules", "category", "precision", "tensor_core", "bound"})
    EXPECT_TRUE(ncu["kernels"][0].contains(key)) << key;
  EXPECT_TRUE(ncu["kernels"][0]["ipc"].is_null());  // not in these files: null, not 0
  EXPECT_GT(ncu["metric_set"].size(), 40u);
  EXPECT_EQ(report["matrix"]["memory_bandwidth"]["headline"]["name"], "dram_throughput_pct");
  EXPECT_EQ(report["matrix"]["memory_bandwidth"]["headline"]["source"], "measured (Nsight Compute, 100% of kernel time covered)");
  EXPECT_NE(ReadFile(Path("s.md")).find("### Measured kernels"), std::string::npos);
  EXPECT_NE(ReadFile(Path("r.html")).find("<section id=\"ncu\">"), std::string::npos);
}

TEST_F(NcuCli, OlderLongFormWithoutLaunchDims) {
  REQUIRE_SHARED();
  const RunResult r = RunAmpscope(SharedPath("traces/ncu/a100_bert/bert_torch_nsight.csv") + " -q -o " + Path("r.json"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const json k = json::parse(ReadFile(Path("r.json")))["ncu"]["kernels"][6];
  EXPECT_EQ(k["name"], "ampere_sgemm_32x32_sliced1x4_tn");
  EXPECT_TRUE(k["grid"].is_null());
  EXPECT_EQ(k["grid_size"], 64);   // line 417
  EXPECT_EQ(k["block_size"], 128); // line 415
  EXPECT_NEAR(k["duration_ns"].get<double>(), 9583.22 / 998252314.81 * 1e9, 1e-6);  // lines 402-403
  EXPECT_EQ(k["rules"][0]["type"], "WRN");
}

// A Kineto trace and, beside it, a CSV of two of its kernels in Nsight Compute's spelling.
TEST_F(NcuCli, CsvBesideATraceFillsTheMeasuredHeadlines) {
  const std::string trace = R"JSON({"traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 10, "tid": 11, "ts": 0, "dur": 1000},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 11, "ts": 1, "dur": 2, "args": {"correlation": 1}},
  {"ph": "X", "cat": "kernel", "name": "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4>)", "pid": 0, "tid": 7, "ts": 10, "dur": 300, "args": {"device": 0, "stream": 7, "correlation": 1, "grid": [58, 1, 1], "block": [32, 16, 1]}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 11, "ts": 4, "dur": 2, "args": {"correlation": 2}},
  {"ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x128_tn", "pid": 0, "tid": 7, "ts": 400, "dur": 100, "args": {"device": 0, "stream": 7, "correlation": 2, "grid": [8, 8, 1], "block": [256, 1, 1]}}
  ]})JSON";
  WriteFile(Path("trace.json"), trace);
  const std::string header =
      "\"ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";
  const std::string reduce = "void reduce_kernel<512, 1, ReduceOp<float, MeanOps<float, float, float, float>, unsigned int, float, 4>>(T3)";
  std::string csv = "==PROF== Connected to process 1\n" + header;
  for (const auto& [metric, unit, value] : std::initializer_list<std::tuple<const char*, const char*, const char*>>{
           {"Duration", "us", "290"}, {"Compute (SM) Throughput", "%", "2.17"}, {"Memory Throughput", "%", "33.91"},
           {"DRAM Throughput", "%", "33.91"}, {"L2 Hit Rate", "%", "12.59"}})
    csv += "\"0\",\"" + reduce + "\",\"(32, 16, 1)\",\"(58, 1, 1)\",\"8.0\",\"S\",\"" + metric + "\",\"" + unit + "\",\"" + value + "\"\n";
  WriteFile(Path("run.csv"), csv);
  const RunResult r = RunAmpscope(Path("trace.json") + " --ncu " + Path("run.csv") + " -q -o " + Path("r.json"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const json report = json::parse(ReadFile(Path("r.json")));
  const json& ncu = report["ncu"];
  EXPECT_EQ(ncu["mode"], "joined");
  EXPECT_EQ(ncu["join"]["trace_kernels_matched"], 1);
  // The reduction is 300 of the 400 us of kernel time: 75% covered; DRAM 33.91% over what it covers.
  EXPECT_NEAR(ncu["join"]["kernel_time_covered_pct"].get<double>(), 75.0, 1e-9);
  const json& mb = report["matrix"]["memory_bandwidth"]["headline"];
  EXPECT_EQ(mb["name"], "dram_throughput_pct");
  EXPECT_DOUBLE_EQ(mb["value"].get<double>(), 33.91);
  EXPECT_EQ(mb["source"], "measured (Nsight Compute, 75% of kernel time covered)");
  EXPECT_EQ(ncu["kernels"][0]["match"], "name+shape");
  // A trace's own report is unchanged by nothing: without --ncu there is no ncu block.
  const RunResult plain = RunAmpscope(Path("trace.json") + " -q -o " + Path("plain.json"));
  ASSERT_EQ(plain.exit_code, 0) << plain.out;
  EXPECT_FALSE(json::parse(ReadFile(Path("plain.json"))).contains("ncu"));
}

// Nsight Systems GPU metrics (nsys profile --gpu-metrics-devices) fill the DRAM throughput the
// same way: read + write bandwidth, each the mean of its samples inside the steps.
TEST_F(NcuCli, NsysGpuMetricsFillTheDramThroughput) {
  ampscope::testing::NsysExportBuilder b(Path("metrics.sqlite"));
  b.Gpu(0, "NVIDIA A100-SXM4-80GB", 8, 0, 108, 84990623744);
  const int64_t ms = 1000000;
  for (int s = 0; s < 2; ++s) {
    const int64_t t0 = (s + 1) * 10 * ms;
    b.Nvtx(t0, t0 + 10 * ms, 59, "train_step " + std::to_string(s));
    b.Api(t0 + 100000, t0 + 110000, 10 + s, "cudaLaunchKernel_v7000");
    ampscope::testing::KernelRow k;
    k.start = t0 + 200000;
    k.end = t0 + 9 * ms;
    k.correlation = 10 + s;
    k.name = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int)";
    b.Kernel(k);
  }
  b.GpuMetricName(0x100, 21, "DRAM Read Bandwidth [Throughput %]");
  b.GpuMetricName(0x100, 22, "DRAM Write Bandwidth [Throughput %]");
  b.GpuMetric(5 * ms, 0x100, 21, 99);  // before the first step: left out
  b.GpuMetric(15 * ms, 0x100, 21, 20);
  b.GpuMetric(25 * ms, 0x100, 21, 30);
  b.GpuMetric(15 * ms, 0x100, 22, 10);
  b.GpuMetric(25 * ms, 0x100, 22, 20);
  b.Close();
  const RunResult r = RunAmpscope(Path("metrics.sqlite") + " -q -o " + Path("r.json"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const json report = json::parse(ReadFile(Path("r.json")));
  const json& mb = report["matrix"]["memory_bandwidth"]["headline"];
  EXPECT_EQ(mb["name"], "dram_throughput_pct");
  EXPECT_DOUBLE_EQ(mb["value"].get<double>(), 40.0);  // (20 + 30) / 2 + (10 + 20) / 2
  EXPECT_EQ(mb["source"].get<std::string>().rfind("measured (PM sampling", 0), 0u) << mb.dump();
  EXPECT_EQ(report["ncu"]["mode"], "counters");
  EXPECT_EQ(report["ncu"]["counters"].size(), 2u);
}

TEST_F(NcuCli, BadInputIsOneLineAndWritesNothing) {
  WriteFile(Path("report.ncu-rep"), std::string("NV\0\1\2binary", 11));
  ExpectOneLineError(RunAmpscope(Path("report.ncu-rep") + " -o " + Path("r.json")), "report.ncu-rep",
                     "ncu -i " + Path("report.ncu-rep") + " --csv --page raw > " + Path("report.csv"));
  WriteFile(Path("table.csv"), "name,value\nx,1\n");
  ExpectOneLineError(RunAmpscope(Path("table.csv") + " -o " + Path("r.json")), "table.csv",
                     "not Nsight Compute CSV output");
  WriteFile(Path("trace.json"), R"({"traceEvents": []})");
  ExpectOneLineError(RunAmpscope(Path("trace.json") + " --ncu " + Path("table.csv") + " -o " + Path("r.json")), "table.csv",
                     "not Nsight Compute CSV output");
  const std::string csv = "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n\"0\",\"k\",\"Duration\",\"us\",\"1\"\n";
  WriteFile(Path("run.csv"), csv);
  ExpectOneLineError(RunAmpscope(Path("trace.json") + " " + Path("run.csv") + " -o " + Path("r.json")), "run.csv",
                     "is not a rank of a job");
  ExpectOneLineError(RunAmpscope(Path("run.csv") + " --chrome-trace " + Path("t.json") + " -o " + Path("r.json")), "",
                     "has no timeline");
  // Header but no launch rows.
  WriteFile(Path("empty.csv"), "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Value\"\n");
  ExpectOneLineError(RunAmpscope(Path("empty.csv") + " -o " + Path("r.json")), "empty.csv", "no kernel launch rows");
  EXPECT_FALSE(std::filesystem::exists(Path("r.json")));
  EXPECT_FALSE(std::filesystem::exists(Path("t.json")));
}

}  // namespace
}  // namespace ncu_cli_test
