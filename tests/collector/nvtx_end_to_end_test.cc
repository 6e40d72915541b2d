// End to end on this machine (no GPU, no driver): the nvtx3 test program under
// `ampscope record`, and the injection library inside a program that has no driver.
// Expected ranges come from what tests/collector_programs/nvtx_steps.cc does (its header
// comment lists it); expected output from running the same program without the library.
#include <gtest/gtest.h>

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "test_subprocess.h"
#include "support/test_support.h"
#include "trace/formats/amptrace/amptrace_reader.h"

namespace ampscope {
namespace nvtx_end_to_end_test {
namespace {

using testing::BinaryPath;
using testing::RunProcess;

const std::string kAmpscope = BinaryPath("cli/ampscope");
const std::string kNvtxSteps = BinaryPath("tests/collector_programs/ampscope_nvtx_steps");
const std::string kNoDriverHost = BinaryPath("tests/collector_programs/ampscope_no_driver_host");
const std::string kInjectLib = BinaryPath("collector/libampscope_inject.so");

// The variables a developer's shell might carry that would change what is recorded.
const std::vector<std::string> kClean = {"AMPSCOPE_OUTPUT_DIR", "AMPSCOPE_STEPS", "AMPSCOPE_CAPTURE_NVTX",
                                         "CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH", "RANK",
                                         "LOCAL_RANK", "WORLD_SIZE", "AMPSCOPE_INJECT_PATH"};

std::vector<std::string> AmptraceFiles(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n.size() > 9 && n.substr(n.size() - 9) == ".amptrace") out.push_back(dir + "/" + n);
    }
    closedir(d);
  }
  return out;
}

std::vector<const Range*> Named(const Trace& t, std::string_view name) {
  std::vector<const Range*> out;
  for (const Range& r : t.ranges)
    if (t.str(r.name) == name) out.push_back(&r);
  return out;
}

Trace RecordSteps(const std::vector<std::string>& record_options, testing::ProcessResult* result) {
  std::string dir = testing::MakeTempDir("e2e") + "/out";
  std::vector<std::string> argv = {kAmpscope, "record", "-o", dir};
  argv.insert(argv.end(), record_options.begin(), record_options.end());
  argv.push_back("--");
  argv.push_back(kNvtxSteps);
  *result = RunProcess(argv, {}, kClean);
  std::vector<std::string> files = AmptraceFiles(dir);
  EXPECT_EQ(files.size(), 1u) << result->err;
  if (files.empty()) return Trace();
  auto t = ReadAmptrace(files[0]);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? std::move(t.value()) : Trace();
}

TEST(NvtxEndToEndTest, RecordsStepsWithNestedRanges) {
  testing::ProcessResult run;
  Trace t = RecordSteps({}, &run);
  EXPECT_EQ(run.exit_code(), 0) << run.err;
  EXPECT_EQ(run.out, "nvtx_steps done\n");  // the program's own output, untouched

  auto steps = Named(t, "step");
  auto forwards = Named(t, "forward");
  auto backwards = Named(t, "backward");
  ASSERT_EQ(steps.size(), 5u);
  ASSERT_EQ(forwards.size(), 5u);
  ASSERT_EQ(backwards.size(), 5u);
  for (size_t i = 0; i < 5; ++i) {
    const Range* s = steps[i];
    EXPECT_EQ(s->depth, 0);
    EXPECT_EQ(s->kind, RangeKind::kNvtx);
    EXPECT_EQ(s->tid, steps[0]->tid);
    EXPECT_GE(s->end_ns - s->start_ns, 4000000) << "each step sleeps 2 ms twice";
    // forward then backward, both nested in this step, on the same thread.
    const Range* f = forwards[i];
    const Range* b = backwards[i];
    EXPECT_EQ(f->depth, 1);
    EXPECT_EQ(b->depth, 1);
    EXPECT_EQ(f->tid, s->tid);
    EXPECT_GE(f->start_ns, s->start_ns);
    EXPECT_LE(f->end_ns, b->start_ns);
    EXPECT_LE(b->end_ns, s->end_ns);
    if (i > 0) {
      EXPECT_GE(s->start_ns, steps[i - 1]->end_ns);
    }
  }
  auto marks = Named(t, "checkpoint");
  ASSERT_EQ(marks.size(), 1u);
  EXPECT_EQ(marks[0]->kind, RangeKind::kNvtxMark);
  EXPECT_GE(marks[0]->start_ns, steps[2]->end_ns);
  EXPECT_LE(marks[0]->start_ns, steps[3]->start_ns);
  auto prefetch = Named(t, "prefetch");
  ASSERT_EQ(prefetch.size(), 1u);
  EXPECT_NE(prefetch[0]->tid, steps[0]->tid);
  EXPECT_GE(prefetch[0]->end_ns - prefetch[0]->start_ns, 3000000);
  auto io = Named(t, "io");
  ASSERT_EQ(io.size(), 1u);
  EXPECT_EQ(t.str(io[0]->domain), "ampscope_test");
  EXPECT_EQ(t.processes.at(t.metadata.pid).thread_names.at(steps[0]->tid), "trainer");

  EXPECT_EQ(t.metadata.format, SourceFormat::kAmptrace);
  EXPECT_EQ(t.metadata.extra.at("clean_end"), "true");
  EXPECT_NE(t.metadata.command_line.find("ampscope_nvtx_steps"), std::string::npos);
  EXPECT_EQ(t.diagnostics.Count("no_cuda_activity"), 1u);  // no driver, and the program has no CUDA
  EXPECT_TRUE(t.kernels.empty());
}

TEST(NvtxEndToEndTest, SessionJsonDescribesTheRun) {
  std::string dir = testing::MakeTempDir("e2e") + "/out";
  auto run = RunProcess({kAmpscope, "record", "-o", dir, "--", kNvtxSteps, "5"}, {}, kClean);
  EXPECT_EQ(run.exit_code(), 5);
  auto session = nlohmann::json::parse(testing::ReadFile(dir + "/session.json"));
  EXPECT_EQ(session["schema"], "ampscope.session/1");
  EXPECT_EQ(session["exit_code"], 5);
  EXPECT_TRUE(session["signal"].is_null());
  EXPECT_EQ(session["command"], nlohmann::json({kNvtxSteps, "5"}));
  ASSERT_EQ(session["files"].size(), 1u);
  const auto& f = session["files"][0];
  EXPECT_EQ(f["clean_end"], true);
  EXPECT_EQ(f["dropped_records"], 0);
  EXPECT_EQ(f["records_by_type"]["nvtx"], 35);  // 15 ranges x 2 + start/end 2 + mark 1 + domain 2
  EXPECT_EQ(session["total_dropped_records"], 0);
  bool warned = false;
  for (const auto& w : session["warnings"]) warned |= w["code"] == "no_cuda_activity";
  EXPECT_TRUE(warned);
}

TEST(NvtxEndToEndTest, StepsWindowRecordsOnlyThoseSteps) {
  testing::ProcessResult run;
  Trace t = RecordSteps({"--steps", "1..2"}, &run);
  EXPECT_EQ(run.exit_code(), 0);
  EXPECT_EQ(Named(t, "step").size(), 2u);
  EXPECT_EQ(Named(t, "forward").size(), 2u);
  EXPECT_EQ(Named(t, "backward").size(), 2u);
  EXPECT_EQ(Named(t, "checkpoint").size(), 0u);  // after step 2 closed the window
  EXPECT_EQ(Named(t, "io").size(), 0u);
}

TEST(NvtxEndToEndTest, CaptureRangeRecordsTheFirstOccurrence) {
  testing::ProcessResult run;
  Trace t = RecordSteps({"--capture-range=nvtx", "--nvtx-capture=step"}, &run);
  EXPECT_EQ(run.exit_code(), 0);
  EXPECT_EQ(Named(t, "step").size(), 1u);
  EXPECT_EQ(Named(t, "forward").size(), 1u);
  EXPECT_EQ(Named(t, "backward").size(), 1u);
}

TEST(NvtxEndToEndTest, CustomStepRangeName) {
  testing::ProcessResult run;
  // The window runs from the start of the first "forward" to the end of the second: it holds
  // forward #0, backward #0 and forward #1; backward #1 comes after the window closed.
  Trace t = RecordSteps({"--steps", "0..1", "--step-range-name", "forward"}, &run);
  EXPECT_EQ(run.exit_code(), 0);
  EXPECT_EQ(Named(t, "forward").size(), 2u);
  EXPECT_EQ(Named(t, "backward").size(), 1u);
}

#if __has_include("analyzers/analyze.h")
TEST(NvtxEndToEndTest, AnalyzeFindsNvtxSteps) {
  std::string dir = testing::MakeTempDir("e2e") + "/out";
  auto run = RunProcess({kAmpscope, "record", "-o", dir, "--", kNvtxSteps}, {}, kClean);
  ASSERT_EQ(run.exit_code(), 0);
  std::vector<std::string> files = AmptraceFiles(dir);
  ASSERT_EQ(files.size(), 1u);
  const std::string report = dir + "/report.json";
  // --include-warmup: on a loaded machine step 0 can run 1.5x the others and be left out as
  // warm-up (rightly: that check is tested on its own); here every NVTX step must be found.
  auto analyze = RunProcess({kAmpscope, "analyze", files[0], "-o", report, "--quiet", "--include-warmup"});
  ASSERT_EQ(analyze.exit_code(), 0) << analyze.err;
  auto json = nlohmann::json::parse(testing::ReadFile(report));
  EXPECT_EQ(json["steps"]["source"], "nvtx");
  EXPECT_EQ(json["steps"]["count"], 5);
  EXPECT_EQ(json["inputs"][0]["format"], "amptrace");
}
#endif

// --- No driver -------------------------------------------------------------------------

std::vector<std::string> Lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(NoDriverTest, InjectionLibraryIsHarmless) {
  auto plain = RunProcess({kNoDriverHost}, {}, kClean);
  ASSERT_EQ(plain.exit_code(), 7);
  std::string dir = testing::MakeTempDir("nodriver");
  auto injected = RunProcess({kNoDriverHost, kInjectLib},
                             {{"AMPSCOPE_OUTPUT_DIR", dir},
                              {"CUDA_INJECTION64_PATH", kInjectLib},
                              {"NVTX_INJECTION64_PATH", kInjectLib}},
                             kClean);
  EXPECT_EQ(injected.exit_code(), plain.exit_code());
  EXPECT_EQ(injected.out, plain.out);
  // stderr: the program's own lines unchanged, plus at most one line from ampscope.
  std::vector<std::string> ours, theirs;
  for (const std::string& l : Lines(injected.err)) (l.rfind("ampscope:", 0) == 0 ? ours : theirs).push_back(l);
  EXPECT_EQ(theirs, Lines(plain.err));
  ASSERT_LE(ours.size(), 1u);
  // The NVTX range is still recorded, with the reason CUDA activity is not.
  std::vector<std::string> files = AmptraceFiles(dir);
  ASSERT_EQ(files.size(), 1u);
  auto t = ReadAmptrace(files[0]);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(Named(t.value(), "host_range").size(), 1u);
  EXPECT_EQ(t->diagnostics.Count("cupti_unavailable") + t->diagnostics.Count("cupti_load_failed"), 1u);
  EXPECT_EQ(t->metadata.extra.at("clean_end"), "true");
}

TEST(NoDriverTest, UnwritableOutputDirectoryIsHarmless) {
  auto plain = RunProcess({kNoDriverHost}, {}, kClean);
  auto injected = RunProcess({kNoDriverHost, kInjectLib},
                             {{"AMPSCOPE_OUTPUT_DIR", "/nonexistent/ampscope/dir"},
                              {"NVTX_INJECTION64_PATH", kInjectLib}},
                             kClean);
  EXPECT_EQ(injected.exit_code(), plain.exit_code());
  EXPECT_EQ(injected.out, plain.out);
  size_t ours = 0;
  for (const std::string& l : Lines(injected.err)) ours += l.rfind("ampscope:", 0) == 0;
  EXPECT_EQ(ours, 1u) << injected.err;
}

TEST(NoDriverTest, DisabledCollectorWritesNothing) {
  std::string dir = testing::MakeTempDir("nodriver");
  auto injected = RunProcess({kNvtxSteps}, {{"AMPSCOPE_OUTPUT_DIR", dir}, {"NVTX_INJECTION64_PATH", kInjectLib},
                                            {"AMPSCOPE_DISABLE", "1"}},
                             kClean);
  EXPECT_EQ(injected.exit_code(), 0);
  EXPECT_EQ(injected.err, "");
  EXPECT_TRUE(AmptraceFiles(dir).empty());
}

}  // namespace
}  // namespace nvtx_end_to_end_test
}  // namespace ampscope
