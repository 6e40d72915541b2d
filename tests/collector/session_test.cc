// Session logic with a fake CUPTI (fake_cupti.h): bounded buffer pool, drops, periodic and
// forced flushes, shutdown ordering, exit, SIGTERM, fork, another subscriber, step windows.
// Expected numbers are the ones each test sets up (records produced, buffers allowed, drops
// the fake reports).
#include <gtest/gtest.h>

#include <dirent.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "collector/process.h"
#include "collector/session.h"
#include "fake_cupti.h"
#include "support/test_support.h"
#include "trace/formats/amptrace/amptrace_reader.h"

namespace ampscope {
namespace session_test {
namespace {

using collector::Session;
using collector::SessionConfig;
using testing::FakeCupti;

SessionConfig TestConfig(const std::string& dir) {
  SessionConfig c;
  c.output_dir = dir;
  c.host = "testhost";
  c.pid = static_cast<uint32_t>(getpid());
  c.buffer_bytes = 64 * sizeof(CUpti_ActivityAPI);  // 64 records per buffer
  c.max_buffers = 2;
  c.flush_interval_ms = 50;
  c.install_process_hooks = false;
  c.print_warnings = false;
  return c;
}

size_t CountCalls(const std::vector<std::string>& calls, const std::string& prefix) {
  return std::count_if(calls.begin(), calls.end(), [&](const std::string& c) { return c.rfind(prefix, 0) == 0; });
}

std::vector<std::string> FilesIn(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n.size() > 9 && n.substr(n.size() - 9) == ".amptrace") out.push_back(n);
    }
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(SessionTest, BufferPoolIsBoundedAndRefusalsAreCounted) {
  std::string dir = testing::MakeTempDir("session");
  FakeCupti fake;
  Session s(TestConfig(dir));
  ASSERT_TRUE(s.Open().ok());
  ASSERT_TRUE(s.StartCupti(&fake.api));
  // max_buffers = 2: the first two requests get buffers, the next three are refused.
  EXPECT_TRUE(fake.RequestBuffer());
  EXPECT_TRUE(fake.RequestBuffer());
  EXPECT_FALSE(fake.RequestBuffer());
  EXPECT_FALSE(fake.RequestBuffer());
  EXPECT_FALSE(fake.RequestBuffer());
  for (uint32_t i = 0; i < 100; ++i) fake.Produce(i + 1, 1000000 + i * 2000);
  s.FlushNow();  // forced flush: the fake fills both buffers (64 + 36 records)
  s.Shutdown();
  auto t = ReadAmptrace(s.path());
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->api_calls.size(), 100u);
  EXPECT_EQ(t->diagnostics.Count("cupti_buffers_refused"), 3u);
  EXPECT_EQ(t->str(t->api_calls[0].name), "cudaLaunchKernel");
  EXPECT_EQ(t->metadata.extra.at("clean_end"), "true");
  // Buffers come back to the pool: after the flush, requests succeed again... until the
  // session is finished, when CUPTI gets nothing more.
  EXPECT_FALSE(fake.RequestBuffer());
}

TEST(SessionTest, DroppedRecordsReportedByCuptiAreSummed) {
  std::string dir = testing::MakeTempDir("session");
  FakeCupti fake;
  fake.dropped_per_completion = 7;
  Session s(TestConfig(dir));
  ASSERT_TRUE(s.Open().ok());
  ASSERT_TRUE(s.StartCupti(&fake.api));
  fake.Produce(1, 1000);
  s.FlushNow();  // one completed buffer -> 7 dropped
  fake.Produce(2, 2000);
  s.Shutdown();  // the final forced flush -> another buffer, 7 more
  auto summary = ReadAmptraceSummary(s.path());
  ASSERT_TRUE(summary.ok());
  EXPECT_EQ(summary->stats.cupti_dropped_records, 14u);
  auto t = ReadAmptrace(s.path());
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->diagnostics.Count("cupti_dropped_records"), 14u);
  EXPECT_EQ(t->api_calls.size(), 2u);
}

TEST(SessionTest, PeriodicFlushWritesWithoutShutdown) {
  std::string dir = testing::MakeTempDir("session");
  FakeCupti fake;
  Session s(TestConfig(dir));  // flush every 50 ms
  ASSERT_TRUE(s.Open().ok());
  ASSERT_TRUE(s.StartCupti(&fake.api));
  for (uint32_t i = 0; i < 10; ++i) fake.Produce(i + 1, 1000 + i);
  s.NvtxPush("step", "");
  s.NvtxPop("");
  // Wait for the writer thread's periodic cycle (non-forced flush, then a write).
  uint64_t records = 0;
  for (int i = 0; i < 100 && records < 12; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    auto summary = ReadAmptraceSummary(s.path());
    ASSERT_TRUE(summary.ok());
    records = summary->records_by_type[AmpChunkType::kApi] + summary->records_by_type[AmpChunkType::kNvtx];
  }
  EXPECT_EQ(records, 12u);
  EXPECT_GE(CountCalls(fake.calls(), "flush:0"), 1u);  // periodic flushes are not forced
  auto before = ReadAmptrace(s.path());
  ASSERT_TRUE(before.ok());
  EXPECT_EQ(before->diagnostics.Count("truncated_file"), 1u);  // no footer yet: still running
  s.Shutdown();
}

TEST(SessionTest, ShutdownFlushesForcedBeforeTheFooter) {
  std::string dir = testing::MakeTempDir("session");
  FakeCupti fake;
  SessionConfig c = TestConfig(dir);
  c.flush_interval_ms = 60000;  // no periodic flush during the test
  Session s(c);
  ASSERT_TRUE(s.Open().ok());
  ASSERT_TRUE(s.StartCupti(&fake.api));
  for (uint32_t i = 0; i < 5; ++i) fake.Produce(i + 1, 1000 + i);
  s.Shutdown();
  const std::vector<std::string> calls = fake.calls();
  // Forced flush at shutdown, then the activity kinds are switched off.
  auto forced = std::find(calls.begin(), calls.end(), "flush:1");
  ASSERT_NE(forced, calls.end());
  auto disable = std::find_if(calls.begin(), calls.end(), [](const std::string& x) { return x.rfind("disable:", 0) == 0; });
  EXPECT_LT(forced - calls.begin(), disable - calls.begin());
  auto t = ReadAmptrace(s.path());
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->api_calls.size(), 5u);  // delivered by the forced flush, written before the footer
  EXPECT_EQ(t->metadata.extra.at("clean_end"), "true");
  EXPECT_EQ(t->diagnostics.Count("unknown_string_id"), 0u);  // strings precede their records
  s.Shutdown();  // idempotent
}

TEST(SessionTest, AnotherSubscriberStandsDownButNvtxIsKept) {
  std::string dir = testing::MakeTempDir("session");
  FakeCupti fake;
  fake.subscribe_result = CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  Session s(TestConfig(dir));
  ASSERT_TRUE(s.Open().ok());
  EXPECT_FALSE(s.StartCupti(&fake.api));
  EXPECT_EQ(CountCalls(fake.calls(), "enable:"), 0u);
  s.NvtxPush("step", "");
  s.NvtxPop("");
  s.Shutdown();
  auto t = ReadAmptrace(s.path());
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->diagnostics.Count("another_cupti_subscriber"), 1u);
  EXPECT_EQ(t->ranges.size(), 1u);
  auto summary = ReadAmptraceSummary(s.path());
  ASSERT_TRUE(summary.ok());
  ASSERT_EQ(summary->warnings.size(), 1u);
  EXPECT_EQ(summary->warnings[0].code, "another_cupti_subscriber");
}

TEST(SessionTest, EnableFailureDisablesCuptiOnly) {
  std::string dir = testing::MakeTempDir("session");
  FakeCupti fake;
  fake.enable_result = CUPTI_ERROR_UNKNOWN;  // what a machine without a driver answers
  Session s(TestConfig(dir));
  ASSERT_TRUE(s.Open().ok());
  EXPECT_FALSE(s.StartCupti(&fake.api));
  EXPECT_FALSE(s.cupti_active());
  s.NvtxMark("still recorded", "");
  s.Shutdown();
  auto t = ReadAmptrace(s.path());
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->diagnostics.Count("cupti_unavailable"), 1u);
  EXPECT_EQ(t->ranges.size(), 1u);
}

TEST(SessionTest, StepWindowRecordsOnlyStepsNToM) {
  std::string dir = testing::MakeTempDir("session");
  FakeCupti fake;
  SessionConfig c = TestConfig(dir);
  c.gate_range_name = "step";
  c.gate_first = 1;
  c.gate_last = 2;
  Session s(c);
  ASSERT_TRUE(s.Open().ok());
  ASSERT_TRUE(s.StartCupti(&fake.api));
  EXPECT_EQ(CountCalls(fake.calls(), "enable:"), 0u);  // window not open yet
  for (int step = 0; step < 4; ++step) {
    s.NvtxPush("step", "");
    s.NvtxPush("forward", "");
    s.NvtxPop("");
    s.NvtxPop("");
    if (step == 0) {
      EXPECT_EQ(CountCalls(fake.calls(), "enable:"), 0u);
    } else if (step == 1) {
      EXPECT_GT(CountCalls(fake.calls(), "enable:"), 0u);
    }
  }
  EXPECT_GT(CountCalls(fake.calls(), "disable:"), 0u);  // closed after step 2
  s.Shutdown();
  auto t = ReadAmptrace(s.path());
  ASSERT_TRUE(t.ok());
  size_t steps = 0, forwards = 0;
  for (const Range& r : t->ranges) {
    steps += t->str(r.name) == "step";
    forwards += t->str(r.name) == "forward";
  }
  EXPECT_EQ(steps, 2u);
  EXPECT_EQ(forwards, 2u);
}

// The process-level paths run in a forked child so atexit and signal handlers are real.
// Returns the child's wait status.
template <typename Fn>
int InChild(Fn fn) {
  pid_t pid = fork();
  if (pid == 0) {
    fn();
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

void StartProcessSession(FakeCupti& fake, const std::string& dir) {
  setenv("AMPSCOPE_OUTPUT_DIR", dir.c_str(), 1);
  setenv("AMPSCOPE_FLUSH_MS", "60000", 1);  // only exit/signal flushes in these tests
  collector::SetCuptiApiForTesting(&fake.api);
  collector::StartFromCudaInjection();
}

TEST(SessionProcessTest, NormalExitWritesTheFooter) {
  std::string dir = testing::MakeTempDir("session");
  int status = InChild([&] {
    FakeCupti fake;
    StartProcessSession(fake, dir);
    for (uint32_t i = 0; i < 3; ++i) fake.Produce(i + 1, 1000 + i);
    collector::CurrentSession()->NvtxPush("step", "");
    collector::CurrentSession()->NvtxPop("");
    std::exit(4);  // atexit runs the shutdown
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 4);
  auto files = FilesIn(dir);
  ASSERT_EQ(files.size(), 1u);
  auto t = ReadAmptrace(dir + "/" + files[0]);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->metadata.extra.at("clean_end"), "true");
  EXPECT_EQ(t->api_calls.size(), 3u);
  EXPECT_EQ(t->ranges.size(), 1u);
}

TEST(SessionProcessTest, SigtermFlushesThenDiesOfSigterm) {
  std::string dir = testing::MakeTempDir("session");
  int status = InChild([&] {
    FakeCupti fake;
    StartProcessSession(fake, dir);
    for (uint32_t i = 0; i < 3; ++i) fake.Produce(i + 1, 1000 + i);
    collector::CurrentSession()->NvtxPush("step", "");  // left open: the process is killed inside it
    kill(getpid(), SIGTERM);
    std::this_thread::sleep_for(std::chrono::seconds(5));  // not reached: SIGTERM's default action
    std::exit(0);
  });
  ASSERT_TRUE(WIFSIGNALED(status)) << "the program's behaviour (death by SIGTERM) must not change";
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  auto files = FilesIn(dir);
  ASSERT_EQ(files.size(), 1u);
  auto t = ReadAmptrace(dir + "/" + files[0]);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->metadata.extra.at("clean_end"), "true");
  EXPECT_EQ(t->metadata.extra.at("closed_by_signal"), "true");
  EXPECT_EQ(t->api_calls.size(), 3u);
  ASSERT_EQ(t->ranges.size(), 1u);  // the open step, closed at the end of the file
  EXPECT_EQ(t->diagnostics.Count("nvtx_unclosed_range"), 1u);
}

std::atomic<int> g_program_handler_calls{0};

TEST(SessionProcessTest, SigtermChainsToTheProgramsHandler) {
  std::string dir = testing::MakeTempDir("session");
  int status = InChild([&] {
    signal(SIGTERM, [](int) { g_program_handler_calls.fetch_add(1); });
    FakeCupti fake;
    StartProcessSession(fake, dir);
    fake.Produce(1, 1000);
    kill(getpid(), SIGTERM);
    // The program's handler ran and the program goes on, as it would without ampscope.
    std::exit(g_program_handler_calls.load() == 1 ? 9 : 1);
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 9);
  auto files = FilesIn(dir);
  ASSERT_EQ(files.size(), 1u);
  auto t = ReadAmptrace(dir + "/" + files[0]);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->metadata.extra.at("clean_end"), "true");  // footer from the exit that followed
  EXPECT_EQ(t->metadata.extra.count("closed_by_signal"), 0u);
  EXPECT_EQ(t->api_calls.size(), 1u);
}

// Returns once every other thread of this process sleeps in poll() (the session's writer
// between two flushes), or after 10 s. A fork while another thread is inside malloc leaves the
// child with that allocator's lock held: glibc's malloc takes its locks around fork, but the
// ASan tree's LeakSanitizer (clang 14) does not, and its leak check at the child's exit then
// waits forever (1 run in 7 before this wait).
void WaitForOtherThreadsInPoll() {
  const std::string self = std::to_string(static_cast<long>(syscall(SYS_gettid)));
  for (int tries = 0; tries < 1000; ++tries) {
    bool all_in_poll = true;
    DIR* tasks = opendir("/proc/self/task");
    if (tasks == nullptr) return;
    while (dirent* e = readdir(tasks)) {
      const std::string tid = e->d_name;
      if (tid == "." || tid == ".." || tid == self) continue;
      std::string wchan;
      std::ifstream("/proc/self/task/" + tid + "/wchan") >> wchan;
      if (wchan.find("poll") == std::string::npos) all_in_poll = false;
    }
    closedir(tasks);
    if (all_in_poll) return;
    usleep(10000);
  }
}

TEST(SessionProcessTest, ForkedChildWritesNothing) {
  std::string dir = testing::MakeTempDir("session");
  int status = InChild([&] {
    FakeCupti fake;
    StartProcessSession(fake, dir);
    collector::CurrentSession()->NvtxPush("parent_range", "");
    collector::CurrentSession()->NvtxPop("");
    WaitForOtherThreadsInPoll();
    pid_t child = fork();
    if (child == 0) {
      // A DataLoader-like worker: NVTX calls reach the hooks, but there is no session here.
      const bool no_session = collector::CurrentSession() == nullptr && collector::EnsureSessionForNvtx() == nullptr;
      std::exit(no_session ? 0 : 5);  // runs the inherited atexit handler, which must do nothing
    }
    int st = 0;
    waitpid(child, &st, 0);
    std::exit(WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 3);
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  auto files = FilesIn(dir);
  ASSERT_EQ(files.size(), 1u) << "only the parent writes a file";
  auto t = ReadAmptrace(dir + "/" + files[0]);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->metadata.extra.at("clean_end"), "true");
  ASSERT_EQ(t->ranges.size(), 1u);
  EXPECT_EQ(t->str(t->ranges[0].name), "parent_range");
}

}  // namespace
}  // namespace session_test
}  // namespace ampscope
