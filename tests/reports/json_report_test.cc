// The JSON report contract (shared/DESIGN.md): every field present with the right type, and
// numbers that agree with the analysis they came from.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "analyzers/analyze.h"
#include "pipeline/job.h"
#include "reports/json_report.h"
#include "support/test_support.h"
#include "support/trace_builder.h"
#include "trace/formats/kineto/kineto_reader.h"

namespace ampscope {
namespace json_report_test {
namespace {

using nlohmann::json;
using ampscope::testing::HaveShared;
using ampscope::testing::SharedPath;

json ReportFor(const std::vector<std::string>& rels) {
  std::vector<Trace> traces;
  for (const std::string& rel : rels) {
    StatusOr<Trace> t = ReadKinetoTrace(SharedPath(rel));
    EXPECT_TRUE(t.ok()) << t.status().message();
    traces.push_back(std::move(t).value());
  }
  AnalysisOptions opt;
  JobAnalysis job = AnalyzeJob(traces, opt);
  return BuildJsonReport(job, opt);
}

void ExpectContract(const json& r) {
  // Field names from DESIGN.md's "JSON report contract".
  EXPECT_EQ(r["schema"], "ampscope.report/1");
  EXPECT_EQ(r["tool"]["name"], "ampscope");
  EXPECT_TRUE(r["tool"]["version"].is_string());
  ASSERT_TRUE(r["inputs"].is_array());
  for (const json& in : r["inputs"]) {
    EXPECT_TRUE(in["path"].is_string());
    EXPECT_TRUE(in["format"] == "kineto" || in["format"] == "amptrace");
    EXPECT_TRUE(in["rank"].is_number_integer());
    EXPECT_TRUE(in["events"].is_number_integer());
  }
  for (const json& d : r["devices"]) {
    for (const char* k : {"id", "name", "vendor", "compute_capability", "peak"}) EXPECT_TRUE(d.contains(k)) << k;
    EXPECT_TRUE(d["peak"].contains("fp16_tflops"));
    EXPECT_TRUE(d["peak"].contains("hbm_gbs"));
  }
  const json& s = r["steps"];
  for (const char* k : {"count", "source", "time_us", "durations_us"}) EXPECT_TRUE(s.contains(k)) << k;
  for (const char* k : {"mean", "median", "p90"}) EXPECT_TRUE(s["time_us"].contains(k)) << k;
  EXPECT_EQ(s["durations_us"].size(), s["count"].get<size_t>());
  const json& g = r["gpu"];
  for (const char* k : {"busy_pct", "idle_pct", "kernel_busy_pct", "idle_breakdown_pct", "kernel_time_by_category_pct",
                        "kernel_time_by_precision_pct"})
    EXPECT_TRUE(g.contains(k)) << k;
  for (const char* k : {"host_wait", "kernel_wait", "other"}) EXPECT_TRUE(g["idle_breakdown_pct"].contains(k)) << k;
  for (const char* k : {"kernel_time_pct", "active_pct", "source"}) EXPECT_TRUE(r["tensor_cores"].contains(k)) << k;
  for (const char* dim : {"compute_intensity", "memory_bandwidth", "instruction_efficiency", "data_locality",
                          "task_parallelism"}) {
    ASSERT_TRUE(r["matrix"].contains(dim)) << dim;
    const json& m = r["matrix"][dim];
    for (const char* k : {"status", "headline", "metrics", "findings"}) EXPECT_TRUE(m.contains(k)) << dim << "." << k;
    for (const char* k : {"name", "value", "unit", "source"}) EXPECT_TRUE(m["headline"].contains(k)) << k;
  }
  ASSERT_EQ(r["checklist"].size(), 7u);
  for (const json& c : r["checklist"])
    for (const char* k : {"id", "status", "value", "threshold", "source", "evidence"}) EXPECT_TRUE(c.contains(k)) << k;
  for (const json& f : r["findings"])
    for (const char* k : {"id", "severity", "dimension", "checklist", "title", "evidence", "recommendation",
                          "est_saving_pct"})
      EXPECT_TRUE(f.contains(k)) << k;
  ASSERT_TRUE(r["ranks"].is_array());
  for (const json& rk : r["ranks"])
    for (const char* k : {"rank", "steps", "gpu", "tensor_cores"}) EXPECT_TRUE(rk.contains(k)) << k;
  EXPECT_TRUE(r["diagnostics"]["counters"].is_object());
  EXPECT_TRUE(r["diagnostics"]["messages"].is_array());
}

class JsonReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    AMPSCOPE_REQUIRE_INPUT(HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=... or put shared/ next to the checkout)");
  }
};

TEST_F(JsonReportTest, ResNet50ReportHasContractAndPluginNumbers) {
  json r = ReportFor({"traces/kineto/tb_plugin/worker0.1623143089861.pt.trace.json.gz"});
  ExpectContract(r);
  // tensorboard plugin golden (shared/traces/README.md): 6 steps, mean 177592 µs, 55.51%.
  EXPECT_EQ(r["steps"]["count"], 6);
  EXPECT_EQ(r["steps"]["source"], "profiler_step");
  EXPECT_NEAR(r["steps"]["time_us"]["mean"].get<double>(), 177592, 1776);
  EXPECT_NEAR(r["gpu"]["kernel_busy_pct"].get<double>(), 55.51, 0.5);
  // Median of the six plugin totals (hand calculation): (175153 + 179733) / 2 = 177443.
  EXPECT_NEAR(r["steps"]["time_us"]["median"].get<double>(), 177443, 2);
  // busy + host_wait + kernel_wait + other = 100 (DESIGN.md).
  const json& g = r["gpu"];
  double total = g["busy_pct"].get<double>() + g["idle_breakdown_pct"]["host_wait"].get<double>() +
                 g["idle_breakdown_pct"]["kernel_wait"].get<double>() + g["idle_breakdown_pct"]["other"].get<double>();
  EXPECT_NEAR(total, 100.0, 1e-6);
  EXPECT_NEAR(g["busy_pct"].get<double>() + g["idle_pct"].get<double>(), 100.0, 1e-6);
  // The device this process used is the V100 (the trace lists all eight visible GPUs).
  ASSERT_EQ(r["devices"].size(), 1u);
  EXPECT_EQ(r["devices"][0]["name"], "Tesla V100-DGXS-32GB");
  EXPECT_EQ(r["devices"][0]["compute_capability"], "7.0");
  EXPECT_EQ(r["devices"][0]["vendor"], "nvidia");
  EXPECT_EQ(r["environment"]["gpu"], "Tesla V100-DGXS-32GB");
  // Category shares add up to 100.
  double cat = 0;
  for (const auto& [k, v] : r["gpu"]["kernel_time_by_category_pct"].items()) cat += v.get<double>();
  EXPECT_NEAR(cat, 100.0, 1e-6);
}

TEST_F(JsonReportTest, AmdTraceIsMarkedNotNvidia) {
  json r = ReportFor({"traces/kineto/hta/mi250_minitoy_train_ROCm6_2_kineto.json.gz"});
  ExpectContract(r);
  ASSERT_FALSE(r["devices"].empty());
  for (const json& d : r["devices"]) {
    EXPECT_EQ(d["vendor"], "amd");
    // The trace's computeMajor 9 is the gfx generation (gfx90a), not an NVIDIA compute capability.
    EXPECT_TRUE(d["compute_capability"].is_null()) << d.dump();
  }
  // The joint saving counts overlapping idle once: never above 100 (issue 12).
  ASSERT_TRUE(r["joint_saving_pct"].is_number());
  EXPECT_LE(r["joint_saving_pct"].get<double>(), 100.0);
}

TEST_F(JsonReportTest, SeveralFilesAreRanksOfOneJob) {
  json r = ReportFor({"traces/kineto/tb_plugin/worker0.1623143089861.pt.trace.json.gz",
                      "traces/kineto/tb_plugin/worker0.1623143566756.pt.trace.json.gz"});
  ExpectContract(r);
  ASSERT_EQ(r["ranks"].size(), 2u);
  EXPECT_EQ(r["inputs"].size(), 2u);
  // The job's step is the slower rank's step, so its mean is at least each rank's mean.
  double job_mean = r["steps"]["time_us"]["mean"].get<double>();
  for (const json& rk : r["ranks"]) EXPECT_GE(job_mean + 1e-6, rk["steps"]["time_us"]["mean"].get<double>());
  // The ranks table names each rank's file and device; the job says what its numbers are.
  EXPECT_EQ(r["ranks"][1]["input"], SharedPath("traces/kineto/tb_plugin/worker0.1623143566756.pt.trace.json.gz"));
  EXPECT_EQ(r["ranks"][0]["device"], "Tesla V100-DGXS-32GB");
  EXPECT_EQ(r["job"]["ranks"], 2);
  EXPECT_EQ(r["job"]["definitions"]["steps"], "slowest rank: each job step lasts as long as its slowest rank's step");
  EXPECT_EQ(r["job"]["per_rank"].size(), 2u);
  // Both files are named worker0.* and have no distributedInfo, so the reader gives both rank 0
  // (from the name): the job view warns that they may be two runs (they are).
  ASSERT_EQ(r["job"]["warnings"].size(), 1u) << r["job"]["warnings"];
  EXPECT_NE(r["job"]["warnings"][0].get<std::string>().find("appears in more than one input"), std::string::npos);
}

// Top-kernel shares are of the job's summed kernel time, not rank 0's kernels over the sum
// (which halved every share on two ranks): the same trace twice has the one trace's shares.
TEST_F(JsonReportTest, JobKernelSharesAreNotHalved) {
  const std::string rel = "traces/kineto/tb_plugin/worker0.1623143089861.pt.trace.json.gz";
  const json one = ReportFor({rel});
  const json two = ReportFor({rel, rel});
  ASSERT_FALSE(one["kernels"]["top"].empty());
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(two["kernels"]["top"][i]["name"], one["kernels"]["top"][i]["name"]);
    EXPECT_NEAR(two["kernels"]["top"][i]["pct"].get<double>(), one["kernels"]["top"][i]["pct"].get<double>(), 1e-9);
    EXPECT_EQ(two["kernels"]["top"][i]["count"].get<int64_t>(), 2 * one["kernels"]["top"][i]["count"].get<int64_t>());
  }
  // One rank: the job is that rank, and nothing to balance.
  EXPECT_EQ(one["job"]["definitions"]["all"], "the one rank");
  EXPECT_TRUE(one["job"]["imbalance"]["step_time"].is_null());
}

TEST(JsonReport, NoGpuActivityIsSaidClearly) {
  Trace t;
  Range r;
  r.start_ns = 0;
  r.end_ns = 1000;
  r.name = t.strings.Intern("step");
  r.kind = RangeKind::kNvtx;
  t.ranges.push_back(r);
  t.metadata.format = SourceFormat::kAmptrace;
  FinalizeTrace(t);
  std::vector<Trace> traces{t};
  JobAnalysis job = AnalyzeJob(traces, {});
  json rep = BuildJsonReport(job, {});
  ExpectContract(rep);
  EXPECT_EQ(rep["steps"]["count"], 1);
  EXPECT_EQ(rep["steps"]["source"], "nvtx");
  EXPECT_FALSE(rep["gpu"]["activity_recorded"].get<bool>());
  EXPECT_EQ(rep["diagnostics"]["counters"]["no_gpu_activity"], 1);
  // Nothing measured is not "nothing to fix": a finding says so, with the likely cause (NVTX
  // ranges only: CUPTI was not loaded), and every checklist item is unknown.
  ASSERT_EQ(rep["findings"].size(), 1u);
  EXPECT_EQ(rep["findings"][0]["id"], "no_gpu_activity_recorded");
  EXPECT_NE(rep["findings"][0]["evidence"]["likely_cause"].get<std::string>().find("CUPTI was not loaded"), std::string::npos);
  for (const json& c : rep["checklist"]) EXPECT_EQ(c["status"], "unknown") << c["id"];
  EXPECT_EQ(rep["joint_saving_pct"], 0.0);
}

// ReportText serialises the ranks on several threads and splices them in: its bytes must be
// nlohmann's own dump(2) (the reference here), whatever the entries hold.
TEST(JsonReport, ReportTextIsTheIndentedDump) {
  json rank = {{"rank", 0},
               {"ranks", json::array({1, 2})},  // a nested "ranks" is not the top-level one
               {"name", "line\nbreak \"quoted\" \xff\xfe"},  // escapes, invalid UTF-8 replaced
               {"roofline", {{"ops", json::array({json::object(), json::array(), {{"a", nullptr}}})}}}};
  json report = {{"schema", "ampscope.report/1"}, {"ranks", json::array()}, {"steps", {{"count", 3}}},
                 {"z_last", "  \"ranks\": []"}};
  const auto dump = [](const json& j) { return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n"; };
  EXPECT_EQ(ReportText(report), dump(report));  // no ranks
  for (int n : {1, 2, 3, 17}) {
    report["ranks"].push_back(json::object());
    report["ranks"].push_back(rank);
    report["ranks"].back()["rank"] = n;
    for (size_t threads : {1, 2, 4}) EXPECT_EQ(ReportText(report, threads), dump(report)) << n << " ranks, " << threads << " threads";
  }
}

// A report built without "ranks", written with the ranks' sections made as they are written, has
// the bytes of the full report's dump(2) (the reference): with 0, 1, 2 and 8 ranks of the shared
// DLRM job, on 1 and 2 threads.
TEST(JsonReport, RanksWrittenFromTheJobAreTheFullReportsBytes) {
  AMPSCOPE_REQUIRE_INPUT(HaveShared(), "shared/ not available");
  std::vector<std::string> paths;
  for (const auto& e : std::filesystem::directory_iterator(SharedPath("traces/kineto/param_dlrm_8ranks")))
    paths.push_back(e.path().string());
  std::sort(paths.begin(), paths.end());
  ASSERT_EQ(paths.size(), 8u);
  std::vector<Trace> traces;
  for (const std::string& path : paths) {
    StatusOr<Trace> t = ReadKinetoTrace(path);
    ASSERT_TRUE(t.ok()) << t.status().message();
    traces.push_back(std::move(t).value());
  }
  AnalysisOptions opt;
  const auto dump = [](const json& j) { return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n"; };
  for (size_t n : {0, 1, 2, 8}) {
    std::vector<Trace> some;
    for (size_t i = 0; i < n; ++i) some.push_back(traces[i]);
    const JobAnalysis job = AnalyzeJob(some, opt);
    const json without = BuildJsonReport(job, opt, 1, /*with_ranks=*/false);
    EXPECT_FALSE(without.contains("ranks"));
    const std::string full = dump(BuildJsonReport(job, opt, 1));
    for (size_t threads : {1, 2}) {
      std::ostringstream out;
      ASSERT_TRUE(WriteReportText(without, job.ranks, out, threads).ok());
      EXPECT_EQ(out.str(), full) << n << " ranks, " << threads << " threads";
    }
  }
}

TEST(JsonReport, WriteIsAtomic) {
  std::string dir = ampscope::testing::MakeTempDir("ampscope_json");
  EXPECT_TRUE(WriteJsonFile(json{{"a", 1}}, dir + "/r.json").ok());
  EXPECT_EQ(json::parse(ampscope::testing::ReadFile(dir + "/r.json"))["a"], 1);
  Status st = WriteJsonFile(json{{"a", 1}}, dir + "/missing/r.json");
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("missing/r.json"), std::string::npos);
}

// Typed evidence: the JSON keeps each value's type (an integer stays an integer, a list of
// records is an array of objects), and units come out as evidence_units / checklist unit.
// Expected values are the inputs written above, by hand.
TEST(JsonReport, TypedEvidenceAndUnits) {
  JobAnalysis job;
  Finding f;
  f.id = "host_sync";
  f.severity = FindingSeverity::kWarning;
  f.evidence = {{"grad_scaler_syncs", 2, Unit::kCount},
                {"idle_after_syncs_pct", 12.5, Unit::kPct},
                {"exposed_us_per_step", 3.0, Unit::kUsPerStep},
                {"skipped_steps", std::vector<int64_t>{3, 4}},
                {"top_kernels", std::vector<KernelTime>{{"k", 7, 1.5}}},
                {"sync_calls", std::vector<FieldList>{{{"call", "cudaStreamSynchronize"}, {"count", 9, Unit::kCount}}}},
                {"estimate", "an explanation"},
                {"missing", std::optional<double>()}};
  job.job.findings.push_back(f);
  ChecklistItem c;
  c.id = "data_pipeline";
  c.status = CheckStatus::kPass;
  c.value = 1.25;
  c.unit = Unit::kPctOfStep;
  job.job.checklist.push_back(c);
  DimensionResult d;
  d.id = "memory_bandwidth";
  d.metrics = {{"h2d_bytes_per_step", 1024.0, Unit::kBytesPerStep}, {"memory_unavailable", "why"}};
  job.job.matrix.push_back(d);
  job.job.steps.steps.push_back(StepWindow{});  // with steps, per-step units are per step
  const json r = BuildJsonReport(job, AnalysisOptions());

  const json& ev = r["findings"][0]["evidence"];
  EXPECT_TRUE(ev["grad_scaler_syncs"].is_number_integer());
  EXPECT_EQ(ev["grad_scaler_syncs"], 2);
  EXPECT_TRUE(ev["exposed_us_per_step"].is_number_float());
  EXPECT_EQ(ev["skipped_steps"], json::parse("[3,4]"));
  EXPECT_EQ(ev["top_kernels"], json::parse(R"([{"name":"k","count":7,"time_us":1.5}])"));
  EXPECT_EQ(ev["sync_calls"], json::parse(R"([{"call":"cudaStreamSynchronize","count":9}])"));
  EXPECT_TRUE(ev["missing"].is_null());
  EXPECT_EQ(r["findings"][0]["evidence_units"],
            json::parse(R"({"grad_scaler_syncs":"count","idle_after_syncs_pct":"%","exposed_us_per_step":"us/step"})"));

  for (const json& item : r["checklist"]) {
    if (item["id"] == "data_pipeline") EXPECT_EQ(item["unit"], "% of step");
    else EXPECT_TRUE(item["unit"].is_null()) << item["id"];  // not analysed: no value, no unit
  }
  EXPECT_EQ(r["matrix"]["memory_bandwidth"]["metrics"], json::parse(R"({"h2d_bytes_per_step":1024.0,"memory_unavailable":"why"})"));
  EXPECT_EQ(r["matrix"]["memory_bandwidth"]["metrics_units"], json::parse(R"({"h2d_bytes_per_step":"bytes/step"})"));

  // Without steps the one unit is the window: "per step" would mean "per trace".
  job.job.steps.steps.clear();
  const json w = BuildJsonReport(job, AnalysisOptions());
  EXPECT_EQ(w["findings"][0]["evidence_units"]["exposed_us_per_step"], "us/window");
  EXPECT_EQ(w["matrix"]["memory_bandwidth"]["metrics_units"]["h2d_bytes_per_step"], "bytes/window");
  for (const json& item : w["checklist"]) {
    if (item["id"] == "data_pipeline") {
      EXPECT_EQ(item["unit"], "% of window");
    }
  }
}

}  // namespace
}  // namespace json_report_test
}  // namespace ampscope

namespace ampscope {
namespace json_report_test {
namespace {

// Issue 38: 200,000 ProfilerSteps in a 78 MB trace wrote every step several times (a 226 MB
// report, 1.5 GB to build). The per-step lists are bounded; durations_us keeps every step. A
// built trace with 1,000 steps, other names than the shared traces: steps 300..399 last 3 ms,
// the others 1 ms, so the 100 longest are exactly those (chosen by hand, not by the code).
TEST(JsonReportSteps, PerStepListsAreBoundedAndSayWhatTheyLeftOut) {
  testing::TraceBuilder b;
  b.AddA100();
  constexpr int kSteps = 1000;
  TimeNs t = 0;
  for (int i = 0; i < kSteps; ++i) {
    const TimeNs len = testing::Us(i >= 300 && i < 400 ? 3000 : 1000);
    b.AddRange("ProfilerStep#" + std::to_string(i + 7), t, t + len);
    b.LaunchKernel("my_gemm_kernel_f16", t + 10000, 5000, t + 20000, t + 500000);
    t += len;
  }
  AnalysisOptions options;
  JobAnalysis job = AnalyzeJob({b.Build()}, options);
  const json report = BuildJsonReport(job, options, 1, /*with_ranks=*/true);
  const json& steps = report["steps"];
  EXPECT_EQ(steps["count"], kSteps);
  EXPECT_EQ(steps["durations_us"].size(), static_cast<size_t>(kSteps));  // every step, for the gate
  EXPECT_EQ(steps["listed"]["count"], kSteps);
  EXPECT_EQ(steps["listed"]["listed"], 200);
  EXPECT_EQ(steps["listed"]["truncated"], true);
  ASSERT_EQ(steps["windows"].size(), 200u);
  ASSERT_EQ(steps["per_step"].size(), 200u);
  // First 50 (numbers 7..56), the 100 long ones (307..406), the last 50 (957..1006), in order.
  std::vector<int64_t> want;
  for (int i = 0; i < 50; ++i) want.push_back(i + 7);
  for (int i = 300; i < 400; ++i) want.push_back(i + 7);
  for (int i = 950; i < 1000; ++i) want.push_back(i + 7);
  std::vector<int64_t> windows, per_step;
  for (const json& w : steps["windows"]) windows.push_back(w["number"].get<int64_t>());
  for (const json& s : steps["per_step"]) per_step.push_back(s["number"].get<int64_t>());
  EXPECT_EQ(windows, want);
  EXPECT_EQ(per_step, want);
  // The critical path's per-step list is bounded the same way (it wrote 250 bytes a step, twice:
  // 50 MB of a 169 MB report on 200,000 steps); its mean length is over every step. Each step is
  // GPU-bound by its one kernel: launched at +10 us, it runs [+20, +500) us, so each step's path
  // ends with the kernel at 500 us on a 1 ms step or at the 3 ms CPU range end on the long ones:
  // (900 x 1000 + 100 x 3000) / 1000 = 1200 us.
  const json& cp = report["critical_path"];
  ASSERT_EQ(cp["available"], true) << cp.dump();
  EXPECT_EQ(cp["listed"]["count"], kSteps);
  EXPECT_EQ(cp["listed"]["truncated"], true);
  ASSERT_EQ(cp["steps"].size(), 200u);
  ASSERT_EQ(cp["length_us"].size(), 200u);
  std::vector<int64_t> path_steps;
  for (const json& s : cp["steps"]) path_steps.push_back(s["number"].get<int64_t>());
  EXPECT_EQ(path_steps, want);
  EXPECT_NEAR(cp["mean_length_us"].get<double>(), 1200, 0.001);
  EXPECT_EQ(report["ranks"][0]["critical_path"]["steps"].size(), 200u);
  // The rank's own section is bounded the same way.
  ASSERT_EQ(report["ranks"].size(), 1u);
  EXPECT_EQ(report["ranks"][0]["steps"]["windows"].size(), 200u);
  EXPECT_EQ(report["ranks"][0]["steps"]["listed"]["truncated"], true);
  // A trace with few steps lists them all, and says so.
  testing::TraceBuilder small;
  small.AddA100();
  for (int i = 0; i < 3; ++i) small.AddRange("ProfilerStep#" + std::to_string(i), testing::Us(i * 1000), testing::Us(i * 1000 + 1000));
  JobAnalysis few = AnalyzeJob({small.Build()}, options);
  const json r3 = BuildJsonReport(few, options);
  EXPECT_EQ(r3["steps"]["windows"].size(), 3u);
  EXPECT_EQ(r3["steps"]["listed"]["truncated"], false);
}

}  // namespace
}  // namespace json_report_test
}  // namespace ampscope
