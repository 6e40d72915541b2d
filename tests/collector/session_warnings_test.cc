// What the collector says when CUDA activity cannot be recorded, driven through the fake CUPTI
// (fake_cupti.h): each CUPTI refusal becomes a warning naming CUPTI's error and the fix, and the
// --steps window says when it never opened or was cut short. The expected texts are the fixes
// NVIDIA documents for each error (CUPTI's cupti_result.h and the "ERR_NVGPUCTRPERM" page for
// NVreg_RestrictProfilingToAdminUsers); the step numbers are the ones each test produces.
#include <gtest/gtest.h>

#include <unistd.h>

#include <limits>

#include "collector/config.h"
#include "collector/cupti_advice.h"
#include "collector/session.h"
#include "fake_cupti.h"
#include "support/test_support.h"
#include "trace/formats/amptrace/amptrace_reader.h"

namespace ampscope {
namespace session_warnings_test {
namespace {

using collector::Session;
using collector::SessionConfig;
using testing::FakeCupti;

SessionConfig TestConfig(const std::string& dir) {
  SessionConfig c;
  c.output_dir = dir;
  c.host = "testhost";
  c.pid = static_cast<uint32_t>(getpid());
  c.buffer_bytes = 64 * sizeof(CUpti_ActivityAPI);
  c.max_buffers = 2;
  c.flush_interval_ms = 50;
  c.install_process_hooks = false;
  c.print_warnings = false;
  return c;
}

// The file's warnings, as `ampscope record` reads them.
std::vector<AmptraceWarning> Warnings(const std::string& path) {
  auto summary = ReadAmptraceSummary(path);
  EXPECT_TRUE(summary.ok()) << summary.status().message();
  return summary.ok() ? summary->warnings : std::vector<AmptraceWarning>{};
}

const AmptraceWarning* Find(const std::vector<AmptraceWarning>& ws, const std::string& code) {
  for (const AmptraceWarning& w : ws)
    if (w.code == code) return &w;
  return nullptr;
}

TEST(SessionWarningsTest, InsufficientPrivilegesNamesTheDriverOption) {
  std::string dir = testing::MakeTempDir("warn");
  FakeCupti fake;
  fake.subscribe_result = CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
  Session s(TestConfig(dir));
  ASSERT_TRUE(s.Open().ok());
  EXPECT_FALSE(s.StartCupti(&fake.api));
  s.Shutdown();
  auto ws = Warnings(s.path());
  const AmptraceWarning* w = Find(ws, "cupti_unavailable");
  ASSERT_NE(w, nullptr);
  EXPECT_NE(w->message.find("cuptiSubscribe failed"), std::string::npos) << w->message;
  EXPECT_NE(w->message.find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos) << w->message;
}

TEST(SessionWarningsTest, AnotherSubscriberSaysWhoAndWhatToDo) {
  std::string dir = testing::MakeTempDir("warn");
  FakeCupti fake;
  fake.subscribe_result = CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  Session s(TestConfig(dir));
  ASSERT_TRUE(s.Open().ok());
  EXPECT_FALSE(s.StartCupti(&fake.api));
  s.Shutdown();
  const AmptraceWarning* w = nullptr;
  auto ws = Warnings(s.path());
  w = Find(ws, "another_cupti_subscriber");
  ASSERT_NE(w, nullptr);
  EXPECT_NE(w->message.find("torch.profiler"), std::string::npos) << w->message;
  EXPECT_NE(w->message.find("stop it"), std::string::npos) << w->message;
}

TEST(SessionWarningsTest, NoDriverPointsAtNvidiaSmiAndDoctor) {
  std::string dir = testing::MakeTempDir("warn");
  FakeCupti fake;
  fake.enable_result = CUPTI_ERROR_UNKNOWN;  // what cuptiActivityEnable answers without a driver
  Session s(TestConfig(dir));
  ASSERT_TRUE(s.Open().ok());
  EXPECT_FALSE(s.StartCupti(&fake.api));
  s.Shutdown();
  auto ws = Warnings(s.path());
  const AmptraceWarning* w = Find(ws, "cupti_unavailable");
  ASSERT_NE(w, nullptr);
  EXPECT_NE(w->message.find("cuptiActivityEnable(CONCURRENT_KERNEL)"), std::string::npos) << w->message;
  EXPECT_NE(w->message.find("nvidia-smi"), std::string::npos) << w->message;
  EXPECT_NE(w->message.find("ampscope doctor"), std::string::npos) << w->message;
}

TEST(SessionWarningsTest, AnOptionalKindThatCannotBeEnabledIsNamed) {
  std::string dir = testing::MakeTempDir("warn");
  FakeCupti fake;
  fake.api.ActivityEnable = [](CUpti_ActivityKind k) {
    return k == CUPTI_ACTIVITY_KIND_MEMORY2 ? CUPTI_ERROR_NOT_SUPPORTED : CUPTI_SUCCESS;
  };
  Session s(TestConfig(dir));
  ASSERT_TRUE(s.Open().ok());
  EXPECT_TRUE(s.StartCupti(&fake.api));  // the required kinds are on
  s.Shutdown();
  auto ws = Warnings(s.path());
  const AmptraceWarning* w = Find(ws, "activity_kind_unavailable_MEMORY2");
  ASSERT_NE(w, nullptr);
  EXPECT_NE(w->message.find("cuptiActivityEnable failed"), std::string::npos) << w->message;
  EXPECT_NE(w->message.find("update the driver"), std::string::npos) << w->message;
}

TEST(SessionWarningsTest, EveryErrorCuptiCanGiveForARecordingHasAFix) {
  // The errors cuptiSubscribe / cuptiActivityEnable / PM sampling return in practice.
  for (CUptiResult r : {CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED,
                        CUPTI_ERROR_HARDWARE_BUSY, CUPTI_ERROR_NOT_INITIALIZED, CUPTI_ERROR_UNKNOWN,
                        CUPTI_ERROR_NOT_COMPATIBLE, CUPTI_ERROR_NOT_SUPPORTED, CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED,
                        CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED})
    EXPECT_FALSE(collector::CuptiErrorFix(r).empty()) << static_cast<int>(r);
  EXPECT_EQ(collector::CuptiErrorWithFix(CUPTI_ERROR_INVALID_PARAMETER, "X"), "X");
}

SessionConfig StepsConfig(const std::string& dir, int64_t first, int64_t last) {
  SessionConfig c = TestConfig(dir);
  c.gate_range_name = "step";
  c.gate_first = first;
  c.gate_last = last;
  return c;
}

void RunSteps(Session& s, int n, const char* name = "step") {
  for (int i = 0; i < n; ++i) {
    s.NvtxPush(name, "");
    s.NvtxPop("");
  }
}

TEST(SessionWarningsTest, AWindowPastTheLastStepIsReported) {
  std::string dir = testing::MakeTempDir("warn");
  FakeCupti fake;
  Session s(StepsConfig(dir, 7, 9));
  ASSERT_TRUE(s.Open().ok());
  ASSERT_TRUE(s.StartCupti(&fake.api));
  RunSteps(s, 5);  // steps 0..4
  s.Shutdown();
  auto ws = Warnings(s.path());
  const AmptraceWarning* w = Find(ws, "capture_range_not_reached");
  ASSERT_NE(w, nullptr);
  EXPECT_NE(w->message.find("5 times"), std::string::npos) << w->message;
  EXPECT_NE(w->message.find("window is 7..9"), std::string::npos) << w->message;
  EXPECT_EQ(Find(ws, "steps_window_cut"), nullptr);
}

TEST(SessionWarningsTest, AWindowCutShortIsReportedAndStepsKeepTheirNumbers) {
  std::string dir = testing::MakeTempDir("warn");
  FakeCupti fake;
  Session s(StepsConfig(dir, 2, 5));
  ASSERT_TRUE(s.Open().ok());
  ASSERT_TRUE(s.StartCupti(&fake.api));
  RunSteps(s, 4);  // steps 0..3: only 2 and 3 of 2..5 ran
  s.Shutdown();
  auto ws = Warnings(s.path());
  const AmptraceWarning* w = Find(ws, "steps_window_cut");
  ASSERT_NE(w, nullptr);
  EXPECT_NE(w->message.find("only steps 2..3 (2 of 4)"), std::string::npos) << w->message;
  EXPECT_EQ(Find(ws, "capture_range_not_reached"), nullptr);
  auto t = ReadAmptrace(s.path());
  ASSERT_TRUE(t.ok());
  std::vector<int64_t> numbers;
  for (const Range& r : t->ranges)
    if (t->str(r.name) == "step") numbers.push_back(r.step_number);
  EXPECT_EQ(numbers, (std::vector<int64_t>{2, 3}));
}

TEST(SessionWarningsTest, NumbersInStepNamesChooseTheWindow) {
  std::string dir = testing::MakeTempDir("warn");
  FakeCupti fake;
  Session s(StepsConfig(dir, 11, 12));
  ASSERT_TRUE(s.Open().ok());
  ASSERT_TRUE(s.StartCupti(&fake.api));
  for (const char* name : {"step 10", "step 11", "step 12", "step 13"}) RunSteps(s, 1, name);
  s.Shutdown();
  auto t = ReadAmptrace(s.path());
  ASSERT_TRUE(t.ok());
  std::vector<std::string> names;
  std::vector<int64_t> numbers;
  for (const Range& r : t->ranges) {
    names.emplace_back(t->str(r.name));
    numbers.push_back(r.step_number);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"step 11", "step 12"}));
  EXPECT_EQ(numbers, (std::vector<int64_t>{11, 12}));
  EXPECT_TRUE(Warnings(s.path()).empty());
}

TEST(SessionWarningsTest, StepRangeNamesMatchOnlyTheNameAndANumber) {
  SessionConfig c;
  c.gate_range_name = "step";
  int64_t n = 0;
  EXPECT_TRUE(collector::GateRangeMatches(c, "step", &n));
  EXPECT_EQ(n, -1);
  EXPECT_TRUE(collector::GateRangeMatches(c, "step#42", &n));
  EXPECT_EQ(n, 42);
  EXPECT_TRUE(collector::GateRangeMatches(c, "step_7", &n));
  EXPECT_EQ(n, 7);
  EXPECT_FALSE(collector::GateRangeMatches(c, "steps", &n));
  EXPECT_FALSE(collector::GateRangeMatches(c, "optimizer step", &n));
  EXPECT_FALSE(collector::GateRangeMatches(c, "step 1234567890123456789", &n));  // 19 digits: not a number we keep
  c.gate_is_capture_range = true;  // --capture-range: the exact name only
  EXPECT_FALSE(collector::GateRangeMatches(c, "step 3", &n));
}

TEST(SessionWarningsTest, StepRangesOutOfInt64AreRefused) {
  int64_t first = 0, last = 0;
  EXPECT_FALSE(collector::ParseStepRange("1..99999999999999999999999", &first, &last));
  EXPECT_FALSE(collector::ParseStepRange("99999999999999999999999", &first, &last));
  EXPECT_TRUE(collector::ParseStepRange("3..", &first, &last));
  EXPECT_EQ(first, 3);
  EXPECT_EQ(last, std::numeric_limits<int64_t>::max());
}

// Numeric environment options are range-checked: a value outside the range is named and
// ignored (before: AMPSCOPE_PM_INTERVAL_US=5000000 wrapped around uint32 ns to 705 ms, and
// AMPSCOPE_BUFFER_MB=100000 was dropped without a word).
TEST(SessionWarningsTest, NumericEnvironmentOptionsOutOfRangeAreNamedAndIgnored) {
  setenv("AMPSCOPE_PM_INTERVAL_US", "5000000", 1);
  setenv("AMPSCOPE_BUFFER_MB", "100000", 1);
  setenv("AMPSCOPE_MAX_BUFFERS", "0", 1);
  setenv("AMPSCOPE_FLUSH_MS", "99999999999", 1);
  std::vector<std::string> problems;
  const collector::SessionConfig c = collector::ConfigFromEnvironment(&problems);
  unsetenv("AMPSCOPE_PM_INTERVAL_US");
  unsetenv("AMPSCOPE_BUFFER_MB");
  unsetenv("AMPSCOPE_MAX_BUFFERS");
  unsetenv("AMPSCOPE_FLUSH_MS");
  const collector::SessionConfig defaults;
  EXPECT_EQ(c.pm_sample_interval_ns, defaults.pm_sample_interval_ns);
  EXPECT_EQ(c.buffer_bytes, defaults.buffer_bytes);
  EXPECT_EQ(c.max_buffers, defaults.max_buffers);
  EXPECT_EQ(c.flush_interval_ms, defaults.flush_interval_ms);
  const std::vector<std::string> expected = {
      "AMPSCOPE_PM_INTERVAL_US=5000000 is outside 1..4000000; ignored",
      "AMPSCOPE_BUFFER_MB=100000 is outside 1..256; ignored",
      "AMPSCOPE_MAX_BUFFERS=0 is outside 1..4096; ignored",
      "AMPSCOPE_FLUSH_MS='99999999999' is not an integer; ignored",
  };
  EXPECT_EQ(problems, expected);
}

}  // namespace
}  // namespace session_warnings_test
}  // namespace ampscope
