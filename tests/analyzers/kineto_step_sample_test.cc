// Kineto traces with more steps than the analysis keeps in detail (issue 38, point 6;
// trace/formats/kineto/kineto_step_sample.h): which steps are kept, what of the rest of the trace
// goes with them, and the step time of every step. Every expected number is worked out in the
// comments from the traces built here.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "analyzers/analyze.h"
#include "support/test_support.h"
#include "trace/formats/kineto/kineto_reader.h"
#include "trace/formats/kineto/kineto_step_sample.h"

namespace ampscope {
namespace kineto_step_sample_test {
namespace {

using kineto::StepSpan;

// 1,000 steps of 100 µs back to back, steps 500..599 200 µs long.
std::vector<StepSpan> ThousandSteps() {
  std::vector<StepSpan> v;
  TimeNs t = 0;
  for (int i = 0; i < 1000; ++i) {
    const TimeNs d = (i >= 500 && i < 600 ? 200 : 100) * 1000;
    v.push_back({t, t + d});
    t += d;
  }
  return v;
}

TEST(StepSample, ChoosesTheEndsTheLongestAndEveryKth) {
  const std::vector<StepSpan> steps = ThousandSteps();
  const kineto::StepChoice c = kineto::ChooseSteps(steps, 400);
  // 400 - 50 - 50 - 100 = 200 left for the regular sample: one in every ceil(1000 / 200) = 5.
  // Kept: 0..49, 950..999, the 100 longest 500..599, and 0, 5, ..., 995 (200, of which 10 are in
  // 0..49, 10 in 950..999 and 20 in 500..599): 50 + 50 + 100 + 160 = 360.
  EXPECT_EQ(c.info.every, 5u);
  EXPECT_EQ(c.info.steps_in_trace, 1000u);
  EXPECT_EQ(c.info.steps_kept, 360u);
  ASSERT_EQ(c.kept_starts.size(), 360u);
  EXPECT_EQ(c.kept_starts[49], steps[49].start_ns);
  EXPECT_EQ(c.kept_starts[50], steps[50].start_ns);  // 50 = 5 x 10
  EXPECT_EQ(c.kept_starts[51], steps[55].start_ns);
  // Every step's ProfilerStep range: 900 x 100 and 100 x 200 µs. Mean 110; median 100; p90 at
  // rank 0.9 x 999 = 899.1 between the last 100 (rank 899) and the first 200: 110.
  EXPECT_DOUBLE_EQ(c.info.mean_us, 110.0);
  EXPECT_DOUBLE_EQ(c.info.median_us, 100.0);
  EXPECT_NEAR(c.info.p90_us, 110.0, 1e-9);
  EXPECT_DOUBLE_EQ(c.info.min_us, 100.0);
  EXPECT_DOUBLE_EQ(c.info.max_us, 200.0);
  // A kept step's host window reaches the next step's start; 0..50 are one run of windows.
  ASSERT_FALSE(c.host_windows.empty());
  EXPECT_EQ(c.host_windows[0].start_ns, 0);
  EXPECT_EQ(c.host_windows[0].end_ns, steps[51].start_ns);
}

// 1,200 steps of 1000 µs back to back from 1000 µs. Step i launches a 600 µs kernel at +10 (it
// runs [+20, +620)) and a 50 µs one at +900 that runs [+990, +1040): 40 µs into the next step.
// Correlation ids 2i + 1 and 2i + 2, one per runtime call as CUPTI numbers them. Kineto also
// draws the step on the GPU's timeline (a gpu_user_annotation "ProfilerStep#i" over [+20, +620)):
// not a step of its own.
std::string WriteSteps(const std::string& dir) {
  std::string json = "{\"traceEvents\": [\n";
  for (int i = 0; i < 1200; ++i) {
    const long base = 1000 + 1000L * i;
    json += fmt::format(
        R"({{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#{0}", "pid": 1, "tid": 1, "ts": {1}, "dur": 1000}},)"
        "\n"
        R"({{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": {2}, "dur": 5, "args": {{"correlation": {3}}}}},)"
        "\n"
        R"({{"ph": "X", "cat": "kernel", "name": "ampere_fp16_gemm", "pid": 0, "tid": 7, "ts": {4}, "dur": 600, "args": {{"correlation": {3}, "device": 0, "stream": 7}}}},)"
        "\n"
        R"({{"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#{0}", "pid": 0, "tid": 7, "ts": {4}, "dur": 600}},)"
        "\n"
        R"({{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": {5}, "dur": 5, "args": {{"correlation": {6}}}}},)"
        "\n"
        R"({{"ph": "X", "cat": "kernel", "name": "tail_kernel", "pid": 0, "tid": 7, "ts": {7}, "dur": 50, "args": {{"correlation": {6}, "device": 0, "stream": 7}}}}{8})"
        "\n",
        i, base, base + 10, 2 * i + 1, base + 20, base + 900, 2 * i + 2, base + 990, i + 1 < 1200 ? "," : "");
  }
  json += "]}\n";
  const std::string path = dir + "/steps.json";
  std::ofstream(path) << json;
  return path;
}

TEST(StepSample, KeepsTheChosenStepsAndTheirGpuTails) {
  const std::string dir = testing::MakeTempDir("step_sample");
  const std::string path = WriteSteps(dir);
  KinetoReadOptions options;
  options.detail_steps = 500;
  StatusOr<Trace> trace = ReadKinetoTrace(path, options);
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  // 500 - 200 = 300 for the regular sample: one in every ceil(1200 / 300) = 4. The steps are all
  // 1000 µs, so the 100 longest are the first 100 (ties go to the earlier step). Kept: 0..99,
  // the multiples of 4 in 100..1148 (263), 1150..1199 (50): 413.
  const StepSampling& s = trace->metadata.step_sampling;
  EXPECT_EQ(s.steps_in_trace, 1200u);
  EXPECT_EQ(s.steps_kept, 413u);
  EXPECT_EQ(s.every, 4u);
  EXPECT_DOUBLE_EQ(s.mean_us, 1000.0);
  size_t step_ranges = 0;
  for (const Range& r : trace->ranges)
    step_ranges += r.kind == RangeKind::kCpuAnnotation && trace->str(r.name).substr(0, 13) == "ProfilerStep#";
  EXPECT_EQ(step_ranges, 413u);
  // Each kept step keeps its two kernels and launches (its tail by its correlation id, though it
  // starts after the next step's start): 826. A kept step whose predecessor is not kept also
  // keeps that step's tail kernel, which runs into it, with its launch: the multiples of 4 in
  // 104..1148 (262) and step 1150: 263. 826 + 263 = 1089.
  EXPECT_EQ(trace->kernels.size(), 1089u);
  EXPECT_EQ(trace->api_calls.size(), 1089u);
  EXPECT_EQ(trace->diagnostics.Count(DiagCode::kUnmatchedCorrelation), 0u);
  // 7,200 events; 2 + 2 + 1 + 1 = 6 kept a kept step, 2 more for 263 of them: 2478 + 526 = 3004.
  EXPECT_EQ(trace->metadata.event_count, 7200u);
  EXPECT_EQ(s.events_left_out, 7200u - 3004u);

  StatusOr<RankAnalysis> ra = AnalyzeTrace(*trace, AnalysisOptions{});
  ASSERT_TRUE(ra.ok()) << ra.status().message();
  EXPECT_EQ(ra->steps.steps.size(), 413u);
  EXPECT_EQ(ra->steps.sampling.steps_in_trace, 1200u);
  EXPECT_DOUBLE_EQ(ra->step_stats.mean_us, 1000.0);
  const IntegrityCheck* sampling = ra->integrity.Find("sampling");
  ASSERT_NE(sampling, nullptr);
  EXPECT_EQ(sampling->status, IntegrityStatus::kOk) << sampling->evidence;
  std::filesystem::remove_all(dir);
}

// The cheap test before pass 1 reads the start of the file and, for a plain file, its end: a
// trace that writes its GPU activity first has its step ranges at the end. 40 step ranges
// (~120 bytes each) between 2,000 kernels (~150 bytes each), with 4 KiB looked at: more than 10
// names fit in 4 KiB only where the steps are.
TEST(StepSample, LooksForDenseStepsAtTheStartAndTheEnd) {
  const std::string dir = testing::MakeTempDir("step_sample");
  auto write = [&](const std::string& name, int kernels_before, int kernels_after) {
    std::string json = "{\"traceEvents\": [\n";
    auto kernel = [&](int i) {
      json += fmt::format(R"({{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": {}, "dur": 1, "args": {{"correlation": {}}}}},)", i, i) + "\n";
    };
    for (int i = 0; i < kernels_before; ++i) kernel(i);
    for (int i = 0; i < 40; ++i)
      json += fmt::format(R"({{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#{}", "pid": 1, "tid": 1, "ts": {}, "dur": 1}},)", i, i) + "\n";
    for (int i = 0; i < kernels_after; ++i) kernel(i);
    json += R"({"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "x"}}]})";
    const std::string path = dir + "/" + name;
    std::ofstream(path) << json;
    return path;
  };
  for (const auto& [name, before, after, dense] :
       std::vector<std::tuple<std::string, int, int, bool>>{{"first.json", 0, 2000, true}, {"last.json", 2000, 0, true}, {"middle.json", 1000, 1000, false}}) {
    StatusOr<bool> r = kineto::LooksStepDense(write(name, before, after), 10, 4096);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(*r, dense) << name;
  }
  std::filesystem::remove_all(dir);
}

TEST(StepSample, AllStepsWhenThereAreFewEnoughOrWhenAsked) {
  const std::string dir = testing::MakeTempDir("step_sample");
  const std::string path = WriteSteps(dir);
  for (size_t detail : {size_t{0}, size_t{1200}}) {
    KinetoReadOptions options;
    options.detail_steps = detail;
    StatusOr<Trace> trace = ReadKinetoTrace(path, options);
    ASSERT_TRUE(trace.ok()) << trace.status().message();
    EXPECT_EQ(trace->metadata.step_sampling.steps_in_trace, 0u);
    EXPECT_EQ(trace->kernels.size(), 2400u);
    EXPECT_EQ(trace->metadata.event_count, 7200u);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kineto_step_sample_test
}  // namespace ampscope
