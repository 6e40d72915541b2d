// The dependency graph on the shared real traces (shared/traces/README.md): the unchanged
// replay reproduces every step; the critical path agrees with HTA's on the traces HTA could
// analyse (its goldens in the README, "HTA's critical path on shared traces"); every finding's
// saving is a replay that stays within the time its fix changes; the joint saving is one replay.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "analyzers/analyze.h"
#include "analyzers/context/context.h"
#include "analyzers/graph/graph_builder.h"
#include "analyzers/graph/transforms.h"
#include "analyzers/graph/whatif.h"
#include "analyzers/graph/critical_path_result.h"
#include "support/test_support.h"
#include "trace/model.h"
#include "trace/reader.h"

namespace ampscope {
namespace graph_shared_traces_test {
namespace {

// Every shared Kineto trace the suite lists, the others the README adds, and the nsys exports.
std::vector<std::string> AllSharedTraces() {
  std::vector<std::string> all = testing::SharedKinetoTraceKinds();
  for (const char* extra : {"traces/kineto/hta/df_index_resolver.json.gz", "traces/kineto/hta/sampled_rank-1.json.gz",
                            "traces/kineto/tracelens_mi300_resnet18/train_resnet18.json.gz",
                            "traces/kineto/pytorch_sandbox/trace-num-workers-8-batch-size-2056.json.gz",
                            "traces/kineto/py4ai/trace.json.gz",
                            "traces/kineto/tracelens_h100_owlv2/google_owlv2-large-patch14-ensemble__1016001.json.gz",
                            "traces/nsys/pipit/perlmutter-cloverleaf-cuda.sqlite",
                            "traces/nsys/pipit/saxpy-mpi-cuda_nsys_perlmutter0.sqlite"})
    all.push_back(extra);
  return all;
}

RankAnalysis Analyze(const std::string& relative, const AnalysisOptions& options = {}) {
  auto trace = ReadTrace(testing::SharedPath(relative));
  EXPECT_TRUE(trace.ok()) << relative << ": " << (trace.ok() ? "" : trace.status().message());
  if (!trace.ok()) return {};
  auto ra = AnalyzeTrace(trace.value(), options);
  EXPECT_TRUE(ra.ok()) << relative;
  return ra.ok() ? std::move(ra).value() : RankAnalysis{};
}

std::optional<double> Evidence(const Finding& f, const std::string& key) {
  for (const Field& x : f.evidence) {
    if (x.key != key) continue;
    if (const auto* d = std::get_if<double>(&x.value)) return *d;
    if (const auto* i = std::get_if<int64_t>(&x.value)) return static_cast<double>(*i);
  }
  return std::nullopt;
}
bool HasEvidence(const Finding& f, const std::string& key) {
  for (const Field& x : f.evidence)
    if (x.key == key) return true;
  return false;
}

// Every analysed step of `ra` replays within 2% of its measured duration, and its critical path
// covers it. Returns the worst step's error (%).
double ExpectStepsReplayed(const RankAnalysis& ra) {
  double worst = 0;
  EXPECT_NE(ra.critical_path, nullptr);
  if (ra.critical_path == nullptr) return worst;
  const graph::CriticalPathResult& p = *ra.critical_path;
  EXPECT_TRUE(p.available) << p.reason;
  EXPECT_FALSE(p.steps.empty());
  for (const graph::CriticalPathStep& s : p.steps) {
    EXPECT_GT(s.measured_ns, 0) << "step " << s.number;
    if (s.measured_ns <= 0) continue;
    const double err = 100.0 * std::fabs(static_cast<double>(s.replayed_ns - s.measured_ns)) / static_cast<double>(s.measured_ns);
    EXPECT_LE(err, 2.0) << "step " << s.number;
    worst = std::max(worst, err);
    // The path covers the step: its length is the replayed step.
    EXPECT_EQ(s.path.length_ns, s.replayed_ns) << "step " << s.number;
  }
  EXPECT_LE(p.replay_error_pct, 2.0);
  return worst;
}

TEST(GraphSharedTraces, ReplayReproducesEveryStepWithinTwoPercent) {
  AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=...)");
  double worst = 0;
  std::string worst_trace;
  for (const std::string& path : AllSharedTraces()) {
    SCOPED_TRACE(path);
    const double err = ExpectStepsReplayed(Analyze(path));
    if (err > worst) worst = err, worst_trace = path;
  }
  std::printf("worst replay error over the shared traces: %.4f%% (%s)\n", worst, worst_trace.c_str());
}

// The step numbered `number` of the unchanged replay (the steps are read by value), or none.
std::optional<graph::CriticalPathStep> StepNumber(const RankAnalysis& ra, int64_t number) {
  for (const graph::CriticalPathStep& s : ra.critical_path->steps)
    if (s.number == number) return s;
  return std::nullopt;
}

const char kDdpResNet[] = "traces/kineto/hta/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz";        // ProfilerStep#101..105
const char kRecsys[] = "traces/kineto/hta/a100_16rank_recsys_rank0.json.gz";                         // #550..554
const char kResNet50[] = "traces/kineto/tb_plugin/worker0.1623143089861.pt.trace.json.gz";          // #5..10
const char kDfIndex[] = "traces/kineto/hta/df_index_resolver.json.gz";                               // #2..6
// How much more a one-step window may save than the same step in the whole run's replay (points).
constexpr double kWindowSavingTolerancePct = 2.0;

// A window that starts after the trace's first step (`analyze --steps N..M`: the CLI sets
// AnalysisOptions::first_step/last_step) replays each of its steps as measured. Its first step
// starts where the step before it ended (the GPU lagged the host there), not at its CPU start:
// before the replay took that from the measured step, these windows replayed with errors of
// 68.9% (rank-0 --steps 102), 93.8% (103..105), 74.3% (recsys 552..554) and 7.2% (ResNet50 7..9).
TEST(GraphSharedTraces, AWindowThatStartsMidTraceReplaysEveryStep) {
  AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/ not available");
  struct Window {
    const char* path;
    int64_t first, last;
  };
  const Window windows[] = {{kDdpResNet, 102, 102}, {kDdpResNet, 103, 105}, {kRecsys, 552, 554},
                            {kResNet50, 7, 9},     {kDfIndex, 4, 5}};
  for (const Window& w : windows) {
    SCOPED_TRACE(std::string(w.path) + " --steps " + std::to_string(w.first) + ".." + std::to_string(w.last));
    AnalysisOptions options;
    options.first_step = w.first;
    options.last_step = w.last;
    const RankAnalysis ra = Analyze(w.path, options);
    ExpectStepsReplayed(ra);
    ASSERT_NE(ra.critical_path, nullptr);
    ASSERT_EQ(ra.critical_path->steps.size(), static_cast<size_t>(w.last - w.first + 1));
    EXPECT_EQ(ra.critical_path->steps[0].number, w.first);
    // The same steps as in the whole trace's analysis, measured and replayed alike.
    const RankAnalysis all = Analyze(w.path);
    for (const graph::CriticalPathStep& s : ra.critical_path->steps) {
      const std::optional<graph::CriticalPathStep> same = StepNumber(all, s.number);
      ASSERT_TRUE(same.has_value()) << "step " << s.number;
      EXPECT_EQ(s.measured_ns, same->measured_ns) << "step " << s.number;
      EXPECT_EQ(s.replayed_ns, same->replayed_ns) << "step " << s.number;
    }
  }
}

// A one-step window that starts mid-trace saves no more than the same fix saves on that step in
// the whole trace's replay (within kWindowSavingTolerancePct): the GPU work queued before the
// window no longer hides the step's host work from the fix (whatif.h, the drained start and the
// steady-state measure). The fix: every kernel of the analysed window at half its time. With the
// measured start kept in the fixed replays, the DDP ResNet's `analyze --steps 102` gave
// amp_not_in_use 68.2% while the whole run gave 17.6% (33.3% once back-pressure is modelled).
TEST(GraphSharedTraces, AOneStepWindowSavesWhatTheStepSavesInTheWholeRun) {
  AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/ not available");
  // Two fixes: every kernel of the window at half its time (GPU work), and its communication
  // kernels removed (exposed_communication's fix).
  auto half_of_the_window = [](const RankContext& ctx) {
    std::vector<uint32_t> k;
    for (uint32_t i = 0; i < ctx.trace().kernels.size(); ++i)
      if (ctx.kernels().in_window[i]) k.push_back(i);
    return graph::ScaleKernels(ctx.trace(), k, 0.5, "every kernel at half");
  };
  auto no_communication = [](const RankContext& ctx) {
    std::vector<uint32_t> k;
    for (uint32_t i = 0; i < ctx.trace().kernels.size(); ++i)
      if (ctx.kernels().in_window[i] && ctx.kernel_class(i).category == KernelCategory::kCommunication) k.push_back(i);
    return graph::ScaleKernels(ctx.trace(), k, 0.0, "communication kernels removed");
  };
  for (const char* path : {kDdpResNet, kRecsys, kResNet50, kDfIndex}) {
    SCOPED_TRACE(path);
    auto trace = ReadTrace(testing::SharedPath(path));
    ASSERT_TRUE(trace.ok());
    const Trace& t = trace.value();
    const RankContext all(t, {});
    const graph::Transform all_half = half_of_the_window(all), all_comm = no_communication(all);
    const graph::WhatIfResult whole = graph::RunWhatIf(all, {&all_half, &all_comm}, true);
    ASSERT_TRUE(whole.path->available);
    ASSERT_EQ(whole.outcomes[0].step_saved_ns.size(), whole.path->steps.size());
    for (size_t s = 1; s < whole.path->steps.size(); ++s) {
      const graph::CriticalPathStep& step = whole.path->steps[s];
      SCOPED_TRACE("--steps " + std::to_string(step.number));
      AnalysisOptions one;
      one.first_step = one.last_step = step.number;
      const RankContext ctx(t, one);
      const graph::Transform half = half_of_the_window(ctx), comm = no_communication(ctx);
      const graph::WhatIfResult w = graph::RunWhatIf(ctx, {&half, &comm});
      ASSERT_EQ(w.path->steps.size(), 1u);
      ASSERT_EQ(w.path->measured_window_ns, step.measured_ns);
      for (size_t f = 0; f < 2; ++f) {
        const double in_window = w.SavingPct(f);
        const double in_whole = 100.0 * static_cast<double>(whole.outcomes[f].step_saved_ns[s]) / static_cast<double>(step.measured_ns);
        std::printf("%s step %lld, %s: saving %.2f%% as a one-step window, %.2f%% in the whole run\n", path,
                    static_cast<long long>(step.number), f == 0 ? "kernels at half" : "no communication", in_window, in_whole);
        // A step of the whole run can give back what the step before it saved (it starts sooner
        // and still ends with its host): its own figure can be negative, a window's never is.
        EXPECT_LE(in_window, std::max(0.0, in_whole) + kWindowSavingTolerancePct) << (f == 0 ? "kernels at half" : "no communication");
        // On the GPU-bound runs it saves no less either: the GPU's chain keeps the idle the
        // replay keeps (slack no dependency explains), so the step's GPU work is not measured
        // as if it ran back to back. Without that slack, the recsys one-step windows saved
        // 0.2-0.5% with every kernel at half where the whole run saves 8.4% on the same steps.
        if (std::string(path) == kDdpResNet || std::string(path) == kRecsys) {
          EXPECT_GE(in_window, in_whole - kWindowSavingTolerancePct) << (f == 0 ? "kernels at half" : "no communication");
        }
      }
    }
  }
}

// The default window leaves out leading warm-up steps (analyzers/integrity/warmup.h). None of the
// shared traces has one, so each trace's first ProfilerStep range is made to start earlier by 3x
// the span of all its steps: its duration is then more than 1.5x the median and 1.2x the longest
// of the others, a warm-up step by FindWarmupSteps's rule. The analysed window starts at the
// second step, where the first one (not replayed) ended.
TEST(GraphSharedTraces, AWindowWhoseFirstStepIsWarmUpReplaysEveryStep) {
  AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/ not available");
  for (const char* path : {kDdpResNet, kRecsys, kResNet50, kDfIndex}) {
    SCOPED_TRACE(path);
    auto trace = ReadTrace(testing::SharedPath(path));
    ASSERT_TRUE(trace.ok());
    Trace& t = trace.value();
    Range* first = nullptr;
    TimeNs lo = std::numeric_limits<TimeNs>::max(), hi = std::numeric_limits<TimeNs>::min();
    for (Range& r : t.ranges) {
      if (t.str(r.name).rfind("ProfilerStep#", 0) != 0) continue;
      lo = std::min(lo, r.start_ns);
      hi = std::max(hi, r.end_ns);
      if (first == nullptr || r.start_ns < first->start_ns) first = &r;
    }
    ASSERT_NE(first, nullptr);
    const std::string first_name(t.str(first->name));
    first->start_ns -= 3 * (hi - lo);
    FinalizeTrace(t);
    auto ra = AnalyzeTrace(t, {});
    ASSERT_TRUE(ra.ok());
    ASSERT_EQ(ra.value().steps.flagged.size(), 1u);
    const FlaggedStep& warm = ra.value().steps.flagged.front();
    EXPECT_EQ(warm.kind, StepFlagKind::kWarmup);
    EXPECT_TRUE(warm.excluded);
    EXPECT_EQ(warm.window.name, first_name);
    ASSERT_FALSE(ra.value().steps.steps.empty());
    EXPECT_GT(ra.value().steps.steps.front().number, warm.window.number);
    ExpectStepsReplayed(ra.value());
  }
}

// The V100 DDP trace is GPU-bound with the host a launch queue ahead: 206 ms of its 4,350
// cudaLaunchKernel calls are waits for the queue (shared/traces/README.md). The back-pressured
// calls (docs/whatif.md) against tests/analyzers/back_pressure_golden.py over the raw JSON (the
// same rule, in Python): "back-pressured calls: 912, total 229438.214 us".
TEST(GraphSharedTraces, BackPressuredLaunchesOfTheV100Trace) {
  AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/ not available");
  auto trace = ReadTrace(testing::SharedPath(kDdpResNet));
  ASSERT_TRUE(trace.ok());
  const Trace& t = trace.value();
  const RankContext ctx(t, {});
  graph::GraphBuilder builder(ctx);
  TimeNs total = 0;
  for (const auto& [call, own] : builder.back_pressured()) {
    total += t.api_calls[call].end_ns - t.api_calls[call].start_ns;
    EXPECT_LT(own, t.api_calls[call].end_ns - t.api_calls[call].start_ns);
  }
  EXPECT_EQ(builder.back_pressured().size(), 912u);
  EXPECT_NEAR(static_cast<double>(total) / 1e3, 229438.214, 1.0);
  // The unchanged replay still gives every step back, and AMP now also shortens the host's
  // waits: the saving is more than the 17.57% it was with those waits kept as host time.
  const RankAnalysis ra = Analyze(kDdpResNet);
  ExpectStepsReplayed(ra);
  for (const Finding& f : ra.findings) {
    if (f.id == "amp_not_in_use") {
      EXPECT_GT(f.est_saving_pct, 17.57);
    }
  }
}

// DeepSeek-V3's rank 0 (one 1F1B step on an H800): the main thread runs far ahead of the GPU
// (a median 18.1 ms from a launch call's end to its activity's start, 579 activities), except
// where DeepEP's dispatch polls host memory for the token counts that notify_dispatch writes: no
// runtime call records those waits. tests/analyzers/hidden_wait_golden.py over the raw JSON (the
// rule of docs/whatif.md, in Python) finds the four, gaps of 2,122, 20,226, 21,294 and 22,718 µs
// that end 22–64 µs before a notify_dispatch kernel ends. Held as host time they put 80.8% of the
// step's critical path on the host (104.7 ms), which a host that far ahead cannot be; waited
// for, the path runs through the GPU: DeepEP's kernels and the compute stream.
TEST(GraphSharedTraces, HiddenWaitsOfTheDeepSeekTrace) {
  AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/ not available");
  const RankAnalysis ra = Analyze("traces/kineto/deepseek/train.json.gz");
  ASSERT_NE(ra.critical_path, nullptr);
  const graph::CriticalPathResult& p = *ra.critical_path;
  EXPECT_EQ(p.hidden_waits, 4u);
  ExpectStepsReplayed(ra);
  const auto& ns = p.window.ns;
  auto at = [&](graph::PathCategory c) { return static_cast<double>(ns[static_cast<size_t>(c)]) / static_cast<double>(p.window.length_ns); };
  EXPECT_LT(at(graph::PathCategory::kHostBound) + at(graph::PathCategory::kUnrecordedHost), 0.10);
  EXPECT_GT(at(graph::PathCategory::kCommunication) + at(graph::PathCategory::kGpuCompute), 0.90);
}

// The same V100 run seen through three windows: what AMP saves is a property of its steps, not
// of where the window starts. The main thread waits in its `## backward ##` range for the
// autograd thread (docs/whatif.md, joins and forks); held as host time, that wait kept the AMP
// step near the measured one and the windows disagreed (33.3%, 25.2% and 23.4%). The step is
// GPU-bound (HTA: 97.87% gpu_compute_bound on step 102, shared/traces/README.md), so with AMP it
// can be no shorter than the AMP transform's kernel time per step.
TEST(GraphSharedTraces, AmpSavingOfTheV100RunIsTheSameInEveryWindow) {
  AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/ not available");
  AnalysisOptions step_102, steps_103_105;
  step_102.first_step = step_102.last_step = 102;
  steps_103_105.first_step = 103;
  steps_103_105.last_step = 105;
  std::vector<double> savings;
  for (const AnalysisOptions& o : {AnalysisOptions{}, step_102, steps_103_105}) {
    const RankAnalysis ra = Analyze(kDdpResNet, o);
    const Finding* amp = nullptr;
    for (const Finding& f : ra.findings)
      if (f.id == "amp_not_in_use") amp = &f;
    ASSERT_NE(amp, nullptr);
    const std::optional<double> whatif_kernel_us = Evidence(*amp, "whatif_kernel_time_per_step_us");
    ASSERT_TRUE(whatif_kernel_us.has_value());
    const double amp_step_us = ra.step_stats.mean_us * (1 - amp->est_saving_pct / 100);
    EXPECT_GE(amp_step_us, *whatif_kernel_us * 0.98) << "first step " << o.first_step.value_or(0);
    savings.push_back(amp->est_saving_pct);
  }
  const auto [lo, hi] = std::minmax_element(savings.begin(), savings.end());
  EXPECT_LE(*hi - *lo, 2.0) << savings[0] << "% " << savings[1] << "% " << savings[2] << "%";
}

// HTA at commit f4d0062, critical_path_analysis(rank=0, "ProfilerStep#102", 0).summary():
// gpu_compute_bound 97.87%, gpu_kernel_kernel_overhead 2.13% (shared/traces/README.md).
TEST(GraphSharedTraces, CriticalPathAgreesWithHtaOnTheDdpResNetStep) {
  AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/ not available");
  const RankAnalysis ra = Analyze("traces/kineto/hta/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz");
  ASSERT_NE(ra.critical_path, nullptr);
  const std::optional<graph::CriticalPathStep> s = StepNumber(ra, 102);
  ASSERT_TRUE(s.has_value());
  const graph::HtaBoundBy h = graph::HtaBoundByOf(s->path);
  EXPECT_NEAR(h.gpu_compute_bound, 97.87, 5.0);
  EXPECT_NEAR(h.gpu_kernel_kernel_overhead, 2.13, 5.0);
  EXPECT_NEAR(h.cpu_bound, 0.0, 5.0);
  EXPECT_NEAR(h.gpu_kernel_launch_overhead, 0.0, 5.0);
}

// HTA: critical_path_analysis(rank=0, "ProfilerStep#100", 0): cpu_bound 98.09%,
// gpu_compute_bound 1.49%, gpu_kernel_launch_overhead 0.41%.
TEST(GraphSharedTraces, CriticalPathAgreesWithHtaOnTheEventSyncTrace) {
  AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/ not available");
  const RankAnalysis ra = Analyze("traces/kineto/hta/event_sync_trace.json.gz");
  ASSERT_NE(ra.critical_path, nullptr);
  const std::optional<graph::CriticalPathStep> s = StepNumber(ra, 100);
  ASSERT_TRUE(s.has_value());
  const graph::HtaBoundBy h = graph::HtaBoundByOf(s->path);
  EXPECT_NEAR(h.cpu_bound, 98.09, 5.0);
  EXPECT_NEAR(h.gpu_compute_bound, 1.49, 5.0);
  EXPECT_NEAR(h.gpu_kernel_launch_overhead, 0.41, 5.0);
}

// HTA: critical_path_analysis(rank=0, "[param|pytorch.model.alex_net|0|0|0|measure|forward]", 1):
// cpu_bound 99.78%, gpu_compute_bound 0.21%. Instance 1 is the inner of the two nested ranges of
// that name; the outer one is removed so that the inner is the analysed step.
TEST(GraphSharedTraces, CriticalPathAgreesWithHtaOnTheParamBenchmark) {
  AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/ not available");
  auto trace = ReadTrace(testing::SharedPath("traces/kineto/hta/benchmark_result_493459_1694039959_trace.json.gz"));
  ASSERT_TRUE(trace.ok());
  Trace& t = trace.value();
  const std::string name = "[param|pytorch.model.alex_net|0|0|0|measure|forward]";
  std::vector<size_t> instances;
  for (size_t i = 0; i < t.ranges.size(); ++i)
    if (t.str(t.ranges[i].name) == name) instances.push_back(i);
  ASSERT_EQ(instances.size(), 2u);
  t.ranges.erase(t.ranges.begin() + static_cast<std::ptrdiff_t>(instances[0]));
  AnalysisOptions options;
  options.step_range_pattern = "\\[param\\|pytorch\\.model\\.alex_net\\|0\\|0\\|0\\|measure\\|forward\\]";
  auto ra = AnalyzeTrace(t, options);
  ASSERT_TRUE(ra.ok());
  ASSERT_NE(ra.value().critical_path, nullptr);
  ASSERT_EQ(ra.value().critical_path->steps.size(), 1u);
  const graph::HtaBoundBy h = graph::HtaBoundByOf(ra.value().critical_path->steps[0].path);
  EXPECT_NEAR(h.cpu_bound, 99.78, 5.0);
  EXPECT_NEAR(h.gpu_compute_bound, 0.21, 5.0);
}

TEST(GraphSharedTraces, SavingsAreReplayedAndBoundedByWhatTheFixChanges) {
  AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/ not available");
  for (const std::string& path : AllSharedTraces()) {
    SCOPED_TRACE(path);
    const RankAnalysis ra = Analyze(path);
    double sum = 0;
    for (const Finding& f : ra.findings) {
      sum += f.est_saving_pct;
      if (!HasEvidence(f, "whatif_transform")) {
        // Only the findings without a time saving have no transform: a risk, or advice.
        EXPECT_EQ(f.est_saving_pct, 0.0) << f.id;
        continue;
      }
      EXPECT_NE(f.recommendation.find("Saving replayed"), std::string::npos) << f.id;
      const std::optional<double> changed = Evidence(f, "whatif_changed_time_us");
      ASSERT_TRUE(changed.has_value()) << f.id;
      const double bound = 100.0 * *changed * 1e3 / static_cast<double>(ra.gpu.window_ns);
      EXPECT_LE(f.est_saving_pct, bound + 0.01) << f.id << " changes " << *changed << " us";
    }
    EXPECT_GE(ra.joint_saving_pct, 0.0);
    EXPECT_LE(ra.joint_saving_pct, 100.0);
    EXPECT_LE(ra.joint_saving_pct, sum + 0.01);
  }
}

// The DDP V100 trace: elementwise, reduction and cast kernels are 11.7% of the window
// (shared/traces/README.md): no fusion of them can be worth more.
TEST(GraphSharedTraces, FusionIsNeverWorthMoreThanTheMemoryBoundKernels) {
  AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/ not available");
  const RankAnalysis ra = Analyze("traces/kineto/hta/df_index_resolver.json.gz");
  const auto& by_cat = ra.gpu.kernel_time_by_category_ns;
  const TimeNs fusable = by_cat[static_cast<size_t>(KernelCategory::kElementwise)] +
                         by_cat[static_cast<size_t>(KernelCategory::kReduction)] + by_cat[static_cast<size_t>(KernelCategory::kCast)];
  const double fusable_pct = 100.0 * static_cast<double>(fusable) / static_cast<double>(ra.gpu.window_ns);
  EXPECT_NEAR(fusable_pct, 11.7, 1.0);  // the README's figure, from Python over the raw JSON
  for (const Finding& f : ra.findings) {
    if (f.id == "unfused_elementwise_chains") {
      EXPECT_LE(f.est_saving_pct, fusable_pct) << f.id;
    }
  }
}

// An A100 run already on TF32 Tensor Cores: AMP can at most halve its TF32 matmul time (TF32 156
// vs fp16 312 TFLOP/s) and its memory-bound kernels; the replayed saving stays below that.
TEST(GraphSharedTraces, AmpOnATf32RunSavesAtMostWhatItChanges) {
  AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/ not available");
  const RankAnalysis ra = Analyze("traces/kineto/hta/nccl_data.json.gz");
  for (const Finding& f : ra.findings) {
    if (f.id != "amp_not_in_use") continue;
    const std::optional<double> measured = Evidence(f, "kernel_time_per_step_us");
    const std::optional<double> whatif = Evidence(f, "whatif_kernel_time_per_step_us");
    ASSERT_TRUE(measured && whatif);
    EXPECT_GT(*measured, 0);
    EXPECT_LT(*whatif, *measured);
    EXPECT_GE(*whatif, *measured / 2.0 - 1.0);  // no kernel gains more than the TF32 / fp16 ratio
    const double per_step_saved = (*measured - *whatif) * static_cast<double>(ra.steps.steps.size());
    EXPECT_LE(f.est_saving_pct, 100.0 * per_step_saved * 1e3 / static_cast<double>(ra.gpu.window_ns) + 0.01);
  }
}

}  // namespace
}  // namespace graph_shared_traces_test
}  // namespace ampscope
