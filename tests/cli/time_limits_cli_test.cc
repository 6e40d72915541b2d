// `ampscope analyze` on traces whose times sit at the bounds the readers accept (issue 16:
// window span, idle-gap and overlap sums overflowed int64 in the analyzers; with recoverable
// UBSan 30 sites fired). Each trace here is accepted by the reader (all times within 2^61 ns
// of each other, durations adding up to at most 2^62 ns) and must be analysed with finite,
// sane numbers: percentages within [0, 100], durations and counts not negative, busy + idle =
// 100. Traces just beyond the bounds must be one-line errors with exit 2. Under the sanitizer
// build (AMPSCOPE_SANITIZE, non-recoverable UBSan) an overflow aborts the binary, so these
// tests fail there too.
//
// Times: 2^61 ns = 2305843009213693.952 µs, 2^60 ns = 1152921504606846.976 µs.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "support/test_support.h"

namespace time_limits_cli_test {
namespace {

using ampscope::testing::BinaryPath;
using ampscope::testing::MakeTempDir;
using ampscope::testing::ReadFile;
using ampscope::testing::WriteFile;

const std::string k2To61Us = "2305843009213693.952";
const std::string k2To60Us = "1152921504606846.976";

struct RunResult {
  int exit_code;
  std::string out;
};

RunResult RunAmpscope(const std::string& args) {
  std::string cmd = BinaryPath("cli/ampscope") + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), out};
}

std::string Event(const std::string& cat, const std::string& name, int pid, int tid, const std::string& ts,
                  const std::string& dur, const std::string& args = "") {
  return R"({"ph": "X", "cat": ")" + cat + R"(", "name": ")" + name + R"(", "pid": )" + std::to_string(pid) +
         ", \"tid\": " + std::to_string(tid) + ", \"ts\": " + ts + ", \"dur\": " + dur +
         (args.empty() ? "" : ", \"args\": {" + args + "}") + "}";
}

// `devices` kernels, one per device, each launched at `ts`+i µs and running 1 µs from
// `ts`+10+i µs (ts is an integer number of µs, possibly negative, written as text).
std::string KernelsOnDevices(int devices, long long ts, int first_corr) {
  std::string out;
  for (int i = 0; i < devices; ++i) {
    const std::string corr = "\"correlation\": " + std::to_string(first_corr + i);
    out += ", " + Event("cuda_runtime", "cudaLaunchKernel", 1, 1, std::to_string(ts + i), "1", corr);
    out += ", " + Event("kernel", "volta_h884gemm_64x64_ldg8_nn", i, 7, std::to_string(ts + 10 + i), "1",
                        corr + ", \"device\": " + std::to_string(i) + ", \"stream\": 7");
  }
  return out;
}

std::string Wrap(const std::string& events) { return "{\"traceEvents\": [" + events + "]}"; }

// Every number in the report is finite; every *_pct within [0, 100]; every duration, count or
// bytes value (keys ending _us, _ns, _count, _bytes, or "count") not negative, except times.
void ExpectSane(const nlohmann::json& j, const std::string& path = "") {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string& key = it.key();
      const std::string where = path + "." + key;
      if (it->is_number()) {
        const double v = it->get<double>();
        EXPECT_TRUE(std::isfinite(v)) << where;
        auto ends = [&](const char* suffix) {
          const std::string s(suffix);
          return key.size() >= s.size() && key.compare(key.size() - s.size(), s.size(), s) == 0;
        };
        const bool is_time = key.find("start") != std::string::npos || key.find("end") != std::string::npos ||
                             key.find("first") != std::string::npos || key.find("last") != std::string::npos ||
                             key == "t_us" || key == "time_us";
        if (ends("_pct") && key.find("delta") == std::string::npos && key.find("change") == std::string::npos) {
          EXPECT_GE(v, -1e-9) << where;
          EXPECT_LE(v, 100 + 1e-6) << where;
        }
        if ((ends("_us") || ends("_ns") || ends("_count") || ends("_bytes") || key == "count") && !is_time &&
            key.find("delta") == std::string::npos && key.find("skew") == std::string::npos) {
          EXPECT_GE(v, 0) << where;
        }
      }
      ExpectSane(*it, where);
    }
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) ExpectSane(j[i], path + "[" + std::to_string(i) + "]");
  }
}

class TimeLimitsCli : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeTempDir("ampscope_time_limits"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Writes the traces, analyses them together, and checks the report.
  nlohmann::json AnalyzeOk(const std::vector<std::string>& traces) {
    std::string args = "analyze -q -o " + dir_ + "/r.json";
    for (size_t i = 0; i < traces.size(); ++i) {
      const std::string path = dir_ + "/rank" + std::to_string(i) + ".json";
      WriteFile(path, traces[i]);
      args += " " + path;
    }
    RunResult r = RunAmpscope(args);
    EXPECT_EQ(r.exit_code, 0) << r.out;
    if (r.exit_code != 0) return {};
    nlohmann::json report = nlohmann::json::parse(ReadFile(dir_ + "/r.json"));
    ExpectSane(report);
    const nlohmann::json& gpu = report["gpu"];
    if (gpu.contains("busy_pct") && gpu["busy_pct"].is_number()) {
      double sum = gpu["busy_pct"].get<double>();
      for (const auto& [k, v] : gpu["idle_breakdown_pct"].items()) sum += v.get<double>();
      EXPECT_NEAR(sum, 100.0, 1e-6) << gpu.dump();
    }
    return report;
  }
  RunResult AnalyzeFails(const std::string& trace) {
    WriteFile(dir_ + "/bad.json", trace);
    RunResult r = RunAmpscope("analyze -q -o " + dir_ + "/r.json " + dir_ + "/bad.json");
    EXPECT_EQ(r.exit_code, 2) << r.out;
    std::string text = r.out;
    while (!text.empty() && text.back() == '\n') text.pop_back();
    EXPECT_EQ(text.find('\n'), std::string::npos) << r.out;
    EXPECT_NE(text.find(dir_ + "/bad.json: byte "), std::string::npos) << r.out;
    EXPECT_FALSE(std::filesystem::exists(dir_ + "/r.json"));
    return r;
  }

  std::string dir_;
};

// One step of 2^61 ns with a 1 µs kernel on each of 8 devices: each device is idle for
// almost 2^61 ns, so the idle gaps summed over devices reach 8 * 2^61 = 2^64 (analyze.cc's
// idle_sum overflowed); the per-step busy sums over devices likewise.
TEST_F(TimeLimitsCli, IdleGapSumsOverManyDevicesInAHugeStep) {
  const std::string trace =
      Wrap(Event("user_annotation", "ProfilerStep#1", 1, 1, "0", k2To61Us) + KernelsOnDevices(8, 100, 1));
  nlohmann::json report = AnalyzeOk({trace});
  EXPECT_EQ(report["steps"]["count"], 1);
  EXPECT_GT(report["gpu"]["idle_pct"].get<double>(), 99.0);
}

// The same around zero: the step runs from -2^60 to +2^60 ns.
TEST_F(TimeLimitsCli, HugeStepAcrossZero) {
  const std::string trace = Wrap(Event("user_annotation", "ProfilerStep#1", 1, 1, "-" + k2To60Us, k2To61Us) +
                                 KernelsOnDevices(8, -1000, 1));
  AnalyzeOk({trace});
}

// Two short steps 2^61 ns apart: the window span (last end - first start) is 2^61 ns.
TEST_F(TimeLimitsCli, StepsAtBothEndsOfTheSpan) {
  const std::string trace =
      Wrap(Event("user_annotation", "ProfilerStep#1", 1, 1, "-" + k2To60Us, "1000") +
           KernelsOnDevices(4, -1152921504606846LL, 1) +
           ", " + Event("user_annotation", "ProfilerStep#2", 1, 1, "1152921504605846.976", "1000") +
           KernelsOnDevices(4, 1152921504606846LL - 990, 100));
  AnalyzeOk({trace});
}

// No steps: the window is the span of all GPU work, 2^61 ns, over 8 devices.
TEST_F(TimeLimitsCli, NoStepsAndGpuWorkAtBothEnds) {
  const std::string trace =
      Wrap(KernelsOnDevices(8, -1152921504606846LL, 1).substr(2) + KernelsOnDevices(8, 1152921504606846LL - 20, 50));
  AnalyzeOk({trace});
}

// Two overlapping steps of 2^61 ns - 1 ms each (with the kernels, just under the 2^62 ns
// total): overlap sums on 8 devices.
TEST_F(TimeLimitsCli, OverlappingHugeSteps) {
  const std::string dur = "2305843009212693.952";
  const std::string trace = Wrap(Event("user_annotation", "ProfilerStep#1", 1, 1, "0", dur) + ", " +
                                 Event("user_annotation", "ProfilerStep#2", 1, 1, "0", dur) +
                                 KernelsOnDevices(8, 100, 1));
  nlohmann::json report = AnalyzeOk({trace});
  EXPECT_GE(report["diagnostics"]["counters"].value("overlapping_profiler_steps", 0), 1) << report["diagnostics"];
}

// Four such ranks in one job: the job view sums and averages over ranks.
TEST_F(TimeLimitsCli, FourHugeRanks) {
  const std::string trace =
      Wrap(Event("user_annotation", "ProfilerStep#1", 1, 1, "0", k2To61Us) + KernelsOnDevices(8, 100, 1));
  AnalyzeOk({trace, trace, trace, trace});
}

// Just beyond the bounds: one line, exit 2, no report.
TEST_F(TimeLimitsCli, BeyondTheBoundsIsAnInputError) {
  // ts + dur = 2^62 + 2^62 (kineto_event_parser.cc's start + dur reached 2^63).
  AnalyzeFails(Wrap(Event("kernel", "k", 0, 7, "4611686018427387.904", "4611686018427387.904")));
  // A span of 2^61 + 1 ns.
  AnalyzeFails(Wrap(Event("cpu_op", "aten::mm", 1, 1, "0", "1") + ", " +
                    Event("cpu_op", "aten::mm", 1, 1, "2305843009213693.953", "0")));
  // Three events of 2^61 ns: 1.5 * 2^62 ns of durations.
  const std::string big = Event("cpu_op", "aten::mm", 1, 1, "0", k2To61Us);
  RunResult r = AnalyzeFails(Wrap(big + ", " + big + ", " + big));
  EXPECT_NE(r.out.find("durations add up to more than 2^62 ns"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace time_limits_cli_test
