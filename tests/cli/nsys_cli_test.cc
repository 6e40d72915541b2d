// `ampscope analyze|kernels|diff|gate` on Nsight Systems SQLite exports, through the built
// binary: the shared real exports end to end, bad exports (one line, exit 2, no outputs),
// and a synthetic export with GPU metrics whose Tensor Core activity is measured.
//
// Expected values: "README" = shared/traces/README.md; the synthetic exports' numbers are
// the ones this test writes (hand calculation beside each check).
#include <sqlite3.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/nsys_export_builder.h"
#include "support/test_support.h"

namespace nsys_cli_test {
namespace {

using ampscope::testing::BinaryPath;
using ampscope::testing::KernelRow;
using ampscope::testing::MakeTempDir;
using ampscope::testing::NsysExportBuilder;
using ampscope::testing::ReadFile;
using ampscope::testing::SharedPath;
using ampscope::testing::WriteFile;
using nlohmann::json;

const std::string kCloverleaf = "traces/nsys/pipit/perlmutter-cloverleaf-cuda.sqlite";
const std::string kSaxpy = "traces/nsys/pipit/saxpy-mpi-cuda_nsys_perlmutter0.sqlite";

struct RunResult {
  int exit_code;
  std::string out;  // stdout + stderr
};

RunResult RunAmpscope(const std::string& args) {
  const std::string cmd = BinaryPath("cli/ampscope") + " " + args + " 2>&1";
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

void ExecSql(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  EXPECT_EQ(rc, SQLITE_OK) << (err ? err : "") << " in " << sql;
  sqlite3_free(err);
  sqlite3_close(db);
}

class NsysCli : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeTempDir("ampscope_nsys_cli"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }
  // A writable copy of a shared export in the temp folder (never in the repository).
  std::string CopyShared(const std::string& relative, const std::string& name) {
    std::filesystem::copy_file(SharedPath(relative), Path(name));
    std::filesystem::permissions(Path(name), std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    return Path(name);
  }
  bool NoOutputs() const {
    for (const auto& e : std::filesystem::directory_iterator(dir_))
      if (e.path().filename().string().rfind("out", 0) == 0) return false;
    return true;
  }
  std::string dir_;
};

TEST_F(NsysCli, AnalyzesTheCloverleafExport) {
  AMPSCOPE_REQUIRE_INPUT(std::filesystem::exists(SharedPath(kCloverleaf)),
                         "missing input " + SharedPath(kCloverleaf) + " (shared/traces/nsys)");
  RunResult r = RunAmpscope("analyze " + SharedPath(kCloverleaf) + " -o " + Path("report.json") + " --no-color");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  json rep = json::parse(ReadFile(Path("report.json")));
  ASSERT_EQ(rep["inputs"].size(), 1u);
  EXPECT_EQ(rep["inputs"][0]["format"], "nsys");
  ASSERT_EQ(rep["devices"].size(), 1u);  // four GPUs in TARGET_INFO_GPU, work on one
  EXPECT_EQ(rep["devices"][0]["name"], "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(rep["devices"][0]["compute_capability"], "8.0");
  EXPECT_EQ(rep["gpu"]["kernel_count"], 1312);  // README
  EXPECT_NE(r.out.find("(nsys)"), std::string::npos);  // the terminal summary names the format
}

TEST_F(NsysCli, AnalyzesTheOldSaxpyExport) {
  AMPSCOPE_REQUIRE_INPUT(std::filesystem::exists(SharedPath(kSaxpy)),
                         "missing input " + SharedPath(kSaxpy) + " (shared/traces/nsys)");
  RunResult r = RunAmpscope("analyze " + SharedPath(kSaxpy) + " -o " + Path("report.json") + " -q");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  json rep = json::parse(ReadFile(Path("report.json")));
  EXPECT_EQ(rep["inputs"][0]["format"], "nsys");
  EXPECT_EQ(rep["devices"][0]["name"], "NVIDIA A100-SXM4-40GB");
  EXPECT_EQ(rep["devices"][0]["compute_capability"], "8.0");
  EXPECT_EQ(rep["gpu"]["kernel_count"], 5);  // README
  EXPECT_EQ(rep["diagnostics"]["counters"]["nsys_backtrace_duplicate"], 38);
}

TEST_F(NsysCli, KernelsDiffAndGateWorkOnNsysReports) {
  AMPSCOPE_REQUIRE_INPUT(std::filesystem::exists(SharedPath(kCloverleaf)),
                         "missing input " + SharedPath(kCloverleaf) + " (shared/traces/nsys)");
  RunResult k = RunAmpscope("kernels " + SharedPath(kCloverleaf) + " --json");
  ASSERT_EQ(k.exit_code, 0) << k.out;
  json kernels = json::parse(k.out);
  int64_t count = 0;
  for (const json& row : kernels) count += row["count"].get<int64_t>();
  EXPECT_EQ(count, 1312);  // README
  EXPECT_EQ(kernels.size(), 102u);  // sqlite3: SELECT count(DISTINCT demangledName) FROM CUPTI_ACTIVITY_KIND_KERNEL

  ASSERT_EQ(RunAmpscope("analyze " + SharedPath(kCloverleaf) + " -o " + Path("a.json") + " -q").exit_code, 0);
  ASSERT_EQ(RunAmpscope("analyze " + SharedPath(kCloverleaf) + " -o " + Path("b.json") + " -q").exit_code, 0);
  RunResult d = RunAmpscope("diff " + Path("a.json") + " " + Path("b.json") + " --json");
  ASSERT_EQ(d.exit_code, 0) << d.out;
  EXPECT_TRUE(json::accept(d.out)) << d.out.substr(0, 400);
  RunResult g = RunAmpscope("gate --baseline " + Path("a.json") + " --current " + Path("b.json") + " -q");
  EXPECT_EQ(g.exit_code, 0) << g.out;  // the same capture twice is no regression
}

TEST_F(NsysCli, TruncatedExport) {
  AMPSCOPE_REQUIRE_INPUT(std::filesystem::exists(SharedPath(kCloverleaf)),
                         "missing input " + SharedPath(kCloverleaf) + " (shared/traces/nsys)");
  const std::string full = ReadFile(SharedPath(kCloverleaf));
  WriteFile(Path("trunc.sqlite"), full.substr(0, full.size() / 3));
  RunResult r = RunAmpscope("analyze " + Path("trunc.sqlite") + " -o " + Path("out.json"));
  ExpectOneLineError(r, "trunc.sqlite", "truncated SQLite file");
  EXPECT_TRUE(NoOutputs());
}

TEST_F(NsysCli, SqliteThatIsNotAnExport) {
  ExecSql(Path("notes.db"), "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes VALUES (1, 'x')");
  RunResult r = RunAmpscope("analyze " + Path("notes.db") + " -o " + Path("out.json"));
  ExpectOneLineError(r, "notes.db", "not an Nsight Systems export");
  EXPECT_TRUE(NoOutputs());
}

TEST_F(NsysCli, ExportWithoutKernelAndRuntimeTables) {
  AMPSCOPE_REQUIRE_INPUT(std::filesystem::exists(SharedPath(kCloverleaf)),
                         "missing input " + SharedPath(kCloverleaf) + " (shared/traces/nsys)");
  const std::string copy = CopyShared(kCloverleaf, "dropped.sqlite");
  ExecSql(copy, "DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL; DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME");
  RunResult r = RunAmpscope("analyze " + copy + " -o " + Path("out.json"));
  ExpectOneLineError(r, "dropped.sqlite", "neither CUPTI_ACTIVITY_KIND_KERNEL nor CUPTI_ACTIVITY_KIND_RUNTIME");
  EXPECT_TRUE(NoOutputs());
}

TEST_F(NsysCli, ExportWithAnOptionalTableDroppedIsStillAnalysed) {
  AMPSCOPE_REQUIRE_INPUT(std::filesystem::exists(SharedPath(kCloverleaf)),
                         "missing input " + SharedPath(kCloverleaf) + " (shared/traces/nsys)");
  const std::string copy = CopyShared(kCloverleaf, "nosync.sqlite");
  ExecSql(copy, "DROP TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION");
  RunResult r = RunAmpscope("analyze " + copy + " -o " + Path("report.json") + " -q");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  json rep = json::parse(ReadFile(Path("report.json")));
  EXPECT_EQ(rep["gpu"]["kernel_count"], 1312);
  bool named = false;
  for (const json& m : rep["diagnostics"]["messages"])
    if (m["code"] == "nsys_table_missing")
      named = m["message"].get<std::string>().find("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION") != std::string::npos;
  EXPECT_TRUE(named) << rep["diagnostics"].dump();
}

TEST_F(NsysCli, NsysRepSaysHowToExport) {
  WriteFile(Path("capture.nsys-rep"), std::string("\x7f\x02report", 8));
  RunResult r = RunAmpscope("analyze " + Path("capture.nsys-rep") + " -o " + Path("out.json"));
  ExpectOneLineError(r, "capture.nsys-rep",
                     "nsys export --type sqlite --output " + Path("capture.sqlite") + " " + Path("capture.nsys-rep"));
  EXPECT_TRUE(NoOutputs());
}

// Three 10 ms steps of fp16 Tensor Core GEMMs on an A100, with Nsight Systems GPU metrics.
// Tensor Active samples inside the steps: 30, 50, 70 (mean 50); one sample of 0 before the
// first step is outside the analysed window.
void WriteGpuMetricsExport(const std::string& path, const std::string& step_name) {
  NsysExportBuilder b(path);
  b.Gpu(0, "NVIDIA A100-SXM4-80GB", 8, 0, 108, 84990623744);
  const int64_t ms = 1000000;
  for (int s = 0; s < 3; ++s) {
    const int64_t t0 = (s + 1) * 10 * ms;
    b.Nvtx(t0, t0 + 10 * ms, 59, step_name + " " + std::to_string(s));
    b.Api(t0 + 100000, t0 + 110000, 10 + s, "cudaLaunchKernel_v7000");
    KernelRow k;
    k.start = t0 + 200000;
    k.end = t0 + 9 * ms;
    k.correlation = 10 + s;
    k.name = "ampere_fp16_s16816gemm_fp16_128x128_ldg8_relu_f2f_stages_32x5_tn";
    k.grid[0] = 216;
    b.Kernel(k);
  }
  b.GpuMetricName(0x100, 12, "Tensor Active [Throughput %]");
  b.GpuMetricName(0x100, 3, "SMs Active [Throughput %]");
  b.GpuMetric(5 * ms, 0x100, 12, 0);
  b.GpuMetric(15 * ms, 0x100, 12, 30);
  b.GpuMetric(25 * ms, 0x100, 12, 50);
  b.GpuMetric(35 * ms, 0x100, 12, 70);
  b.GpuMetric(15 * ms, 0x100, 3, 95);
}

TEST_F(NsysCli, GpuMetricsMakeTensorCoreActivityMeasured) {
  WriteGpuMetricsExport(Path("metrics.sqlite"), "train_step");
  RunResult r = RunAmpscope("analyze " + Path("metrics.sqlite") + " -o " + Path("report.json") + " -q");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  json rep = json::parse(ReadFile(Path("report.json")));
  EXPECT_EQ(rep["steps"]["count"], 3);
  EXPECT_EQ(rep["steps"]["source"], "nvtx");
  EXPECT_EQ(rep["tensor_cores"]["source"], "measured");
  EXPECT_DOUBLE_EQ(rep["tensor_cores"]["active_pct"].get<double>(), 50.0);  // (30 + 50 + 70) / 3
  const json& headline = rep["matrix"]["compute_intensity"]["headline"];
  EXPECT_EQ(headline["source"], "measured");
  EXPECT_DOUBLE_EQ(headline["value"].get<double>(), 50.0);
  bool checked = false;
  for (const json& item : rep["checklist"]) {
    if (item["id"] != "tensor_core_utilization") continue;
    checked = true;
    EXPECT_NE(item["evidence"].get<std::string>().find("sampled Tensor Active 50.0%"), std::string::npos)
        << item.dump();
  }
  EXPECT_TRUE(checked);
}

TEST_F(NsysCli, StepPatternSelectsNvtxRanges) {
  WriteGpuMetricsExport(Path("batches.sqlite"), "batch");
  RunResult r = RunAmpscope("analyze " + Path("batches.sqlite") + " -o " + Path("report.json") + " -q --step-pattern 'batch \\d+'");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  json rep = json::parse(ReadFile(Path("report.json")));
  EXPECT_EQ(rep["steps"]["count"], 3);
  EXPECT_EQ(rep["steps"]["source"], "nvtx");
  // Each step: the range [t0, t0 + 10 ms).
  for (const json& d : rep["steps"]["durations_us"]) EXPECT_DOUBLE_EQ(d.get<double>(), 10000.0);
}

}  // namespace
}  // namespace nsys_cli_test
