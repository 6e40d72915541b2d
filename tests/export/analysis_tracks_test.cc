// The analysis tracks' per-step and per-sync-point args are made when a writer asks for them
// (AnalysisTracks::Args), not held as json objects: on a trace of many steps those objects were
// the exporters' peak (issue 38 point 6: ~1.2 KB a step). The expected values are written by
// hand from the steps below.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "analyzers/results/analysis.h"
#include "export/analysis_tracks.h"

namespace ampscope {
namespace analysis_tracks_test {
namespace {

const trace_export::AnalysisTrack* FindTrack(const trace_export::AnalysisTracks& t, const std::string& name) {
  for (const trace_export::AnalysisTrack& track : t.tracks)
    if (track.name == name) return &track;
  return nullptr;
}

RankAnalysis StepsOnly(int steps) {
  RankAnalysis ra;
  ra.steps.source = StepSource::kProfilerStep;
  for (int i = 0; i < steps; ++i) {
    const TimeNs start = 1'000'000 + i * 10'000;
    ra.steps.steps.push_back({40 + i, "ProfilerStep#" + std::to_string(40 + i), start, start + 8'000, start, start + 9'500});
  }
  return ra;
}

TEST(AnalysisTracks, StepArgsAreMadeWhenAskedWithTheStepsNumbers) {
  RankAnalysis ra = StepsOnly(3);
  StepMetrics m;
  m.busy_pct = 62.5;
  m.kernel_busy_pct = 50.0;
  m.tensor_core_kernel_pct = 25.0;
  m.kernels = 7;
  m.syncs = 2;
  ra.per_step = {m, m};  // the third step has no numbers
  SyncPoint p;
  p.start_ns = 1'012'000;
  p.end_ns = 1'013'500;
  p.api = "cudaStreamSynchronize";
  p.tid = 9;
  p.step_index = 1;
  ra.syncs.points.push_back(p);

  const trace_export::AnalysisTracks t = trace_export::BuildAnalysisTracks(ra);
  const trace_export::AnalysisTrack* steps = FindTrack(t, "steps");
  ASSERT_NE(steps, nullptr);
  ASSERT_EQ(steps->spans.size(), 3u);
  const nlohmann::json second = t.Args(steps->spans[1].args);
  // Step 41: window 1,010,000..1,019,500 ns, CPU range 1,010,000..1,018,000 ns.
  EXPECT_EQ(second, (nlohmann::json{{"step_index", 1},
                                    {"number", 41},
                                    {"step_source", "profiler_step"},
                                    {"duration_us", 9.5},
                                    {"cpu_start_us", 1010.0},
                                    {"cpu_end_us", 1018.0},
                                    {"busy_pct", 62.5},
                                    {"kernel_busy_pct", 50.0},
                                    {"tensor_core_kernel_pct", 25.0},
                                    {"kernels", 7},
                                    {"syncs", 2}}));
  const nlohmann::json third = t.Args(steps->spans[2].args);
  EXPECT_EQ(third.size(), 6u) << third.dump();  // no per-step numbers: the step's own six keys
  EXPECT_EQ(third["number"], 42);

  const trace_export::AnalysisTrack* syncs = FindTrack(t, "sync points");
  ASSERT_NE(syncs, nullptr);
  ASSERT_EQ(syncs->spans.size(), 1u);
  EXPECT_EQ(t.Args(syncs->spans[0].args),
            (nlohmann::json{{"api", "cudaStreamSynchronize"}, {"tid", 9}, {"step_index", 1}, {"blocked_us", 1.5}}));
}

TEST(AnalysisTracks, ManyStepsHoldNoArgsOfTheirOwn) {
  // The stored args are the three idle kinds' whatever the number of steps; each step's span
  // still reads its own.
  const RankAnalysis few = StepsOnly(2), many = StepsOnly(5000);
  const trace_export::AnalysisTracks a = trace_export::BuildAnalysisTracks(few), b = trace_export::BuildAnalysisTracks(many);
  EXPECT_EQ(a.args.size(), b.args.size());
  EXPECT_LE(b.args.size(), 3u);
  const trace_export::AnalysisTrack* steps = FindTrack(b, "steps");
  ASSERT_NE(steps, nullptr);
  ASSERT_EQ(steps->spans.size(), 5000u);
  EXPECT_EQ(b.Args(steps->spans[4321].args)["number"], 40 + 4321);
  EXPECT_EQ(b.Args(steps->spans[4321].args)["step_index"], 4321);
}

}  // namespace
}  // namespace analysis_tracks_test
}  // namespace ampscope
