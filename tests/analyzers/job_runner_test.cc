// RunRanks: ranks analysed in parallel and streamed (each trace dropped once its rank is
// analysed), failures stopping the job or, with keep_going, left out and named.
#include <gtest/gtest.h>

#include <cstdio>
#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "pipeline/job_runner.h"
#include "support/trace_builder.h"

namespace ampscope {
namespace job_runner_test {
namespace {

using testing::TraceBuilder;
using testing::Us;

// A small rank: two ProfilerSteps with one kernel each.
Trace SmallRank(const std::string& path, int32_t rank) {
  TraceBuilder b;
  b.AddA100();
  b.AddRange("ProfilerStep#1", Us(0), Us(100));
  b.AddRange("ProfilerStep#2", Us(100), Us(200));
  b.LaunchKernel("ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn", Us(10), Us(5), Us(20), Us(80));
  b.LaunchKernel("ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn", Us(110), Us(5), Us(120), Us(180));
  Trace t = b.Build();
  t.metadata.path = path;
  t.metadata.rank = rank;
  return t;
}

struct Log {
  std::mutex mutex;
  std::vector<std::string> events;  // "read 3", "release 3"
  void Add(const std::string& e) {
    std::lock_guard<std::mutex> lock(mutex);
    events.push_back(e);
  }
  size_t Position(const std::string& e) const {
    for (size_t i = 0; i < events.size(); ++i)
      if (events[i] == e) return i;
    return events.size();
  }
};

std::vector<std::string> Paths(size_t n) {
  std::vector<std::string> paths;
  for (size_t i = 0; i < n; ++i) paths.push_back("rank" + std::to_string(i) + ".json");
  return paths;
}

RankRunOptions Options(const std::vector<std::string>& paths, Log& log, int jobs) {
  RankRunOptions o;
  o.jobs = jobs;
  o.read = [&paths](size_t i) -> StatusOr<Trace> { return SmallRank(paths[i], static_cast<int32_t>(i)); };
  o.on_read = [&log](size_t i) { log.Add("read " + std::to_string(i)); };
  o.on_release = [&log](size_t i) { log.Add("release " + std::to_string(i)); };
  return o;
}

// Memory is bounded by the ranks in flight: each worker releases its trace before it reads the
// next, so with -j N at most N traces are alive at once. With -j 1 rank k is released before
// rank k+1 is read; with -j 2 before rank k+2 is read by the same worker, but a slow rank k on one
// worker may still be alive when the other worker reads k+2, so the count is what is checked.
// (The log lags a release, never a read, so the count it gives can only be too high.)
TEST(JobRunner, ReleasesEachTraceBeforeRankKPlus2IsRead) {
  for (int jobs : {1, 2}) {
    const std::vector<std::string> paths = Paths(8);
    Log log;
    StatusOr<RankRunResult> r = RunRanks(paths, Options(paths, log, jobs));
    ASSERT_TRUE(r.ok()) << r.status().message();
    ASSERT_EQ(r->ranks.size(), 8u);
    EXPECT_TRUE(r->kept.empty());
    for (size_t k = 0; k < paths.size(); ++k)
      ASSERT_LT(log.Position("release " + std::to_string(k)), log.events.size()) << "rank " << k << " never released";
    if (jobs == 1) {
      for (size_t k = 0; k + 1 < paths.size(); ++k)
        EXPECT_LT(log.Position("release " + std::to_string(k)), log.Position("read " + std::to_string(k + 1)))
            << "rank " << k << " still alive when rank " << k + 1 << " was read";
    }
    int alive = 0, most = 0;
    for (const std::string& e : log.events) {
      alive += e.rfind("read ", 0) == 0 ? 1 : -1;
      most = std::max(most, alive);
    }
    EXPECT_LE(most, jobs) << "more traces alive at once than ranks in flight";
    // Results come back in input order whatever order the workers finished in.
    for (size_t i = 0; i < r->ranks.size(); ++i) {
      EXPECT_EQ(r->ranks[i].rank, static_cast<int32_t>(i));
      EXPECT_EQ(r->rank_inputs[i], i);
      EXPECT_EQ(r->ranks[i].input.path, paths[i]);
    }
  }
}

TEST(JobRunner, KeepsOnlyTheTracesAskedFor) {
  const std::vector<std::string> paths = Paths(4);
  Log log;
  RankRunOptions o = Options(paths, log, 2);
  o.keep_trace = [](size_t, const RankAnalysis& ra) { return ra.rank == 2; };
  StatusOr<RankRunResult> r = RunRanks(paths, o);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->kept.size(), 1u);
  EXPECT_EQ(r->kept[0].index, 2u);
  EXPECT_EQ(r->kept[0].trace.metadata.path, "rank2.json");
  EXPECT_EQ(log.Position("release 2"), log.events.size());  // kept, not released
}

TEST(JobRunner, AFailureStopsTheJobUnlessKeepGoing) {
  const std::vector<std::string> paths = Paths(5);
  Log log;
  RankRunOptions o = Options(paths, log, 2);
  o.read = [&paths](size_t i) -> StatusOr<Trace> {
    if (i == 3) return Status::Error(paths[i] + ": offset 12: expected ','");
    return SmallRank(paths[i], static_cast<int32_t>(i));
  };
  StatusOr<RankRunResult> stopped = RunRanks(paths, o);
  ASSERT_FALSE(stopped.ok());
  EXPECT_EQ(stopped.status().message(), "rank3.json: offset 12: expected ','");

  o.keep_going = true;
  StatusOr<RankRunResult> r = RunRanks(paths, o);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->ranks.size(), 4u);
  ASSERT_EQ(r->missing.size(), 1u);
  EXPECT_EQ(r->missing[0].path, "rank3.json");
  EXPECT_EQ(r->missing[0].error, "rank3.json: offset 12: expected ','");
  EXPECT_EQ(r->rank_inputs, (std::vector<size_t>{0, 1, 2, 4}));
}

// The report's devices[].peak comes from the run's table (--gpu-peaks), not a second lookup in
// the built-in one: a made-up row "LAB-GPU" with fp16 123 TFLOP/s (the table's own number).
TEST(DescribeInput, UsesTheRunsPeakTable) {
  const std::string path = ::testing::TempDir() + "/lab_peaks.tsv";
  {
    FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("gpu\tfp16_bf16_tc_dense\ttf32_tc_dense\tfp32_simt\thbm_gbs\tnvlink_gbs\tpcie\tverified\tsource\n"
               "LAB-GPU\t123\t61\t20\t1500\tn/a\tGen4 64\tY\tlab\n", f);
    std::fclose(f);
  }
  Trace t = SmallRank("r.json", 0);
  AnalysisOptions options;
  options.gpu_peaks_path = path;
  options.gpu_override = "LAB-GPU";
  const InputInfo in = DescribeInput(t, options);
  ASSERT_EQ(in.devices.size(), 1u);
  ASSERT_TRUE(in.devices[0].peak.has_value());
  EXPECT_EQ(in.devices[0].peak->id, "LAB-GPU");
  EXPECT_DOUBLE_EQ(in.devices[0].peak->fp16_tflops, 123.0);
  // Without the table, the built-in one has no such row.
  options.gpu_peaks_path.clear();
  EXPECT_FALSE(DescribeInput(t, options).devices[0].peak.has_value());
  std::remove(path.c_str());
}

}  // namespace
}  // namespace job_runner_test
}  // namespace ampscope
