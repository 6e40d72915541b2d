// The annotated Chrome trace, read back: the format is valid, every input event is there
// with the same (exact ns) times, flows are paired, names are given, and the analysis
// tracks match the analysis and the report.
#include "export/chrome_trace.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>

#include "analyzers/analyze.h"
#include "pipeline/job.h"
#include "report_fixtures.h"
#include "reports/json_report.h"
#include "support/test_support.h"
#include "tools/scenario/scenario.h"
#include "trace/formats/kineto/kineto_reader.h"
#include "trace_event_checks.h"

namespace ampscope {
namespace chrome_trace_test {
namespace {

using nlohmann::json;
using testing::kBaseNs;
using testing::ParsedChromeTrace;

TEST(ChromeTraceFormat, MicrosAreExactDecimalsOfTheNanoseconds) {
  // Expected strings written out by hand: µs = ns / 1000 with the remainder as 3 digits.
  EXPECT_EQ(trace_export::FormatMicros(0), "0.000");
  EXPECT_EQ(trace_export::FormatMicros(1), "0.001");
  EXPECT_EQ(trace_export::FormatMicros(999), "0.999");
  EXPECT_EQ(trace_export::FormatMicros(1000), "1.000");
  EXPECT_EQ(trace_export::FormatMicros(123456789), "123456.789");
  EXPECT_EQ(trace_export::FormatMicros(-1), "-0.001");
  EXPECT_EQ(trace_export::FormatMicros(-1500), "-1.500");
  // A double has 53 bits; this value needs 61, so any trip through a double would show.
  EXPECT_EQ(trace_export::FormatMicros(1'700'000'000'000'000'123), "1700000000000000.123");
  EXPECT_EQ(trace_export::FormatMicros(std::numeric_limits<int64_t>::max()), "9223372036854775.807");
  EXPECT_EQ(trace_export::FormatMicros(std::numeric_limits<int64_t>::min()), "-9223372036854775.808");
}

TEST(ChromeTraceFormat, JsonEscapingKeepsStringsAndRepairsBadUtf8) {
  std::string out = "\"";
  trace_export::AppendJsonEscaped(out, std::string("a\"b\\c\n\x01 \xC3\xA9 \xff z", 14));
  out += "\"";
  json parsed = json::parse(out);  // strict parser: throws on invalid UTF-8 or bad escapes
  EXPECT_EQ(parsed.get<std::string>(), "a\"b\\c\n\x01 \xC3\xA9 \xEF\xBF\xBD z");
}

class SmallTraceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    traces_.push_back(testing::MakeSmallTrace());
    job_ = AnalyzeJob(traces_, AnalysisOptions{});
    ASSERT_EQ(job_.ranks.size(), 1u);
    testing::AddTestFindings(job_);
    std::ostringstream out;
    Status st = WriteChromeTrace(traces_, job_, out);
    ASSERT_TRUE(st.ok()) << st.message();
    text_ = out.str();
    parsed_ = testing::ParseChromeTrace(text_);
    ASSERT_TRUE(parsed_.ok) << parsed_.error;
  }
  std::vector<Trace> traces_;
  JobAnalysis job_;
  std::string text_;
  ParsedChromeTrace parsed_;
};

TEST_F(SmallTraceTest, EveryEventFollowsTheTraceEventFormat) {
  std::vector<std::string> problems = testing::CheckTraceEventFormat(parsed_);
  EXPECT_THAT(problems, ::testing::IsEmpty());
  EXPECT_EQ(parsed_.doc["displayTimeUnit"], "ns");
  EXPECT_THAT(testing::CheckNamesAndFlows(parsed_), ::testing::IsEmpty());
}

TEST_F(SmallTraceTest, EveryKernelAppearsOnceWithTheSameTimes) {
  const Trace& t = traces_[0];
  std::multiset<std::tuple<std::string, int64_t, int64_t, TimeNs, TimeNs>> expected, actual;
  for (const KernelEvent& k : t.kernels) {
    std::string name(t.str(k.name));
    if (name.find("bad_utf8") == 0) name = "bad_utf8_\xEF\xBF\xBD\xEF\xBF\xBD_kernel";  // repaired bytes
    expected.insert({name, k.device, k.stream, k.start_ns, k.duration_ns()});
  }
  for (size_t i = 0; i < parsed_.events.size(); ++i) {
    const json& e = parsed_.events[i];
    if (e.value("cat", "") != "kernel") continue;
    actual.insert({e["name"].get<std::string>(), e["pid"].get<int64_t>(), e["tid"].get<int64_t>(), parsed_.ts_ns[i],
                   parsed_.dur_ns[i]});
  }
  EXPECT_EQ(actual, expected);
  ASSERT_EQ(actual.size(), 6u);
  // The 1-ns kernel at a sub-µs offset keeps its exact time.
  EXPECT_NE(text_.find("\"ts\":1700000000000212.130,\"dur\":0.001"), std::string::npos);
}

TEST_F(SmallTraceTest, EveryOtherInputEventIsConvertedOnce) {
  std::map<std::string, int> by_cat;
  for (const json& e : parsed_.events) by_cat[e.value("cat", "")]++;
  const Trace& t = traces_[0];
  EXPECT_EQ(by_cat["gpu_memcpy"], static_cast<int>(t.memcpys.size()));
  EXPECT_EQ(by_cat["gpu_memset"], static_cast<int>(t.memsets.size()));
  EXPECT_EQ(by_cat["cuda_runtime"], static_cast<int>(t.api_calls.size()));
  EXPECT_EQ(by_cat["cuda_sync"], static_cast<int>(t.syncs.size()));
  EXPECT_EQ(by_cat["cpu_op"], static_cast<int>(t.cpu_ops.size()));
  EXPECT_EQ(by_cat["user_annotation"], 2);  // the two ProfilerSteps
  EXPECT_EQ(by_cat["nvtx"], 1);             // the mark
  EXPECT_EQ(by_cat["cpu_instant_event"], static_cast<int>(t.memory_events.size()));
  EXPECT_EQ(by_cat["Trace"], 1);
  EXPECT_EQ(by_cat["counter"], static_cast<int>(t.counters.size()));
  // Kineto's names and arguments.
  bool memcpy_seen = false;
  for (const json& e : parsed_.events) {
    if (e.value("cat", "") == "gpu_memcpy") {
      memcpy_seen = true;
      EXPECT_EQ(e["name"], "Memcpy HtoD (Pageable -> Device)");
      EXPECT_EQ(e["args"]["bytes"], 1 << 20);
      // 1 MiB in 8 µs = 1048576 / 8000 bytes per ns = 131.072 GB/s.
      EXPECT_DOUBLE_EQ(e["args"]["memory bandwidth (GB/s)"].get<double>(), 131.072);
    }
    if (e.value("cat", "") == "cpu_op") {
      EXPECT_EQ(e["args"]["Input Dims"], json::parse("[[32,64],[64,128]]"));
      EXPECT_EQ(e["args"]["External id"], 101);
    }
    if (e.value("cat", "") == "kernel" && e["name"] == "volta_sgemm_128x64_nn") {
      EXPECT_EQ(e["args"]["correlation"], 1);
      EXPECT_EQ(e["args"]["grid"], json::parse("[80,1,1]"));
      EXPECT_EQ(e["args"]["ampscope category"], "gemm");
    }
  }
  EXPECT_TRUE(memcpy_seen);
  // The nasty kernel name survives escaping byte for byte.
  int nasty = 0;
  for (const json& e : parsed_.events) nasty += e.value("name", "") == testing::kNastyKernelName;
  EXPECT_EQ(nasty, 1);
}

TEST_F(SmallTraceTest, FlowsArePairedAndDanglingHalvesAreDropped) {
  std::map<std::pair<std::string, int64_t>, std::string> phases;
  for (const json& e : parsed_.events) {
    std::string ph = e["ph"];
    if (ph != "s" && ph != "f") continue;
    phases[{e["cat"], e["id"].get<int64_t>()}] += ph;
  }
  EXPECT_EQ(phases.size(), 7u);  // 7 launches with a finish; id 999 had no finish
  for (const auto& [key, p] : phases) EXPECT_EQ(p, "sf") << key.first << " " << key.second;
  EXPECT_EQ(parsed_.doc["otherData"]["unpaired_flow_events_dropped"], 1);
}

TEST_F(SmallTraceTest, StepSpansMatchTheAnalysisAndTheReport) {
  int64_t apid = testing::FindProcess(parsed_, "ampscope analysis");
  ASSERT_GE(apid, 0);
  std::vector<std::pair<TimeNs, TimeNs>> spans = testing::SpansOnThread(parsed_, apid, "steps");
  const std::vector<StepWindow>& steps = job_.ranks[0].steps.steps;
  ASSERT_EQ(spans.size(), 2u);
  ASSERT_EQ(steps.size(), 2u);
  for (size_t i = 0; i < steps.size(); ++i) {
    EXPECT_EQ(spans[i].first, steps[i].start_ns);
    EXPECT_EQ(spans[i].second, steps[i].duration_ns());
  }
  // Hand-computed: ProfilerStep#1 [0,100) µs, #2 [100,200) µs after the base.
  EXPECT_EQ(spans[0].first, kBaseNs);
  EXPECT_EQ(spans[1].first + spans[1].second, kBaseNs + 200'000);
  // The report (doubles in µs: at epoch scale a double resolves 0.25 µs).
  json report = BuildJsonReport(job_, AnalysisOptions{});
  const json& windows = report["steps"]["windows"];
  ASSERT_EQ(windows.size(), spans.size());
  for (size_t i = 0; i < spans.size(); ++i) {
    EXPECT_NEAR(windows[i]["start_us"].get<double>(), spans[i].first / 1e3, 0.5);
    EXPECT_NEAR(windows[i]["end_us"].get<double>(), (spans[i].first + spans[i].second) / 1e3, 0.5);
  }
  EXPECT_EQ(report["steps"]["count"], spans.size());
}

TEST_F(SmallTraceTest, IdleGapsAreColouredByCategoryAndSumToTheBreakdown) {
  int64_t apid = testing::FindProcess(parsed_, "ampscope analysis");
  int64_t tid = testing::FindThread(parsed_, apid, "GPU 0 idle gaps");
  ASSERT_GE(tid, 0);
  std::map<std::string, TimeNs> sum;
  std::map<std::string, std::set<std::string>> colours;
  for (size_t i = 0; i < parsed_.events.size(); ++i) {
    const json& e = parsed_.events[i];
    if (e["ph"] != "X" || e["pid"] != apid || e["tid"] != tid) continue;
    sum[e["name"]] += parsed_.dur_ns[i];
    colours[e["name"]].insert(e.value("cname", ""));
    EXPECT_EQ(e["args"]["idle_kind"], e["name"]);
  }
  // Hand-computed in report_fixtures.h.
  EXPECT_EQ(sum["host_wait"], testing::kSmallHostWaitNs);
  EXPECT_EQ(sum["kernel_wait"], testing::kSmallKernelWaitNs);
  EXPECT_EQ(sum["other"], testing::kSmallOtherIdleNs);
  // ... and the analyzer's breakdown agrees.
  EXPECT_EQ(sum["host_wait"], job_.ranks[0].gpu.idle.host_wait_ns);
  EXPECT_EQ(sum["kernel_wait"], job_.ranks[0].gpu.idle.kernel_wait_ns);
  EXPECT_EQ(sum["other"], job_.ranks[0].gpu.idle.other_ns);
  EXPECT_EQ(colours["host_wait"], std::set<std::string>{"terrible"});
  EXPECT_EQ(colours["kernel_wait"], std::set<std::string>{"yellow"});
  EXPECT_EQ(colours["other"], std::set<std::string>{"grey"});
}

TEST_F(SmallTraceTest, FindingsAndSyncPointsCarryTheirArguments) {
  int64_t apid = testing::FindProcess(parsed_, "ampscope analysis");
  int64_t gap_tid = testing::FindThread(parsed_, apid, "finding test_slow_gap");
  int64_t none_tid = testing::FindThread(parsed_, apid, "finding test_no_range");
  int64_t sync_tid = testing::FindThread(parsed_, apid, "sync points");
  ASSERT_GE(gap_tid, 0);
  ASSERT_GE(none_tid, 0);
  ASSERT_GE(sync_tid, 0);
  int gap_spans = 0, instants = 0, syncs = 0;
  for (size_t i = 0; i < parsed_.events.size(); ++i) {
    const json& e = parsed_.events[i];
    if (e["pid"] != apid || e["ph"] == "M") continue;
    if (e["tid"] == gap_tid) {
      ++gap_spans;
      EXPECT_EQ(e["ph"], "X");
      EXPECT_EQ(parsed_.ts_ns[i], kBaseNs + 50'000);
      EXPECT_EQ(parsed_.dur_ns[i], 45'000);
      EXPECT_EQ(e["args"]["id"], "test_slow_gap");
      EXPECT_EQ(e["args"]["severity"], "warning");
      EXPECT_EQ(e["args"]["evidence"]["gap_us"], 45);
      EXPECT_EQ(e["args"]["recommendation"], "Use pinned memory and more DataLoader workers.");
      EXPECT_EQ(e["args"]["est_saving_pct"], 22.5);
    }
    if (e["tid"] == none_tid) {
      ++instants;
      EXPECT_EQ(e["ph"], "i");
      EXPECT_EQ(e["args"]["id"], "test_no_range");
    }
    if (e["tid"] == sync_tid) {
      // The 1 MB pageable H2D copy [110, 112) blocks the host (a blocking input copy, the one
      // sync definition), then the stream sync [192, 199).
      ++syncs;
      if (syncs == 1) {
        EXPECT_EQ(e["name"], "cudaMemcpyAsync HtoD");
        EXPECT_EQ(parsed_.ts_ns[i], kBaseNs + 110'000);
        EXPECT_EQ(parsed_.dur_ns[i], 2'000);
      } else {
        EXPECT_EQ(e["name"], "cudaStreamSynchronize");
        EXPECT_EQ(parsed_.ts_ns[i], kBaseNs + 192'000);
        EXPECT_EQ(parsed_.dur_ns[i], 7'000);
      }
    }
  }
  EXPECT_EQ(gap_spans, 1);
  EXPECT_EQ(instants, 1);
  EXPECT_EQ(syncs, static_cast<int>(job_.ranks[0].syncs.points.size()));
  EXPECT_EQ(syncs, 2);
  EXPECT_EQ(job_.ranks[0].syncs.input_copy_count, 1u);
}

TEST_F(SmallTraceTest, CountersPerStep) {
  int64_t apid = testing::FindProcess(parsed_, "ampscope analysis");
  std::map<std::string, std::vector<std::pair<TimeNs, double>>> counters;
  for (size_t i = 0; i < parsed_.events.size(); ++i) {
    const json& e = parsed_.events[i];
    if (e["ph"] != "C" || e["pid"] != apid) continue;
    for (const auto& [k, v] : e["args"].items()) counters[e["name"].get<std::string>() + "/" + k].push_back({parsed_.ts_ns[i], v});
  }
  const json per_step = PerStepJson(job_.ranks[0].per_step);
  auto busy = counters["GPU busy per step/busy_pct"];
  ASSERT_EQ(busy.size(), 3u);  // two steps, then 0 after the last
  EXPECT_EQ(busy[0].first, kBaseNs);
  EXPECT_DOUBLE_EQ(busy[0].second, per_step[0]["busy_pct"].get<double>());
  EXPECT_DOUBLE_EQ(busy[1].second, per_step[1]["busy_pct"].get<double>());
  EXPECT_EQ(busy[2].second, 0.0);
  // Hand-computed busy per step: step 1 has K1 20 + K2 5 + K3 4 = 29 of 100 µs.
  EXPECT_NEAR(busy[0].second, 29.0, 1e-9);
  // Tensor Core kernel share: step 2 has the fp16 Tensor Core GEMM (30 µs) as its only kernel.
  auto tc = counters["Tensor Core kernel share per step/tensor_core_kernel_pct"];
  ASSERT_EQ(tc.size(), 3u);
  EXPECT_NEAR(tc[1].second, 100.0, 1e-9);
  // Sampled Tensor Core activity: means of the samples in each step (40,60 -> 50; 80).
  auto active = counters["Tensor Core active per step/tensor_active_pct"];
  ASSERT_EQ(active.size(), 3u);
  EXPECT_DOUBLE_EQ(active[0].second, 50.0);
  EXPECT_DOUBLE_EQ(active[1].second, 80.0);
}

TEST(ChromeTraceMultiRank, RanksGetTheirOwnPidsNamesAndFlows) {
  std::vector<Trace> traces;
  traces.push_back(testing::MakeSmallTrace(0));
  traces.push_back(testing::MakeSmallTrace(1));
  JobAnalysis job = AnalyzeJob(traces, AnalysisOptions{});
  ASSERT_EQ(job.ranks.size(), 2u);
  std::ostringstream out;
  ASSERT_TRUE(WriteChromeTrace(traces, job, out).ok());
  ParsedChromeTrace parsed = testing::ParseChromeTrace(out.str());
  ASSERT_TRUE(parsed.ok) << parsed.error;
  EXPECT_THAT(testing::CheckTraceEventFormat(parsed), ::testing::IsEmpty());
  EXPECT_THAT(testing::CheckNamesAndFlows(parsed), ::testing::IsEmpty());

  // Process names carry the rank; each rank's pids are its own.
  std::map<int64_t, std::string> names;
  for (const json& e : parsed.events)
    if (e["ph"] == "M" && e["name"] == "process_name") names[e["pid"]] = e["args"]["name"];
  std::map<int, std::set<int64_t>> pids_by_rank;
  for (const auto& [pid, name] : names) {
    ASSERT_TRUE(name.rfind("rank 0 ", 0) == 0 || name.rfind("rank 1 ", 0) == 0) << name;
    pids_by_rank[name[5] - '0'].insert(pid);
  }
  ASSERT_EQ(pids_by_rank.size(), 2u);
  for (int64_t p : pids_by_rank[0]) EXPECT_EQ(pids_by_rank[1].count(p), 0u);
  EXPECT_GE(testing::FindProcess(parsed, "rank 0 \xC2\xB7 ampscope analysis"), 0);
  EXPECT_GE(testing::FindProcess(parsed, "rank 1 \xC2\xB7 ampscope analysis"), 0);

  // Every kernel of both ranks, once; flows stay inside their rank.
  int kernels = 0;
  std::map<int64_t, std::set<int>> flow_ranks;
  for (const json& e : parsed.events) {
    kernels += e.value("cat", "") == "kernel";
    if (e["ph"] == "s" || e["ph"] == "f")
      flow_ranks[e["id"]].insert(pids_by_rank[0].count(e["pid"]) ? 0 : 1);
  }
  EXPECT_EQ(kernels, 12);
  EXPECT_EQ(flow_ranks.size(), 14u);
  for (const auto& [id, ranks] : flow_ranks) EXPECT_EQ(ranks.size(), 1u) << "flow " << id << " crosses ranks";
}

// Real inputs through the real pipeline: every kernel once with the same ns times, the step
// spans equal to the report's windows, valid format, names and paired flows.
void CheckRealTrace(const std::vector<Trace>& traces) {
  JobAnalysis job = AnalyzeJob(traces, AnalysisOptions{});
  ASSERT_EQ(job.ranks.size(), traces.size());
  std::ostringstream out;
  ASSERT_TRUE(WriteChromeTrace(traces, job, out).ok());
  ParsedChromeTrace parsed = testing::ParseChromeTrace(out.str());
  ASSERT_TRUE(parsed.ok) << parsed.error;
  EXPECT_THAT(testing::CheckTraceEventFormat(parsed), ::testing::IsEmpty());
  EXPECT_THAT(testing::CheckNamesAndFlows(parsed), ::testing::IsEmpty());

  std::vector<trace_export::RankPids> pids = trace_export::AssignPids(traces);
  std::multiset<std::tuple<std::string, int64_t, int64_t, TimeNs, TimeNs>> expected, actual;
  for (size_t r = 0; r < traces.size(); ++r)
    for (const KernelEvent& k : traces[r].kernels)
      expected.insert({std::string(traces[r].str(k.name)), pids[r].Map(k.device), k.stream, k.start_ns, k.duration_ns()});
  for (size_t i = 0; i < parsed.events.size(); ++i) {
    const json& e = parsed.events[i];
    if (e.value("cat", "") != "kernel") continue;
    actual.insert({e["name"], e["pid"], e["tid"], parsed.ts_ns[i], parsed.dur_ns[i]});
  }
  EXPECT_EQ(actual.size(), expected.size());
  EXPECT_TRUE(actual == expected) << "kernels differ";

  json report = BuildJsonReport(job, AnalysisOptions{});
  for (size_t r = 0; r < traces.size(); ++r) {
    std::string name = traces.size() > 1 ? trace_export::RankLabel(traces[r], r) + " \xC2\xB7 ampscope analysis"
                                         : "ampscope analysis";
    int64_t apid = testing::FindProcess(parsed, name);
    ASSERT_EQ(apid, pids[r].analysis_pid) << name;
    auto spans = testing::SpansOnThread(parsed, apid, "steps");
    const json& windows = report["ranks"][r]["steps"]["windows"];
    ASSERT_EQ(spans.size(), windows.size());
    ASSERT_GT(spans.size(), 0u);
    for (size_t i = 0; i < spans.size(); ++i) {
      EXPECT_EQ(spans[i].first, job.ranks[r].steps.steps[i].start_ns);
      EXPECT_EQ(spans[i].second, job.ranks[r].steps.steps[i].duration_ns());
      // The report's µs doubles resolve 0.25 µs at epoch-scale timestamps.
      EXPECT_NEAR(windows[i]["start_us"].get<double>(), spans[i].first / 1e3, 0.5);
      EXPECT_NEAR(windows[i]["end_us"].get<double>(), (spans[i].first + spans[i].second) / 1e3, 0.5);
    }
  }
}

TEST(ChromeTraceRealTraces, ResNet50TbPlugin) {
  AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=... or put shared/ next to the checkout)");
  std::vector<Trace> traces;
  StatusOr<Trace> t = ReadKinetoTrace(testing::SharedPath("traces/kineto/tb_plugin/worker0.1623143089861.pt.trace.json.gz"));
  ASSERT_TRUE(t.ok()) << t.status().message();
  traces.push_back(std::move(t).value());
  ASSERT_EQ(traces[0].kernels.size(), 8772u);  // shared/traces/README.md
  CheckRealTrace(traces);
}

TEST(ChromeTraceRealTraces, NanosecondTimestampsOfHta) {
  // rank-0.Apr_03... has fractional-ns float timestamps: they must come out unchanged.
  AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=... or put shared/ next to the checkout)");
  std::vector<Trace> traces;
  StatusOr<Trace> t = ReadKinetoTrace(testing::SharedPath("traces/kineto/hta/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"));
  ASSERT_TRUE(t.ok()) << t.status().message();
  traces.push_back(std::move(t).value());
  CheckRealTrace(traces);
}

TEST(ChromeTraceRealTraces, ScenarioTwoRanks) {
  std::vector<Trace> traces;
  for (int rank = 0; rank < 2; ++rank) {
    scenario::ScenarioOptions o;
    o.problem = scenario::Problem::kExposedAllReduce;
    o.steps = 4;
    o.rank = rank;
    o.world_size = 2;
    StatusOr<Trace> t = ReadKinetoTraceFromString(scenario::GenerateKinetoJson(o), "scenario" + std::to_string(rank));
    ASSERT_TRUE(t.ok()) << t.status().message();
    traces.push_back(std::move(t).value());
  }
  CheckRealTrace(traces);
}

TEST(ChromeTraceAnalysisTracks, OverlappingSpansGoToOverlapLanes) {
  // Two ranges of one finding overlap without nesting ([0,30) and [20,40) µs): a viewer would
  // mis-nest them on one track, so the second goes to "(overlap 1)". A third nested in the
  // first ([5,10)) stays on the first track.
  RankAnalysis ra;
  ra.steps.steps.push_back({1, "ProfilerStep#1", kBaseNs, kBaseNs + 100'000, kBaseNs, kBaseNs + 100'000});
  ra.steps.window_start_ns = kBaseNs;
  ra.steps.window_end_ns = kBaseNs + 100'000;
  Finding f;
  f.id = "overlapping";
  f.time_ranges = {{kBaseNs, kBaseNs + 30'000}, {kBaseNs + 20'000, kBaseNs + 40'000}, {kBaseNs + 5'000, kBaseNs + 10'000}};
  ra.findings.push_back(f);
  trace_export::AnalysisTracks tracks = trace_export::BuildAnalysisTracks(ra);
  std::map<std::string, std::vector<std::pair<TimeNs, TimeNs>>> by_track;
  for (const auto& track : tracks.tracks)
    for (const auto& s : track.spans) by_track[track.name].push_back({s.start_ns - kBaseNs, s.end_ns - kBaseNs});
  using Spans = std::vector<std::pair<TimeNs, TimeNs>>;
  EXPECT_EQ(by_track["finding overlapping"], (Spans{{0, 30'000}, {5'000, 10'000}}));
  EXPECT_EQ(by_track["finding overlapping (overlap 1)"], (Spans{{20'000, 40'000}}));
}

TEST(ChromeTraceErrors, AFailedStreamIsAnError) {
  std::vector<Trace> traces;
  traces.push_back(testing::MakeSmallTrace());
  JobAnalysis job = AnalyzeJob(traces, AnalysisOptions{});
  std::ostringstream out;
  out.setstate(std::ios::badbit);
  Status st = WriteChromeTrace(traces, job, out);
  EXPECT_FALSE(st.ok());
}

}  // namespace
}  // namespace chrome_trace_test
}  // namespace ampscope
