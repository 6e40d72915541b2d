// Checks the Kineto linker makes once the whole trace is read (issue 16): GPU work that starts
// before its launch call, and ProfilerStep#N ranges that repeat or overlap. Expected counts and
// offsets are hand-counted from the inline traces; the shared traces (tests in
// shared_traces_test.cc) have none of these.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "trace/formats/kineto/kineto_reader.h"

namespace ampscope {
namespace kineto_link_checks_test {
namespace {

using ::testing::HasSubstr;

StatusOr<Trace> Read(const std::string& json) { return ReadKinetoTraceFromString(json, "t.json"); }

const DiagnosticEntry& Entry(const Trace& t, const std::string& id) { return t.diagnostics.entries().at(id); }

std::string Launch(int ts, int corr) {
  return R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": )" +
         std::to_string(ts) + R"(, "dur": 5, "args": {"correlation": )" + std::to_string(corr) + "}}";
}
std::string Gpu(const std::string& cat, int ts, int corr) {
  return R"({"ph": "X", "cat": ")" + cat + R"(", "name": "k", "pid": 0, "tid": 7, "ts": )" + std::to_string(ts) +
         R"(, "dur": 3, "args": {"correlation": )" + std::to_string(corr) + R"(, "device": 0, "stream": 7}})";
}
std::string Step(const std::string& name, int ts, int dur, const std::string& cat = "user_annotation") {
  return R"({"ph": "X", "cat": ")" + cat + R"(", "name": ")" + name + R"(", "pid": 1, "tid": 1, "ts": )" +
         std::to_string(ts) + ", \"dur\": " + std::to_string(dur) + "}";
}

TEST(KinetoLinkChecks, GpuWorkBeforeItsLaunchIsCounted) {
  // Kernel 1 starts at 100, its launch at 110: 10 µs early. Kernel 2 is fine. The copy and
  // the memset start 1 µs before their launches.
  const std::string early = Gpu("kernel", 100, 1);
  const std::string json = "{\"traceEvents\": [" + Launch(110, 1) + ", " + early + ", " + Launch(200, 2) + ", " +
                           Gpu("kernel", 210, 2) + ", " + Launch(300, 3) + ", " + Gpu("gpu_memcpy", 299, 3) + ", " +
                           Launch(400, 4) + ", " + Gpu("gpu_memset", 399, 4) + "]}";
  StatusOr<Trace> r = Read(json);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->diagnostics.Count(DiagCode::kKernelBeforeLaunch), 3u);
  const DiagnosticEntry& e = Entry(*r, "kernel_before_launch");
  EXPECT_EQ(e.first_offset, static_cast<int64_t>(json.find(early)));
  EXPECT_THAT(e.first_message, HasSubstr("starts 10000 ns before"));
  EXPECT_EQ(e.severity, Severity::kDataLoss);
  // The kernels are kept as they are: the diagnostic says their launch delays are wrong.
  EXPECT_EQ(r->kernels.size(), 2u);
}

TEST(KinetoLinkChecks, LaunchAtTheSameTimeIsFine) {
  StatusOr<Trace> r = Read("{\"traceEvents\": [" + Launch(100, 1) + ", " + Gpu("kernel", 100, 1) + "]}");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->diagnostics.Count(DiagCode::kKernelBeforeLaunch), 0u);
}

TEST(KinetoLinkChecks, DuplicateAndOverlappingProfilerSteps) {
  // #1 [0,100) and #2 [100,200) are fine; a second #2 [150,250) is both a duplicate name and
  // an overlap with #2... counted once, as a duplicate; #3 [190,300) overlaps #2.
  const std::string dup = Step("ProfilerStep#2", 150, 100);
  const std::string over = Step("ProfilerStep#3", 190, 110);
  const std::string json = "{\"traceEvents\": [" + Step("ProfilerStep#1", 0, 100) + ", " +
                           Step("ProfilerStep#2", 100, 100) + ", " + dup + ", " + over + "]}";
  StatusOr<Trace> r = Read(json);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->diagnostics.Count(DiagCode::kDuplicateProfilerStep), 1u);
  EXPECT_EQ(Entry(*r, "duplicate_profiler_step").first_offset, static_cast<int64_t>(json.find(dup)));
  EXPECT_EQ(r->diagnostics.Count(DiagCode::kOverlappingProfilerSteps), 1u);
  EXPECT_EQ(Entry(*r, "overlapping_profiler_steps").first_offset, static_cast<int64_t>(json.find(over)));
  EXPECT_THAT(Entry(*r, "overlapping_profiler_steps").first_message,
              HasSubstr("ProfilerStep#3 starts 10000 ns before ProfilerStep#2 ends"));
  EXPECT_EQ(r->ranges.size(), 4u);  // all kept; analyzers/ decides which are steps
}

TEST(KinetoLinkChecks, IdenticalStepCopiesAndBackToBackStepsAreFine) {
  // 2021-format traces have the step as an Operator and again as an annotation: same times.
  StatusOr<Trace> r = Read("{\"traceEvents\": [" + Step("ProfilerStep#1", 0, 100, "Operator") + ", " +
                           Step("ProfilerStep#1", 0, 100) + ", " + Step("ProfilerStep#2", 100, 50) + "]}");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->diagnostics.Count(DiagCode::kDuplicateProfilerStep), 0u);
  EXPECT_EQ(r->diagnostics.Count(DiagCode::kOverlappingProfilerSteps), 0u);
}

}  // namespace
}  // namespace kineto_link_checks_test
}  // namespace ampscope
